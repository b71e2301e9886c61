/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { diagnostics: false }],
	},
	testTimeout: 60_000,
	// Several suites start HTTP servers and n8n processes; two workers keep the machine responsive.
	maxWorkers: 2,
	// n8n-core keeps process-wide handles (its DI container's services) open once loaded in a worker.
	forceExit: true,
};
