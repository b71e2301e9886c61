/**
 * The tooling's version logic: which Node an n8n version's `engines` range accepts (the ranges n8n has
 * published), and the test matrix with its `N8N_E2E_VERSIONS` filter.
 */
import { satisfiesEngine } from '../../../scripts/n8n/node-runtime';
import { compareVersions, N8N_TEST_MATRIX, NEWEST_N8N_VERSION, selectedMatrix } from '../../../scripts/n8n/versions';

describe('satisfiesEngine (n8n engines.node ranges)', () => {
	test.each([
		// n8n 2.8.4 and 1.123.81
		['>=20.19 <=24.x', '20.20.2', true],
		['>=20.19 <=24.x', '20.18.0', false],
		['>=20.19 <=24.x', '24.21.0', true],
		['>=20.19 <=24.x', '25.0.0', false],
		// n8n 2.10 and 2.23
		['>=22.16', '20.20.2', false],
		['>=22.16', '22.16.0', true],
		['>=22.22', '22.21.9', false],
		// n8n 2.36 and later
		['>=24.0.0', '20.20.2', false],
		['>=24.0.0', 'v24.21.0', true],
		// forms n8n has not used, read the semver way
		['18.x || >=20', '18.5.0', true],
		['18.x || >=20', '19.0.0', false],
		['>= 22', '22.0.0', true],
		['<22', '22.0.0', false],
		['22.x', '22.9.1', true],
		['22.x', '23.0.0', false],
	])('%s accepts %s: %s', (range, version, expected) => {
		expect(satisfiesEngine(range, version)).toBe(expected);
	});

	test('a range it cannot read is an error that quotes it', () => {
		expect(() => satisfiesEngine('~22.1', '22.1.0')).toThrow('Cannot read the engines range "~22.1"');
	});
});

describe('the test matrix', () => {
	test('the newest version runs the full suite and is the newest in the matrix', () => {
		const sorted = [...N8N_TEST_MATRIX].sort((a, b) => compareVersions(b.version, a.version));
		expect(sorted[0]).toEqual({ version: NEWEST_N8N_VERSION, suite: 'full' });
	});

	test('N8N_E2E_VERSIONS narrows it, in matrix order; unknown versions are an error', () => {
		expect(selectedMatrix('')).toEqual(N8N_TEST_MATRIX);
		expect(selectedMatrix(' 1.123.81, 2.41.1 ').map((entry) => entry.version)).toEqual(['2.41.1', '1.123.81']);
		expect(() => selectedMatrix('2.41.1,3.0.0')).toThrow(/N8N_E2E_VERSIONS names 3\.0\.0, not in the test matrix/);
	});
});
