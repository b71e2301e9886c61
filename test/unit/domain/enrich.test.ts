/**
 * Domain → Enrich Items over real HTTP: distinct names across all items, 100 a call; every input item
 * comes out (in order, paired) with the domain data or an explicit not-found marker; bad rows fail alone.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { SITE_NAMES, THIRD_CALL_ERROR, siteDomain, useFailingBulkService } from '../../harness/failingBulkService';
import { startLocalServer, type LocalServer } from '../../harness/localServer';
import { runNode } from '../../harness/n8n';
import { useSimulator } from '../../harness/simulator';
import { KEYS } from '../../simulator';

const sim = useSimulator({ domains: 3000 });
let credentials: { apiKey: string; baseUrl: string };

beforeAll(() => {
	credentials = { apiKey: KEYS.pro, baseUrl: sim.url };
});

const enrich = (
	input: INodeExecutionData[],
	parameters: Record<string, unknown> = {},
	extra: { continueOnFail?: boolean } = {},
) =>
	runNode({
		parameters: { resource: 'domain', operation: 'enrich', domainField: 'website', ...parameters } as INodeParameters,
		credentials,
		input,
		continueOnFail: extra.continueOnFail,
	});

const name = (rank: number) => sim.index.domainAt(rank).name;
const askedPerCall = () => sim.calls('bulk').map((entry) => (entry.body as { domains: string[] }).domains);

describe('Domain → Enrich Items', () => {
	test('10,000 items holding 2,000 distinct domains cost exactly 20 calls', async () => {
		const spellings = [
			(n: string) => n,
			(n: string) => `https://www.${n}/about`,
			(n: string) => `hello@${n.toUpperCase()}`,
		];
		const input: INodeExecutionData[] = Array.from({ length: 10_000 }, (_, i) => {
			const rank = (i % 2000) + 1;
			return { json: { row: i, website: spellings[i % 3](name(rank)) } };
		});
		const { items, error } = await enrich(input);
		expect(error).toBeUndefined();

		const calls = askedPerCall();
		expect(calls).toHaveLength(20);
		expect(calls.every((names) => names.length === 100)).toBe(true);
		expect(new Set(calls.flat()).size).toBe(2000);

		expect(items).toHaveLength(10_000);
		items.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: i });
			expect(item.json.row).toBe(i);
			expect((item.json.domainData as IDataObject).rank).toBe((i % 2000) + 1);
		});
		expect(items[0].json).toEqual({ row: 0, website: name(1), domainData: sim.index.domainAt(1) });
	});

	test('dot paths to read and to write; the not-found marker; the input is not changed', async () => {
		const input: INodeExecutionData[] = [
			{ json: { company: { name: 'A', website: `https://${name(9)}` } } },
			{ json: { company: { name: 'B', website: 'unknown-site.example.org' } } },
		];
		const before = JSON.stringify(input);
		const { items, error } = await enrich(input, {
			domainField: 'company.website',
			destinationField: 'company.domain',
		});
		expect(error).toBeUndefined();
		expect(JSON.stringify(input)).toBe(before);
		expect(items).toEqual([
			{
				json: { company: { name: 'A', website: `https://${name(9)}`, domain: sim.index.domainAt(9) } },
				pairedItem: { item: 0 },
			},
			{
				json: {
					company: {
						name: 'B',
						website: 'unknown-site.example.org',
						domain: { name: 'unknown-site.example.org', found: false },
					},
				},
				pairedItem: { item: 1 },
			},
		]);
		expect(items[0].json).not.toBe(input[0].json);
	});

	test('the default destination is domainData; binary data passes through', async () => {
		const binary = { data: { data: 'aGk=', mimeType: 'text/plain' } };
		const { items } = await enrich([{ json: { website: name(2) }, binary }]);
		expect(items[0].json.domainData).toEqual(sim.index.domainAt(2));
		expect(items[0].binary).toEqual(binary);
	});

	test('a missing or invalid field stops the node before any call, naming the item and the value', async () => {
		const missing = await enrich([{ json: { website: name(1) } }, { json: { other: 1 } }]);
		expect(missing.error?.name).toBe('NodeOperationError');
		expect(missing.error?.message).toBe('Item 1 has no field "website"');
		expect(sim.calls()).toHaveLength(0);

		const invalid = await enrich([
			{ json: { website: name(1) } },
			{ json: { website: name(2) } },
			{ json: { website: 'n/a' } },
		]);
		expect(invalid.error?.message).toBe(
			'Item 2: the field "website" holds "n/a", which cannot be looked up: a domain name has at least two parts, like example.com',
		);
		expect(sim.calls()).toHaveLength(0);
	});

	test('continueOnFail: a bad row fails alone and keeps its fields; the others are enriched in one call', async () => {
		const input: INodeExecutionData[] = [
			{ json: { id: 1, website: name(1) } },
			{ json: { id: 2, website: '' } },
			{ json: { id: 3 } },
			{ json: { id: 4, website: name(1).toUpperCase() } },
		];
		const { items, error } = await enrich(input, {}, { continueOnFail: true });
		expect(error).toBeUndefined();
		expect(askedPerCall()).toEqual([[name(1)]]);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
		expect(items[0].json).toEqual({ id: 1, website: name(1), domainData: sim.index.domainAt(1) });
		expect(items[1].json).toEqual({
			id: 2,
			website: '',
			error: 'Item 1: the field "website" holds "", which cannot be looked up: it is empty',
		});
		// No item-level `error`: n8n would replace the row's json with `{ error }` and lose its fields.
		expect(items[1].error).toBeUndefined();
		expect(items[2].json).toEqual({ id: 3, error: 'Item 2 has no field "website"' });
		expect(items[3].json.domainData).toEqual(sim.index.domainAt(1));
	});

	test('a failing bulk call: the error names the service problem; with continueOnFail the rows stay', async () => {
		sim.setFaults({ requests: [{ endpoint: 'bulk', status: 503, count: 10 }] });
		const input = [{ json: { website: name(1) } }, { json: { website: name(2) } }];
		const failing = await enrich(input, { options: { maxAttempts: 2 } });
		expect(failing.error?.message).toBe('The Domain Data service failed with 503 Service Unavailable after 2 tries');
		expect(sim.calls('bulk')).toHaveLength(2);

		sim.clearLog();
		sim.setFaults({ requests: [{ endpoint: 'bulk', status: 503, count: 10 }] });
		const { items } = await enrich(input, { options: { maxAttempts: 1 } }, { continueOnFail: true });
		expect(items.map((item) => item.json)).toEqual([
			{ website: name(1), error: 'The Domain Data service failed with 503 Service Unavailable' },
			{ website: name(2), error: 'The Domain Data service failed with 503 Service Unavailable' },
		]);
		expect(sim.calls('bulk')).toHaveLength(1);
	});

	test('field names can come from expressions; a value in place of a field name is explained', async () => {
		const { error } = await enrich([{ json: { website: name(1) } }], { domainField: '={{ $json.website }}' });
		expect(error?.message).toBe(`Item 0 has no field "${name(1)}"`);
		expect(error?.description).toContain('the name of the field (e.g. website), not its value');
	});
});

describe('a service that fails the third of five calls (local server)', () => {
	const failingService = useFailingBulkService();

	const input = SITE_NAMES.map((website, row) => ({ json: { row, website } }));
	const run = (continueOnFail: boolean) =>
		runNode({
			parameters: {
				resource: 'domain',
				operation: 'enrich',
				domainField: 'website',
				options: { maxAttempts: 3 },
			} as INodeParameters,
			credentials: { apiKey: 'local-key-123', baseUrl: failingService().url },
			input,
			continueOnFail,
		});

	test('no call starts while one is retried; when it fails, the node stops without further calls', async () => {
		failingService().expectStoppedAtThirdCall((await run(false)).error);
	});

	test('continueOnFail: rows whose call succeeded are enriched; only the rows of the failed call carry the error', async () => {
		const { items, error } = await run(true);
		expect(error).toBeUndefined();
		expect(failingService().startedAfterFirstFailure()).toEqual(['request c5']);
		const message = THIRD_CALL_ERROR;
		expect(items.map((item) => item.json)).toEqual(
			input.map(({ json }) =>
				json.row >= 200 && json.row < 300
					? { ...json, error: message }
					: { ...json, domainData: siteDomain(json.website) },
			),
		);
		expect(items.map((item) => item.pairedItem)).toEqual(input.map((_, row) => ({ item: row })));
	});
});

describe('Domain → Enrich Items with Source Snapshot', () => {
	const NEWEST = '2025-06-30';
	const PREVIOUS = '2025-06-23';
	/**
	 * The snapshot's record of a name as Enrich adds it: the default stream fields under the lookup's names
	 * (language_code is language), and the label.
	 */
	async function recordsOf(label: string): Promise<Map<string, IDataObject>> {
		const records = new Map<string, IDataObject>();
		for (let position = 0; position < 3000; position++) {
			const line = sim.index.lineAt(position, label);
			if (line === undefined) continue;
			const { language_code: language, ...record } = JSON.parse(line) as IDataObject;
			const { name, rank, title, meta_description, country_code, categories, technologies, tld1 } = record;
			const inOrder = { name, rank, title, meta_description, country_code, language, categories, technologies, tld1 };
			records.set(record.name as string, { ...inOrder, label });
		}
		return records;
	}

	test('the same field names from either Source: the snapshot adds country_code and label, a lookup id', async () => {
		const names = [...(await recordsOf(NEWEST)).keys()].slice(0, 60);
		const input = names.map((website) => ({ json: { website } }));
		const byLookup = await enrich(input);
		const bySnapshot = await enrich(input, { options: { source: 'snapshot' } });
		expect([byLookup.error, bySnapshot.error]).toEqual([undefined, undefined]);
		const data = (item: INodeExecutionData) => item.json.domainData as IDataObject;
		const keys = (item: INodeExecutionData, extras: string[]) =>
			Object.keys(data(item))
				.filter((key) => !extras.includes(key))
				.sort();
		// The lookup's fields but for those it leaves out where there are none (a snapshot gives null or []).
		const optional = ['meta_description', 'technologies'];
		const both = names.map((_, index) => index).filter((index) => data(byLookup.items[index]).found !== false);
		expect(both.length).toBeGreaterThan(50);
		for (const index of both) {
			const fromLookup = keys(byLookup.items[index], ['id']);
			const fromSnapshot = keys(bySnapshot.items[index], ['country_code', 'label']);
			expect(fromSnapshot).toEqual(
				['name', 'rank', 'title', 'meta_description', 'language', 'categories', 'technologies', 'tld1'].sort(),
			);
			expect(fromLookup).toEqual(fromSnapshot.filter((key) => fromLookup.includes(key) || !optional.includes(key)));
			expect(data(bySnapshot.items[index]).language).toEqual(expect.any(String));
		}
		// Where the lookup holds every field, the two key sets are the same but for the extras.
		const whole = both.filter((index) => optional.every((key) => key in data(byLookup.items[index])));
		expect(whole.length).toBeGreaterThan(10);
		for (const index of whole) {
			expect(keys(byLookup.items[index], ['id'])).toEqual(keys(bySnapshot.items[index], ['country_code', 'label']));
		}
	});

	test('5,000 rows of 1,000 distinct domains: one stream request, no bulk call, rows in order', async () => {
		const snapshot = await recordsOf(NEWEST);
		const inSnapshot = [...snapshot.keys()];
		const distinct = [
			...inSnapshot.filter((_, index) => index % 3 === 0).slice(0, 990),
			...Array.from({ length: 10 }, (_, index) => `not-indexed-${index}.example`),
		];
		const spellings = [(n: string) => n, (n: string) => `https://www.${n}/x`, (n: string) => `hi@${n.toUpperCase()}`];
		const input: INodeExecutionData[] = Array.from({ length: 5000 }, (_, row) => ({
			json: { row, website: spellings[row % 3](distinct[(row * 7) % distinct.length]) },
		}));
		const { items, error } = await enrich(input, { options: { source: 'snapshot' } });
		expect(error).toBeUndefined();
		expect(sim.calls('stream')).toHaveLength(1);
		expect(sim.calls('bulk')).toHaveLength(0);
		expect(sim.calls('get')).toHaveLength(0);
		expect(items).toHaveLength(5000);
		items.forEach((item, row) => {
			const wanted = distinct[(row * 7) % distinct.length];
			expect(item.pairedItem).toEqual({ item: row });
			expect(item.json).toEqual({
				row,
				website: input[row].json.website,
				domainData: snapshot.get(wanted) ?? { name: wanted, found: false },
			});
		});
	});

	test('a chosen date label is read as it is, without the dataset list', async () => {
		const previous = await recordsOf(PREVIOUS);
		const first = [...previous.keys()].slice(0, 3);
		const { items, error } = await enrich(
			first.map((website) => ({ json: { website } })),
			{ options: { source: 'snapshot', label: PREVIOUS } },
		);
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.domainData)).toEqual(first.map((name) => previous.get(name)));
		expect(sim.calls('stream')).toHaveLength(1);
		expect(sim.calls('datasets')).toHaveLength(0);
	});

	test('a read that fails: the node stops, or with continueOnFail every row carries the error', async () => {
		sim.setFaults({ requests: [{ endpoint: 'stream', status: 503, count: 10 }] });
		const input = [{ json: { website: name(1) } }, { json: { website: '' } }, { json: { website: name(2) } }];
		const failing = await enrich(input.slice(0, 1), { options: { source: 'snapshot', maxAttempts: 2 } });
		expect(failing.error?.message).toBe('The Domain Data service failed with 503 Service Unavailable after 2 tries');
		expect(sim.calls('bulk')).toHaveLength(0);

		sim.setFaults({ requests: [{ endpoint: 'stream', status: 503, count: 10 }] });
		const { items } = await enrich(
			input,
			{ options: { source: 'snapshot', maxAttempts: 1 } },
			{ continueOnFail: true },
		);
		expect(items.map((item) => item.json)).toEqual([
			{ website: name(1), error: 'The Domain Data service failed with 503 Service Unavailable' },
			{ website: '', error: 'Item 1: the field "website" holds "", which cannot be looked up: it is empty' },
			{ website: name(2), error: 'The Domain Data service failed with 503 Service Unavailable' },
		]);
	});

	test('a read that fails after some names were found: only the rows not yet found carry the error', async () => {
		const snapshot = await recordsOf(NEWEST);
		const lines = [...snapshot.keys()];
		// Lines 11, 21, 31 and 2,001 arrive before the stream drops at 2,500, past Max Attempts; the last name never.
		const asked = [lines[10], lines[20], lines[30], lines[2000], 'not-indexed.example'];
		sim.setFaults({ streams: [{ dropAfterLines: 2500, count: 10 }] });
		const { items, error } = await enrich(
			asked.map((website) => ({ json: { website } })),
			{ options: { source: 'snapshot', maxAttempts: 2 } },
			{ continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(items.slice(0, 4).map((item) => item.json.domainData)).toEqual(
			asked.slice(0, 4).map((n) => snapshot.get(n)),
		);
		expect(items[4].json).toEqual({ website: asked[4], error: expect.any(String) });
		expect(items.slice(0, 4).every((item) => item.json.error === undefined)).toBe(true);
	});

	test('Source and Dataset are read per row: each snapshot asked is read once, lookups in bulk', async () => {
		const newest = await recordsOf(NEWEST);
		const previous = await recordsOf(PREVIOUS);
		const [a, b, c] = [...newest.keys()].filter((n) => previous.has(n)).slice(0, 3);
		const input = [
			{ json: { website: a, src: 'snapshot', lbl: NEWEST } },
			{ json: { website: b, src: 'snapshot', lbl: PREVIOUS } },
			{ json: { website: c, src: 'lookup', lbl: '' } },
			{ json: { website: b, src: 'snapshot', lbl: 'latest' } },
		];
		const { items, error } = await enrich(input, {
			options: { source: '={{ $json.src }}', label: '={{ $json.lbl }}' },
		});
		expect(error).toBeUndefined();
		expect(items[0].json.domainData).toEqual(newest.get(a));
		expect(items[1].json.domainData).toEqual(previous.get(b));
		expect(items[2].json.domainData).toMatchObject({ name: c });
		expect((items[2].json.domainData as IDataObject).label).toBeUndefined();
		expect(items[3].json.domainData).toEqual(newest.get(b));
		// "latest" is the newest date: one read of it serves rows 0 and 3.
		expect(sim.calls('stream').map((call) => call.path)).toHaveLength(2);
		expect(sim.calls('bulk')).toHaveLength(1);
	});

	test('an unknown Source is refused before any call', async () => {
		const { error } = await enrich([{ json: { website: name(1) } }], { options: { source: 'snapshots' } });
		expect(error?.message).toBe('The option "Source" must be lookup or snapshot, got "snapshots"');
		expect(sim.calls()).toHaveLength(0);
	});

	test('an unknown dataset is named', async () => {
		const { error } = await enrich([{ json: { website: name(1) } }], {
			options: { source: 'snapshot', label: '2020-01-01' },
		});
		expect(error?.message).toContain('2020-01-01');
		expect(sim.calls('bulk')).toHaveLength(0);
	});
});

describe('Enrich Items from a snapshot that spells names otherwise (local service)', () => {
	let server: LocalServer;
	const lines = [
		'{"name":"Example.COM","rank":1}',
		'{"name":"example.org.","rank":2}',
		'{"name":"plain.com","rank":3}',
	];

	beforeAll(async () => {
		server = await startLocalServer((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/x-ndjson' });
			res.end(lines.join('\n') + '\n');
		});
	});

	afterAll(async () => {
		await server.close();
	});

	test("a record named in upper case or with a final dot is the row's domain", async () => {
		const { items, error } = await runNode({
			parameters: {
				resource: 'domain',
				operation: 'enrich',
				domainField: 'website',
				options: { source: 'snapshot', label: '2025-06-30' },
			} as INodeParameters,
			credentials: { apiKey: 'spelling-key', baseUrl: server.url },
			input: [{ json: { website: 'example.com' } }, { json: { website: 'https://example.org/' } }],
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.domainData)).toEqual([
			{ name: 'Example.COM', rank: 1, label: '2025-06-30' },
			{ name: 'example.org.', rank: 2, label: '2025-06-30' },
		]);
	});
});
