/**
 * `npm run lint` is only worth running if it fails where n8n's verification would: for every shipped source
 * file and for package.json, each rule n8n's scanner (@n8n/scan-community-package, the same rule set as
 * `n8n-node lint` with n8n Cloud support) enables must be enabled by our eslint.config.mjs, at the same or a
 * higher severity and with the same options. Our config may be stricter, never looser.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const REPO_ROOT = resolve(__dirname, '..');

interface Weakening {
	file: string;
	rule: string;
	scanner: unknown;
	ours: unknown;
}

/** Compares both effective configurations in a plain Node process (ESLint's API and the scanner are ES modules). */
function compareConfigs(): { files: string[]; weaker: Weakening[]; rules: number } {
	const script = `
		const { ESLint } = await import('eslint');
		const { default: glob } = await import('fast-glob');
		const scanner = await import('./node_modules/@n8n/scan-community-package/scanner/scanner.mjs');
		const ours = new ESLint({ cwd: process.cwd() });
		const theirs = new ESLint({ cwd: process.cwd(), overrideConfigFile: true, overrideConfig: await scanner.buildScanConfig() });
		const severity = (entry) => {
			const level = Array.isArray(entry) ? entry[0] : entry;
			return level === 'error' ? 2 : level === 'warn' ? 1 : level === 'off' || level === undefined ? 0 : level;
		};
		const files = ['package.json', ...glob.sync(['nodes/**/*.ts', 'credentials/**/*.ts']).sort()];
		const weaker = [];
		let rules = 0;
		for (const file of files) {
			const oursRules = (await ours.calculateConfigForFile(file))?.rules ?? {};
			const theirRules = (await theirs.calculateConfigForFile(file))?.rules ?? {};
			for (const [rule, entry] of Object.entries(theirRules)) {
				if (severity(entry) === 0) continue;
				// no-console means nothing in package.json, where the scanner applies it too.
				if (file === 'package.json' && rule === 'no-console') continue;
				rules++;
				const mine = oursRules[rule];
				const sameOptions = JSON.stringify((mine ?? []).slice(1)) === JSON.stringify(entry.slice(1));
				if (severity(mine) < severity(entry) || !sameOptions) weaker.push({ file, rule, scanner: entry, ours: mine ?? 'off' });
			}
		}
		process.stdout.write(JSON.stringify({ files, weaker, rules }));
	`;
	const env = { ...process.env };
	// Jest's NODE_ENV=test puts eslint-plugin-n8n-nodes-base into its own unit-test mode.
	delete env.NODE_ENV;
	const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
		cwd: REPO_ROOT,
		encoding: 'utf8',
		timeout: 120_000,
		env,
	});
	if (run.status !== 0) throw new Error(`comparing the lint configurations failed: ${run.stderr}`);
	return JSON.parse(run.stdout) as { files: string[]; weaker: Weakening[]; rules: number };
}

describe('npm run lint applies what n8n verification applies', () => {
	it("enables every rule of n8n's scanner on package.json and every shipped source file, as strictly", () => {
		const { files, weaker, rules } = compareConfigs();
		expect(files).toEqual(
			expect.arrayContaining([
				'package.json',
				'credentials/DomainDataApi.credentials.ts',
				'nodes/DomainData/DomainData.node.ts',
				'nodes/DomainDataTrigger/DomainDataTrigger.node.ts',
			]),
		);
		// The n8n Cloud set alone has more than 40 rules per file; a comparison of nothing proves nothing.
		expect(rules).toBeGreaterThan(40 * files.length);
		expect(weaker).toEqual([]);
	}, 120_000);
});
