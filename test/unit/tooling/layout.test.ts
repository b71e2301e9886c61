/**
 * Every test file sits under the root of a jest project (test/unit, test/browser, test/e2e), so that a file
 * added at another place (test/foo.test.ts) fails here instead of never running.
 */
import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const REPO_ROOT = resolve(__dirname, '../../..');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- jest.config.js is CommonJS without types
const { projects } = require(join(REPO_ROOT, 'jest.config.js')) as {
	projects: Array<{ displayName: string; roots: string[] }>;
};

function testFiles(folder: string): string[] {
	return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
		const path = join(folder, entry.name);
		if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path);
		return entry.name.endsWith('.test.ts') ? [relative(REPO_ROOT, path)] : [];
	});
}

it('runs every test file of test/ in a jest project', () => {
	const roots = projects.flatMap((project) => project.roots.map((root) => `${root.replace('<rootDir>/', '')}/`));
	expect(new Set(roots)).toEqual(new Set(['test/unit/', 'test/browser/', 'test/e2e/']));
	const outside = testFiles(join(REPO_ROOT, 'test')).filter((file) => !roots.some((root) => file.startsWith(root)));
	expect(outside).toEqual([]);
});
