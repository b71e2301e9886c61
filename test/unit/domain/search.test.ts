/**
 * Domain → Search over real HTTP: cursor paging proven from the simulator's request log (call counts,
 * page sizes, cursors sent back exactly), limits, filters, resume, and the guards against endless paging
 * (with a tiny local server, since the simulator never repeats a cursor).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { DomainData } from '../../../nodes/DomainData/DomainData.node';
import { createExecuteContext, runNode } from '../../harness/n8n';
import { useSimulator } from '../../harness/simulator';
import { KEYS } from '../../simulator';

const sim = useSimulator({ domains: 1000 });
let credentials: { apiKey: string; baseUrl: string };

beforeAll(() => {
	credentials = { apiKey: KEYS.pro, baseUrl: sim.url };
});

const search = (
	parameters: Record<string, unknown>,
	extra: { input?: Array<{ json: IDataObject }>; continueOnFail?: boolean; credentials?: typeof credentials } = {},
) =>
	runNode({
		parameters: { resource: 'domain', operation: 'search', ...parameters } as INodeParameters,
		credentials: extra.credentials ?? credentials,
		input: extra.input,
		continueOnFail: extra.continueOnFail,
	});

const bodies = () => sim.calls('search').map((entry) => entry.body as IDataObject);
const cursorAfter = (rank: number) => [rank, sim.index.domainAt(rank).id];

describe('Domain → Search', () => {
	test('limit 150 with page size 100: two calls, the second asks for 50 with the cursor as received', async () => {
		const { items, error } = await search({ limit: 150, options: { pageSize: 100 } });
		expect(error).toBeUndefined();
		expect(bodies()).toEqual([{ pageSize: 100 }, { pageSize: 50, searchAfter: cursorAfter(100) }]);
		expect(items).toHaveLength(150);
		expect(items.map((item) => item.json.rank)).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
		expect(items[0]).toEqual({ json: sim.index.domainAt(1), pairedItem: { item: 0 } });
	});

	test('limit exactness: limit 7, page size 3 asks 3, 3, 1', async () => {
		const { items } = await search({ limit: 7, options: { pageSize: 3 } });
		expect(bodies().map((body) => body.pageSize)).toEqual([3, 3, 1]);
		expect(bodies().map((body) => body.searchAfter)).toEqual([undefined, cursorAfter(3), cursorAfter(6)]);
		expect(items.map((item) => item.json.rank)).toEqual([1, 2, 3, 4, 5, 6, 7]);
	});

	test('the default limit (50) is one call of 50; the default page size is 100', async () => {
		await search({});
		expect(bodies()).toEqual([{ pageSize: 50 }]);
		sim.clearLog();
		await search({ limit: 250 });
		expect(bodies().map((body) => body.pageSize)).toEqual([100, 100, 50]);
	});

	test('Return All pages until search_after is absent, every domain once, in rank order', async () => {
		const { items, error } = await search({ returnAll: true, options: { pageSize: 300 } });
		expect(error).toBeUndefined();
		expect(bodies().map((body) => body.pageSize)).toEqual([300, 300, 300, 300]);
		expect(bodies().map((body) => body.searchAfter)).toEqual([
			undefined,
			cursorAfter(300),
			cursorAfter(600),
			cursorAfter(900),
		]);
		expect(items).toHaveLength(1000);
		expect(new Set(items.map((item) => item.json.name)).size).toBe(1000);
		expect(items.at(-1)?.json.rank).toBe(1000);
	});

	test('filters go to the service as given, next to the paging keys', async () => {
		const { items, error } = await search({
			limit: 20,
			filters: '{"language": "de", "maxRank": 900}',
			options: { pageSize: 8 },
		});
		expect(error).toBeUndefined();
		expect(bodies()[0]).toEqual({ language: 'de', maxRank: 900, pageSize: 8 });
		expect(bodies()[1]).toMatchObject({ language: 'de', maxRank: 900, pageSize: 8 });
		expect(items.length).toBeGreaterThan(0);
		expect(items.every((item) => item.json.language === 'de' && (item.json.rank as number) <= 900)).toBe(true);
	});

	test('filters from an expression (an object) per input item; pairedItem points at that item', async () => {
		const input = [{ json: { lang: 'de' } }, { json: { lang: 'fr' } }];
		const { items } = await search(
			{ limit: 3, filters: '={{ { "language": $json.lang } }}', options: { pageSize: 3 } },
			{ input },
		);
		expect(bodies()).toEqual([
			{ language: 'de', pageSize: 3 },
			{ language: 'fr', pageSize: 3 },
		]);
		expect(items.map((item) => [item.json.language, item.pairedItem])).toEqual([
			['de', { item: 0 }],
			['de', { item: 0 }],
			['de', { item: 0 }],
			['fr', { item: 1 }],
			['fr', { item: 1 }],
			['fr', { item: 1 }],
		]);
	});

	test.each([
		['{"language": "de"', 'Filters must be a JSON object, but they are "{"language": "de""'],
		['[1, 2]', 'Filters must be a JSON object, but they are "[1, 2]"'],
		['"de"', 'Filters must be a JSON object'],
		['{"pageSize": 5}', 'Filters must not contain "pageSize"'],
		['{"searchAfter": [1, 2]}', 'Filters must not contain "searchAfter"'],
	])('bad filters %j: a clear error before any call', async (filters, message) => {
		const { error } = await search({ filters });
		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message).toContain(message);
		expect(sim.calls()).toHaveLength(0);
	});

	test('a page size above the plan: the service reason plus a hint to lower Page Size', async () => {
		const { error } = await search({ returnAll: true }, { credentials: { apiKey: KEYS.basic, baseUrl: sim.url } });
		expect(error?.httpCode).toBe('400');
		expect(error?.message).toBe(
			'The service rejected the request: pageSize 100 exceeds the maximum of 50 for the basic plan.',
		);
		expect(error?.description).toContain('lower Options → Page Size (this call asked for 100)');
		expect(sim.calls()).toHaveLength(1);
	});

	test('paging info and resume: the second run goes on exactly after the first', async () => {
		const first = await search({ limit: 30, options: { pageSize: 20, includePagingInfo: true } });
		const paging = first.items.at(-1)?.json._paging as IDataObject;
		expect(paging).toEqual({ total: 1000, searchAfter: cursorAfter(30), hasMore: true });
		expect(first.items.slice(0, -1).some((item) => '_paging' in item.json)).toBe(false);

		sim.clearLog();
		const second = await search({
			limit: 30,
			options: { pageSize: 20, searchAfter: JSON.stringify(paging.searchAfter) },
		});
		expect(bodies()[0]).toEqual({ pageSize: 20, searchAfter: cursorAfter(30) });
		expect(second.items.map((item) => item.json.rank)).toEqual(Array.from({ length: 30 }, (_, i) => i + 31));

		sim.clearLog();
		const last = await search({
			returnAll: true,
			options: { pageSize: 500, includePagingInfo: true, searchAfter: cursorAfter(990) },
		});
		expect(last.items.map((item) => item.json.rank)).toEqual([991, 992, 993, 994, 995, 996, 997, 998, 999, 1000]);
		expect(last.items.at(-1)?.json._paging).toEqual({ total: 1000, searchAfter: null, hasMore: false });
	});

	test.each([['[1, 2'], ['{"a": 1}'], ['[]']])(
		'a bad Start Cursor %j: a clear error before any call',
		async (searchAfter) => {
			const { error } = await search({ options: { searchAfter } });
			expect(error?.message).toContain('The Start Cursor must be a JSON array');
			expect(sim.calls()).toHaveLength(0);
		},
	);

	test('continueOnFail: a failing input item gives { error } (with paging info to go on); the others go through', async () => {
		sim.setFaults({
			requests: [
				{ delayMs: 0, count: 1 },
				{ status: 500, count: 1 },
			],
		});
		const input = [{ json: { f: '{}' } }, { json: { f: 'nope' } }, { json: { f: '{}' } }];
		const { items, error } = await search(
			{ limit: 6, filters: '={{ $json.f }}', options: { pageSize: 3, maxAttempts: 1, includePagingInfo: true } },
			{ input, continueOnFail: true },
		);
		expect(error).toBeUndefined();
		// item 0: page 1 fine, page 2 hit the injected 500 → its 3 domains, then its error with the cursor to go on
		expect(items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 0 },
			{ item: 0 },
			{ item: 0 },
			{ item: 1 },
			...Array.from({ length: 6 }, () => ({ item: 2 })),
		]);
		expect(items[3].json).toEqual({
			error: 'The Domain Data service failed with 500 Internal Server Error',
			_paging: { total: 1000, searchAfter: cursorAfter(3) },
		});
		expect(items[4].json.error).toContain('Filters must be a JSON object');
	});

	test('Continue (using error output): the error item says the cursor to go on from, and it goes on exactly there', async () => {
		sim.setFaults({
			requests: [
				{ delayMs: 0, count: 1 },
				{ status: 500, count: 1 },
			],
		});
		const options = { pageSize: 3, maxAttempts: 1, includePagingInfo: true };
		const failed = await runNode({
			parameters: { resource: 'domain', operation: 'search', limit: 6, options },
			credentials,
			continueOnFail: true,
			onError: 'continueErrorOutput',
		});
		const error = failed.items[failed.items.length - 1];
		expect(Object.keys(error.json)).toEqual(['error']);
		const cursor = JSON.stringify(cursorAfter(3));
		expect(error.json.error).toBe(
			'The Domain Data service failed with 500 Internal Server Error. To go on from there, set the option ' +
				`"Start Cursor" to ${cursor}.`,
		);
		const resumed = await search({ limit: 3, options: { pageSize: 3, searchAfter: cursor } });
		expect(resumed.items.map((item) => item.json.rank)).toEqual([4, 5, 6]);
	});
});

describe('guards against endless paging (local server)', () => {
	let server: Server;
	let base = '';
	let mode: 'repeat' | 'runaway' | 'odd' | 'empty' | 'capped' | 'notObjects' = 'repeat';
	/** The `results` of mode notObjects. */
	let oddResults: unknown[] = [];
	const received: unknown[] = [];

	const readJson = async (req: IncomingMessage) => {
		let text = '';
		for await (const chunk of req) text += chunk;
		return JSON.parse(text || '{}');
	};

	beforeAll(async () => {
		server = createServer(async (req, res) => {
			const body = await readJson(req);
			received.push(body);
			res.setHeader('content-type', 'application/json');
			const results = Array.from({ length: body.pageSize }, (_, i) => ({ name: `d${received.length}-${i}.com` }));
			if (mode === 'repeat') {
				res.end(JSON.stringify({ results, search_after: [7, 7], total: 1000 }));
			} else if (mode === 'runaway') {
				res.end(JSON.stringify({ results, search_after: [received.length, 0], total: 5 }));
			} else if (mode === 'empty') {
				// 3 domains, then empty pages that still carry a fresh cursor and a huge total; the server
				// gives up after 50 calls so that a client without the rule still ends
				const page = received.length === 1 ? results.slice(0, 3) : [];
				res.end(
					JSON.stringify({
						results: page,
						...(received.length < 50 ? { search_after: [received.length, 1] } : {}),
						total: 879000,
					}),
				);
			} else if (mode === 'capped') {
				// a plan that caps pages at 40 whatever is asked; 250 domains in all, an honest total
				const start = body.searchAfter ? body.searchAfter[0] : 0;
				const size = Math.min(body.pageSize, 40, 250 - start);
				const page = Array.from({ length: size }, (_, i) => ({ name: `d${start + i}.com`, rank: start + i + 1 }));
				const end = start + size;
				res.end(JSON.stringify({ results: page, ...(end < 250 ? { search_after: [end, 0] } : {}), total: 250 }));
			} else if (mode === 'notObjects') {
				res.end(JSON.stringify({ results: oddResults, search_after: [received.length, 0], total: 1000 }));
			} else {
				// a cursor of any shape goes back exactly as received
				const cursor = received.length === 1 ? ['zz', 1.5, { deep: [null, true] }, 12345678901234] : undefined;
				res.end(JSON.stringify({ results, ...(cursor ? { search_after: cursor } : {}), total: 4 }));
			}
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	});
	afterAll(async () => {
		await new Promise((resolve) => server.close(resolve));
	});
	beforeEach(() => {
		received.length = 0;
	});

	const run = (parameters: Record<string, unknown>) =>
		runNode({
			parameters: { resource: 'domain', operation: 'search', ...parameters } as INodeParameters,
			credentials: { apiKey: 'local-key', baseUrl: base },
		});

	test('a cursor that comes back unchanged stops with a clear error, after two calls', async () => {
		mode = 'repeat';
		const { error } = await run({ returnAll: true, options: { pageSize: 2 } });
		expect(received).toEqual([{ pageSize: 2 }, { pageSize: 2, searchAfter: [7, 7] }]);
		expect(error?.name).toBe('NodeApiError');
		expect(error?.message).toBe(
			'The search stopped: the service gave the cursor [7,7] a second time, which would repeat pages without end',
		);
		expect(error?.description).toContain('4 domains were read before');
	});

	test('a start cursor that comes back is caught too', async () => {
		mode = 'repeat';
		const { error } = await run({ returnAll: true, options: { pageSize: 2, searchAfter: '[7, 7]' } });
		expect(received).toHaveLength(1);
		expect(error?.message).toContain('gave the cursor [7,7] a second time');
	});

	test('more domains than the announced total (plus one page) stop with a clear error', async () => {
		mode = 'runaway';
		const { error } = await run({ returnAll: true, options: { pageSize: 2 } });
		// total 5 at 2 a page: the bound allows one page more than the total, so 8 domains (4 calls) stop it
		expect(received).toHaveLength(4);
		expect(error?.message).toBe('The search stopped after 4 pages: the service announced 5 results in all but sent 8');
	});

	test('an empty page ends the search, whatever its cursor and the total say (the call that brought it is the last)', async () => {
		mode = 'empty';
		const limited = await run({ limit: 10, options: { includePagingInfo: true } });
		expect(limited.error).toBeUndefined();
		expect(received).toHaveLength(2);
		expect(limited.items.map((item) => item.json.name)).toEqual(['d1-0.com', 'd1-1.com', 'd1-2.com']);
		expect(limited.items[2].json._paging).toEqual({ total: 879000, searchAfter: null, hasMore: false });

		received.length = 0;
		const all = await run({ returnAll: true, options: { pageSize: 5 } });
		expect(all.error).toBeUndefined();
		expect(received).toEqual([{ pageSize: 5 }, { pageSize: 5, searchAfter: [1, 1] }]);
		expect(all.items).toHaveLength(3);
	});

	test('pages shorter than asked (a plan cap of 40, Page Size 100) are read to the end', async () => {
		mode = 'capped';
		const { items, error } = await run({ returnAll: true, options: { pageSize: 100 } });
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.rank)).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
		expect(received).toHaveLength(7);
		expect(received.every((body) => (body as { pageSize: number }).pageSize === 100)).toBe(true);

		received.length = 0;
		const limited = await run({ limit: 120, options: { pageSize: 100 } });
		expect(limited.items.map((item) => item.json.rank)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
		// each call asks only for what the limit still needs
		expect(received.map((body) => (body as { pageSize: number }).pageSize)).toEqual([100, 80, 40]);
	});

	test('results that are not objects are refused with a clear error, also with Include Paging Info', async () => {
		mode = 'notObjects';
		oddResults = ['lorem', 'ipsum'];
		const strings = await run({ limit: 5, options: { includePagingInfo: true } });
		expect(strings.items).toEqual([]);
		expect(strings.error?.name).toBe('NodeApiError');
		expect(strings.error?.message).toBe(
			'The Domain Data service gave an unexpected answer (search result 1 of page 1 is a string, not a domain object)',
		);

		oddResults = [{ name: 'a.com' }, null];
		const withNull = await run({ limit: 5 });
		expect(withNull.error?.message).toContain('search result 2 of page 1 is null, not a domain object');

		oddResults = [[1, 2]];
		const continued = await runNode({
			parameters: { resource: 'domain', operation: 'search', limit: 5 } as INodeParameters,
			credentials: { apiKey: 'local-key', baseUrl: base },
			continueOnFail: true,
		});
		expect(continued.items.map((item) => item.json)).toEqual([
			{
				error:
					'The Domain Data service gave an unexpected answer (search result 1 of page 1 is a list, not a domain object)',
			},
		]);
	});

	test('a cursor of any shape is sent back exactly as received', async () => {
		mode = 'odd';
		const { items, error } = await run({ returnAll: true, options: { pageSize: 2 } });
		expect(error).toBeUndefined();
		expect(received).toEqual([
			{ pageSize: 2 },
			{ pageSize: 2, searchAfter: ['zz', 1.5, { deep: [null, true] }, 12345678901234] },
		]);
		expect(items).toHaveLength(4);
	});
});

describe('Domain → Search: filters that would not reach the service as written, and filters it did not apply', () => {
	/** A run through n8n-core's context, with the hints the node added under its output. */
	async function searchWithHints(parameters: Record<string, unknown>) {
		const { context } = await createExecuteContext({
			parameters: { resource: 'domain', operation: 'search', ...parameters } as INodeParameters,
			credentials,
		});
		const hints = () => (context as unknown as { hints: Array<{ message: string }> }).hints.map((hint) => hint.message);
		try {
			const [items] = await new DomainData().execute.call(context);
			return { items, hints: hints(), error: undefined };
		} catch (error) {
			return { items: [], hints: hints(), error: error as Error & { description?: string } };
		}
	}

	test('a rejected filter of a megabyte: the description names the keys, not the value (bounded)', async () => {
		const filters = JSON.stringify({ country: 'x'.repeat(1_000_000) });
		const { error } = await search({ filters });
		expect(error?.message).toContain('Unknown field "country"');
		expect(error?.description).toContain('Check Filters (the key "country")');
		expect(error!.description!.length).toBeLessThan(400);
	});

	test('filters nested 20,000 deep: a clear error before any call, not a stack overflow', async () => {
		const filters = '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000);
		const { error } = await search({ filters });
		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message).toBe('Filters are nested more than 32 levels deep');
		expect(sim.calls()).toHaveLength(0);
	});

	test('a "__proto__" key: a clear error before any call, not dropped without a word', async () => {
		const { error } = await search({ filters: '{"__proto__": {"x": 1}, "language": "de"}' });
		expect(error?.message).toBe('Filters hold the key "__proto__", which cannot be sent');
		expect(sim.calls()).toHaveLength(0);
	});

	test('a service that ignores a filter: the output as it came, and a hint that names the filter', async () => {
		sim.setSearchMode({ filters: ['maxRank'], unknownFilters: 'ignore' });
		try {
			const { items, hints, error } = await searchWithHints({ filters: '{"language": "de"}', limit: 20 });
			expect(error).toBeUndefined();
			expect(items).toHaveLength(20);
			expect(bodies()).toEqual([{ language: 'de', pageSize: 20 }]);
			expect(hints).toEqual([
				expect.stringMatching(
					/^The service did not apply the filter language "de" \(\d+ of 20 domains returned do not match it\)/,
				),
			]);
		} finally {
			sim.reset();
		}
	});

	test('a service that applies the filter: no hint', async () => {
		const { items, hints } = await searchWithHints({ filters: '{"language": "de", "maxRank": 500}', limit: 5 });
		expect(items.length).toBeGreaterThan(0);
		expect(items.every((item) => item.json.language === 'de')).toBe(true);
		expect(hints).toEqual([]);
	});
});
