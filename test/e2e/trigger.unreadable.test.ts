/**
 * The Domain Data Trigger with attached records on a running n8n (`n8n start`, the classic poller) when one
 * snapshot cannot be read: the simulator behind a proxy that cuts a line of that snapshot's stream in half
 * (test/harness/damagingProxy.ts). As in server.test.ts, the workflow polls once a year, so every poll is
 * an activation's poll that the test starts by deactivating and activating the workflow.
 *
 * What a user who watches weekly snapshots must see: the good snapshot and the bad one fire in one
 * execution (the bad one without records, with an `error`), the bad one is reported once as a failed
 * execution (n8n's trigger error reporting, which also runs an error workflow), the next polls neither read
 * nor report it again, and the next snapshot fires.
 */
import type { N8nInstance } from '../../scripts/n8n/instance';
import { CREDENTIAL_TYPE } from '../../scripts/n8n/package';
import type { ApiExecution, N8nRestClient } from '../../scripts/n8n/rest';
import { fromApiExecution } from '../../scripts/n8n/run-data';
import { chain, domainDataTrigger, noOp, workflow, workflowId } from '../../scripts/n8n/workflows';
import { breakLine, startDamagingProxy, type DamagingProxy } from '../harness/damagingProxy';
import { startSimulator, type Simulator } from '../simulator';
import { createInstance, e2eVersion, ownKeyCredential, startWithApi, waitForPolls } from './support';

const TRIGGER = workflowId('triggerUnreadable');
const POLL_ONCE_A_YEAR = { item: [{ mode: 'custom', cronExpression: '0 0 0 1 1 *' }] };

let sim: Simulator;
let proxy: DamagingProxy;
let n8n: N8nInstance;
let rest: N8nRestClient;
let key: string;
let polls = 0;

async function pollAgain(): Promise<void> {
	await rest.deactivateWorkflow(TRIGGER);
	await rest.activateWorkflow(TRIGGER);
	await waitForPolls(sim, key, ++polls);
}

/** The executions so far, oldest first: the trigger's output of a successful one, the error of a failed one. */
async function executions(count: number) {
	const finished = await rest.waitForExecutions(TRIGGER, count);
	return finished.map(({ execution }: { execution: ApiExecution }) =>
		execution.status === 'success'
			? { status: 'success', events: fromApiExecution(execution).json('Domain Data Trigger') }
			: { status: execution.status, error: execution.data?.resultData.error?.message },
	);
}

const firstRecords = (label: string) =>
	Array.from({ length: 3 }, (_, position) => JSON.parse(sim.index.lineAt(position, label, 'name,rank')));

beforeAll(async () => {
	sim = await startSimulator({ domains: 300, snapshots: 2 });
	proxy = await startDamagingProxy(sim.url);
	const own = ownKeyCredential(sim, 'unreadable');
	key = own.key;
	n8n = await createInstance(sim, { credentials: false });
	await n8n.importCredentials([
		{ ...own.credential, type: CREDENTIAL_TYPE, data: { apiKey: key, baseUrl: proxy.url } },
	]);
	const parameters = { event: 'newDataset', attachRecords: true, recordCount: 3, fields: ['name', 'rank'] };
	const trigger = domainDataTrigger('Domain Data Trigger', { ...parameters, pollTimes: POLL_ONCE_A_YEAR }, own.ref);
	await n8n.importWorkflows([workflow(TRIGGER, 'New dataset, one unreadable', chain(trigger, noOp('Received')))]);
	({ rest } = await startWithApi(n8n));
}, 10 * 60_000);

afterAll(async () => {
	await n8n?.dispose();
	await proxy?.close();
	await sim?.close();
});

describe(`an unreadable snapshot on n8n ${e2eVersion()}`, () => {
	test('activation records the datasets listed and starts nothing', async () => {
		await rest.activateWorkflow(TRIGGER);
		await waitForPolls(sim, key, ++polls);
		expect(await rest.executions(TRIGGER)).toEqual([]);
	});

	test('a good and a bad snapshot: one execution with both events, and the bad one reported once', async () => {
		const before = sim.datasets()[0].label;
		const good = sim.addSnapshot();
		const bad = sim.addSnapshot();
		proxy.damage.set(bad.label, breakLine(2));
		await pollAgain();
		const runs = await executions(2);
		const message = `The records of the dataset "${bad.label}" were not attached: line 2 is not a JSON record`;
		expect(runs).toContainEqual({
			status: 'success',
			events: [
				{ label: good.label, value: good.value, previousLabel: before, records: firstRecords(good.label) },
				{ label: bad.label, value: bad.value, previousLabel: good.label, records: [], error: message },
			],
		});
		expect(runs).toContainEqual({ status: 'error', error: message });
	});

	test('the next polls start nothing and read nothing; the snapshot after them fires alone', async () => {
		await pollAgain();
		const previous = sim.datasets()[0];
		const next = sim.addSnapshot();
		await pollAgain();
		const runs = await executions(3);
		expect(runs).toHaveLength(3);
		expect(runs[2]).toEqual({
			status: 'success',
			events: [
				{ label: next.label, value: next.value, previousLabel: previous.label, records: firstRecords(next.label) },
			],
		});
		const labels = sim
			.datasets()
			.slice(0, 3)
			.map((dataset) => dataset.label);
		expect(labels.map((label) => proxy.streams(label))).toEqual([1, 1, 1]);
	});
});
