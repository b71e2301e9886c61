// Copies what tsc does not emit (icons and codex files) next to the compiled nodes and credentials.
const path = require('path');
const { task, src, dest } = require('gulp');

function copyAssets() {
	return src(['nodes/**/*.{svg,png,json}', 'credentials/**/*.{svg,png,json}'], {
		base: '.',
		encoding: false,
	}).pipe(dest(path.resolve('dist')));
}

task('build:assets', copyAssets);
