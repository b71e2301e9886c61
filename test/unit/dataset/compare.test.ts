/**
 * Dataset → Compare through n8n-core's real execute context against the simulator over HTTP. Every
 * result is checked against a brute-force diff written here, independently of the node's code: both
 * snapshots read raw (plain fetch of the whole NDJSON, every field), held in Maps and compared field by
 * field. Many snapshot pairs, field choices, filters and change kinds; faults on each side and in each
 * pass; and the number of stream requests per snapshot, from the simulator's request log.
 */
import { gunzipSync } from 'node:zlib';

import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { readBinary, runNode } from '../../harness/n8n';
import {
	bruteForce,
	fileSummaryOf,
	rawSnapshot as fetchSnapshot,
	type Question,
	type Record_,
} from '../../harness/bruteForceDiff';
import { startLocalService } from '../../harness/localService';
import { useSimulator } from '../../harness/simulator';
import { KEYS, RECORD_FIELDS, type Faults, type Simulator, type SnapshotEdits } from '../../simulator';
import { streamRequests, withBinaryDataInMemory } from './compareSupport';

const DOMAINS = 2000;
const NEWEST = '2025-06-30';
const PREVIOUS = '2025-06-23';
const OLDEST = '2025-06-09';
const simulator = useSimulator({ domains: DOMAINS });
// The three reads of Compare (binary data in memory, no spool); the spooled two: compare.spool.test.ts.
withBinaryDataInMemory();
let sim: Simulator;
beforeEach(() => {
	sim = simulator();
});

const rawSnapshot = (label: string) => fetchSnapshot(sim.url, label);
const raw = new Map<string, Record_[]>();
/** The records of NEWEST that a snapshot `label` (added without edits) also holds: names that edits may use. */
async function inBoth(label: string): Promise<Record_[]> {
	sim.addSnapshot(label);
	const names = new Set((await rawSnapshot(label)).map((record) => record.name));
	sim.removeSnapshot(label);
	return (await rawSnapshot(NEWEST)).filter((record) => names.has(record.name));
}

async function expectedChanges(
	label: string,
	baseLabel: string,
	question: Question,
	fresh = false,
): Promise<IDataObject[]> {
	for (const each of [label, baseLabel]) if (fresh || !raw.has(each)) raw.set(each, await rawSnapshot(each));
	sim.clearLog(); // the raw reads are not the node's requests
	return bruteForce(raw.get(label)!, raw.get(baseLabel)!, { label, baseLabel }, question);
}

function compare(parameters: INodeParameters, extra: { input?: INodeExecutionData[]; continueOnFail?: boolean } = {}) {
	return runNode({
		parameters: { resource: 'dataset', operation: 'compare', label: 'latest', returnAll: true, ...parameters },
		credentials: { apiKey: KEYS.pro, baseUrl: sim.url },
		...extra,
	});
}

function parametersOf(question: Question): INodeParameters {
	return {
		fields: question.fields,
		...(question.changes ? { changes: question.changes } : {}),
		...(question.filters ? { filters: question.filters as INodeParameters } : {}),
		...(question.minRankMove ? { options: { minRankMove: question.minRankMove } } : {}),
	};
}

const kindsOf = (changes: IDataObject[]) => changes.map((change) => `${change.change}:${change.reason as string}`);

describe('Dataset → Compare equals a brute-force diff of the two snapshots', () => {
	const questions: Array<[string, string, Question]> = [
		[NEWEST, PREVIOUS, { fields: ['title', 'country_code', 'language_code', 'categories', 'technologies'] }],
		[NEWEST, OLDEST, { fields: ['technologies'] }],
		[PREVIOUS, OLDEST, { fields: ['title'], changes: ['changed'] }],
		[NEWEST, PREVIOUS, { fields: [...RECORD_FIELDS.filter((field) => field !== 'name')], minRankMove: 8 }],
		[NEWEST, PREVIOUS, { fields: ['technologies', 'title'], filters: { countryCodes: 'de, at' } }],
		[NEWEST, OLDEST, { fields: ['categories'], filters: { maxRank: 700 }, changes: ['added', 'removed'] }],
		[
			NEWEST,
			PREVIOUS,
			{ fields: ['rank', 'technologies'], filters: { technologies: 'Shopify, WooCommerce' }, minRankMove: 4 },
		],
		[
			PREVIOUS,
			OLDEST,
			{ fields: ['country_code', 'language_code'], filters: { languageCodes: 'de', categoryPrefix: '/Shopping' } },
		],
		['2025-06-16', OLDEST, { fields: ['contact_information', 'dns'], changes: ['removed'] }],
	];

	it.each(questions)('%s against %s, %j', async (label, baseLabel, question) => {
		const expected = await expectedChanges(label, baseLabel, question);
		const result = await compare({ label, baseLabel, ...parametersOf(question) });
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json)).toEqual(expected);
		expect(result.items.every((item) => JSON.stringify(item.pairedItem) === '{"item":0}')).toBe(true);
		// The newer snapshot twice, the older one once, and nothing else streamed.
		expect(streamRequests(sim)).toEqual(
			expected.some((change) => change.reason !== 'goneFromIndex')
				? { [label]: 2, [baseLabel]: 1 }
				: { [label]: expected.length > 0 ? 1 : 2, [baseLabel]: 1 },
		);
	});

	it("finds every kind of change in the simulator's default snapshots (so that the checks above check something)", async () => {
		const expected = await expectedChanges(NEWEST, PREVIOUS, {
			fields: ['title', 'country_code', 'language_code', 'categories', 'technologies'],
		});
		const kinds = new Set(kindsOf(expected));
		expect([...kinds].sort()).toEqual(['added:newToIndex', 'changed:valuesChanged', 'removed:goneFromIndex']);
		const changed = expected.filter((change) => change.change === 'changed');
		const changedFields = new Set(changed.flatMap((change) => Object.keys(change.changes as object)));
		expect([...changedFields].sort()).toEqual(['categories', 'country_code', 'language_code', 'technologies', 'title']);
		// A few percent of the domains, not all of them.
		expect(changed.length).toBeGreaterThan(DOMAINS / 100);
		expect(changed.length).toBeLessThan(DOMAINS / 5);
	});

	it('asks only for the name, the compared fields and the fields the filters read, with no limit', async () => {
		await compare({
			label: NEWEST,
			baseLabel: PREVIOUS,
			fields: ['technologies'],
			filters: { countryCodes: 'DE', maxRank: 900 },
		});
		const queries = sim.calls('stream').map((call) => call.query);
		expect(queries).toEqual(Array(3).fill({ fields: 'name,rank,country_code,technologies' }));
	});

	it('reports entered and left selections with what moved them, on a snapshot published with chosen changes', async () => {
		const latest = await inBoth('2025-07-07');
		const shopless = latest
			.filter((record) => record.country_code === 'DE' && !(record.technologies as string[]).includes('Shopify'))
			.slice(0, 3);
		const elsewhere = latest.filter((record) => record.country_code === 'US').slice(0, 2);
		const gone = latest.filter((record) => record.country_code === 'DE').slice(5, 7);
		const [dropsShopify] = latest.filter(
			(record) =>
				record.country_code === 'DE' && (record.technologies as string[]).includes('Shopify') && !gone.includes(record),
		);
		const edits: SnapshotEdits = {
			records: {
				[shopless[0].name]: { technologies: [...(shopless[0].technologies as string[]), 'Shopify'] },
				[shopless[1].name]: { technologies: ['Shopify'], title: 'Neu: jetzt mit Shop' },
				[shopless[2].name]: {
					technologies: [...(shopless[2].technologies as string[]), 'Shopify'],
					country_code: 'AT',
				},
				[elsewhere[0].name]: { country_code: 'DE', technologies: ['Shopify'] },
				[elsewhere[1].name]: { technologies: ['Shopify', 'Shopify'] },
				[dropsShopify.name]: {
					technologies: (dropsShopify.technologies as string[]).filter((name) => name !== 'Shopify'),
				},
			},
			drop: gone.map((record) => record.name),
		};
		sim.addSnapshot('2025-07-07', edits);
		const question: Question = {
			fields: ['technologies', 'title'],
			filters: { countryCodes: 'DE', technologies: 'shopify' },
		};
		const expected = await expectedChanges('2025-07-07', NEWEST, question, true);
		const result = await compare({ label: 'latest', ...parametersOf(question) });
		expect(result.error).toBeUndefined();
		const json = result.items.map((item) => item.json);
		expect(json).toEqual(expected);
		const byName = new Map(json.map((change) => [change.name, change]));
		expect(byName.get(shopless[0].name)).toMatchObject({
			change: 'added',
			reason: 'enteredSelection',
			changes: { technologies: { added: ['Shopify'], removed: [] } },
		});
		expect(byName.get(shopless[1].name)?.changes).toMatchObject({ title: { to: 'Neu: jetzt mit Shop' } });
		expect(byName.has(shopless[2].name)).toBe(false); // added Shopify but left Germany: in neither selection
		expect(byName.get(elsewhere[0].name)).toMatchObject({
			change: 'added',
			reason: 'enteredSelection',
			changes: { country_code: { from: 'US', to: 'DE' } },
		});
		expect(byName.has(elsewhere[1].name)).toBe(false);
		expect(byName.get(dropsShopify.name)).toMatchObject({
			change: 'removed',
			reason: 'leftSelection',
			record: { technologies: dropsShopify.technologies },
			changes: { technologies: { added: [], removed: ['Shopify'] } },
		});
		expect(json.every((change) => change.label === '2025-07-07' && change.baseLabel === NEWEST)).toBe(true);
	});

	it('compares lists as sets: order and repeats are no change', async () => {
		const latest = await inBoth('2025-07-07');
		const [a, b] = latest.filter(
			(record) => (record.technologies as string[]).length >= 2 && (record.categories as string[]).length >= 2,
		);
		const reversed = (list: unknown) => [...(list as string[])].reverse();
		sim.addSnapshot('2025-07-07', {
			records: {
				[a.name]: {
					technologies: reversed(a.technologies),
					categories: [...(a.categories as string[]), (a.categories as string[])[0]],
				},
				[b.name]: { technologies: [...reversed(b.technologies).slice(1), 'Brand New Tech'] },
			},
		});
		const result = await compare({ fields: ['technologies', 'categories'], filters: { tld1: `${a.tld1}, ${b.tld1}` } });
		expect(result.items.map((item) => item.json)).toEqual([
			{
				change: 'changed',
				reason: 'valuesChanged',
				name: b.name,
				label: '2025-07-07',
				baseLabel: NEWEST,
				record: {
					name: b.name,
					technologies: [...reversed(b.technologies).slice(1), 'Brand New Tech'],
					categories: b.categories,
				},
				changes: {
					technologies: {
						added: ['Brand New Tech'],
						removed: [(b.technologies as string[])[(b.technologies as string[]).length - 1]],
					},
				},
			},
		]);
	});

	it('ignores rank moves below the threshold, and compares rank only when chosen', async () => {
		const question: Question = { fields: ['rank'], minRankMove: 10 };
		const expected = await expectedChanges(NEWEST, PREVIOUS, question);
		const result = await compare({
			label: NEWEST,
			baseLabel: PREVIOUS,
			...parametersOf(question),
			changes: ['changed'],
		});
		const json = result.items.map((item) => item.json);
		expect(json).toEqual(expected.filter((change) => change.change === 'changed'));
		expect(json.length).toBeGreaterThan(0);
		for (const change of json) {
			const { from, to } = (change.changes as { rank: { from: number; to: number } }).rank;
			expect(Math.abs(to - from)).toBeGreaterThanOrEqual(10);
		}
		const withoutRank = await compare({ label: NEWEST, baseLabel: PREVIOUS, fields: ['tld1'], changes: ['changed'] });
		expect(withoutRank.items).toEqual([]);
	});
});

describe('Dataset → Compare, labels', () => {
	it('resolves latest and previous once, to concrete labels named in every item', async () => {
		const result = await compare({ fields: ['technologies'], limit: 5, returnAll: false });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(5);
		expect(result.items.every((item) => item.json.label === NEWEST && item.json.baseLabel === PREVIOUS)).toBe(true);
		expect(sim.calls('datasets')).toHaveLength(1);
		const items = [{ json: {} }, { json: {} }];
		sim.clearLog();
		const twice = await compare({ fields: ['technologies'], limit: 1, returnAll: false }, { input: items });
		expect(twice.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(sim.calls('datasets')).toHaveLength(1);
	});

	it('takes "previous" as the newest date label older than the chosen one, and any older label or id', async () => {
		const previous = await compare({
			label: PREVIOUS,
			baseLabel: 'previous',
			fields: ['title'],
			limit: 1,
			returnAll: false,
		});
		expect(previous.items[0].json).toMatchObject({ label: PREVIOUS, baseLabel: '2025-06-16' });
		const [, , , oldest] = sim.datasets();
		const byId = await compare({
			label: NEWEST,
			baseLabel: `={{ "${oldest.value}" }}`,
			fields: ['title'],
			limit: 1,
			returnAll: false,
		});
		expect(byId.items[0].json).toMatchObject({ label: NEWEST, baseLabel: OLDEST });
	});

	it('refuses the same or a newer dataset as the base, and the oldest dataset with "previous", before streaming', async () => {
		const same = await compare({ label: NEWEST, baseLabel: NEWEST, fields: ['title'] });
		expect(same.error?.message).toBe(`"Dataset" and "Compare With" are the same dataset ("${NEWEST}")`);
		const newer = await compare({ label: OLDEST, baseLabel: NEWEST, fields: ['title'] });
		expect(newer.error?.message).toBe(`"Compare With" ("${NEWEST}") is newer than "Dataset" ("${OLDEST}")`);
		const none = await compare({ label: OLDEST, fields: ['title'] });
		expect(none.error?.message).toBe(`There is no dataset older than "${OLDEST}" to compare it with`);
		const unknown = await compare({ label: NEWEST, baseLabel: '2024-01-01', fields: ['title'] });
		expect(unknown.error?.message).toContain(
			'The dataset "2024-01-01" does not exist. The newest datasets are: 2025-06-30',
		);
		expect(sim.calls('stream')).toHaveLength(0);
	});

	it('refuses fields with nothing to compare and unknown change kinds before any call', async () => {
		const onlyName = await compare({ fields: ['name'] });
		expect(onlyName.error?.message).toBe('The parameter "Fields" names no field to compare');
		const kinds = await compare({ fields: ['title'], changes: '={{ "added, moved" }}' });
		expect(kinds.error?.message).toBe('The parameter "Changes" has unknown values: "moved"');
		expect(sim.log).toHaveLength(0);
	});
});

describe('Dataset → Compare, outputs', () => {
	const question: Question = { fields: ['title', 'technologies', 'country_code'] };

	it('batches hold the same changes, in order, Batch Size a batch', async () => {
		const expected = await expectedChanges(NEWEST, PREVIOUS, question);
		const result = await compare({ ...parametersOf(question), output: 'batches', batchSize: 50 });
		expect(result.items.map((item) => [item.json.label, item.json.baseLabel, item.json.batch])).toEqual(
			Array.from({ length: Math.ceil(expected.length / 50) }, (_, index) => [NEWEST, PREVIOUS, index + 1]),
		);
		expect(result.items.flatMap((item) => item.json.records as IDataObject[])).toEqual(expected);
	});

	it('the file holds the changes as NDJSON, with counts per kind; gzip on request; not bound by the memory guard', async () => {
		const expected = await expectedChanges(NEWEST, PREVIOUS, question);
		const result = await compare({ ...parametersOf(question), output: 'file', options: { maxRecords: 5 } });
		expect(result.error).toBeUndefined();
		const [item] = result.items;
		const content = (await readBinary(item)).toString('utf8');
		expect(content).toBe(expected.map((change) => JSON.stringify(change) + '\n').join(''));
		expect(item.json).toEqual({
			...fileSummaryOf(expected, { label: NEWEST, baseLabel: PREVIOUS }),
			sizeBytes: Buffer.byteLength(content),
			fields: ['title', 'country_code', 'technologies'],
		});
		const gzipped = await compare({ ...parametersOf(question), output: 'file', options: { compression: 'gzip' } });
		expect(gunzipSync(await readBinary(gzipped.items[0])).toString('utf8')).toBe(content);
		expect(gzipped.items[0].binary!.data.fileName).toBe(`changes-${PREVIOUS}-${NEWEST}.ndjson.gz`);
	});

	it('Limit gives the first changes in the documented order, and stops reading once they are found', async () => {
		const expected = await expectedChanges(NEWEST, PREVIOUS, question);
		const gone = expected.filter((change) => change.reason === 'goneFromIndex').length;
		expect(gone).toBeGreaterThan(3);
		const few = await compare({ ...parametersOf(question), returnAll: false, limit: 3 });
		expect(few.items.map((item) => item.json)).toEqual(expected.slice(0, 3));
		// All three are gone domains, found in the older snapshot: the newer one is not read again.
		expect(streamRequests(sim)).toEqual({ [NEWEST]: 1, [PREVIOUS]: 1 });
		sim.clearLog();
		const more = await compare({ ...parametersOf(question), returnAll: false, limit: gone + 7 });
		expect(more.items.map((item) => item.json)).toEqual(expected.slice(0, gone + 7));
	});

	it('Max Records in Memory refuses more changes than it allows, across input items, and continueOnFail reports it', async () => {
		const expected = await expectedChanges(NEWEST, PREVIOUS, question);
		const refused = await compare({ ...parametersOf(question), options: { maxRecords: expected.length - 1 } });
		expect(refused.error?.message).toBe(
			`The comparison of "${NEWEST}" with "${PREVIOUS}" finds more changes for this selection than "Max Records in Memory" (${(expected.length - 1).toLocaleString('en-US')}) allows`,
		);
		const fits = await compare({ ...parametersOf(question), options: { maxRecords: expected.length } });
		expect(fits.items).toHaveLength(expected.length);
		const second = await compare(
			{ ...parametersOf(question), options: { maxRecords: expected.length + 10 } },
			{ input: [{ json: {} }, { json: {} }], continueOnFail: true },
		);
		expect(second.items).toHaveLength(expected.length + 1);
		expect(second.items[expected.length].json.error).toContain(
			`with the ${expected.length.toLocaleString('en-US')} records already output for earlier items`,
		);
		expect(second.items[expected.length].pairedItem).toEqual({ item: 1 });
	});
});

describe('Dataset → Compare under faults equals the brute-force diff', () => {
	const question: Question = { fields: ['technologies', 'title', 'categories'], filters: { maxRank: 1500 } };
	const faults: Array<[string, Partial<Faults>, Record<string, number>]> = [
		['the newer side drops in pass 1', { streams: [{ dropAfterLines: 333 }] }, { [NEWEST]: 3, [PREVIOUS]: 1 }],
		[
			'the older side drops in pass 2',
			{ streams: [{ count: 1 }, { dropAfterLines: 777 }] },
			{ [NEWEST]: 2, [PREVIOUS]: 2 },
		],
		[
			'the newer side drops in pass 3, twice',
			{ streams: [{ count: 2 }, { dropAfterLines: 1200 }, { dropAfterLines: 1500 }] },
			{ [NEWEST]: 4, [PREVIOUS]: 1 },
		],
		[
			'429 with Retry-After on the older side',
			{ requests: [{ endpoint: 'stream', path: PREVIOUS, status: 429, retryAfter: 1 }] },
			{ [NEWEST]: 2, [PREVIOUS]: 2 },
		],
		[
			'503 then a reset on the newer side',
			{
				requests: [
					{ endpoint: 'stream', path: NEWEST, status: 503 },
					{ endpoint: 'stream', path: NEWEST, reset: true },
				],
			},
			{ [NEWEST]: 4, [PREVIOUS]: 1 },
		],
		[
			'a UTF-8 split and CRLF on both sides',
			{ streams: [{ splitUtf8: true }, { crlf: true }, { splitUtf8: true, noFinalNewline: true }] },
			{ [NEWEST]: 2, [PREVIOUS]: 1 },
		],
	];

	it.each(faults)('%s', async (_name, fault, requests) => {
		const expected = await expectedChanges(NEWEST, PREVIOUS, question);
		expect(expected.length).toBeGreaterThan(20);
		sim.setFaults(fault);
		const result = await compare({ label: NEWEST, baseLabel: PREVIOUS, ...parametersOf(question) });
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json)).toEqual(expected);
		expect(streamRequests(sim)).toEqual(requests);
		expect(sim.faults().streams).toEqual([]);
		expect(sim.faults().requests).toEqual([]);
	});

	it('fails without a partial result when the older side keeps dropping', async () => {
		// Pass 1 (newer) reads cleanly; the older side drops after 100 lines (progress: a new budget), then
		// twice before any new line: 2 requests in a row without progress is Max Attempts 2.
		sim.setFaults({ streams: [{ count: 1 }, { dropAfterLines: 100 }, { dropAfterLines: 0, count: 2 }] });
		const result = await compare({
			label: NEWEST,
			baseLabel: PREVIOUS,
			fields: ['title'],
			options: { maxAttempts: 2 },
		});
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(
			`The dataset "${PREVIOUS}" could not be read to the end: 2 requests in a row failed without new lines (2× connection dropped)`,
		);
	});
});

describe('Dataset → Compare, pass 3 parses only the lines it outputs', () => {
	// A service that writes its lines in other shapes than the simulator: pass 3 reads the name from the raw
	// line only in the service's own shape, and parses any other line, so the result stays the brute force's.
	const NEW = '2025-06-30';
	const OLD = '2025-06-23';
	const newer = [
		'{"name":"a.com","title":"A2"}',
		'{"title":"B2","name":"b.com"}',
		'{ "name": "c.com", "title": "C2" }',
		'{"name":"d\\u002ecom","title":"D2"}',
		'{"name":"e.com","title":"E"}',
		'{"name":"x.com","title":"F2","name":"f.com"}',
		'{"name":"x.com","title":"X"}',
		'{"name":"g.com","title":"G"}',
	];
	const older = ['h.com H', 'a.com A1', 'b.com B1', 'c.com C1', 'd.com D1', 'e.com E', 'f.com F1', 'x.com X'].map(
		(entry) => {
			const [name, title] = entry.split(' ');
			return JSON.stringify({ name, title });
		},
	);
	const parsed = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record_);
	const expected = bruteForce(parsed(newer), parsed(older), { label: NEW, baseLabel: OLD }, { fields: ['title'] });

	/** Serves the two snapshots; `pass3` replaces the newer one's lines when it is asked the second time. */
	async function run(pass3: string[] = newer, options: INodeParameters = {}) {
		let newerRequests = 0;
		const service = await startLocalService((request) => {
			if (request.path === '/historical/domain')
				return { body: { datasets: [NEW, OLD].map((label) => ({ label, value: `snap-${label}` })) } };
			if (request.path === `/historical/domain/${OLD}`) return { body: older.join('\n') + '\n' };
			newerRequests++;
			return { body: (newerRequests === 2 ? pass3 : newer).join('\n') + '\n' };
		});
		try {
			const result = await runNode({
				parameters: {
					resource: 'dataset',
					operation: 'compare',
					label: NEW,
					baseLabel: OLD,
					fields: ['title'],
					returnAll: true,
					options,
				},
				credentials: { apiKey: 'local-test-key', baseUrl: service.url },
			});
			const streams = service.requests
				.filter((request) => request.path.startsWith('/historical/domain/'))
				.map((request) => request.path.split('/').pop());
			return { ...result, streams };
		} finally {
			await service.close();
		}
	}

	it("escaped names, other key orders, whitespace and a repeated key give the brute force's changes", async () => {
		expect(kindsOf(expected)).toEqual([
			'removed:goneFromIndex',
			...Array(4).fill('changed:valuesChanged'),
			'changed:valuesChanged',
			'added:newToIndex',
		]);
		const result = await run();
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json)).toEqual(expected);
		expect(result.streams).toEqual([NEW, OLD, NEW]);
	});

	it('a malformed line in pass 3 that nothing is output from is not read (pass 1 read that line whole)', async () => {
		const damaged = [...newer];
		damaged[4] = '{"name":"e.com","ti'; // e.com did not change
		const result = await run(damaged);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json)).toEqual(expected);
	});

	it('a malformed line in pass 3 that a change needs follows On Malformed Line', async () => {
		const damaged = [...newer];
		damaged[0] = '{"name":"a.com","ti'; // a.com changed
		const failed = await run(damaged);
		expect(failed.error?.message).toMatch(
			new RegExp(`^Line 1 of the dataset "${NEW}" cannot be read: it is not valid JSON`),
		);
		const skipped = await run(damaged, { onMalformedLine: 'skip' });
		expect(skipped.error).toBeUndefined();
		expect(skipped.items.map((item) => item.json)).toEqual(expected.filter((change) => change.name !== 'a.com'));
	});
});
