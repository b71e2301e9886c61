/**
 * The package on a running n8n (`n8n start`; each "full" version of the test matrix), driven through the same REST calls the editor makes:
 * the credential's "Test" button, the Dataset dropdown (load options), and the trigger activated,
 * deactivated and restarted as a user would.
 *
 * The trigger's polling: n8n polls once at every activation (also when it starts with the workflow
 * active) and then on the node's schedule, at most once a minute. The workflow here is scheduled once a
 * year (custom cron `0 0 0 1 1 *`), so every poll in this test is an activation's poll: a
 * deactivate/activate cycle or a restart polls exactly once, at a moment the test chooses, and the test
 * needs no minute-long waits. Executions are read through the public API; that a poll started no other
 * execution is shown by a later sentinel poll whose execution must come next (expectNoOtherExecution).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { EXAMPLE_CREDENTIAL, loadExamples } from '../../scripts/n8n/examples';
import type { N8nInstance, N8nProcess } from '../../scripts/n8n/instance';
import { CREDENTIAL_TYPE, NODE_TYPES } from '../../scripts/n8n/package';
import type { N8nRestClient } from '../../scripts/n8n/rest';
import { chain, domainDataTrigger, noOp, workflow, workflowId } from '../../scripts/n8n/workflows';
import { KEYS, startSimulator, type Simulator } from '../simulator';
import {
	BAD_KEY,
	CREDENTIALS,
	createInstance,
	credentialImports,
	credentialRuleMessage,
	expectNoOtherExecution,
	N8N_CHANGES,
	n8nAtLeast,
	ownKeyCredential,
	startWithApi,
	waitForPolls,
	type TriggerItem,
} from './support';

let sim: Simulator;
let n8n: N8nInstance;
let server: N8nProcess;
let rest: N8nRestClient;
let triggerKey: string;
const TRIGGER = workflowId('triggerNewDataset');
const EXAMPLE_KEY = 'sim-e2e-example-trigger';
const SLICE_EXAMPLE = 'ddExampleSlice01';

/** Once a year: polls happen only when the workflow is activated (see the note at the top). */
const POLL_ONCE_A_YEAR = { item: [{ mode: 'custom', cronExpression: '0 0 0 1 1 *' }] };

/** The trigger's output of each execution the test expects so far, oldest first. */
const runs: TriggerItem[][] = [];
/** The trigger's polls so far (dataset-list calls with its key). */
let polls = 0;

/** One more activation poll: deactivate and activate again, and wait until the trigger has polled. */
/**
 * Each trigger test activates the workflow two or three times (its own poll and the sentinel's): n8n 2.41 publishes a
 * version on each, which on a busy 2-core machine (the other e2e project and the editor test beside it) took over a
 * minute once. The waits are bounds, not timings: each ends as soon as the poll came.
 */
const TRIGGER_TEST_MS = 300_000;
const POLL_WAIT_MS = 120_000;

async function pollAgain(): Promise<void> {
	await rest.deactivateWorkflow(TRIGGER);
	await rest.activateWorkflow(TRIGGER);
	await waitForPolls(sim, triggerKey, ++polls, POLL_WAIT_MS);
}

/** The executions are exactly `runs`, and no other comes: a sentinel poll proves it (see support.ts). */
const expectOnlyRuns = () => expectNoOtherExecution({ sim, rest, workflowId: TRIGGER, runs, poll: pollAgain });

async function startServer(): Promise<void> {
	({ server, rest } = await startWithApi(n8n));
}

beforeAll(async () => {
	sim = await startSimulator({ domains: 2000, snapshots: 4 });
	const own = ownKeyCredential(sim, 'trigger');
	triggerKey = own.key;
	sim.setKey(EXAMPLE_KEY, 'pro');
	n8n = await createInstance(sim, { credentials: false });
	await n8n.importCredentials([
		...credentialImports(sim),
		own.credential,
		{ ...EXAMPLE_CREDENTIAL, type: CREDENTIAL_TYPE, data: { apiKey: EXAMPLE_KEY, baseUrl: sim.url } },
	]);
	await n8n.importWorkflows([
		...loadExamples({ filesDir: n8n.filesDir }).map((example) => example.workflow),
		workflow(
			TRIGGER,
			'New dataset',
			chain(
				domainDataTrigger('Domain Data Trigger', { event: 'newDataset', pollTimes: POLL_ONCE_A_YEAR }, own.ref),
				noOp('Received'),
			),
		),
	]);
	await startServer();
}, 10 * 60_000);

afterAll(async () => {
	await n8n?.dispose();
	await sim?.close();
});

describe('credential test (the editor\'s "Test" button, POST /rest/credentials/test)', () => {
	const pro = CREDENTIALS.pro;
	const check = (data: Record<string, unknown>) => rest.testCredential({ ...pro, type: CREDENTIAL_TYPE, data });

	test('a good key passes', async () => {
		expect(await check({ apiKey: KEYS.pro, baseUrl: sim.url })).toEqual({ status: 'OK', message: expect.any(String) });
	});

	test('a trailing /json/api/v1 or slash in the Base URL is accepted', async () => {
		expect((await check({ apiKey: KEYS.pro, baseUrl: `${sim.url}/json/api/v1/` })).status).toBe('OK');
	});

	test('a basic-plan key passes too (the test call needs no plan feature)', async () => {
		expect((await check({ apiKey: KEYS.basic, baseUrl: sim.url })).status).toBe('OK');
	});

	// What the Test result says for a refused request depends on n8n. n8n 2.8 returns its own fixed text per
	// HTTP status (its error carries no response, so the credential's `responseCode` rules are never
	// consulted); n8n 2.41 returns the message of the credential's rule for that status. Neither passes the
	// service's `{"error"}` body through. docs/troubleshooting.md lists both.
	const showsRuleMessages = n8nAtLeast(N8N_CHANGES.credentialTestRuleMessages);

	test('a wrong key fails and says the key was refused, without the key', async () => {
		const result = await check({ apiKey: BAD_KEY, baseUrl: sim.url });
		expect(result.status).toBe('Error');
		if (showsRuleMessages) expect(result.message).toBe(credentialRuleMessage(401));
		else expect(result.message).toMatch(/Authorization failed/);
		expect(result.message).not.toContain(BAD_KEY);
		expect(sim.calls('search').at(-1)?.status).toBe(401);
	});

	test('a key without credits fails and says the credits are used up', async () => {
		const result = await check({ apiKey: KEYS.exhausted, baseUrl: sim.url });
		expect(result.status).toBe('Error');
		if (showsRuleMessages) expect(result.message).toBe(credentialRuleMessage(402));
		else expect(result.message).toMatch(/Payment required/);
		expect(sim.calls('search').at(-1)?.status).toBe(402);
	});

	test('a Base URL where something else answers fails as not found', async () => {
		const result = await check({ apiKey: KEYS.pro, baseUrl: `${sim.url}/v2` });
		expect(result.status).toBe('Error');
		if (showsRuleMessages) expect(result.message).toBe(credentialRuleMessage(404));
		else expect(result.message).toMatch(/could not be found/);
	});

	test('a Base URL where nothing listens fails and says the connection was refused', async () => {
		const result = await check({ apiKey: KEYS.pro, baseUrl: 'http://127.0.0.1:9' });
		expect(result.status).toBe('Error');
		// n8n 2.41 answers with the bare error code, 2.8 with its own sentence.
		if (showsRuleMessages) expect(result.message).toBe('ECONNREFUSED');
		else expect(result.message).toMatch(/The service refused the connection/);
	});
});

describe('Dataset dropdown (load options, POST /rest/dynamic-node-parameters/options)', () => {
	const load = (credential: { id: string; name: string }) =>
		rest.loadOptions({
			nodeType: NODE_TYPES.domainData,
			methodName: 'getDatasetLabels',
			path: 'parameters.label',
			currentNodeParameters: { resource: 'dataset', operation: 'stream', label: '' },
			credentials: { [CREDENTIAL_TYPE]: credential },
		});

	test('"Latest" first, then the simulator\'s labels, newest first', async () => {
		const options = await load(CREDENTIALS.pro);
		expect(options.map((option) => option.value)).toEqual(['latest', ...sim.datasets().map((d) => d.label)]);
		expect(options[0].name).toBe('Latest');
	});

	test('a plan without historical data gets an error that says so', async () => {
		const response = await rest.request<{ message?: string }>('POST', '/rest/dynamic-node-parameters/options', {
			nodeTypeAndVersion: { name: NODE_TYPES.domainData, version: 1 },
			methodName: 'getDatasetLabels',
			path: 'parameters.label',
			currentNodeParameters: { resource: 'dataset', operation: 'stream', label: '' },
			credentials: { [CREDENTIAL_TYPE]: CREDENTIALS.basic },
		});
		expect(response.status).toBeGreaterThanOrEqual(400);
		expect(JSON.stringify(response.body)).toMatch(/historical/i);
	});
});

describe('Domain Data Trigger on a running n8n', () => {
	test(
		'activation records the datasets listed and starts nothing',
		async () => {
			await rest.activateWorkflow(TRIGGER);
			await waitForPolls(sim, triggerKey, ++polls, POLL_WAIT_MS);
			await expectOnlyRuns();
		},
		TRIGGER_TEST_MS,
	);

	test(
		'a new snapshot: exactly one execution, carrying the new label',
		async () => {
			const previous = sim.datasets()[0].label;
			const added = sim.addSnapshot();
			await pollAgain();
			const run = (await rest.waitForExecutions(TRIGGER, runs.length + 1, { timeoutMs: POLL_WAIT_MS }))[runs.length];
			expect(run.execution.mode).toBe('trigger');
			expect(run.execution.status).toBe('success');
			expect(run.result.json('Domain Data Trigger')).toEqual([
				{ label: added.label, value: added.value, previousLabel: previous },
			]);
			expect(run.result.json('Received')).toHaveLength(1);
			runs.push([{ label: added.label, value: added.value, previousLabel: previous }]);
			await expectOnlyRuns();
		},
		TRIGGER_TEST_MS,
	);

	test(
		'a restart of n8n polls again (the workflow is active) and starts nothing new',
		async () => {
			await server.stop();
			await startServer();
			await waitForPolls(sim, triggerKey, ++polls, POLL_WAIT_MS);
			await expectOnlyRuns();
		},
		TRIGGER_TEST_MS,
	);

	test(
		'two snapshots published between polls: one execution with both, oldest first',
		async () => {
			const before = sim.datasets()[0].label;
			const first = sim.addSnapshot();
			const second = sim.addSnapshot();
			await pollAgain();
			await rest.waitForExecutions(TRIGGER, runs.length + 1, { timeoutMs: POLL_WAIT_MS });
			runs.push([
				{ label: first.label, value: first.value, previousLabel: before },
				{ label: second.label, value: second.value, previousLabel: first.label },
			]);
			await expectOnlyRuns();
		},
		TRIGGER_TEST_MS,
	);

	test(
		'nothing new: another activation poll starts nothing',
		async () => {
			await pollAgain();
			await expectOnlyRuns();
		},
		TRIGGER_TEST_MS,
	);
});

describe('examples on a running n8n', () => {
	test('every node type the examples use is installed (the AI agent example included)', async () => {
		const known = new Set(await rest.nodeTypeNames());
		const used = new Set(loadExamples().flatMap((example) => example.workflow.nodes.map((node) => String(node.type))));
		expect([...used].filter((type) => !known.has(type))).toEqual([]);
		expect(known.has('n8n-nodes-domain-data.domainDataTool')).toBe(true);
	});

	test('"on a new snapshot, save every Shopify site in Germany": activated, it saves the new snapshot\'s slice', async () => {
		await rest.activateWorkflow(SLICE_EXAMPLE);
		await waitForPolls(sim, EXAMPLE_KEY, 1);
		const added = sim.addSnapshot();
		await rest.deactivateWorkflow(SLICE_EXAMPLE);
		await rest.activateWorkflow(SLICE_EXAMPLE);
		await waitForPolls(sim, EXAMPLE_KEY, 2);
		const [run] = await rest.waitForExecutions(SLICE_EXAMPLE, 1);
		expect(run.result.describe()).toBe('ok');

		const expected: string[] = [];
		for (let position = 0; position < 2000; position++) {
			const record = sim.index.recordAt(position, added.label);
			if (record.country_code === 'DE' && record.technologies.some((t) => t.toLowerCase() === 'shopify'))
				expected.push(record.name);
		}
		expect(expected.length).toBeGreaterThan(0);
		const csv = readFileSync(join(n8n.filesDir, `shopify-de-${added.label}.csv`), 'utf8').replace(/^\uFEFF/, '');
		const names = csv
			.trim()
			.split(/\r?\n/)
			.slice(1)
			.map((line) => line.split(',')[0]);
		expect(names).toEqual(expected);
	});
});
