/**
 * `npm run demo`: the newest installable n8n (2.41.1, on Node 24 from the npm registry when this machine's
 * Node is older; see scripts/n8n/node-runtime.ts), or the version `--n8n` names, with this package installed
 * the way n8n installs community packages, the example workflows and their credentials, all pointed at the Domain Data
 * simulator, and the offline stand-in chat model (scripts/model) for the AI-agent example's chat. Prints the address
 * and the login; Ctrl-C stops everything it started.
 *
 *   npm run demo [-- --fresh] [--n8n 2.41.1] [--port 5678] [--sim-port 8787] [--model-port 8788] [--domains 100000] [--snapshots 6]
 *
 * The first run installs n8n into the cache (about 8 minutes, once); later runs reuse the cache and the
 * demo's n8n data (`<cache>/demo-<version>`: owner account, workflows, executions) and start in seconds.
 * `--fresh` deletes that data first.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { KEYS, startSimulator, type Simulator } from '../test/simulator';
import { readCommandLine } from './commandLine';
import { startModel, type StandInModel } from './model/server';
import { modelCredential } from './model/workflows';
import { EXAMPLE_CREDENTIAL, EXAMPLE_MCP_CREDENTIAL, EXAMPLE_MODEL_CREDENTIAL, loadExamples } from './n8n/examples';
import { ensureN8n } from './n8n/install';
import { N8nInstance, tail, type N8nProcess, type WorkflowImport } from './n8n/instance';
import { buildAndPack, CREDENTIAL_TYPE, installPackage, NODE_TYPES } from './n8n/package';
import { cacheRoot, n8nInstallDir } from './n8n/paths';
import { NEWEST_N8N_VERSION } from './n8n/versions';
import { freePort, isPortFree } from './n8n/ports';
import { DEFAULT_OWNER, N8nRestClient } from './n8n/rest';

interface DemoOptions {
	fresh: boolean;
	/** The n8n version to run (any version on the npm registry; default the newest installable). */
	n8nVersion: string;
	port: number;
	simPort: number;
	modelPort: number;
	domains: number;
	snapshots: number;
}

const USAGE = `usage: npm run demo [-- --fresh] [--n8n ${NEWEST_N8N_VERSION}] [--port 5678] [--sim-port 8787] [--model-port 8788] [--domains 100000] [--snapshots 6]`;

const FLAGS = {
	help: { type: 'boolean', short: 'h' },
	fresh: { type: 'boolean' },
	n8n: { type: 'string' },
	port: { type: 'string' },
	'sim-port': { type: 'string' },
	'model-port': { type: 'string' },
	domains: { type: 'string' },
	snapshots: { type: 'string' },
} as const;

function parseArguments(argv: string[]): DemoOptions {
	const { values: flags } = readCommandLine({ args: argv, options: FLAGS, strict: true }, USAGE);
	const version = flags.n8n ?? NEWEST_N8N_VERSION;
	if (!/^\d+\.\d+\.\d+$/.test(version))
		throw new Error(`--n8n needs a version such as ${NEWEST_N8N_VERSION}\n${USAGE}`);
	const whole = (flag: keyof typeof FLAGS, fallback: number): number => {
		const text = flags[flag];
		if (typeof text !== 'string') return fallback;
		const value = Number(text);
		if (text.trim() === '' || !Number.isInteger(value) || value < 0) {
			throw new Error(`--${flag} needs a whole number\n${USAGE}`);
		}
		return value;
	};
	return {
		fresh: flags.fresh === true,
		n8nVersion: version,
		port: whole('port', 5678),
		simPort: whole('sim-port', 8787),
		modelPort: whole('model-port', 8788),
		domains: whole('domains', 100_000),
		snapshots: whole('snapshots', 6),
	};
}

/** The bearer token of the MCP example's trigger in the demo (make your own for a reachable n8n). */
const MCP_TOKEN = 'demo-mcp-token';

const demoStarted = Date.now();
const step = (text: string) => console.log(`- ${text}  (${((Date.now() - demoStarted) / 1000).toFixed(1)} s)`);

let sim: Simulator | undefined;
let model: StandInModel | undefined;
let server: N8nProcess | undefined;
let stopping = false;

/** Stops what the demo started (n8n first, so that it finishes what it runs), then exits. */
async function stop(code: number): Promise<void> {
	if (stopping) return;
	stopping = true;
	if (server || sim) console.log('\nStopping n8n and the simulator...');
	await server?.stop();
	await sim?.close();
	await model?.close();
	process.exit(code);
}

/** The preferred port, or a free one when something else listens there. */
async function portOrFree(preferred: number, what: string): Promise<number> {
	if (preferred !== 0 && (await isPortFree(preferred))) return preferred;
	const port = await freePort();
	if (preferred !== 0) step(`port ${preferred} is taken, so ${what} uses ${port}`);
	return port;
}

/**
 * The examples as the demo imports them: files go to the demo's files folder, and the new-snapshot
 * trigger checks every minute instead of daily, so that a snapshot added to the simulator shows up soon.
 */
function demoWorkflows(filesDir: string): WorkflowImport[] {
	return loadExamples({ filesDir }).map(({ workflow }) => {
		for (const node of workflow.nodes) {
			if (node.type === NODE_TYPES.domainDataTrigger) {
				(node.parameters as Record<string, unknown>).pollTimes = { item: [{ mode: 'everyMinute' }] };
			}
		}
		return workflow;
	});
}

/**
 * What keeps n8n offline beyond QUIET_ENV (scripts/n8n/env.ts): from 2.3x, n8n's "mcp-registry" module fetches
 * n8n's catalogue of MCP servers (https://api.n8n.io/api/mcp-servers) at start and every 8 hours, and logs a
 * `getaddrinfo ENOTFOUND` with a stack trace where there is no internet. `N8N_DISABLED_MODULES=mcp-registry`
 * turns the module off (the catalogue is for n8n's own agents, not for the MCP Server Trigger the examples use).
 * Versions without that module refuse the name as unknown, so it is set only where the module exists.
 */
function offlineEnv(version: string): Record<string, string> {
	const registry = join(n8nInstallDir(version), 'node_modules', 'n8n', 'dist', 'modules', 'mcp-registry');
	return existsSync(registry) ? { N8N_DISABLED_MODULES: 'mcp-registry' } : {};
}

/** The trigger example the demo activates (examples/new-snapshot-slice.json). */
const ACTIVE_EXAMPLE_ID = 'ddExampleSlice01';

/** A public-API key kept in the demo folder, created once. */
async function apiKey(rest: N8nRestClient, file: string): Promise<void> {
	if (existsSync(file)) {
		rest.apiKey = readFileSync(file, 'utf8').trim();
		if ((await rest.request('GET', '/api/v1/workflows?limit=1')).status === 200) return;
	}
	writeFileSync(file, await rest.createApiKey('demo'));
}

async function main(): Promise<void> {
	const options = parseArguments(process.argv.slice(2));
	const version = options.n8nVersion;
	const userFolder = join(cacheRoot(), `demo-${version}`);
	if (options.fresh) rmSync(userFolder, { recursive: true, force: true });
	const firstRun = !existsSync(join(userFolder, '.n8n', 'database.sqlite'));

	console.log(`Domain Data demo: n8n ${version} with the n8n-nodes-domain-data package, on the Domain Data simulator`);
	await ensureN8n(version, { log: step });

	process.once('SIGINT', () => void stop(0));
	process.once('SIGTERM', () => void stop(0));

	const simPort = await portOrFree(options.simPort, 'the simulator');
	sim = await startSimulator({ port: simPort, domains: options.domains, snapshots: options.snapshots });
	step(
		`simulator on ${sim.url} (${options.domains.toLocaleString('en-US')} domains, ${sim.datasets().length} snapshots)`,
	);

	model = await startModel({ port: await portOrFree(options.modelPort, 'the stand-in model') });
	step(`stand-in chat model on ${model.url} (offline, answers from what the tools return)`);

	const n8n = await N8nInstance.create({
		version,
		userFolder,
		port: await portOrFree(options.port, 'n8n'),
		encryptionKey: 'n8n-nodes-domain-data-demo',
		env: offlineEnv(version),
	});
	// The credentials are imported when new or when the simulator's or the model's address changed.
	const credentials = [
		{ ...EXAMPLE_CREDENTIAL, type: CREDENTIAL_TYPE, data: { apiKey: KEYS.pro, baseUrl: sim.url } },
		modelCredential(EXAMPLE_MODEL_CREDENTIAL, model.url),
		{ ...EXAMPLE_MCP_CREDENTIAL, type: 'httpBearerAuth', data: { token: MCP_TOKEN } },
	];
	const credentialFile = join(userFolder, 'credential.json');
	const credentialChanged =
		firstRun || !existsSync(credentialFile) || readFileSync(credentialFile, 'utf8') !== JSON.stringify(credentials);
	const [packed] = await Promise.all([
		buildAndPack({ outDir: join(cacheRoot(), 'demo-pack'), skipBuild: 'if-current', log: step }),
		credentialChanged ? n8n.importCredentials(credentials) : Promise.resolve(),
	]);
	if (credentialChanged) writeFileSync(credentialFile, JSON.stringify(credentials));
	installPackage(userFolder, packed);
	step(`installed ${packed.tarball.split('/').pop()} into ${join(userFolder, '.n8n', 'nodes')}`);

	// Examples are imported on the first run and when they changed; otherwise the user's edits stay.
	const workflows = demoWorkflows(n8n.filesDir);
	const examplesHash = createHash('sha256').update(JSON.stringify(workflows)).digest('hex');
	const hashFile = join(userFolder, 'examples.sha256');
	const examplesChanged = firstRun || !existsSync(hashFile) || readFileSync(hashFile, 'utf8') !== examplesHash;
	if (examplesChanged) {
		step(`importing ${workflows.length} example workflows`);
		await n8n.importWorkflows(workflows);
		writeFileSync(hashFile, examplesHash);
	}

	step(firstRun ? 'starting n8n (first start: it sets up its database)' : 'starting n8n');
	server = await n8n.start();
	server.child.once('close', (code) => {
		if (stopping) return;
		console.error(
			`\nn8n stopped unexpectedly (exit ${code}). Last lines of ${server?.logFile}:\n${tail(server?.output() ?? '', 30)}`,
		);
		void stop(1);
	});
	const rest = new N8nRestClient(n8n.url);
	await rest.ensureOwner(DEFAULT_OWNER);
	await apiKey(rest, join(userFolder, 'demo-api-key'));
	// The slice example is the one the ready text below tells people to watch; the Compare example stays off.
	const trigger = workflows.find((wf) => wf.id === ACTIVE_EXAMPLE_ID);
	if (trigger && examplesChanged) await rest.activateWorkflow(trigger.id);

	const seconds = ((Date.now() - demoStarted) / 1000).toFixed(0);
	const datasets = sim.datasets();
	console.log(`
Ready in ${seconds} s. Open n8n ${version} (on Node ${n8n.runtime.version}) in your browser:

  n8n        ${n8n.url}
  login      ${DEFAULT_OWNER.email}  /  ${DEFAULT_OWNER.password}

  workflows  ${workflows.map((wf) => wf.name.replace(/^Domain Data: /, '')).join('\n             ')}
  credential "${EXAMPLE_CREDENTIAL.name}" (API key ${KEYS.pro}, Base URL ${sim.url})
  model      "${EXAMPLE_MODEL_CREDENTIAL.name}": the stand-in at ${model.url} (offline, no key)
  simulator  ${sim.url}  ${options.domains.toLocaleString('en-US')} domains, snapshots ${datasets.at(-1)?.label} to ${datasets[0]?.label}
             other keys: ${KEYS.basic} (no historical data), ${KEYS.exhausted} (no credits left)
  files      Write File nodes write to ${n8n.filesDir}
  logs       ${server.logFile}

Try it: open "enrich leads" and click "Execute workflow". The trigger workflow is active and checks every
minute; publish a new snapshot and watch it run (Overview → Executions):

  curl -X POST ${sim.url}/__sim/snapshots

Watch accounts: open "watch your accounts for changes on every new snapshot" and click "Execute workflow": it
compares the two newest snapshots for ten accounts only and writes watch-accounts-<snapshot>.md to the files
folder above. "enrich thousands of rows from one snapshot read" enriches 3,000 rows in one stream request.

Ask the agent: open "a tool for an AI agent", click "Open chat" and ask "What does openreads.com.au run on?".
MCP clients: publish "tools for MCP clients" (activate on n8n 1.x) and connect to ${n8n.url}/mcp/domain-data
with the header "Authorization: Bearer ${MCP_TOKEN}".

Ctrl-C stops n8n, the simulator and the stand-in model. Your n8n data stays in ${userFolder}
(npm run demo -- --fresh starts over).`);
}

main().catch((error: Error) => {
	console.error(`\ndemo failed: ${error.message}`);
	void stop(1);
});
