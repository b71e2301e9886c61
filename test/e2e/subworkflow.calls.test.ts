/**
 * The Sub-Workflow output in real n8n, against targets it must not or cannot run: the workflow itself, a workflow
 * that called this one (A → B → A), a workflow that does not exist or is not published. Every workflow starts with
 * "When Executed by Another Workflow", so that `n8n execute` and a sub-workflow call both start it, and every
 * sub-workflow is published: without the node's refusal the calls would go on without end (each with paid
 * requests). The simulator's log counts the requests.
 */
import type { N8nInstance } from '../../scripts/n8n/instance';
import type { ExecutionResult } from '../../scripts/n8n/run-data';
import { domainData, executeWorkflowTrigger, noOp, workflow, workflowId } from '../../scripts/n8n/workflows';
import { startSimulator, type Simulator } from '../simulator';
import { CLI_PUBLISHED_SUB_WORKFLOWS_ENV, CREDENTIALS, createInstance, e2eVersion, n8nAtLeast } from './support';

/** n8n 1.x runs a called workflow as saved: it has no publishing. */
const PUBLISHING = n8nAtLeast('2.0.0');

const SELF = workflowId('subCallsSelf');
const A = workflowId('subCallsA');
const B = workflowId('subCallsB');
const MISSING = workflowId('subCallsMissing');
const UNPUBLISHED_CALLER = workflowId('subCallsUnpubCaller');
const UNPUBLISHED = workflowId('subCallsUnpublished');

let sim: Simulator;
let n8n: N8nInstance;

/** "When Executed by Another Workflow" → Stream 10 records of the newest snapshot to `target`, 5 a batch. */
function streamingTo(id: string, target: string) {
	const trigger = executeWorkflowTrigger();
	const stream = domainData(
		'Stream',
		{
			resource: 'dataset',
			operation: 'stream',
			label: 'latest',
			fields: ['name'],
			limit: 10,
			output: 'subWorkflow',
			workflowId: { __rl: true, mode: 'id', value: target },
			batchSize: 5,
		},
		CREDENTIALS.pro,
	);
	trigger.position = [0, 0];
	stream.position = [220, 0];
	return workflow(id, `Stream into ${target}`, {
		nodes: [trigger, stream],
		connections: { [trigger.name]: { main: [[{ node: stream.name, type: 'main', index: 0 }]] } },
	});
}

async function run(id: string): Promise<{ result: ExecutionResult; calls: string[] }> {
	sim.clearLog();
	const result = await n8n.execute(id, { timeoutMs: 120_000 });
	return { result, calls: sim.calls().map((call) => call.endpoint) };
}

beforeAll(async () => {
	sim = await startSimulator({ domains: 300, snapshots: 2 });
	n8n = await createInstance(sim, { env: CLI_PUBLISHED_SUB_WORKFLOWS_ENV });
	const unpublished = workflow(UNPUBLISHED, 'Never published', {
		nodes: [executeWorkflowTrigger(), noOp('Nothing')],
		connections: {},
	});
	await n8n.importWorkflows([
		streamingTo(SELF, SELF),
		streamingTo(A, B),
		streamingTo(B, A),
		streamingTo(MISSING, 'noSuchWorkflow01'),
		streamingTo(UNPUBLISHED_CALLER, UNPUBLISHED),
		unpublished,
	]);
	if (PUBLISHING) for (const id of [SELF, A, B]) await n8n.mustRun(['publish:workflow', `--id=${id}`]);
}, 5 * 60_000);

afterAll(async () => {
	await n8n?.dispose();
	await sim?.close();
});

test(
	`a workflow naming itself is refused before any request (n8n ${e2eVersion()})`,
	async () => {
		const { result, calls } = await run(SELF);
		expect(result.error?.message).toBe(`The workflow chosen in "Workflow" is this workflow itself (ID ${SELF})`);
		expect(calls).toEqual([]);
	},
	3 * 60_000,
);

test(
	`A → B → A: B refuses to call A back before any request of its own (n8n ${e2eVersion()})`,
	async () => {
		const { result, calls } = await run(A);
		const label = sim.datasets()[0].label;
		expect(result.error?.message).toBe(
			`The sub-workflow failed at batch 1 (records 1-5 of the dataset "${label}"); 0 records were done`,
		);
		expect(result.error?.description).toContain(`The workflow chosen in "Workflow" (ID ${A}) is running this one`);
		// A's own list and stream request; B made none.
		expect(calls).toEqual(['datasets', 'stream']);
	},
	3 * 60_000,
);

/*
 * n8n gives a node no way to look a workflow up, and running one with no items is no check (it still starts an
 * execution, and a trigger set to "Always Output Data" runs the workflow with an empty item): a missing or
 * unpublished target shows at the first batch, after one list and one stream request, with n8n's own words.
 */
test.each([
	['does not exist', MISSING, 'Workflow does not exist'],
	...(PUBLISHING ? [['is not published', UNPUBLISHED_CALLER, 'Workflow is not active and cannot be executed']] : []),
])(
	`a target that %s fails at the first batch with n8n's words, after one stream request (n8n ${e2eVersion()})`,
	async (_case, id, words) => {
		const { result, calls } = await run(id);
		expect(result.error?.message).toMatch(/^The sub-workflow failed at batch 1 \(records 1-5 of the dataset/);
		expect(result.error?.description).toContain(words);
		expect(calls).toEqual(['datasets', 'stream']);
	},
	3 * 60_000,
);
