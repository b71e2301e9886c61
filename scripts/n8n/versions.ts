/**
 * Which n8n versions the package is tested on, in one place (matrix.json, which jest.config.js reads too).
 *
 * - NEWEST_N8N_VERSION: the newest n8n that installs from the npm registry. 2.41.3 (the `latest` tag on
 *   2026-11-22) depends on `@n8n/agents@0.26.2`, which the registry does not hold, so `npm install` stops with
 *   ETARGET; 2.41.1 resolves and installs. `npm run n8n:newest` finds it again by trying (see newest.ts).
 *   It needs Node >= 24, which install.ts fetches from the registry when the machine's Node is older.
 * - NODE20_N8N_VERSION: the newest n8n that runs on Node 20 (2.10 and later need Node >= 22.16).
 * - N8N_1X_VERSION: the newest n8n 1.x.
 * - N8N_TEST_MATRIX: the "full" suite (every end-to-end file in test/e2e, the editor test) runs against each
 *   "full" version, the "smoke" suite (test/e2e/smoke.test.ts, the editor test) against each "smoke" one.
 *   `N8N_E2E_VERSIONS=2.41.1,1.123.81` narrows a run to some of them.
 */
import versions from './matrix.json';

export type TestSuite = 'full' | 'smoke';

export interface MatrixEntry {
	version: string;
	suite: TestSuite;
}

export const NEWEST_N8N_VERSION: string = versions.newest;
export const NODE20_N8N_VERSION: string = versions.newestOnNode20;
export const N8N_1X_VERSION: string = versions.newest1x;

/** The Node that install.ts takes from the npm registry (`node-<platform>-<arch>`) for an n8n that needs a newer one. */
export const REGISTRY_NODE_VERSION: string = versions.registryNode;

export const N8N_TEST_MATRIX: readonly MatrixEntry[] = versions.matrix as MatrixEntry[];

/**
 * The matrix entries this run tests: all of them, or those named in `N8N_E2E_VERSIONS` (comma-separated).
 * Naming a version that is not in the matrix is an error, so that a typo does not silently test nothing.
 */
export function selectedMatrix(filter = process.env.N8N_E2E_VERSIONS): MatrixEntry[] {
	if (!filter?.trim()) return [...N8N_TEST_MATRIX];
	const wanted = filter
		.split(',')
		.map((v) => v.trim())
		.filter(Boolean);
	const unknown = wanted.filter((v) => !N8N_TEST_MATRIX.some((entry) => entry.version === v));
	if (unknown.length) {
		throw new Error(
			`N8N_E2E_VERSIONS names ${unknown.join(', ')}, not in the test matrix (${N8N_TEST_MATRIX.map((e) => e.version).join(', ')})`,
		);
	}
	return N8N_TEST_MATRIX.filter((entry) => wanted.includes(entry.version));
}

/** Compares two plain versions (`2.36.0` < `2.41.1`); missing parts count as 0. */
export function compareVersions(a: string, b: string): number {
	const pa = a.split('.').map(Number);
	const pb = b.split('.').map(Number);
	for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
		const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
		if (diff !== 0) return Math.sign(diff);
	}
	return 0;
}

export function isAtLeast(version: string, minimum: string): boolean {
	return compareVersions(version, minimum) >= 0;
}
