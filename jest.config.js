/** @type {import('jest').Config} */
const shared = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	transform: {
		'^.+\\.ts$': ['ts-jest', { diagnostics: false }],
	},
};

module.exports = {
	// Two projects so that the end-to-end set-up (install n8n once, build and pack the package) runs only
	// when an end-to-end test is selected: `npx jest test/foo.test.ts` stays fast, `npm test` runs both.
	projects: [
		{
			...shared,
			displayName: 'unit',
			roots: ['<rootDir>/test'],
			testMatch: ['**/*.test.ts'],
			testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
		},
		{
			...shared,
			displayName: 'e2e',
			roots: ['<rootDir>/test/e2e'],
			testMatch: ['**/*.test.ts'],
			// Installs n8n 2.8.4 and 1.123.81 into the cache when missing (both at once), builds and packs.
			globalSetup: '<rootDir>/test/e2e/global-setup.ts',
			globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
		},
	],
	testTimeout: 60_000,
	// Several suites start HTTP servers and n8n processes; two workers keep the machine responsive.
	maxWorkers: 2,
	// n8n-core keeps process-wide handles (its DI container's services) open once loaded in a worker.
	forceExit: true,
};
