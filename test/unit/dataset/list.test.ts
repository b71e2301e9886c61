/**
 * Dataset → List, the label dropdown and label resolution, through n8n-core's real contexts against the
 * simulator over HTTP.
 */
import {
	type Dataset,
	DatasetLabels,
	datedNewestFirst,
	isCalendarDate,
	listDatasets,
} from '../../../nodes/DomainData/helpers/datasets';
import { DEFAULT_CALL_LIMITS } from '../../../nodes/DomainData/transport';
import { startLocalService } from '../../harness/localService';
import { createExecuteContext, loadOptions, runNode } from '../../harness/n8n';
import { useSimulator } from '../../harness/simulator';
import { KEYS } from '../../simulator';

const sim = useSimulator({ domains: 200, snapshots: 6 });
const credentials = () => ({ apiKey: KEYS.pro, baseUrl: sim.url });

describe('Dataset → List', () => {
	it('returns one item { label, value } per dataset, newest first, with Return All', async () => {
		const result = await runNode({
			parameters: { resource: 'dataset', operation: 'list', returnAll: true },
			credentials: credentials(),
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json)).toEqual(sim.datasets());
		expect(result.items.map((item) => item.json.label)).toEqual([
			'2025-06-30',
			'2025-06-23',
			'2025-06-16',
			'2025-06-09',
			'2025-06-02',
			'2025-05-26',
		]);
		expect(result.items.every((item) => JSON.stringify(item.pairedItem) === '{"item":0}')).toBe(true);
		expect(sim.calls('datasets')).toHaveLength(1);
	});

	it('returns the newest ones up to Limit', async () => {
		const result = await runNode({
			parameters: { resource: 'dataset', operation: 'list', returnAll: false, limit: 2 },
			credentials: credentials(),
		});
		expect(result.items.map((item) => item.json.label)).toEqual(['2025-06-30', '2025-06-23']);
	});

	it('runs once per input item, pairing each output with its item', async () => {
		const result = await runNode({
			parameters: { resource: 'dataset', operation: 'list', limit: 1 },
			credentials: credentials(),
			input: [{ json: {} }, { json: {} }],
		});
		expect(result.items.map((item) => [item.json.label, item.pairedItem])).toEqual([
			['2025-06-30', { item: 0 }],
			['2025-06-30', { item: 1 }],
		]);
	});

	it('refuses a Limit that is not a whole number of 1 or more before any call, like every Limit; per item with continueOnFail', async () => {
		const failing = await runNode({
			parameters: { resource: 'dataset', operation: 'list', returnAll: false, limit: 0 },
			credentials: credentials(),
		});
		expect(failing.error?.message).toBe('The parameter "Limit" must be a whole number of 1 or more, got 0');
		expect(failing.items).toEqual([]);
		expect(sim.calls('datasets')).toHaveLength(0);

		const continued = await runNode({
			parameters: { resource: 'dataset', operation: 'list', limit: '={{ $json.limit }}' },
			credentials: credentials(),
			continueOnFail: true,
			input: [{ json: { limit: 2.5 } }, { json: { limit: 1 } }],
		});
		expect(continued.items.map((item) => [item.json, item.pairedItem])).toEqual([
			[{ error: 'The parameter "Limit" must be a whole number of 1 or more, got 2.5' }, { item: 0 }],
			[{ label: '2025-06-30', value: sim.datasets()[0].value }, { item: 1 }],
		]);
		expect(sim.calls('datasets')).toHaveLength(1);
	});

	it('fails with the plan error on a plan without the historical feature, or gives an error item with continueOnFail', async () => {
		const failing = await runNode({
			parameters: { resource: 'dataset', operation: 'list', returnAll: true },
			credentials: { apiKey: KEYS.basic, baseUrl: sim.url },
		});
		expect(failing.error?.message).toMatch(/plan/i);
		expect(failing.error?.message).not.toContain(KEYS.basic);

		const continued = await runNode({
			parameters: { resource: 'dataset', operation: 'list', returnAll: true },
			credentials: { apiKey: KEYS.basic, baseUrl: sim.url },
			continueOnFail: true,
			input: [{ json: {} }, { json: {} }],
		});
		expect(continued.error).toBeUndefined();
		expect(continued.items).toHaveLength(2);
		expect(continued.items[1]).toEqual({ json: { error: expect.stringMatching(/plan/i) }, pairedItem: { item: 1 } });
	});
});

describe('the Dataset dropdown (getDatasetLabels)', () => {
	it('lists "latest" first, then every date label, newest first', async () => {
		const options = await loadOptions({
			method: 'getDatasetLabels',
			parameters: { resource: 'dataset', operation: 'stream' },
			credentials: credentials(),
		});
		expect(options.map((option) => option.value)).toEqual([
			'latest',
			...sim.datasets().map((dataset) => dataset.label),
		]);
		expect(options[0].name).toBe('Latest');
		expect(options[0].description).toContain('2025-06-30');
	});
});

describe('label resolution (DatasetLabels, one per execution)', () => {
	async function context() {
		return (
			await createExecuteContext({
				parameters: { resource: 'dataset', operation: 'stream' },
				credentials: credentials(),
			})
		).context;
	}

	/** What one execution makes of a label. */
	async function resolveLabel(label: string): Promise<string> {
		return await new DatasetLabels(await context()).label(label, DEFAULT_CALL_LIMITS);
	}

	it('turns latest into the newest label, and follows a new snapshot', async () => {
		expect(await resolveLabel('latest')).toBe('2025-06-30');
		sim.addSnapshot('2025-07-07');
		expect(await resolveLabel(' latest ')).toBe('2025-07-07');
	});

	it("keeps a date label, and turns a snapshot id (the list's value) into its label", async () => {
		const [, second] = sim.datasets();
		expect(await resolveLabel(second.label)).toBe(second.label);
		expect(await resolveLabel(second.value)).toBe(second.label);
	});

	it('refuses an unknown label, naming it and the newest labels that exist', async () => {
		// A date label is read without the list: the stream's 404 brings the list and the same error.
		const { error } = await runNode({
			parameters: { resource: 'dataset', operation: 'stream', label: '2024-01-01', limit: 1 },
			credentials: credentials(),
		});
		expect(error).toBeInstanceOf(Error);
		expect(error?.message).toBe(
			'The dataset "2024-01-01" does not exist. The newest datasets are: 2025-06-30, 2025-06-23, 2025-06-16, 2025-06-09, 2025-06-02',
		);
		expect(error?.description).toContain('latest');
	});

	it('names a label that holds a system error code as typed ("deeperm" holds EPERM, which n8n would replace)', async () => {
		const error = await resolveLabel('deeperm').catch((caught: Error) => caught);
		expect((error as Error).message).toMatch(
			/^The dataset "deeperm" does not exist\. The newest datasets are: 2025-06-30/,
		);
	});

	it('says so when there is no dataset at all', async () => {
		for (const { label } of sim.datasets()) sim.removeSnapshot(label);
		await expect(resolveLabel('latest')).rejects.toThrow('the service lists no datasets');
		expect(await listDatasets.call(await context())).toEqual([]);
	});
});

describe('latest is the newest calendar date listed, wherever the list puts it (local server)', () => {
	const lists: Record<string, Array<{ label: string; value: string }>> = {
		'oldest first': [
			{ label: '2025-06-16', value: 'snap_16' },
			{ label: '2025-06-23', value: 'snap_23' },
			{ label: '2025-06-30', value: 'snap_30' },
		],
		'a label that is no date first': [
			{ label: 'full-export', value: 'snap_full' },
			{ label: '2025-13-45', value: 'snap_bogus' },
			{ label: '2025-06-30', value: 'snap_30' },
			{ label: '2025-06-23', value: 'snap_23' },
		],
	};

	it.each(Object.keys(lists))('%s: Stream reads 2025-06-30 and names it', async (kind) => {
		const service = await startLocalService((request) =>
			request.path === '/historical/domain'
				? { body: { datasets: lists[kind] } }
				: {
						headers: { 'content-type': 'application/x-ndjson' },
						body: `{"name":"a.com","rank":1}\n{"name":"b.com","rank":2}\n`,
					},
		);
		try {
			const result = await runNode({
				parameters: { resource: 'dataset', operation: 'stream', label: 'latest', returnAll: true },
				credentials: { apiKey: 'local-key-123', baseUrl: service.url },
			});
			expect(result.error).toBeUndefined();
			expect(service.requests.map((request) => request.path)).toEqual([
				'/historical/domain',
				'/historical/domain/2025-06-30',
			]);
			expect(result.items.map((item) => item.json.label)).toEqual(['2025-06-30', '2025-06-30']);
		} finally {
			await service.close();
		}
	});

	it('no date label at all: latest fails with a message that says so', async () => {
		const service = await startLocalService(() => ({
			body: { datasets: [{ label: 'full-export', value: 'snap_full' }] },
		}));
		try {
			const result = await runNode({
				parameters: { resource: 'dataset', operation: 'stream', label: 'latest' },
				credentials: { apiKey: 'local-key-123', baseUrl: service.url },
			});
			expect(result.error?.message).toBe(
				'The dataset "latest" does not exist: the service lists no dataset with a date label (YYYY-MM-DD), only full-export',
			);
			expect(service.requests).toHaveLength(1);
		} finally {
			await service.close();
		}
	});

	it('the dropdowns show the dated labels newest first, and "latest" as the newest, whatever the list order', async () => {
		const service = await startLocalService(() => ({
			body: { datasets: [...lists['oldest first'], { label: 'full-export', value: 'x' }] },
		}));
		try {
			const dropdown = (method: string) =>
				loadOptions({
					method,
					parameters: { resource: 'dataset', operation: 'compare' },
					credentials: { apiKey: 'local-key-123', baseUrl: service.url },
				});
			const labels = await dropdown('getDatasetLabels');
			expect(labels.map((option) => option.value)).toEqual(['latest', '2025-06-30', '2025-06-23', '2025-06-16']);
			expect(labels[0].description).toBe('The newest snapshot when the node runs (now 2025-06-30)');
			expect((await dropdown('getBaseDatasetLabels')).map((option) => option.value)).toEqual([
				'previous',
				'2025-06-30',
				'2025-06-23',
				'2025-06-16',
			]);
		} finally {
			await service.close();
		}
	});

	it('Compare refuses a label that is no date on either side, naming the dated ones, after the list call only', async () => {
		const service = await startLocalService(() => ({ body: { datasets: lists['a label that is no date first'] } }));
		try {
			const compare = (label: string, baseLabel: string) =>
				runNode({
					parameters: { resource: 'dataset', operation: 'compare', label, baseLabel, returnAll: true },
					credentials: { apiKey: 'local-key-123', baseUrl: service.url },
				});
			const base = await compare('latest', 'full-export');
			expect(base.error?.message).toBe(
				'The dataset "full-export" chosen in "Compare With" has no date label (YYYY-MM-DD)',
			);
			expect(base.error?.description).toContain('The newest dated ones are: 2025-06-30, 2025-06-23.');
			const newer = await compare('snap_full', 'previous');
			expect(newer.error?.message).toBe('The dataset "full-export" chosen in "Dataset" has no date label (YYYY-MM-DD)');
			expect(service.requests.map((request) => request.path)).toEqual(['/historical/domain', '/historical/domain']);
		} finally {
			await service.close();
		}
	});

	it('isCalendarDate and newestDateLabel: the one date rule', () => {
		expect(['2025-06-30', '2024-02-29', '2000-02-29'].every(isCalendarDate)).toBe(true);
		expect(
			['2025-13-45', '2025-02-29', '1900-02-29', '2025-06-31', '2025-6-30', ' 2025-06-30', '0099-01-01', 20250630].some(
				isCalendarDate,
			),
		).toBe(false);
		const newestDateLabel = (listed: Dataset[]) => datedNewestFirst(listed).dated[0]?.label;
		expect(newestDateLabel(lists['oldest first'])).toBe('2025-06-30');
		expect(newestDateLabel(lists['a label that is no date first'])).toBe('2025-06-30');
		expect(newestDateLabel([{ label: 'x', value: 'y' }])).toBeUndefined();
	});
});
