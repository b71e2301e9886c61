/**
 * The trigger's memory survives a rename of its node: n8n keys a node's own static data by the node's name, so the
 * trigger keeps a copy under the node's id in the workflow's global static data. Over real HTTP to the simulator
 * through n8n-core's PollContext; a rename is played on the static data as n8n leaves it (the node's own data
 * under the old name, nothing under the new one). The memory belongs to the node's id and to the service it read:
 * what another node left under this node's name (swapped names, a node deleted and added anew under the same name)
 * and what was read from another Base URL do not count.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { runPoll } from '../../harness/n8n';
import { useSimulator } from '../../harness/simulator';
import { KEYS } from '../../simulator';

/** The harness names the trigger node "Domain Data Trigger" and gives it the id "node-under-test". */
const OWN_KEY = 'node:Domain Data Trigger';
const COPY_KEY = 'domainDataTrigger:node-under-test';

const sim = useSimulator({ domains: 100 });
/** Another service, for a trigger whose credential names another Base URL. */
const elsewhere = useSimulator({ domains: 100 });

async function poll(staticData: IDataObject, baseUrl = sim.url): Promise<string[] | null> {
	const result = await runPoll({
		parameters: { event: 'newDataset' },
		credentials: { apiKey: KEYS.pro, baseUrl },
		staticData,
	});
	return result === null ? null : (result[0] as INodeExecutionData[]).map((item) => String(item.json.label));
}

/** The copy under the node's id in the workflow's global static data. */
const copyIn = (staticData: IDataObject) => (staticData.global as IDataObject)[COPY_KEY] as IDataObject;

/** n8n restarting: what was saved is read back from its database as JSON. */
const saved = (staticData: IDataObject): IDataObject => JSON.parse(JSON.stringify(staticData));

/** The static data as n8n leaves it after the node "Old Name" was renamed to the harness's name. */
function renamedFrom(oldName: string, staticData: IDataObject): IDataObject {
	const data = saved(staticData);
	data[`node:${oldName}`] = data[OWN_KEY];
	delete data[OWN_KEY];
	copyIn(data).nodeName = oldName;
	return data;
}

/** A first poll of a trigger with a fresh memory: the static data it leaves. */
async function baseline(baseUrl: string): Promise<IDataObject> {
	const staticData: IDataObject = {};
	expect(await poll(staticData, baseUrl)).toBeNull();
	return staticData;
}

/** The static data as the node with the id `nodeId` and this node's name would have left it. */
function writtenBy(nodeId: string, staticData: IDataObject): IDataObject {
	const data = saved(staticData);
	const copy = copyIn(data);
	delete (data.global as IDataObject)[COPY_KEY];
	(data.global as IDataObject)[`domainDataTrigger:${nodeId}`] = { ...copy, nodeId };
	data[OWN_KEY] = { ...(data[OWN_KEY] as IDataObject), nodeId };
	return data;
}

test('the state is kept under the node id too, naming the node it was written under', async () => {
	const staticData: IDataObject = {};
	expect(await poll(staticData)).toBeNull();
	const own = staticData[OWN_KEY] as IDataObject;
	expect(copyIn(staticData)).toEqual({ ...own, nodeName: 'Domain Data Trigger' });
});

test('the state names the node id and the service it was read from, never the API key', async () => {
	const staticData: IDataObject = {};
	expect(await poll(staticData)).toBeNull();
	expect(staticData[OWN_KEY]).toMatchObject({ nodeId: 'node-under-test', service: sim.url });
	expect(copyIn(staticData)).toMatchObject({ nodeId: 'node-under-test', service: sim.url });
	expect(JSON.stringify(staticData)).not.toContain(KEYS.pro);
	// The same service written another way (the API root, a trailing slash) is the same service.
	sim.addSnapshot('2025-07-07');
	expect(await poll(staticData, `${sim.url}/json/api/v1/`)).toEqual(['2025-07-07']);
});

test("swapped names: what another node left under this name does not count, this node's copy does", async () => {
	// This node was "Other Name" and has seen 2025-06-30; the node now called "Other Name" had this node's name and
	// read another service, whose newest label is later (2025-07-21).
	const mine: IDataObject = {};
	expect(await poll(mine)).toBeNull();
	for (const label of ['2025-07-07', '2025-07-14', '2025-07-21']) elsewhere.addSnapshot(label);
	const theirs = writtenBy('other-node', await baseline(elsewhere.url));
	const swapped = renamedFrom('Other Name', mine);
	swapped[OWN_KEY] = theirs[OWN_KEY];
	Object.assign(swapped.global as IDataObject, theirs.global);
	sim.addSnapshot('2025-07-07');
	expect(await poll(swapped)).toEqual(['2025-07-07']);
	sim.addSnapshot('2025-07-14');
	expect(await poll(swapped)).toEqual(['2025-07-14']);
	expect(swapped[OWN_KEY]).toMatchObject({ nodeId: 'node-under-test', service: sim.url, lastLabel: '2025-07-14' });
	expect((swapped.global as IDataObject)['domainDataTrigger:other-node']).toMatchObject({ lastLabel: '2025-07-21' });
});

test('swapped names on one service: the later state another node left under this name does not count', async () => {
	const mine: IDataObject = {};
	expect(await poll(mine)).toBeNull();
	sim.addSnapshot('2025-07-07');
	const theirs = writtenBy('other-node', await baseline(sim.url));
	const swapped = renamedFrom('Other Name', mine);
	swapped[OWN_KEY] = theirs[OWN_KEY];
	expect(await poll(swapped)).toEqual(['2025-07-07']);
});

test('a node deleted and added anew under the same name takes a baseline: a snapshot published meanwhile does not fire', async () => {
	const removed = writtenBy('deleted-node', await baseline(sim.url));
	sim.addSnapshot('2025-07-07');
	expect(await poll(removed)).toBeNull();
	expect(removed[OWN_KEY]).toMatchObject({ nodeId: 'node-under-test', lastLabel: '2025-07-07' });
	sim.addSnapshot('2025-07-14');
	expect(await poll(removed)).toEqual(['2025-07-14']);
	expect(await poll(removed)).toBeNull();
});

test('a credential that names another service takes a baseline there, and again back on the first service', async () => {
	const staticData = await baseline(sim.url);
	elsewhere.addSnapshot('2025-07-07');
	expect(await poll(staticData, elsewhere.url)).toBeNull();
	expect(copyIn(staticData)).toMatchObject({ service: elsewhere.url, lastLabel: '2025-07-07' });
	elsewhere.addSnapshot('2025-07-14');
	expect(await poll(staticData, elsewhere.url)).toEqual(['2025-07-14']);
	// Back on the first service, the labels seen on the other one do not count: 2025-07-14 fires there too.
	sim.addSnapshot('2025-07-07');
	expect(await poll(staticData)).toBeNull();
	sim.addSnapshot('2025-07-14');
	expect(await poll(staticData)).toEqual(['2025-07-14']);
});

test('a state written before states named their node and service counts, and so does its copy after a rename', async () => {
	const older = await baseline(sim.url);
	for (const data of [older[OWN_KEY], copyIn(older)] as IDataObject[]) {
		delete data.nodeId;
		delete data.service;
	}
	sim.addSnapshot('2025-07-07');
	const read = saved(older);
	expect(await poll(read)).toEqual(['2025-07-07']);
	expect(read[OWN_KEY]).toMatchObject({ nodeId: 'node-under-test', service: sim.url });
	expect(await poll(renamedFrom('Old Name', older))).toEqual(['2025-07-07']);
});

test('a snapshot published while the node was renamed fires once, at the first poll after the rename', async () => {
	const before: IDataObject = {};
	expect(await poll(before)).toBeNull();
	sim.addSnapshot('2025-07-07');
	const staticData = renamedFrom('Old Name', before);
	expect(await poll(staticData)).toEqual(['2025-07-07']);
	expect(await poll(staticData)).toBeNull();
	// From now on under the new name too.
	expect((staticData[OWN_KEY] as IDataObject).lastLabel).toBe('2025-07-07');
	expect(copyIn(staticData).nodeName).toBe('Domain Data Trigger');
});

test('renamed and renamed back: the stale state under the first name does not fire a snapshot again', async () => {
	const staticData: IDataObject = {};
	expect(await poll(staticData)).toBeNull();
	const stale = saved(staticData)[OWN_KEY];
	sim.addSnapshot('2025-07-07');
	expect(await poll(staticData)).toEqual(['2025-07-07']);
	// While the node was called "Other Name" it fired 2025-07-07; back under its first name, the data under that
	// name is the one from before.
	const back = renamedFrom('Other Name', staticData);
	back[OWN_KEY] = stale;
	expect(await poll(back)).toBeNull();
	sim.addSnapshot('2025-07-14');
	expect(await poll(back)).toEqual(['2025-07-14']);
});

test('a state saved before the copy existed is read from the node and copied at the next save', async () => {
	const staticData: IDataObject = {};
	expect(await poll(staticData)).toBeNull();
	const older = saved(staticData);
	delete older.global;
	sim.addSnapshot('2025-07-07');
	expect(await poll(older)).toEqual(['2025-07-07']);
	expect(copyIn(older).lastLabel).toBe('2025-07-07');
	expect(await poll(renamedFrom('Old Name', older))).toBeNull();
});

test('under the same name the node’s own state counts, even none: a poll whose state n8n did not keep takes its baseline again', async () => {
	// Durable poll cursors (n8n 2.36+): the activation's test poll saved the copy, but n8n did not commit the node's
	// own state; the first scheduled poll must write it (n8n commits only the node's own state).
	const staticData: IDataObject = {};
	expect(await poll(staticData)).toBeNull();
	const uncommitted = saved(staticData);
	delete uncommitted[OWN_KEY];
	sim.addSnapshot('2025-07-07');
	expect(await poll(uncommitted)).toBeNull();
	expect((uncommitted[OWN_KEY] as IDataObject).lastLabel).toBe('2025-07-07');
	sim.addSnapshot('2025-07-14');
	expect(await poll(uncommitted)).toEqual(['2025-07-14']);
});

test('after a rename, a copy older than the node’s own state does not fire a snapshot again', async () => {
	// Durable poll cursors key the node's own state by its id, so it survives a rename; the copy is saved apart from
	// the execution and may lag behind it.
	const staticData: IDataObject = {};
	expect(await poll(staticData)).toBeNull();
	const lagging = copyIn(saved(staticData));
	sim.addSnapshot('2025-07-07');
	expect(await poll(staticData)).toEqual(['2025-07-07']);
	const renamed = saved(staticData);
	(renamed.global as IDataObject)[COPY_KEY] = { ...lagging, nodeName: 'Old Name' };
	expect(await poll(renamed)).toBeNull();
});
