/**
 * n8n in queue mode, as it runs at scale: `n8n start` (main) and one `n8n worker`, sharing a PostgreSQL
 * database and a Redis queue on 127.0.0.1. The test creates its own database and uses its own Redis db
 * index and key prefix, and removes both afterwards.
 *
 * Main receives the webhooks and polls the trigger; the worker runs every execution. The same workflows
 * run once more through `n8n execute` (which runs in-process, without the queue) so that the queue
 * results can be compared with a single-process run.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { queueModeEnv } from '../../scripts/n8n/env';
import type { N8nInstance, N8nProcess } from '../../scripts/n8n/instance';
import { N8nRestClient } from '../../scripts/n8n/rest';
import { fromApiExecution, type ExecutionResult } from '../../scripts/n8n/run-data';
import {
	createDatabase,
	deleteRedisKeys,
	dropDatabase,
	isPostgresReachable,
	isRedisReachable,
} from '../../scripts/n8n/services';
import {
	chain,
	domainData,
	domainDataTrigger,
	manualTrigger,
	node,
	noOp,
	setJson,
	splitOut,
	webhook,
	workflow,
	workflowId,
	type CredentialRef,
	type WorkflowNode,
} from '../../scripts/n8n/workflows';
import { startSimulator, type Simulator } from '../simulator';
import {
	createInstance,
	credentialImports,
	expectNoOtherExecution,
	ownKeyCredential,
	postWebhook,
	waitForPolls,
	type TriggerItem,
} from './support';

const suffix = `${process.pid}_${randomBytes(3).toString('hex')}`;
const DATABASE = `dd_e2e_queue_${suffix}`;
const REDIS_DB = Number(process.env.N8N_E2E_REDIS_DB ?? 7);
const REDIS_PREFIX = `dd-e2e-${suffix.replace(/_/g, '-')}`;

const WF = {
	enrichHook: workflowId('queueEnrichHook'),
	streamHook: workflowId('queueStreamHook'),
	fileHook: workflowId('queueFileHook'),
	enrichLocal: workflowId('queueEnrichLocal'),
	streamLocal: workflowId('queueStreamLocal'),
	trigger: workflowId('queueTrigger'),
};
const POLL_ONCE_A_YEAR = { item: [{ mode: 'custom', cronExpression: '0 0 0 1 1 *' }] };

let sim: Simulator;
let n8n: N8nInstance;
let main: N8nProcess;
let worker: N8nProcess;
let rest: N8nRestClient;
let databaseCreated = false;
const refs: Record<string, CredentialRef> = {};
const keys: Record<string, string> = {};

function leads(): Array<{ company: string; contact: string }> {
	const list = [];
	for (let rank = 1; rank <= 150; rank++) {
		const { name } = sim.index.domainAt(rank);
		list.push({ company: `Company ${rank}`, contact: rank % 2 ? `https://www.${name}/` : `ceo@${name}` });
	}
	list.push({ company: 'Unknown', contact: 'not-indexed-queue-e2e.com' });
	return list;
}

const enrichNode = (ref: CredentialRef): WorkflowNode =>
	domainData(
		'Enrich',
		{ resource: 'domain', operation: 'enrich', domainField: 'contact', destinationField: 'domainData' },
		ref,
	);
const streamNode = (ref: CredentialRef): WorkflowNode =>
	domainData(
		'Stream',
		{
			resource: 'dataset',
			operation: 'stream',
			label: 'latest',
			fields: ['name', 'rank', 'country_code'],
			returnAll: false,
			limit: 300,
			output: 'items',
		},
		ref,
	);

/**
 * The single finished execution of a workflow, and proof of where it ran: main enqueued it, the worker
 * started and finished it.
 */
async function onlyExecution(id: string): Promise<ExecutionResult> {
	const [run] = await rest.waitForExecutions(id, 1);
	const executionId = run.execution.id;
	await worker.waitForOutput(new RegExp(`Worker finished execution ${executionId}\\b`), 30_000);
	expect(worker.output()).toMatch(new RegExp(`Worker started execution ${executionId}\\b`));
	expect(main.output()).toMatch(new RegExp(`Enqueued execution ${executionId}\\b`));
	expect(main.output()).not.toMatch(new RegExp(`Worker (started|finished) execution ${executionId}\\b`));
	return fromApiExecution(run.execution);
}

beforeAll(async () => {
	if (!(await isPostgresReachable()) || !(await isRedisReachable({ db: REDIS_DB }))) {
		throw new Error(
			'Queue mode needs PostgreSQL (psql -h 127.0.0.1 -U postgres) and Redis (redis-cli -h 127.0.0.1) on 127.0.0.1',
		);
	}
	await createDatabase(DATABASE);
	databaseCreated = true;

	sim = await startSimulator({ domains: 1000, snapshots: 3 });
	const own = Object.fromEntries(
		['enrichHook', 'streamHook', 'fileHook', 'enrichLocal', 'streamLocal', 'trigger'].map((stem) => [
			stem,
			ownKeyCredential(sim, `queue${stem}`),
		]),
	);
	for (const [stem, value] of Object.entries(own)) {
		refs[stem] = value.ref;
		keys[stem] = value.key;
	}

	n8n = await createInstance(sim, {
		credentials: false,
		env: queueModeEnv({ postgres: { database: DATABASE }, redis: { db: REDIS_DB, prefix: REDIS_PREFIX } }),
	});
	await n8n.importCredentials([...credentialImports(sim), ...Object.values(own).map((value) => value.credential)]);
	await n8n.importWorkflows([
		workflow(
			WF.enrichHook,
			'Queue: enrich leads posted to a webhook',
			chain(
				webhook('Webhook', `dd-e2e-enrich-${suffix}`),
				splitOut('Split Out', 'body.leads'),
				enrichNode(refs.enrichHook),
			),
		),
		workflow(
			WF.streamHook,
			'Queue: stream a slice on a webhook call',
			chain(webhook('Webhook', `dd-e2e-stream-${suffix}`), streamNode(refs.streamHook)),
		),
		// Binary data in queue mode is kept in the database (n8n's default there, and set by queueModeEnv): the
		// worker stores the snapshot file, and its Write File node reads it back from there.
		workflow(
			WF.fileHook,
			'Queue: a whole snapshot to a file on a webhook call',
			chain(
				webhook('Webhook', `dd-e2e-file-${suffix}`),
				domainData(
					'Stream',
					{ resource: 'dataset', operation: 'stream', label: 'latest', returnAll: true, output: 'file' },
					refs.fileHook,
				),
				node('Write File', 'n8n-nodes-base.readWriteFile', 1, {
					operation: 'write',
					fileName: `={{ ${JSON.stringify(n8n.filesDir + '/queue-')} + $json.fileName }}`,
					dataPropertyName: 'data',
					options: {},
				}),
			),
		),
		workflow(
			WF.enrichLocal,
			'Single process: enrich leads',
			chain(
				manualTrigger(),
				setJson('Leads', { leads: leads() }),
				splitOut('Split Out', 'leads'),
				enrichNode(refs.enrichLocal),
			),
		),
		workflow(WF.streamLocal, 'Single process: stream a slice', chain(manualTrigger(), streamNode(refs.streamLocal))),
		workflow(
			WF.trigger,
			'Queue: new dataset',
			chain(
				domainDataTrigger('Domain Data Trigger', { event: 'newDataset', pollTimes: POLL_ONCE_A_YEAR }, refs.trigger),
				noOp('Received'),
			),
		),
	]);
	main = await n8n.start();
	worker = await n8n.startWorker();
	rest = new N8nRestClient(n8n.url);
	await rest.ensureOwner();
	await rest.createApiKey();
	for (const id of [WF.enrichHook, WF.streamHook, WF.fileHook]) await rest.activateWorkflow(id);
}, 10 * 60_000);

afterAll(async () => {
	await n8n?.dispose();
	await sim?.close();
	if (databaseCreated) await dropDatabase(DATABASE);
	await deleteRedisKeys(REDIS_PREFIX, { db: REDIS_DB }).catch(() => undefined);
}, 120_000);

test('main and worker share PostgreSQL and a Redis queue of their own', () => {
	expect(main.output()).not.toMatch(/sqlite/i);
	expect(worker.output()).toMatch(/n8n worker is now ready/);
});

test('enrich: 151 leads posted to a webhook are enriched by the worker, as in a single-process run', async () => {
	const answer = (await postWebhook(n8n.url, `dd-e2e-enrich-${suffix}`, { leads: leads() })) as Array<
		Record<string, unknown>
	>;
	const expected = leads().map((lead, index) => ({
		...lead,
		domainData: index < 150 ? sim.index.domainAt(index + 1) : { name: 'not-indexed-queue-e2e.com', found: false },
	}));
	expect(answer).toEqual(expected);

	const result = await onlyExecution(WF.enrichHook);
	expect(result.json('Enrich')).toEqual(expected);
	expect(sim.calls('bulk').filter((entry) => entry.key === keys.enrichHook)).toHaveLength(2);

	const local = await n8n.execute(WF.enrichLocal);
	expect(local.describe()).toBe('ok');
	expect(local.json('Enrich')).toEqual(result.json('Enrich'));
});

test('stream: a 300-record slice of the latest snapshot, read by the worker, as in a single-process run', async () => {
	const newest = sim.datasets()[0].label;
	const answer = await postWebhook(n8n.url, `dd-e2e-stream-${suffix}`, {});
	const expected = Array.from({ length: 300 }, (_, i) => ({
		...JSON.parse(sim.index.lineAt(i, newest, 'name,rank,country_code')),
		label: newest,
	}));
	expect(answer).toEqual(expected);

	const result = await onlyExecution(WF.streamHook);
	expect(result.json('Stream')).toEqual(expected);

	const local = await n8n.execute(WF.streamLocal);
	expect(local.describe()).toBe('ok');
	expect(local.json('Stream')).toEqual(expected);
});

test('file: the whole snapshot goes through database binary data and is written to disk by the worker', async () => {
	const newest = sim.datasets()[0].label;
	await postWebhook(n8n.url, `dd-e2e-file-${suffix}`, {});
	const result = await onlyExecution(WF.fileHook);
	expect(result.json('Stream')).toEqual([
		expect.objectContaining({ label: newest, fileName: `${newest}.ndjson`, recordCount: 1000 }),
	]);
	expect(result.items('Stream')[0].binary?.data).toMatchObject({
		mimeType: 'application/x-ndjson',
		fileName: `${newest}.ndjson`,
	});
	const written = readFileSync(join(n8n.filesDir, `queue-${newest}.ndjson`), 'utf8');
	expect(written).toBe(Array.from({ length: 1000 }, (_, i) => sim.index.lineAt(i, newest)).join('\n') + '\n');
});

// Three activations, three polls and two executions that go through Redis to the worker: each wait is bounded on its
// own (support.ts, rest.ts), and on a busy machine their sum can pass jest's default minute (it did once on CI).
test(
	'trigger: main polls, the worker runs the execution; one per new snapshot',
	async () => {
		let polls = 0;
		const pollAgain = async () => {
			await rest.deactivateWorkflow(WF.trigger);
			await rest.activateWorkflow(WF.trigger);
			await waitForPolls(sim, keys.trigger, ++polls);
		};
		await rest.activateWorkflow(WF.trigger);
		await waitForPolls(sim, keys.trigger, ++polls);

		const previous = sim.datasets()[0].label;
		const added = sim.addSnapshot();
		await pollAgain();
		const result = await onlyExecution(WF.trigger);
		const runs: TriggerItem[][] = [[{ label: added.label, value: added.value, previousLabel: previous }]];
		expect(result.json('Domain Data Trigger')).toEqual(runs[0]);

		await expectNoOtherExecution({ sim, rest, workflowId: WF.trigger, runs, poll: pollAgain });
	},
	5 * 60_000,
);
