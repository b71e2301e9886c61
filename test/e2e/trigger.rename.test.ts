/**
 * The Domain Data Trigger renamed on a running n8n: n8n keeps a node's own static data under the node's name, so
 * without more a renamed trigger starts from nothing (a snapshot published meanwhile never fires) and one renamed
 * back finds its old, stale memory (snapshots fire twice). The trigger keeps a copy of its memory under the node's
 * id (docs/trigger.md); this file renames the node through the public API (PUT, the stored static data left as
 * n8n keeps it) and checks the executions. The memory belongs to the node's id and to the service it read: two
 * triggers on two services whose names are swapped, and a trigger deleted and added anew under the same name, each
 * fire every snapshot once.
 *
 * Polls are activation polls only (a yearly schedule, as in server.test.ts): deactivate, save, activate.
 */
import type { N8nInstance } from '../../scripts/n8n/instance';
import type { N8nRestClient } from '../../scripts/n8n/rest';
import { fromApiExecution } from '../../scripts/n8n/run-data';
import {
	chain,
	domainDataTrigger,
	noOp,
	workflow,
	workflowId,
	type CredentialRef,
	type WorkflowNode,
} from '../../scripts/n8n/workflows';
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
const TRIGGER_PARAMETERS = { event: 'newDataset', pollTimes: POLL_ONCE_A_YEAR };
/** A workflow with two triggers, X on service A and Y on service B, named NAME_A and NAME_B until swapped. */
const SWAPPED = workflowId('swappedTriggers');
const SWAPPED_WORKFLOW_NAME = 'New datasets (two triggers)';
const NAME_A = 'Snapshot A';
const NAME_B = 'Snapshot B';

let sim: Simulator;
let n8n: N8nInstance;
let rest: N8nRestClient;
let key: string;
let credential: CredentialRef;
let trigger: WorkflowNode;
let polls = 0;

/** A service of the two-trigger workflow: its simulator, the key of the trigger that reads it, that trigger's polls. */
interface Service {
	sim: Simulator;
	key: string;
	polls: number;
}
let serviceA: Service;
let serviceB: Service;
let triggerX: WorkflowNode;
let triggerY: WorkflowNode;
const received = noOp('Received');
/** Each expected execution of the two-trigger workflow: the name of the trigger that started it and its output. */
const swapRuns: Array<{ node: string; items: TriggerItem[] }> = [];

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

/** A snapshot published now (on `service`): the item the trigger gives for it. */
function publish(service: Simulator = sim): TriggerItem {
	const previousLabel = service.datasets()[0].label;
	const added = service.addSnapshot();
	return { label: added.label, value: added.value, previousLabel };
}

/** Both triggers feed one node; X and Y carry the names given. */
function twoTriggers(nameOfX: string, nameOfY: string) {
	const to = { main: [[{ node: received.name, type: 'main', index: 0 }]] };
	return {
		nodes: [{ ...triggerX, name: nameOfX }, { ...triggerY, name: nameOfY }, received],
		connections: { [nameOfX]: to, [nameOfY]: to },
	};
}

/** Deactivate, save the two triggers under the names given, activate: each trigger polls once. */
async function nameBothAndPoll(nameOfX: string, nameOfY: string): Promise<void> {
	await rest.deactivateWorkflow(SWAPPED);
	await rest.updateWorkflow(SWAPPED, { name: SWAPPED_WORKFLOW_NAME, ...twoTriggers(nameOfX, nameOfY) });
	await rest.activateWorkflow(SWAPPED);
	await waitForBothPolls();
}

async function waitForBothPolls(): Promise<void> {
	for (const service of [serviceA, serviceB]) await waitForPolls(service.sim, service.key, ++service.polls);
}

/**
 * The two-trigger workflow's executions are exactly `swapRuns`, each with the name of the trigger that started it
 * (the two triggers of one activation poll one after the other, in no order this test relies on).
 */
async function expectSwapRuns(): Promise<void> {
	// Bounded below the test's timeout, so that missing executions show in the comparison.
	await rest.waitForExecutions(SWAPPED, swapRuns.length, { timeoutMs: 20_000 }).catch(() => undefined);
	const byText = (a: object, b: object) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);
	const listed = (await rest.executions(SWAPPED)).map((execution) => {
		const result = fromApiExecution(execution);
		const node = result.nodes().find((name) => name !== received.name) ?? '';
		return { status: execution.status, node, items: result.json(node) };
	});
	expect(listed.sort(byText)).toEqual(swapRuns.map((run) => ({ status: 'success', ...run })).sort(byText));
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
	credential = own.ref;
	// Service A's newest snapshot is 2025-06-30, service B's 2025-07-21.
	const simA = await startSimulator({ domains: 300, snapshots: 3 });
	const simB = await startSimulator({ domains: 300, snapshots: 3 });
	for (let week = 0; week < 3; week++) simB.addSnapshot();
	const ownA = ownKeyCredential(simA, 'swapA');
	const ownB = ownKeyCredential(simB, 'swapB');
	serviceA = { sim: simA, key: ownA.key, polls: 0 };
	serviceB = { sim: simB, key: ownB.key, polls: 0 };
	triggerX = domainDataTrigger(NAME_A, TRIGGER_PARAMETERS, ownA.ref);
	triggerY = domainDataTrigger(NAME_B, TRIGGER_PARAMETERS, ownB.ref);
	n8n = await createInstance(sim, { credentials: false });
	await n8n.importCredentials([...credentialImports(sim), own.credential, ownA.credential, ownB.credential]);
	trigger = domainDataTrigger(FIRST_NAME, TRIGGER_PARAMETERS, own.ref);
	await n8n.importWorkflows([
		workflow(TRIGGER, WORKFLOW_NAME, graph(FIRST_NAME)),
		workflow(SWAPPED, SWAPPED_WORKFLOW_NAME, twoTriggers(NAME_A, NAME_B)),
	]);
	({ rest } = await startWithApi(n8n));
}, 10 * 60_000);

afterAll(async () => {
	await n8n?.dispose();
	await sim?.close();
	await serviceA?.sim.close();
	await serviceB?.sim.close();
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

test('a trigger deleted and added anew under the same name takes a baseline, then fires the next snapshot once', async () => {
	const replaced = trigger.id;
	trigger = domainDataTrigger(FIRST_NAME, TRIGGER_PARAMETERS, credential);
	expect(trigger.id).not.toBe(replaced);
	await rest.deactivateWorkflow(TRIGGER);
	publish();
	await rest.updateWorkflow(TRIGGER, { name: WORKFLOW_NAME, ...graph(FIRST_NAME) });
	await rest.activateWorkflow(TRIGGER);
	await waitForPolls(sim, key, ++polls);
	const sentinel = publish();
	await renameAndPoll(FIRST_NAME);
	runs.push({ node: FIRST_NAME, items: [sentinel] });
	await expectRuns();
});

describe('two triggers on two services whose names are swapped', () => {
	test("activation takes each trigger's baseline and starts nothing", async () => {
		await rest.activateWorkflow(SWAPPED);
		await waitForBothPolls();
		await expectSwapRuns();
	});

	test('each trigger fires the snapshots of its own service once, under the swapped names and back', async () => {
		// X ("Snapshot A") has seen 2025-06-30 on A, Y ("Snapshot B") 2025-07-21 on B: under the swapped names, each
		// finds the other's later or earlier state under its name.
		const rounds: Array<[string, string]> = [
			[NAME_B, NAME_A],
			[NAME_B, NAME_A],
			[NAME_A, NAME_B],
		];
		for (const [nameOfX, nameOfY] of rounds) {
			const onA = publish(serviceA.sim);
			const onB = publish(serviceB.sim);
			await nameBothAndPoll(nameOfX, nameOfY);
			swapRuns.push({ node: nameOfX, items: [onA] }, { node: nameOfY, items: [onB] });
			await expectSwapRuns();
		}
		expect(swapRuns.map((run) => run.items[0].label)).toEqual([
			'2025-07-07',
			'2025-07-28',
			'2025-07-14',
			'2025-08-04',
			'2025-07-21',
			'2025-08-11',
		]);
	});
});
