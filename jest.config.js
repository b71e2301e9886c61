const { matrix } = require('./scripts/n8n/matrix.json');

/** @type {import('jest').Config} */
const shared = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	transform: {
		'^.+\\.ts$': ['ts-jest', { diagnostics: false }],
	},
};

// The n8n versions the end-to-end tests run against (scripts/n8n/matrix.json; scripts/n8n/versions.ts says
// why each): one jest project per version, named `e2e-<version>`. A "full" version runs every file of
// test/e2e except the smoke run; a "smoke" version runs test/e2e/smoke.test.ts only. A test reads its
// project's version through e2eVersion() in test/e2e/support.ts. `N8N_E2E_VERSIONS=2.41.1,2.8.4` narrows a run.
const wanted = (process.env.N8N_E2E_VERSIONS || '')
	.split(',')
	.map((v) => v.trim())
	.filter(Boolean);
const SMOKE = '<rootDir>/test/e2e/smoke.test.ts';
const e2eProjects = matrix
	.filter((entry) => wanted.length === 0 || wanted.includes(entry.version))
	.map(({ version, suite }) => ({
		...shared,
		displayName: `e2e-${version}`,
		roots: ['<rootDir>/test/e2e'],
		testMatch: suite === 'smoke' ? [SMOKE] : ['**/*.test.ts'],
		testPathIgnorePatterns: suite === 'smoke' ? ['/node_modules/'] : ['/node_modules/', SMOKE],
		globals: { N8N_E2E_VERSION: version, N8N_E2E_SUITE: suite },
		// Installs every version of the run that is missing from the cache (several at once), builds and packs
		// the package once; jest runs it once for all e2e projects.
		globalSetup: '<rootDir>/test/e2e/global-setup.ts',
		globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
	}));

module.exports = {
	// One project per kind of test (test/<kind>/). The end-to-end set-up (install n8n, build and pack the
	// package) runs only when an end-to-end test is selected: `npm run test:unit` and `npx jest test/unit/...`
	// need no n8n install; `npm test` runs everything.
	projects: [
		{
			// Everything that needs no n8n install: the nodes in-process through n8n-core over real HTTP to the
			// simulator and hostile local servers, the packed tarball, the simulator, the tooling, and the benchmark
			// code at its smallest size (it proves that `npm run bench` works, not how fast anything is).
			...shared,
			displayName: 'unit',
			roots: ['<rootDir>/test/unit'],
			testMatch: ['**/*.test.ts'],
		},
		{
			// n8n's editor in Chromium on every version of the matrix: it needs n8n and Chromium (installed by the
			// test when missing), so it is no unit test.
			...shared,
			displayName: 'browser',
			roots: ['<rootDir>/test/browser'],
			testMatch: ['**/*.test.ts'],
		},
		...e2eProjects,
	],
	testTimeout: 60_000,
	// Jest's own report, then the 15 slowest files with their seconds (test/harness/slowestFiles.js).
	reporters: ['default', '<rootDir>/test/harness/slowestFiles.js'],
	// Several suites start HTTP servers and n8n processes; two workers keep the machine responsive.
	maxWorkers: 2,
	// n8n-core keeps process-wide handles (its DI container's services) open once loaded in a worker.
	forceExit: true,
};
