/**
 * Dataset → Stream through n8n-core's real execute context against the simulator over HTTP: the three
 * outputs, label resolution, fields, filters, the memory guard, continueOnFail and pairedItem.
 * Stream faults (drops, malformed lines...) are in stream.faults.test.ts.
 */
import { gunzipSync } from 'node:zlib';

import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { readBinary, runNode } from '../../harness/n8n';
import { useSimulator } from '../../harness/simulator';
import { DEFAULT_RECORD_FIELDS, KEYS } from '../../simulator';

const DOMAINS = 2000;
const NEWEST = '2025-06-30';
const sim = useSimulator({ domains: DOMAINS });

function stream(parameters: INodeParameters, extra: { input?: INodeExecutionData[]; continueOnFail?: boolean } = {}) {
	return runNode({
		parameters: { resource: 'dataset', operation: 'stream', label: 'latest', ...parameters },
		credentials: { apiKey: KEYS.pro, baseUrl: sim.url },
		...extra,
	});
}

/** The record at a 0-based position as the clean stream sends it for these fields. */
function expected(position: number, fields?: string, label = NEWEST): IDataObject {
	return JSON.parse(sim.index.lineAt(position, label, fields)) as IDataObject;
}

function expectedRange(count: number, fields?: string, label = NEWEST): IDataObject[] {
	return Array.from({ length: count }, (_, position) => expected(position, fields, label));
}

/** The records of an items output, without the label each item carries. */
function recordsOf(items: INodeExecutionData[]): IDataObject[] {
	return items.map(({ json }) => {
		const { label: _label, ...record } = json;
		return record;
	});
}

describe('Dataset → Stream, items output', () => {
	it('resolves latest with one list call, reads that concrete label, and names it in every item', async () => {
		const result = await stream({ limit: 5 });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(5);
		expect(result.items.every((item) => item.json.label === NEWEST)).toBe(true);
		expect(recordsOf(result.items)).toEqual(expectedRange(5));
		expect(result.items.every((item) => JSON.stringify(item.pairedItem) === '{"item":0}')).toBe(true);

		expect(sim.calls('datasets')).toHaveLength(1);
		const [call] = sim.calls('stream');
		expect(call.path).toBe(`/json/api/v1/historical/domain/${NEWEST}`);
		// Without filters the service cuts the stream itself: nothing is downloaded in vain.
		expect(call.query).toEqual({ fields: DEFAULT_RECORD_FIELDS.join(','), limit: '5' });
	});

	it('reads a date label directly, without a list call', async () => {
		const result = await stream({ label: '2025-06-16', limit: 3 });
		expect(recordsOf(result.items)).toEqual(expectedRange(3, undefined, '2025-06-16'));
		expect(result.items[0].json.label).toBe('2025-06-16');
		expect(sim.calls('datasets')).toHaveLength(0);
		expect(sim.calls('stream')[0].path).toBe('/json/api/v1/historical/domain/2025-06-16');
	});

	it('takes a snapshot id from an expression and reads and names its date label', async () => {
		const [, second] = sim.datasets();
		const result = await stream({ label: `={{ "${second.value}" }}`, limit: 2 });
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.label).toBe(second.label);
		expect(sim.calls('stream')[0].path).toBe(`/json/api/v1/historical/domain/${second.label}`);
	});

	it('keeps reading the label it resolved when a newer snapshot appears: each run resolves latest again', async () => {
		const first = await stream({ limit: 1 });
		sim.addSnapshot('2025-07-07');
		const second = await stream({ limit: 1 });
		expect(first.items[0].json.label).toBe(NEWEST);
		expect(second.items[0].json.label).toBe('2025-07-07');
		expect(recordsOf(second.items)).toEqual([expected(0, undefined, '2025-07-07')]);
	});

	it('fails on an unknown date label naming it and the newest labels (one stream 404, then one list call)', async () => {
		const result = await stream({ label: '2024-02-28', limit: 1 });
		expect(result.error?.message).toBe(
			'The dataset "2024-02-28" does not exist. The newest datasets are: 2025-06-30, 2025-06-23, 2025-06-16, 2025-06-09',
		);
		expect(sim.calls('stream').map((call) => call.status)).toEqual([404]);
		expect(sim.calls('datasets')).toHaveLength(1);
	});

	it('an impossible date (2024-02-30) is no date label: one list call names the labels, no stream call', async () => {
		const result = await stream({ label: '2024-02-30', limit: 1 });
		expect(result.error?.message).toBe(
			'The dataset "2024-02-30" does not exist. The newest datasets are: 2025-06-30, 2025-06-23, 2025-06-16, 2025-06-09',
		);
		expect(sim.calls('stream')).toHaveLength(0);
		expect(sim.calls('datasets')).toHaveLength(1);
	});

	it('fails on an unknown label that is not a date without streaming at all', async () => {
		const result = await stream({ label: 'last-week', limit: 1 });
		expect(result.error?.message).toContain(
			'The dataset "last-week" does not exist. The newest datasets are: 2025-06-30',
		);
		expect(sim.calls('stream')).toHaveLength(0);
	});

	it('fails on an empty label before any call', async () => {
		const result = await stream({ label: ' ', limit: 1 });
		expect(result.error?.message).toBe('The parameter "Dataset Name or ID" is empty');
		expect(sim.log).toHaveLength(0);
	});

	it('accepts aliases from an expression (string or array) and asks for canonical names in the service order', async () => {
		const fromString = await stream({ fields: '={{ "tld, domain, country, language" }}', limit: 2 });
		expect(fromString.error).toBeUndefined();
		const canonical = 'name,country_code,language_code,tld1';
		expect(sim.calls('stream')[0].query.fields).toBe(canonical);
		expect(recordsOf(fromString.items)).toEqual(expectedRange(2, canonical));
		expect(Object.keys(fromString.items[0].json)).toEqual(['name', 'country_code', 'language_code', 'tld1', 'label']);

		const fromArray = await stream({ fields: '={{ ["rank", "domain", "contact_information"] }}', limit: 1 });
		expect(recordsOf(fromArray.items)).toEqual(expectedRange(1, 'name,rank,contact_information'));
	});

	it('refuses an unknown field before any call, naming the allowed ones', async () => {
		const result = await stream({ fields: '={{ "name, ranking" }}', limit: 2 });
		expect(result.error?.message).toContain('The parameter "Fields" is not valid: Unknown field name "ranking"');
		expect(result.error?.message).toContain(
			'name, rank, title, meta_description, country_code, language_code, categories, technologies, tld1, meta_keywords',
		);
		expect(sim.log).toHaveLength(0);
	});

	it('reads every field when all 17 are selected', async () => {
		const all =
			'name,rank,title,meta_description,country_code,language_code,categories,technologies,tld1,meta_keywords,canonical,icon,status,dns,first_published_at,redirects_to,contact_information';
		const result = await stream({ fields: all.split(','), limit: 3 });
		expect(recordsOf(result.items)).toEqual(expectedRange(3, all));
		expect(recordsOf(result.items)[0]).toEqual(sim.index.recordAt(0, NEWEST));
	});
});

describe('Dataset → Stream, batches output', () => {
	it('gives { label, batch, records } of Batch Size records, the whole snapshot in order', async () => {
		const result = await stream({ returnAll: true, output: 'batches', batchSize: 700 });
		expect(result.error).toBeUndefined();
		expect(
			result.items.map((item) => [item.json.label, item.json.batch, (item.json.records as unknown[]).length]),
		).toEqual([
			[NEWEST, 1, 700],
			[NEWEST, 2, 700],
			[NEWEST, 3, 600],
		]);
		const records = result.items.flatMap((item) => item.json.records as IDataObject[]);
		expect(records).toEqual(expectedRange(DOMAINS));
		expect(new Set(records.map((record) => record.name)).size).toBe(DOMAINS);
		expect(Object.keys(result.items[0].json)).toEqual(['label', 'batch', 'records']);
		// Return All sends no limit of its own, except the guard's cap (100,000 + 1 by default).
		expect(sim.calls('stream')[0].query.limit).toBe('100001');
	});

	it('defaults to batches of 1000', async () => {
		const result = await stream({ returnAll: true, output: 'batches' });
		expect(result.items.map((item) => (item.json.records as unknown[]).length)).toEqual([1000, 1000]);
	});
});

describe('Dataset → Stream, file output', () => {
	it("stores the NDJSON through n8n's binary storage on disk, and tells label, record count and size", async () => {
		const result = await stream({ returnAll: true, output: 'file' });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		const [item] = result.items;
		const binary = item.binary!.data;
		const content = await readBinary(item);
		const lines = expectedRange(DOMAINS).map((_, position) => sim.index.lineAt(position, NEWEST));
		expect(content.toString('utf8')).toBe(lines.join('\n') + '\n');
		expect(item.json).toEqual({
			label: NEWEST,
			fileName: `${NEWEST}.ndjson`,
			recordCount: DOMAINS,
			sizeBytes: content.length,
			fields: [...DEFAULT_RECORD_FIELDS],
		});
		expect(binary).toMatchObject({
			fileName: `${NEWEST}.ndjson`,
			mimeType: 'application/x-ndjson',
			fileExtension: 'ndjson',
			bytes: content.length,
		});
		// Filesystem mode: the bytes went to a file (an id), not into the item (no base64 data).
		expect(binary.id).toMatch(/^filesystem(-v2)?:/);
		expect(binary.data).not.toMatch(/^[A-Za-z0-9+/]{100,}/);
		expect(item.pairedItem).toEqual({ item: 0 });
		expect(sim.calls('stream')[0].query).toEqual({ fields: DEFAULT_RECORD_FIELDS.join(',') });
	});

	it('uses the binary field name given and respects Limit', async () => {
		const result = await stream({ limit: 10, output: 'file', binaryPropertyName: 'snapshot' });
		const [item] = result.items;
		expect(Object.keys(item.binary!)).toEqual(['snapshot']);
		expect((await readBinary(item, 'snapshot')).toString().split('\n')).toHaveLength(11);
		expect(item.json.recordCount).toBe(10);
		expect(sim.calls('stream')[0].query.limit).toBe('10');
	});

	it('gzips the file on request', async () => {
		const result = await stream({ returnAll: true, output: 'file', options: { compression: 'gzip' } });
		expect(result.error).toBeUndefined();
		const [item] = result.items;
		const packed = await readBinary(item);
		const text = gunzipSync(packed).toString('utf8');
		expect(text.split('\n')).toHaveLength(DOMAINS + 1);
		expect(text.startsWith(sim.index.lineAt(0, NEWEST) + '\n')).toBe(true);
		expect(item.binary!.data).toMatchObject({ fileName: `${NEWEST}.ndjson.gz`, mimeType: 'application/gzip' });
		expect(item.json).toMatchObject({
			recordCount: DOMAINS,
			sizeBytes: packed.length,
			uncompressedBytes: Buffer.byteLength(text),
		});
		expect(packed.length).toBeLessThan(Buffer.byteLength(text) / 2);
	});

	it('is not limited by Max Records in Memory', async () => {
		const result = await stream({ returnAll: true, output: 'file', options: { maxRecords: 10 } });
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.recordCount).toBe(DOMAINS);
	});
});

describe('Dataset → Stream, filters', () => {
	/** Every record of the snapshot with all fields (the reference to filter by hand). */
	const everything = () => Array.from({ length: DOMAINS }, (_, position) => sim.index.recordAt(position, NEWEST));

	it('keeps only matching records, reading filter fields that are not selected and leaving them out of the output', async () => {
		const all = everything();
		// A country and a technology that both occur, so that the test filters something real.
		const country = all[0].country_code;
		const technology = all.find((record) => record.technologies.length > 0)!.technologies[0];
		const matches = all.filter((record) => record.country_code === country && record.technologies.includes(technology));
		expect(matches.length).toBeGreaterThan(0);
		expect(matches.length).toBeLessThan(DOMAINS / 4);

		const result = await stream({
			returnAll: true,
			fields: ['name', 'rank'],
			filters: { countryCodes: country.toLowerCase(), technologies: `NoSuchTech, ${technology.toUpperCase()}` },
		});
		expect(result.error).toBeUndefined();
		expect(recordsOf(result.items)).toEqual(matches.map(({ name, rank }) => ({ name, rank })));
		// The service had to send the filter's fields; no service-side limit, since it counts lines, not matches.
		expect(sim.calls('stream')[0].query).toEqual({ fields: 'name,rank,country_code,technologies' });
	});

	it('applies rank, language, category prefix and tld1 filters', async () => {
		const all = everything();
		const language = all[5].language_code;
		const category = all[5].categories[0];
		const byHand = all.filter(
			(record) =>
				record.rank <= 1500 &&
				record.language_code === language &&
				record.categories.some((entry) => entry.toLowerCase().startsWith(category.toLowerCase())),
		);
		const result = await stream({
			returnAll: true,
			output: 'batches',
			filters: { maxRank: 1500, languageCodes: language, categoryPrefix: category.toUpperCase() },
		});
		const records = result.items.flatMap((item) => item.json.records as IDataObject[]);
		expect(records.map((record) => record.name)).toEqual(byHand.map((record) => record.name));

		const tld1 = all.find((record) => record.name !== record.tld1)!.tld1;
		const byTld = await stream({ returnAll: true, fields: ['name'], filters: { tld1 } });
		expect(recordsOf(byTld.items)).toEqual(all.filter((record) => record.tld1 === tld1).map(({ name }) => ({ name })));
	});

	it('counts Limit in matching records', async () => {
		const all = everything();
		const country = all[0].country_code;
		const firstMatches = all.filter((record) => record.country_code === country).slice(0, 7);
		const result = await stream({ limit: 7, fields: ['name'], filters: { countryCodes: country } });
		expect(recordsOf(result.items)).toEqual(firstMatches.map(({ name }) => ({ name })));
		expect(sim.calls('stream')[0].query.limit).toBeUndefined();
	});

	it('writes only matching records to the file', async () => {
		const all = everything();
		const country = all[0].country_code;
		const result = await stream({
			returnAll: true,
			output: 'file',
			fields: ['name', 'country_code'],
			filters: { countryCodes: country },
		});
		const lines = (await readBinary(result.items[0])).toString().trimEnd().split('\n');
		const byHand = all.filter((record) => record.country_code === country);
		expect(lines).toEqual(byHand.map(({ name, country_code }) => JSON.stringify({ name, country_code })));
		expect(result.items[0].json.recordCount).toBe(byHand.length);

		// A filter on a field that is not selected: the record is written without it.
		const narrow = await stream({
			returnAll: true,
			output: 'file',
			fields: ['name'],
			filters: { countryCodes: country },
		});
		const narrowLines = (await readBinary(narrow.items[0])).toString().trimEnd().split('\n');
		expect(narrowLines).toEqual(byHand.map(({ name }) => JSON.stringify({ name })));
	});

	it('returns no item and no error when nothing matches', async () => {
		const result = await stream({ returnAll: true, filters: { tld1: 'no-such-domain.example' } });
		expect(result.error).toBeUndefined();
		expect(result.items).toEqual([]);
	});

	it('refuses a filter value that cannot match before any call', async () => {
		const result = await stream({ returnAll: true, filters: { countryCodes: 'Germany' } });
		expect(result.error?.message).toContain('"Country Codes"');
		expect(sim.log).toHaveLength(0);
	});
});

describe('Dataset → Stream, memory guard (Max Records in Memory)', () => {
	it('refuses a Limit above the maximum before any call, pointing to the File output', async () => {
		const result = await stream({ limit: 101, options: { maxRecords: 100 } });
		expect(result.error?.message).toBe('The Limit (101) is more than "Max Records in Memory" (100) allows');
		expect(result.error?.description).toContain('"File"');
		expect(result.error?.description).toContain('Filters');
		expect(result.error?.description).toContain('Limit');
		expect(sim.log).toHaveLength(0);
	});

	it('stops the stream as soon as the maximum is passed (the request itself is capped at maximum + 1)', async () => {
		const result = await stream({ returnAll: true, output: 'batches', batchSize: 100, options: { maxRecords: 500 } });
		expect(result.error?.message).toContain(
			`The dataset "${NEWEST}" has more records for this selection than "Max Records in Memory" (500) allows`,
		);
		expect(sim.calls('stream')[0].query.limit).toBe('501');
	});

	it('uses 100,000 by default', async () => {
		const result = await stream({ limit: 100_001 });
		expect(result.error?.message).toBe('The Limit (100,001) is more than "Max Records in Memory" (100,000) allows');
		expect(sim.log).toHaveLength(0);
	});

	it('lets through exactly the maximum', async () => {
		const result = await stream({ limit: 500, options: { maxRecords: 500 } });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(500);
	});

	it('with filters, streams and fails only when the matches pass the maximum', async () => {
		const fits = await stream({ limit: 5000, fields: ['name'], filters: { maxRank: 50 }, options: { maxRecords: 60 } });
		expect(fits.error).toBeUndefined();
		expect(fits.items).toHaveLength(50);

		const passes = await stream({
			returnAll: true,
			fields: ['name'],
			filters: { maxRank: 100 },
			options: { maxRecords: 60 },
		});
		expect(passes.error?.message).toContain('(60)');
	});

	it('counts the records of all input items together', async () => {
		const result = await stream(
			{ limit: 40, options: { maxRecords: 100 } },
			{ input: [{ json: {} }, { json: {} }, { json: {} }] },
		);
		expect(result.error?.message).toBe(
			'The Limit (40) is more than "Max Records in Memory" (100) allows (with the 80 records already output for earlier items)',
		);
		expect(result.error?.description).toContain('At most 20 more records fit.');
		// The third item was refused before its stream request.
		expect(sim.calls('stream')).toHaveLength(2);
	});
});

describe('Dataset → Stream, input items', () => {
	it('runs once per input item, each output paired with its item, and lists datasets once for all', async () => {
		const result = await stream(
			{ label: '={{ $json.label }}', limit: 2, fields: ['name'] },
			{ input: [{ json: { label: 'latest' } }, { json: { label: '2025-06-23' } }, { json: { label: 'latest' } }] },
		);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => [item.json.label, item.pairedItem])).toEqual([
			[NEWEST, { item: 0 }],
			[NEWEST, { item: 0 }],
			['2025-06-23', { item: 1 }],
			['2025-06-23', { item: 1 }],
			[NEWEST, { item: 2 }],
			[NEWEST, { item: 2 }],
		]);
		expect(sim.calls('datasets')).toHaveLength(1);
	});

	it('with continueOnFail, turns a failing item into { error } paired with it and goes on', async () => {
		const result = await stream(
			{ label: '={{ $json.label }}', limit: 1, output: 'batches' },
			{
				input: [{ json: { label: 'latest' } }, { json: { label: '1999-01-01' } }, { json: { label: '2025-06-23' } }],
				continueOnFail: true,
			},
		);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(result.items[0].json).toMatchObject({ label: NEWEST, batch: 1 });
		expect(result.items[1].json).toEqual({ error: expect.stringContaining('The dataset "1999-01-01" does not exist') });
		expect(result.items[2].json).toMatchObject({ label: '2025-06-23', batch: 1 });
	});

	it('without continueOnFail, fails the node with the item index', async () => {
		const result = await stream(
			{ label: '={{ $json.label }}', limit: 1 },
			{ input: [{ json: { label: 'latest' } }, { json: { label: 'nope' } }] },
		);
		expect(result.error?.message).toContain('"nope"');
		expect((result.error as unknown as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(1);
	});

	it('passes the plan error through (403 on a plan without history)', async () => {
		const result = await runNode({
			parameters: { resource: 'dataset', operation: 'stream', label: '2025-06-30', limit: 1 },
			credentials: { apiKey: KEYS.basic, baseUrl: sim.url },
		});
		expect(result.error?.message).toMatch(/plan/i);
		expect(result.error?.httpCode).toBe('403');
	});
});
