/**
 * The trigger's attached records when a snapshot cannot be read, over real HTTP: the simulator behind a
 * proxy that damages the stream of chosen snapshots (test/harness/damagingProxy.ts). What a user who
 * watches weekly snapshots needs: every event fires once, none twice, no poll fails for ever, and what went
 * wrong is reported once (n8n's trigger error reporting: `__emitError`, a failed execution in n8n).
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { onMalformedLineOption } from '../../../nodes/DomainData/actions/dataset/output';
import { DomainDataTrigger } from '../../../nodes/DomainDataTrigger/DomainDataTrigger.node';
import { breakLine, startDamagingProxy, type DamagingProxy } from '../../harness/damagingProxy';
import { runPoll } from '../../harness/n8n';
import { useSimulator } from '../../harness/simulator';
import { KEYS } from '../../simulator';

const sim = useSimulator({ domains: 300 });
let proxy: DamagingProxy;

beforeEach(async () => {
	proxy = await startDamagingProxy(sim.url);
});
afterEach(async () => {
	await proxy.close();
});

const attach = (options: INodeParameters = {}): INodeParameters => ({
	attachRecords: true,
	recordCount: 5,
	fields: ['name', 'rank'],
	options,
});

/** One poll in trigger mode through the proxy; `reported` collects what it reports through n8n. */
async function poll(staticData: IDataObject, parameters: INodeParameters, reported: Error[] = [], mode?: 'manual') {
	const result = await runPoll({
		parameters: { event: 'newDataset', ...parameters },
		credentials: { apiKey: KEYS.pro, baseUrl: proxy.url },
		staticData,
		mode,
		reported,
	});
	return result?.[0] ?? null;
}

const json = (items: INodeExecutionData[] | null) => (items ?? []).map((item) => item.json);
const valueOf = (label: string) => sim.datasets().find((d) => d.label === label)!.value;
const firstRecords = (label: string, count = 5) =>
	Array.from({ length: count }, (_, i) => JSON.parse(sim.index.lineAt(i, label, 'name,rank')));

describe('a snapshot with a malformed line', () => {
	test('Stop With an Error: both events fire, the bad one without records and with an error, reported once; nothing is read again', async () => {
		const staticData: IDataObject = {};
		const parameters = attach();
		await poll(staticData, parameters);
		sim.addSnapshot('2025-07-07');
		sim.addSnapshot('2025-07-14');
		proxy.damage.set('2025-07-14', breakLine(3));

		const reported: Error[] = [];
		expect(json(await poll(staticData, parameters, reported))).toEqual([
			{
				label: '2025-07-07',
				value: valueOf('2025-07-07'),
				previousLabel: '2025-06-30',
				records: firstRecords('2025-07-07'),
			},
			{
				label: '2025-07-14',
				value: valueOf('2025-07-14'),
				previousLabel: '2025-07-07',
				records: [],
				error: 'The records of the dataset "2025-07-14" were not attached: line 3 is not a JSON record',
			},
		]);
		expect(reported.map((error) => error.message)).toEqual([
			'The records of the dataset "2025-07-14" were not attached: line 3 is not a JSON record',
		]);
		expect((reported[0] as Error & { description: string }).description).toMatch(
			/"On Malformed Line" to "Skip and Count"/,
		);

		// The snapshot stays bad: the next polls neither read it again nor report it again.
		for (let i = 0; i < 2; i++) expect(await poll(staticData, parameters, reported)).toBeNull();
		expect(reported).toHaveLength(1);
		sim.addSnapshot('2025-07-21');
		expect(json(await poll(staticData, parameters, reported)).map((event) => event.label)).toEqual(['2025-07-21']);
		expect(['2025-07-07', '2025-07-14', '2025-07-21'].map((label) => proxy.streams(label))).toEqual([1, 1, 1]);
		expect(reported).toHaveLength(1);
	});

	test('Skip and Count: the event carries the other records and the number of skipped lines; nothing is reported', async () => {
		const staticData: IDataObject = {};
		const parameters = attach({ onMalformedLine: 'skip' });
		await poll(staticData, parameters);
		sim.addSnapshot('2025-07-07');
		proxy.damage.set('2025-07-07', breakLine(2));
		const reported: Error[] = [];
		const [event] = json(await poll(staticData, parameters, reported));
		const records = firstRecords('2025-07-07');
		expect(event).toMatchObject({ label: '2025-07-07', records: [records[0], ...records.slice(2)], skippedLines: 1 });
		expect(reported).toEqual([]);
	});

	test('Skip and Count with nothing but malformed lines: the event fires with an error once, the poll does not fail', async () => {
		const staticData: IDataObject = {};
		const parameters = attach({ onMalformedLine: 'skip' });
		await poll(staticData, parameters);
		sim.addSnapshot('2025-07-07');
		proxy.damage.set('2025-07-07', (lines) => lines.map(() => '<html>'));
		const reported: Error[] = [];
		const [event] = json(await poll(staticData, parameters, reported));
		expect(event).toMatchObject({ label: '2025-07-07', records: [] });
		expect(event.error).toBe(
			'The records of the dataset "2025-07-07" were not attached: lines 1, 2, 3, 4, 5 are not JSON records',
		);
		expect(reported).toHaveLength(1);
		expect(await poll(staticData, parameters, reported)).toBeNull();
		expect(proxy.streams('2025-07-07')).toBe(1);
	});

	test('Fetch Test Event shows the event the active trigger would give, error included', async () => {
		sim.addSnapshot('2025-07-07');
		proxy.damage.set('2025-07-07', breakLine(1));
		const [event] = json(await poll({}, attach(), [], 'manual'));
		expect(event).toMatchObject({ label: '2025-07-07', records: [], error: expect.stringMatching(/line 1 is not/) });
	});
});

describe('a snapshot the service fails to send', () => {
	test('the events before it fire and are not read again; the failure is reported; it fires once the service sends it', async () => {
		const staticData: IDataObject = {};
		const parameters = attach({ maxAttempts: 1 });
		await poll(staticData, parameters);
		sim.addSnapshot('2025-07-07');
		sim.addSnapshot('2025-07-14');
		sim.setFaults({ requests: [{ endpoint: 'stream', path: '2025-07-14$', status: 500, count: 2 }] });

		const reported: Error[] = [];
		expect(json(await poll(staticData, parameters, reported)).map((event) => event.label)).toEqual(['2025-07-07']);
		expect(reported).toHaveLength(1);
		expect((reported[0] as Error & { description: string }).description).toMatch(
			/before the dataset "2025-07-14" fired; it and the datasets after it come at the next poll/,
		);

		// Nothing fired: the poll fails as a whole, as any failed poll does, and keeps its state.
		const saved = JSON.stringify(staticData);
		await expect(poll(staticData, parameters, reported)).rejects.toMatchObject({ httpCode: '500' });
		expect(JSON.stringify(staticData)).toBe(saved);

		const [event] = json(await poll(staticData, parameters, reported));
		expect(event).toEqual({
			label: '2025-07-14',
			value: valueOf('2025-07-14'),
			previousLabel: '2025-07-07',
			records: firstRecords('2025-07-14'),
		});
		expect([proxy.streams('2025-07-07'), proxy.streams('2025-07-14')]).toEqual([1, 3]);
		expect(await poll(staticData, parameters, reported)).toBeNull();
	});
});

test('the On Malformed Line option is the one Dataset → Stream shows, for attached records', () => {
	const options = new DomainDataTrigger().description.properties.find((property) => property.name === 'options')!;
	expect(options.options).toContainEqual({
		...onMalformedLineOption,
		displayOptions: { show: { '/attachRecords': [true] } },
	});
});
