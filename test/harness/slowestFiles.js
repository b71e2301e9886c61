// A jest reporter (jest.config.js `reporters`): at the end of a run, the 15 slowest test files with their seconds
// and jest project, so that a slow run names where its time went. Plain JavaScript: jest loads reporters untransformed.
const { relative } = require('node:path');

const SHOWN = 15;

class SlowestFiles {
	constructor(globalConfig) {
		this.rootDir = globalConfig.rootDir;
		this.files = [];
	}

	onTestResult(test, result) {
		const { start, end } = result.perfStats;
		const project = test.context.config.displayName?.name ?? '';
		this.files.push({ path: relative(this.rootDir, result.testFilePath), project, seconds: (end - start) / 1000 });
	}

	onRunComplete() {
		if (this.files.length === 0) return;
		const slowest = [...this.files].sort((a, b) => b.seconds - a.seconds).slice(0, SHOWN);
		const width = Math.max(...slowest.map((file) => file.project.length));
		const lines = slowest.map(
			(file) => `  ${file.seconds.toFixed(0).padStart(5)} s  ${file.project.padEnd(width)}  ${file.path}`,
		);
		process.stdout.write(`\nThe ${slowest.length} slowest test files:\n${lines.join('\n')}\n`);
	}
}

module.exports = SlowestFiles;
