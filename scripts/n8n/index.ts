/**
 * Real n8n for the demo, the end-to-end tests, the benchmarks and the browser tests: install n8n once into
 * a cache, pack our package and install it the way n8n installs community packages, run n8n processes with
 * a private user folder, import and execute workflows, and drive a running n8n through its REST API.
 *
 * ```ts
 * import { ensureN8n, buildAndPack, N8nInstance, chain, manualTrigger, domainData, workflow } from '../scripts/n8n';
 *
 * await ensureN8n('2.41.1');                                 // once per machine; 4-10 min, then instant
 * const packed = await buildAndPack();                       // npm run build + npm pack + unpack
 * const n8n = await N8nInstance.create({ version: '2.41.1', package: packed }); // fresh N8N_USER_FOLDER, free port, its Node
 * await n8n.importCredentials([{ id: 'cred1', name: 'Domain Data', type: 'domainDataApi',
 *                                data: { apiKey: KEYS.pro, baseUrl: sim.url } }]);
 * await n8n.importWorkflows([workflow('wf1', 'Get', chain(manualTrigger(),
 *   domainData('Get', { resource: 'domain', operation: 'get', domain: 'example.com' }, { id: 'cred1', name: 'Domain Data' })))]);
 * const run = await n8n.execute('wf1');                      // n8n execute --id=wf1 --rawOutput
 * run.ok; run.json('Get'); run.error?.message; run.error?.httpCode;
 * const runs = await n8n.executeBatch(['wf1', 'wf2']);       // one process for many workflows (successes only carry data)
 *
 * const server = await n8n.start();                          // n8n start; resolves when GET /rest/settings answers
 * const rest = new N8nRestClient(n8n.url);
 * await rest.ensureOwner();                                  // owner account (DEFAULT_OWNER) + login cookie
 * await rest.createApiKey();                                 // public API key (X-N8N-API-KEY)
 * await rest.testCredential({ id, name, type, data });       // the editor's "Test" button
 * await rest.loadOptions({ nodeType, methodName, path, currentNodeParameters, credentials });
 * await rest.activateWorkflow('wf1'); await rest.waitForExecutions('wf1', 1);
 * await server.stop();                                       // SIGTERM, SIGKILL after 20 s
 * await n8n.dispose();                                       // stops every process, removes the temp folder
 * ```
 *
 * Modules
 * - versions.ts  the test matrix (matrix.json: NEWEST_N8N_VERSION 2.41.1, NODE20_N8N_VERSION 2.8.4,
 *                N8N_1X_VERSION 1.123.81; which suite runs on each), selectedMatrix() (`N8N_E2E_VERSIONS`),
 *                compareVersions(), isAtLeast(), REGISTRY_NODE_VERSION (24.21.0).
 * - paths.ts     DEFAULT_N8N_VERSION (2.8.4: in-process tools and benchmarks), cacheRoot() (`$N8N_DOMAIN_DATA_CACHE`,
 *                else `~/.cache/n8n-domain-data`), n8nInstallDir(version), n8nBin(version), REPO_ROOT.
 * - install.ts   ensureN8n(version), ensureN8nVersions(versions): atomic, locked, verified install into the
 *                cache with the Node the version needs (xlsx override, own .npmrc so that native modules
 *                compile for that Node); n8nRuntime(version); isN8nInstalled(version); cleanNpmEnv(). CLI:
 *                `npm run n8n:install [-- version ...]` (default: the whole matrix).
 * - node-runtime.ts  chooseRuntime(n8nVersion): the machine's Node when n8n's `engines` allow it, else
 *                Node 24 from the npm registry (ensureNodeRuntime, cached like n8n); satisfiesEngine(range, v);
 *                withRuntimePath(runtime, env) puts its `bin` first on PATH.
 * - lock.ts      acquireLock(), removeDeadPartials(): several processes filling the cache at once.
 * - newest.ts    `npm run n8n:newest`: the newest n8n release that installs from the registry, by trying.
 * - package.ts   buildAndPack() → { tarball, dir, version, files }; installPackage(userFolder, packed) puts it
 *                at `<userFolder>/.n8n/nodes/node_modules/n8n-nodes-domain-data`; NODE_TYPES, CREDENTIAL_TYPE.
 * - env.ts       n8nEnv() (private folder, ports, 127.0.0.1, quiet: no telemetry, version checks, templates),
 *                QUIET_ENV, queueModeEnv({ postgres, redis }) for EXECUTIONS_MODE=queue on PostgreSQL + Redis.
 * - instance.ts  N8nInstance: create(), command(), mustRun(), importCredentials(), importWorkflows(),
 *                execute(), executeBatch(), start(), startWorker(), dispose(); N8nProcess: output(),
 *                waitForOutput(), stop(), logFile (`<userFolder>/n8n-<role>.log`).
 * - run-data.ts  ExecutionResult: ok, error ({ message, description, httpCode, node }), items(node),
 *                json(node), nodeError(node), describe(); extractPrintedJson(); fromApiExecution().
 * - rest.ts      N8nRestClient: waitUntilReady, ensureOwner, login, createApiKey, testCredential, loadOptions,
 *                nodeTypeNames, activateWorkflow, deactivateWorkflow, executions, waitForExecutions;
 *                DEFAULT_OWNER (demo@example.com / DomainData-demo-1).
 * - services.ts  PostgreSQL and Redis on 127.0.0.1 for queue mode: createDatabase, dropDatabase,
 *                deleteRedisKeys, isPostgresReachable, isRedisReachable (through the psql and redis-cli CLIs).
 * - workflows.ts Builders: workflow(), chain(), node(), manualTrigger(), setJson(), splitOut(), noOp(),
 *                webhook(), domainData(), domainDataTrigger(), workflowId().
 * - examples.ts  loadExamples({ filesDir }) → the workflows of examples/ (Write File paths pointed at filesDir),
 *                EXAMPLE_CREDENTIAL (the credential id they name), EXAMPLES_DIR.
 * - ports.ts     freePort(), isPortFree().
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
