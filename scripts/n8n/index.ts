/**
 * Real n8n for the demo, the end-to-end tests, the benchmarks and the browser tests. Import the module you
 * need; scripts/demo.ts and test/e2e/support.ts show the whole path (install, pack, run, drive).
 *
 * - versions.ts, matrix.json  the n8n versions the tests run against, and which suite runs on each
 * - paths.ts                  where the cache and each n8n installation live
 * - node-runtime.ts           the Node an n8n version needs (the machine's, or Node 24 from the npm registry)
 * - install.ts                installs n8n into the cache, once, atomically (`npm run n8n:install`)
 * - lock.ts                   lets several processes fill the cache at once
 * - newest.ts                 `npm run n8n:newest`: the newest n8n release that installs from the registry
 * - package.ts                builds and packs this package, installs it where n8n puts community packages
 * - env.ts                    the environment of an n8n process: private, quiet, 127.0.0.1; queue mode
 * - instance.ts               one n8n with its own user folder: CLI commands and long-running processes
 * - run-data.ts               reads what n8n reports about an execution (CLI output, snapshots, REST API)
 * - rest.ts                   drives a running n8n through its REST and public APIs, as a user would
 * - workflows.ts, examples.ts builds test workflows; loads the workflows of examples/
 * - services.ts               PostgreSQL and Redis on 127.0.0.1 for queue mode
 * - ports.ts                  free TCP ports
 *
 * Every process gets its own N8N_USER_FOLDER, HTTP port and task-runner broker port (each n8n process opens
 * one, 5679 by default, and a second process on the same port fails), listens on 127.0.0.1 only, and
 * writes no telemetry. Processes are started in their own process group and killed with it, also when the
 * parent exits. Set N8N_E2E_KEEP=1 to keep temporary user folders (their `n8n-*.log` files) for a look.
 */
export * from './env';
export * from './examples';
export * from './install';
export * from './instance';
export * from './lock';
export * from './node-runtime';
export * from './package';
export * from './paths';
export * from './ports';
export * from './rest';
export * from './run-data';
export * from './services';
export * from './versions';
export * from './workflows';
