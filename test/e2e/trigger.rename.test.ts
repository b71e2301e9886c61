/**
 * The Domain Data Trigger renamed on a running n8n: n8n keeps a node's own static data under the node's name, so
 * without more a renamed trigger starts from nothing (a snapshot published meanwhile never fires) and one renamed
 * back finds its old, stale memory (snapshots fire twice). The trigger keeps a copy of its memory under the node's
 * id (docs/trigger.md); this file renames the node through the public API (PUT, the stored static data left as
 * n8n keeps it) and checks the executions.
 *
 * Polls are activation polls only (a yearly schedule, as in server.test.ts): deactivate, save, activate.
 */
import type { N8nInstance } from '../../scripts/n8n/instance';
import type { N8nRestClient } from '../../scripts/n8n/rest';
import { fromApiExecution } from '../../scripts/n8n/run-data';
import { chain, domainDataTrigger, noOp, workflow, workflowId, type WorkflowNode } from '../../scripts/n8n/workflows';
import { startSimulator, type Simulator } from '../simulator';
import {
	createInstance,
	credentialImports,
	ownKeyCredential,
	startWithApi,
	waitForPolls,
	type TriggerItem,
} from './support';

const TRIGGER = workflowId('renamedTrigger');
const WORKFLOW_NAME = 'New dataset (renamed trigger)';
const FIRST_NAME = 'Domain Data Trigger';
const SECOND_NAME = 'New Snapshot';
const POLL_ONCE_A_YEAR = { item: [{ mode: 'custom', cronExpression: '0 0 0 1 1 *' }] };

let sim: Simulator;
let n8n: N8nInstance;
let rest: N8nRestClient;
let key: string;
let trigger: WorkflowNode;
let polls = 0;

/** Each expected execution: the trigger node's name at the time and its output. */
const runs: Array<{ node: string; items: TriggerItem[] }> = [];

function graph(triggerName: string) {
	return chain({ ...trigger, name: triggerName }, noOp('Received'));
}

/** A user renames the trigger node: deactivate, save the workflow with the new name, activate (one poll). */
async function renameAndPoll(triggerName: string): Promise<void> {
	await rest.deactivateWorkflow(TRIGGER);
	await rest.updateWorkflow(TRIGGER, { name: WORKFLOW_NAME, ...graph(triggerName) });
	await rest.activateWorkflow(TRIGGER);
	await waitForPolls(sim, key, ++polls);
}

/** A snapshot published now: the item the trigger gives for it. */
function publish(): TriggerItem {
	const previousLabel = sim.datasets()[0].label;
	const added = sim.addSnapshot();
	return { label: added.label, value: added.value, previousLabel };
}

/** The workflow's executions, oldest first, are exactly `runs`. */
async function expectRuns(): Promise<void> {
	await rest.waitForExecutions(TRIGGER, runs.length);
	const listed = (await rest.executions(TRIGGER)).sort((a, b) => Number(a.id) - Number(b.id));
	expect(
		listed.map((execution, index) => ({
			status: execution.status,
			items: fromApiExecution(execution).json(runs[index]?.node ?? FIRST_NAME),
		})),
	).toEqual(runs.map(({ items }) => ({ status: 'success', items })));
}

beforeAll(async () => {
	sim = await startSimulator({ domains: 300, snapshots: 3 });
	const own = ownKeyCredential(sim, 'rename');
	key = own.key;
	n8n = await createInstance(sim, { credentials: false });
	await n8n.importCredentials([...credentialImports(sim), own.credential]);
	trigger = domainDataTrigger(FIRST_NAME, { event: 'newDataset', pollTimes: POLL_ONCE_A_YEAR }, own.ref);
	await n8n.importWorkflows([workflow(TRIGGER, WORKFLOW_NAME, graph(FIRST_NAME))]);
	({ rest } = await startWithApi(n8n));
}, 10 * 60_000);

afterAll(async () => {
	await n8n?.dispose();
	await sim?.close();
});

test('activation takes the baseline and starts nothing', async () => {
	await rest.activateWorkflow(TRIGGER);
	await waitForPolls(sim, key, ++polls);
	await expectRuns();
});

test('a snapshot published while the node is renamed fires once, at the first poll after the rename', async () => {
	const added = publish();
	await renameAndPoll(SECOND_NAME);
	runs.push({ node: SECOND_NAME, items: [added] });
	await expectRuns();
});

test('renamed back: nothing fires again from the memory left under the first name, the next snapshot fires once', async () => {
	const added = publish();
	await renameAndPoll(FIRST_NAME);
	runs.push({ node: FIRST_NAME, items: [added] });
	await expectRuns();
	// A poll with nothing new starts nothing: the next snapshot's execution comes right after.
	const sentinel = publish();
	await renameAndPoll(FIRST_NAME);
	runs.push({ node: FIRST_NAME, items: [sentinel] });
	await expectRuns();
});
