/**
 * Domain Data Trigger over real HTTP: n8n-core's PollContext (test/harness/n8n.ts `runPoll`) against the
 * simulator. `staticData` plays n8n's saved static data: it is kept between polls, and serialised to JSON
 * and back where a test restarts n8n. The simulator's request log proves every call the trigger made.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { startLocalService } from '../../harness/localService';
import { runPoll } from '../../harness/n8n';
import { useSimulator } from '../../harness/simulator';
import { KEYS } from '../../simulator';

/** n8n keeps a node's static data under "node:<node name>"; the harness names the trigger like this. */
const STATE_KEY = 'node:Domain Data Trigger';

const sim = useSimulator({ domains: 300 });

interface PollOptions {
	parameters?: INodeParameters;
	mode?: 'trigger' | 'manual';
	apiKey?: string;
	baseUrl?: string;
}

/**
 * One poll, as n8n runs it; also proves the cost rule: exactly one dataset-list call per poll, and no
 * stream call unless records are attached and something is emitted.
 */
async function poll(staticData: IDataObject, options: PollOptions = {}): Promise<INodeExecutionData[] | null> {
	const listBefore = sim.calls('datasets').length;
	const streamBefore = sim.calls('stream').length;
	const result = await runPoll({
		parameters: { event: 'newDataset', ...options.parameters },
		credentials: { apiKey: options.apiKey ?? KEYS.pro, baseUrl: options.baseUrl ?? sim.url },
		staticData,
		mode: options.mode,
	});
	// n8n writes static data to its database when a poll emits, but only if it is flagged as changed.
	if (result !== null && options.mode !== 'manual') expect(n8nWouldSave(staticData)).toBe(true);
	if (!options.baseUrl) {
		expect(sim.calls('datasets').length - listBefore).toBe(1);
		const emitted = result?.[0]?.length ?? 0;
		const streamed = sim.calls('stream').length - streamBefore;
		if (!options.parameters?.attachRecords) expect(streamed).toBe(0);
		else expect(streamed).toBe(emitted);
	}
	return result === null ? null : result[0];
}

/**
 * Whether n8n would write this static data to its database after the last poll: it saves only data that
 * its ObservableObject flagged `__dataChanged` (set by assignments, not by changes inside an array kept in
 * it). The harness hands `staticData` itself to n8n's Workflow, so the flag of the last poll is on it.
 */
function n8nWouldSave(staticData: IDataObject): boolean {
	return Object.getOwnPropertyDescriptor(staticData, '__dataChanged')?.value === true;
}

/** Runs a poll that must fail; returns what it threw. */
async function failingPoll(staticData: IDataObject, options: PollOptions = {}) {
	try {
		await runPoll({
			parameters: { event: 'newDataset', ...options.parameters },
			credentials: { apiKey: options.apiKey ?? KEYS.pro, baseUrl: options.baseUrl ?? sim.url },
			staticData,
			mode: options.mode,
		});
	} catch (error) {
		return error as Error & { httpCode?: string | null; description?: string };
	}
	throw new Error('The poll was expected to fail');
}

const labels = (items: INodeExecutionData[] | null) => (items ?? []).map((item) => item.json.label);
const valueOf = (label: string) => sim.datasets().find((d) => d.label === label)!.value;
/** n8n restarting: what was saved is read back from its database as JSON. */
const restart = (staticData: IDataObject): IDataObject => JSON.parse(JSON.stringify(staticData));

describe('baseline', () => {
	test('the first poll records the newest label and emits nothing', async () => {
		const staticData: IDataObject = {};
		expect(await poll(staticData)).toBeNull();
		// Activation runs this first poll, and n8n saves changed static data right after activating.
		expect(n8nWouldSave(staticData)).toBe(true);
		expect(staticData[STATE_KEY]).toEqual({
			version: 1,
			lastLabel: '2025-06-30',
			seen: ['2025-06-30', '2025-06-23', '2025-06-16', '2025-06-09'],
			nodeId: 'node-under-test',
			service: sim.url,
		});
	});

	test('a baseline on an empty list, then the very first snapshot fires', async () => {
		for (const { label } of sim.datasets()) sim.removeSnapshot(label);
		const staticData: IDataObject = {};
		expect(await poll(staticData)).toBeNull();
		expect(staticData[STATE_KEY]).toEqual({
			version: 1,
			lastLabel: null,
			seen: [],
			nodeId: 'node-under-test',
			service: sim.url,
		});
		sim.addSnapshot('2025-07-07');
		const items = await poll(staticData);
		expect(items?.map((item) => item.json)).toEqual([
			{ label: '2025-07-07', value: valueOf('2025-07-07'), previousLabel: null },
		]);
	});
});

describe('new datasets', () => {
	test('one new label: one item { label, value, previousLabel }, then nothing', async () => {
		const staticData: IDataObject = {};
		await poll(staticData);
		sim.addSnapshot();
		const items = await poll(staticData);
		expect(items?.map((item) => item.json)).toEqual([
			{ label: '2025-07-07', value: valueOf('2025-07-07'), previousLabel: '2025-06-30' },
		]);
		expect(await poll(staticData)).toBeNull();
	});

	test('two labels between polls both fire, oldest first', async () => {
		const staticData: IDataObject = {};
		await poll(staticData);
		sim.addSnapshot('2025-07-07');
		sim.addSnapshot('2025-07-14');
		const items = await poll(staticData);
		expect(items?.map((item) => item.json)).toEqual([
			{ label: '2025-07-07', value: valueOf('2025-07-07'), previousLabel: '2025-06-30' },
			{ label: '2025-07-14', value: valueOf('2025-07-14'), previousLabel: '2025-07-07' },
		]);
		expect((staticData[STATE_KEY] as IDataObject).lastLabel).toBe('2025-07-14');
		expect(await poll(staticData)).toBeNull();
	});

	test('no change: nothing emitted and the static data is not touched at all', async () => {
		const staticData: IDataObject = {};
		await poll(staticData);
		const saved = JSON.stringify(staticData);
		for (let i = 0; i < 3; i++) {
			expect(await poll(staticData)).toBeNull();
			expect(n8nWouldSave(staticData)).toBe(false);
		}
		// A quiet poll writes nothing, so n8n saving static data only when a poll emits loses nothing.
		expect(JSON.stringify(staticData)).toBe(saved);
	});
});

describe('failures change no state; the next good poll emits what was missed', () => {
	test('a 503 burst beyond the retries: the poll throws, then the recovery emits once', async () => {
		const staticData: IDataObject = {};
		await poll(staticData);
		sim.addSnapshot('2025-07-07');
		const saved = JSON.stringify(staticData);
		sim.setFaults({ requests: [{ endpoint: 'datasets', status: 503, count: 2 }] });
		sim.clearLog();
		const error = await failingPoll(staticData, { parameters: { options: { maxAttempts: 2 } } });
		expect(error.httpCode).toBe('503');
		expect(sim.calls('datasets').map((call) => call.status)).toEqual([503, 503]);
		expect(JSON.stringify(staticData)).toBe(saved);

		expect(labels(await poll(staticData))).toEqual(['2025-07-07']);
		expect(await poll(staticData)).toBeNull();
	});

	test('credits used up (402): the poll throws a message about credits; nothing lost after top-up', async () => {
		const key = 'trigger-credits-key';
		sim.setKey(key, 'pro');
		const staticData: IDataObject = {};
		await poll(staticData, { apiKey: key });
		sim.addSnapshot('2025-07-07');
		sim.addSnapshot('2025-07-14');
		sim.setKey(key, 'pro', 0);
		const saved = JSON.stringify(staticData);
		const error = await failingPoll(staticData, { apiKey: key });
		expect(error.httpCode).toBe('402');
		expect(`${error.message} ${error.description ?? ''}`).toMatch(/credit/i);
		expect(JSON.stringify(staticData)).toBe(saved);

		sim.setKey(key, 'pro');
		expect(labels(await poll(staticData, { apiKey: key }))).toEqual(['2025-07-07', '2025-07-14']);
		expect(await poll(staticData, { apiKey: key })).toBeNull();
	});

	test('a key without the historical feature (403) gets a message that names the plan feature', async () => {
		const error = await failingPoll({}, { apiKey: KEYS.basic });
		expect(error.httpCode).toBe('403');
		expect(error.message).toMatch(/historical data/i);
	});
});

describe('restart', () => {
	test('static data saved and read back: nothing emitted twice, later snapshots still fire', async () => {
		let staticData: IDataObject = {};
		await poll(staticData);
		sim.addSnapshot('2025-07-07');
		expect(labels(await poll(staticData))).toEqual(['2025-07-07']);

		staticData = restart(staticData);
		expect(await poll(staticData)).toBeNull();

		sim.addSnapshot('2025-07-14');
		staticData = restart(staticData);
		expect(labels(await poll(staticData))).toEqual(['2025-07-14']);
	});

	test('a snapshot published while n8n was down fires at the first poll after the restart', async () => {
		let staticData: IDataObject = {};
		await poll(staticData);
		staticData = restart(staticData);
		sim.addSnapshot('2025-07-07');
		expect(labels(await poll(staticData))).toEqual(['2025-07-07']);
	});
});

describe('labels removed from the list', () => {
	test('the newest label removed and listed again does not fire twice; the next new one fires', async () => {
		const staticData: IDataObject = {};
		await poll(staticData);
		sim.removeSnapshot('2025-06-30');
		expect(await poll(staticData)).toBeNull();
		sim.addSnapshot('2025-06-30');
		expect(await poll(staticData)).toBeNull();
		sim.addSnapshot('2025-07-07');
		expect(labels(await poll(staticData))).toEqual(['2025-07-07']);
	});

	test('an older label removed changes nothing', async () => {
		const staticData: IDataObject = {};
		await poll(staticData);
		const saved = JSON.stringify(staticData);
		sim.removeSnapshot('2025-06-16');
		expect(await poll(staticData)).toBeNull();
		expect(JSON.stringify(staticData)).toBe(saved);
	});

	test('a far-future label neither fires nor silences the trigger', async () => {
		const staticData: IDataObject = {};
		await poll(staticData);
		sim.addSnapshot('2099-01-01');
		expect(await poll(staticData)).toBeNull();
		sim.addSnapshot('2025-07-07');
		const items = await poll(staticData);
		expect(items?.map((item) => item.json.previousLabel)).toEqual(['2025-06-30']);
		expect(labels(items)).toEqual(['2025-07-07']);
		sim.removeSnapshot('2099-01-01');
		expect(await poll(staticData)).toBeNull();
	});

	test('the newest label withdrawn and a backfill, in either order: the backfill never fires, the next real one does', async () => {
		for (const order of [['withdraw', 'backfill'], ['backfill', 'withdraw'], ['both']]) {
			sim.reset();
			const staticData: IDataObject = {};
			await poll(staticData);
			sim.addSnapshot('2025-07-07');
			expect(labels(await poll(staticData))).toEqual(['2025-07-07']);
			for (const event of order) {
				if (event !== 'backfill') sim.removeSnapshot('2025-07-07');
				if (event !== 'withdraw') sim.addSnapshot('2025-07-03');
				expect({ order, event, items: await poll(staticData) }).toEqual({ order, event, items: null });
			}
			sim.addSnapshot('2025-07-14');
			const items = await poll(staticData);
			expect(items?.map((item) => item.json)).toEqual([
				{ label: '2025-07-14', value: valueOf('2025-07-14'), previousLabel: '2025-07-03' },
			]);
		}
	});
});

describe('manual mode (Fetch Test Event)', () => {
	test('emits the newest dataset and leaves the state as it was, before and after the baseline', async () => {
		const staticData: IDataObject = {};
		const before = await poll(staticData, { mode: 'manual' });
		expect(before?.map((item) => item.json)).toEqual([
			{ label: '2025-06-30', value: valueOf('2025-06-30'), previousLabel: '2025-06-23' },
		]);
		expect(JSON.stringify(staticData)).toBe('{}');

		await poll(staticData);
		const saved = JSON.stringify(staticData);
		sim.addSnapshot('2025-07-07');
		expect(labels(await poll(staticData, { mode: 'manual' }))).toEqual(['2025-07-07']);
		expect(JSON.stringify(staticData)).toBe(saved);
		// The test run did not consume the event: the active trigger still fires it.
		expect(labels(await poll(staticData))).toEqual(['2025-07-07']);
	});

	test('no dataset listed yet: a clear error instead of an empty test event', async () => {
		for (const { label } of sim.datasets()) sim.removeSnapshot(label);
		const error = await failingPoll({}, { mode: 'manual' });
		expect(error.message).toMatch(/no dataset/i);
	});
});

describe('attached records', () => {
	const attach = (recordCount: number, fields?: string[]): INodeParameters => ({
		attachRecords: true,
		recordCount,
		...(fields ? { fields } : {}),
	});
	const expectedRecords = (label: string, count: number, fields?: string) =>
		Array.from({ length: count }, (_, i) => JSON.parse(sim.index.lineAt(i, label, fields)));

	test('each new dataset carries its first records in the chosen fields; one stream call per event', async () => {
		const staticData: IDataObject = {};
		const parameters = attach(5, ['rank', 'domain', 'technologies']);
		await poll(staticData, { parameters });
		sim.addSnapshot('2025-07-07');
		sim.addSnapshot('2025-07-14');
		sim.clearLog();
		const items = await poll(staticData, { parameters });
		expect(labels(items)).toEqual(['2025-07-07', '2025-07-14']);
		expect(items![0].json.records).toEqual(expectedRecords('2025-07-07', 5, 'name,rank,technologies'));
		expect(items![1].json.records).toEqual(expectedRecords('2025-07-14', 5, 'name,rank,technologies'));
		const streams = sim.calls('stream');
		expect(streams.map((call) => call.path)).toEqual([
			'/json/api/v1/historical/domain/2025-07-07',
			'/json/api/v1/historical/domain/2025-07-14',
		]);
		expect(streams[0].query).toMatchObject({ limit: '5', fields: 'name,rank,technologies' });
	});

	test("fields left as preset, or all deselected: the service's default selection", async () => {
		for (const parameters of [attach(3), attach(3, [])]) {
			sim.reset();
			const staticData: IDataObject = {};
			await poll(staticData, { parameters });
			sim.addSnapshot('2025-07-07');
			const items = await poll(staticData, { parameters });
			expect(items![0].json.records).toEqual(expectedRecords('2025-07-07', 3));
			expect(sim.calls('stream').at(-1)!.query.fields).toBe(
				'name,rank,title,meta_description,country_code,language_code,categories,technologies,tld1',
			);
		}
	});

	test('manual mode attaches the records of the newest dataset, so that their fields can be mapped', async () => {
		const items = await poll({}, { mode: 'manual', parameters: attach(2, ['name']) });
		expect(items![0].json.records).toEqual(expectedRecords('2025-06-30', 2, 'name'));
	});

	test('a failed slice read fails the poll with no state change; the event comes with the next poll', async () => {
		const staticData: IDataObject = {};
		const parameters = attach(3, ['name']);
		await poll(staticData, { parameters });
		sim.addSnapshot('2025-07-07');
		const saved = JSON.stringify(staticData);
		sim.setFaults({ requests: [{ endpoint: 'stream', status: 500, count: 1 }] });
		const error = await failingPoll(staticData, { parameters: { ...parameters, options: { maxAttempts: 1 } } });
		expect(error.httpCode).toBe('500');
		expect(JSON.stringify(staticData)).toBe(saved);

		const items = await poll(staticData, { parameters });
		expect(labels(items)).toEqual(['2025-07-07']);
		expect(items![0].json.records).toEqual(expectedRecords('2025-07-07', 3, 'name'));
		expect(await poll(staticData, { parameters })).toBeNull();
	});

	test('a stream cut in the middle fails the poll the same way', async () => {
		const staticData: IDataObject = {};
		const parameters = attach(50, ['name']);
		await poll(staticData, { parameters });
		sim.addSnapshot('2025-07-07');
		const saved = JSON.stringify(staticData);
		sim.setFaults({ streams: [{ dropAfterLines: 10, count: 10 }] });
		await failingPoll(staticData, { parameters: { ...parameters, options: { maxAttempts: 1 } } });
		expect(JSON.stringify(staticData)).toBe(saved);
		sim.resetFaults();
		expect(labels(await poll(staticData, { parameters }))).toEqual(['2025-07-07']);
	});

	test('a bad field name is reported as a parameter error before any call', async () => {
		sim.clearLog();
		const error = await failingPoll({}, { parameters: { attachRecords: true, recordCount: 3, fields: 'name,colour' } });
		expect(error.message).toMatch(/colour/);
		expect(sim.calls()).toHaveLength(0);
	});
});

describe('labels that are not dates', () => {
	test('an impossible date such as 2025-13-45 neither fires nor holds back the next real snapshot', async () => {
		let datasets = [{ label: '2025-06-30', value: 'snap_a' }];
		const service = await startLocalService(() => ({ body: { datasets } }));
		const baseUrl = service.url;
		try {
			const staticData: IDataObject = {};
			expect(await poll(staticData, { baseUrl })).toBeNull();
			datasets = [{ label: '2025-13-45', value: 'snap_bogus' }, ...datasets];
			expect(await poll(staticData, { baseUrl })).toBeNull();
			datasets = [{ label: '2025-07-07', value: 'snap_b' }, ...datasets];
			expect((await poll(staticData, { baseUrl }))?.map((item) => item.json)).toEqual([
				{ label: '2025-07-07', value: 'snap_b', previousLabel: '2025-06-30' },
			]);
			expect(staticData[STATE_KEY]).toMatchObject({ lastLabel: '2025-07-07', seen: ['2025-07-07', '2025-06-30'] });
		} finally {
			await service.close();
		}
	});

	test('are ignored: no crash, never emitted, not emitted again on the next polls', async () => {
		// The simulator only publishes date labels; a small server plays a service that lists others too.
		let datasets = [
			{ label: 'nightly', value: 'snap_nightly' },
			{ label: '2025-06-30', value: 'snap_a' },
			{ label: '30.06.2025', value: 'snap_b' },
		];
		let calls = 0;
		const server = createServer((_req, res) => {
			calls++;
			res.setHeader('content-type', 'application/json');
			res.end(JSON.stringify({ datasets }));
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		try {
			const staticData: IDataObject = {};
			expect(await poll(staticData, { baseUrl })).toBeNull();
			expect(staticData[STATE_KEY]).toMatchObject({ lastLabel: '2025-06-30', seen: ['2025-06-30'] });
			datasets = [{ label: 'weekly-2', value: 'snap_w' }, ...datasets];
			expect(await poll(staticData, { baseUrl })).toBeNull();
			datasets = [{ label: '2025-07-07', value: 'snap_c' }, ...datasets];
			const items = await poll(staticData, { baseUrl });
			expect(items?.map((item) => item.json)).toEqual([
				{ label: '2025-07-07', value: 'snap_c', previousLabel: '2025-06-30' },
			]);
			expect(await poll(staticData, { baseUrl })).toBeNull();
			const manual = await poll(staticData, { baseUrl, mode: 'manual' });
			expect(labels(manual)).toEqual(['2025-07-07']);
			expect(calls).toBe(5);
		} finally {
			await new Promise((resolve) => server.close(resolve));
		}
	});
});
