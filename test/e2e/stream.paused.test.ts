/**
 * A stream whose reader pauses, in real n8n: Dataset → Stream with the Sub-Workflow output, Idle Timeout 1 s,
 * into a sub-workflow that waits 2.5 s per batch. The idle timeout counts only while the node waits for the
 * service, and n8n's HTTP client must not cut the paused body: one stream request for the whole snapshot,
 * not one per batch, and every record reaches the sub-workflow once.
 */
import type { N8nInstance } from '../../scripts/n8n/instance';
import type { ExecutionResult } from '../../scripts/n8n/run-data';
import { BATCH_SUB_WORKFLOW_SETTINGS, chain, domainData, executeWorkflowTrigger } from '../../scripts/n8n/workflows';
import { manualTrigger, node, workflow, workflowId } from '../../scripts/n8n/workflows';
import { RECORD_FIELDS, startSimulator, type Simulator } from '../simulator';
import { CLI_PUBLISHED_SUB_WORKFLOWS_ENV, CREDENTIALS, createInstance, e2eVersion, n8nAtLeast } from './support';

/** About 1 KB a record with every field: 3 MB, far more than the sockets buffer while the reader pauses. */
const DOMAINS = 3000;
const BATCH = 1000;
const SUB = workflowId('pausedSub');
const CALLER = workflowId('pausedCaller');

let sim: Simulator;
let n8n: N8nInstance;
let result: ExecutionResult;
let streams = 0;

beforeAll(async () => {
	sim = await startSimulator({ domains: DOMAINS, snapshots: 1 });
	n8n = await createInstance(sim, { env: CLI_PUBLISHED_SUB_WORKFLOWS_ENV });
	const wait = node('Wait 2.5 s', 'n8n-nodes-base.wait', 1.1, { resume: 'timeInterval', amount: 2.5, unit: 'seconds' });
	const sub = workflow(SUB, 'Slow batches', chain(executeWorkflowTrigger(), wait), {
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
					options: { idleTimeout: 1 },
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
	await sim?.close();
});

test(`Idle Timeout 1 s, a sub-workflow taking 2.5 s a batch: one stream request (n8n ${e2eVersion()})`, () => {
	if (!result.ok) throw new Error(result.describe());
	expect(result.json('Stream')).toEqual([expect.objectContaining({ records: DOMAINS, batches: DOMAINS / BATCH })]);
	expect(streams).toBe(1);
});
