/**
 * A stream whose reader pauses, in real n8n: Dataset → Stream with the Sub-Workflow output and an Idle Timeout of
 * 5 s, into a sub-workflow that the test holds for 10 s a batch (its HTTP Request waits on a local server that answers
 * only then). The idle timeout counts only while the node waits for the service, and n8n's HTTP client must not cut
 * the paused body: one stream request for the whole snapshot, not one per batch, and every record reaches the
 * sub-workflow once. The pause is the test's own (held at the server, twice the Idle Timeout, however slow the
 * machine); the Idle Timeout leaves a margin over the stalls of a loaded machine, where a 1 s one fired while the
 * service's bytes were waiting to be read (3 stream requests on n8n 2.8.4 at load 6 to 10 on 2 cores; a 3 s one
 * timed out in subworkflow.spool.test.ts at load 30).
 */
import type { N8nInstance } from '../../scripts/n8n/instance';
import type { ExecutionResult } from '../../scripts/n8n/run-data';
import { BATCH_SUB_WORKFLOW_SETTINGS, chain, domainData, executeWorkflowTrigger } from '../../scripts/n8n/workflows';
import { manualTrigger, node, workflow, workflowId } from '../../scripts/n8n/workflows';
import { type LocalServer, startLocalServer } from '../harness/localServer';
import { RECORD_FIELDS, startSimulator, type Simulator } from '../simulator';
import { CLI_PUBLISHED_SUB_WORKFLOWS_ENV, CREDENTIALS, createInstance, e2eVersion, n8nAtLeast } from './support';

/** About 1 KB a record with every field: 3 MB, far more than the sockets buffer while the reader pauses. */
const DOMAINS = 3000;
const BATCH = 1000;
const SUB = workflowId('pausedSub');
const CALLER = workflowId('pausedCaller');
const IDLE_SECONDS = 5;
/** How long the test holds each batch in the sub-workflow: twice the Idle Timeout. */
const HOLD_MS = 2 * IDLE_SECONDS * 1000;

let sim: Simulator;
let n8n: N8nInstance;
let result: ExecutionResult;
let streams = 0;
/** Answers the sub-workflow's request HOLD_MS after it came: the batch's slow work, timed by the test. */
let hold: LocalServer;

beforeAll(async () => {
	sim = await startSimulator({ domains: DOMAINS, snapshots: 1 });
	hold = await startLocalServer((_req, res) => {
		setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), HOLD_MS);
	});
	n8n = await createInstance(sim, { env: CLI_PUBLISHED_SUB_WORKFLOWS_ENV });
	// Once per batch, not once per record.
	const held = node(
		'Held by the test',
		'n8n-nodes-base.httpRequest',
		4.2,
		{ method: 'GET', url: `${hold.url}/batch`, options: {} },
		{ executeOnce: true },
	);
	const sub = workflow(SUB, 'Slow batches', chain(executeWorkflowTrigger(), held), {
		settings: { ...BATCH_SUB_WORKFLOW_SETTINGS },
	});
	const caller = workflow(
		CALLER,
		'Stream into slow batches',
		chain(
			manualTrigger(),
			domainData(
				'Stream',
				{
					resource: 'dataset',
					operation: 'stream',
					label: 'latest',
					fields: [...RECORD_FIELDS],
					returnAll: true,
					output: 'subWorkflow',
					workflowId: { __rl: true, mode: 'id', value: SUB },
					batchSize: BATCH,
					options: { idleTimeout: IDLE_SECONDS },
				},
				CREDENTIALS.pro,
			),
		),
	);
	await n8n.importWorkflows([sub, caller]);
	if (n8nAtLeast('2.0.0')) await n8n.mustRun(['publish:workflow', `--id=${SUB}`]);
	sim.clearLog();
	result = await n8n.execute(CALLER, { timeoutMs: 180_000 });
	streams = sim.calls('stream').length;
}, 10 * 60_000);

afterAll(async () => {
	await n8n?.dispose();
	await hold?.close();
	await sim?.close();
});

test(`Idle Timeout ${IDLE_SECONDS} s, a sub-workflow held ${HOLD_MS / 1000} s a batch: one stream request (n8n ${e2eVersion()})`, () => {
	if (!result.ok) throw new Error(result.describe());
	expect(result.json('Stream')).toEqual([expect.objectContaining({ records: DOMAINS, batches: DOMAINS / BATCH })]);
	// Every batch was held.
	expect(hold.received).toHaveLength(DOMAINS / BATCH);
	expect(streams).toBe(1);
});
