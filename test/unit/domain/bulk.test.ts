/**
 * Domain → Bulk Get over real HTTP: each distinct name asked once, 100 a call, a bounded number of calls
 * at a time, results in the order the names were asked (the simulator never answers in request order).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { runNode } from '../../harness/n8n';
import { SITE_NAMES, THIRD_CALL_ERROR, siteDomain, useFailingBulkService } from '../../harness/failingBulkService';
import { startLocalService, type LocalService } from '../../harness/localService';
import { useSimulator } from '../../harness/simulator';
import { KEYS } from '../../simulator';

const sim = useSimulator({ domains: 1000 });
let credentials: { apiKey: string; baseUrl: string };

beforeAll(() => {
	credentials = { apiKey: KEYS.pro, baseUrl: sim.url };
});

const bulk = (
	domains: unknown,
	options: Record<string, unknown> = {},
	extra: { input?: Array<{ json: IDataObject }>; continueOnFail?: boolean; credentials?: typeof credentials } = {},
) =>
	runNode({
		parameters: { resource: 'domain', operation: 'bulk', domains: domains as string, options } as INodeParameters,
		credentials: extra.credentials ?? credentials,
		input: extra.input,
		continueOnFail: extra.continueOnFail,
	});

const askedPerCall = () => sim.calls('bulk').map((entry) => (entry.body as { domains: string[] }).domains);
const name = (rank: number) => sim.index.domainAt(rank).name;

/** A fixed permutation of 1..n (no randomness in tests). */
const shuffledRanks = (n: number) => Array.from({ length: n }, (_, i) => ((i * 37) % n) + 1);

describe('Domain → Bulk Get', () => {
	test('250 names with duplicates and misses: 3 calls of ≤ 100 distinct names, output in the asked order', async () => {
		const ranks = shuffledRanks(250);
		const misses = Array.from({ length: 10 }, (_, i) => `missing-${i}.example.com`);
		const asked = [...ranks.map(name), ...misses];
		// duplicates in other spellings: upper case, URL, email
		const list = [...asked, name(ranks[0]).toUpperCase(), `https://${name(ranks[1])}/x`, `info@${name(ranks[2])}`].join(
			'\n',
		);
		const { items, error } = await bulk(list);
		expect(error).toBeUndefined();

		const calls = askedPerCall();
		expect(calls.map((names) => names.length)).toEqual([100, 100, 60]);
		const sent = calls.flat();
		expect(new Set(sent).size).toBe(sent.length);
		expect(new Set(sent)).toEqual(new Set(asked));

		expect(items.map((item) => item.json.name)).toEqual(ranks.map(name));
		expect(items[0]).toEqual({ json: sim.index.domainAt(ranks[0]), pairedItem: { item: 0 } });
	});

	test('Include Not Found: { name, found: false } in its place', async () => {
		const { items } = await bulk(`${name(5)}, nothere.example.com, ${name(1)}`, { includeNotFound: true });
		expect(items.map((item) => item.json)).toEqual([
			sim.index.domainAt(5),
			{ name: 'nothere.example.com', found: false },
			sim.index.domainAt(1),
		]);
	});

	test('separators: commas, semicolons, spaces and new lines; or a list from an expression', async () => {
		const text = await bulk(`${name(1)},${name(2)}; ${name(3)}\r\n\t${name(4)}  ${name(5)}`);
		expect(text.items.map((item) => item.json.rank)).toEqual([1, 2, 3, 4, 5]);
		const list = await bulk(`={{ ${JSON.stringify([name(3), name(1), `www.${name(2)}`])} }}`);
		expect(list.items.map((item) => item.json.rank)).toEqual([3, 1, 2]);
		expect(sim.calls('bulk')).toHaveLength(2);
	});

	test('invalid names: an error listing them, before any call; or left out with Ignore Invalid Names', async () => {
		const { error } = await bulk(`${name(1)} localhost 1.2.3.4 ${name(2)}`);
		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message).toBe(
			'2 values are not a domain name, URL or email address: "localhost" (a domain name has at least two parts, like example.com), "1.2.3.4" (it is an IP address, not a domain name)',
		);
		expect(error?.description).toContain('Ignore Invalid Names');
		expect(sim.calls()).toHaveLength(0);

		const { items } = await bulk(`${name(1)} localhost 1.2.3.4 ${name(2)}`, { ignoreInvalid: true });
		expect(items.map((item) => item.json.rank)).toEqual([1, 2]);
		expect(askedPerCall()).toEqual([[name(1), name(2)]]);
	});

	test('several input items share the calls; each gets its own domains, paired with it', async () => {
		const input = [
			{ json: { list: `${name(1)} ${name(2)}` } },
			{ json: { list: `${name(2)} ${name(3)}` } },
			{ json: { list: '' } },
		];
		const { items } = await bulk('={{ $json.list }}', {}, { input });
		expect(askedPerCall()).toEqual([[name(1), name(2), name(3)]]);
		expect(items.map((item) => [item.json.rank, item.pairedItem])).toEqual([
			[1, { item: 0 }],
			[2, { item: 0 }],
			[2, { item: 1 }],
			[3, { item: 1 }],
		]);
		expect(items[1].json).not.toBe(items[2].json);
	});

	test('an empty list makes no call', async () => {
		const { items, error } = await bulk('={{ [] }}');
		expect(error).toBeUndefined();
		expect(items).toEqual([]);
		expect(sim.calls()).toHaveLength(0);
	});

	test('bounded concurrency: with 2 at a time, call n+2 starts only after call n answered', async () => {
		const delayMs = 250;
		sim.setFaults({ requests: [{ endpoint: 'bulk', delayMs, count: 10 }] });
		await bulk(shuffledRanks(500).map(name).join(' '));
		const times = sim.calls('bulk').map((entry) => entry.time);
		expect(times).toHaveLength(5);
		for (let i = 2; i < times.length; i++) expect(times[i] - times[i - 2]).toBeGreaterThanOrEqual(delayMs);

		sim.clearLog();
		sim.setFaults({ requests: [{ endpoint: 'bulk', delayMs, count: 10 }] });
		await bulk(shuffledRanks(300).map(name).join(' '), { concurrency: 1 });
		const serial = sim.calls('bulk').map((entry) => entry.time);
		expect(serial).toHaveLength(3);
		for (let i = 1; i < serial.length; i++) expect(serial[i] - serial[i - 1]).toBeGreaterThanOrEqual(delayMs);
	});

	test('a failed call stops further calls; continueOnFail keeps what was paid for and goes on', async () => {
		// call 1 goes through, call 2 fails (no retry with Max Attempts 1): without continueOnFail call 3 is
		// never made; with it, call 3 is made (and fails too), and each name of a failed call carries the error
		const rules = () =>
			sim.setFaults({
				requests: [
					{ endpoint: 'bulk', delayMs: 0, count: 1 },
					{ endpoint: 'bulk', status: 500, count: 5 },
				],
			});
		const input = [
			{ json: { list: Array.from({ length: 100 }, (_, i) => name(i + 1)).join(' ') } },
			{ json: { list: Array.from({ length: 100 }, (_, i) => name(i + 101)).join(' ') } },
			{ json: { list: Array.from({ length: 100 }, (_, i) => name(i + 201)).join(' ') } },
		];
		rules();
		const failing = await bulk('={{ $json.list }}', { concurrency: 1, maxAttempts: 1 }, { input });
		expect(failing.error?.message).toBe('The Domain Data service failed with 500 Internal Server Error');
		expect(sim.calls('bulk')).toHaveLength(2);

		sim.clearLog();
		rules();
		const { items, error } = await bulk(
			'={{ $json.list }}',
			{ concurrency: 1, maxAttempts: 1 },
			{ input, continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(sim.calls('bulk')).toHaveLength(3);
		expect(items).toHaveLength(300);
		expect(
			items.slice(0, 100).every((item) => item.pairedItem && (item.pairedItem as { item: number }).item === 0),
		).toBe(true);
		expect(items[100].json).toEqual({
			name: name(101),
			error: 'The Domain Data service failed with 500 Internal Server Error',
		});
		// No item-level error: n8n would replace the json by the message, and the name would be lost.
		expect(items[100].error).toBeUndefined();
		expect(items.slice(100).map((item) => [item.json.name, (item.pairedItem as { item: number }).item])).toEqual(
			Array.from({ length: 200 }, (_, i) => [name(i + 101), i < 100 ? 1 : 2]),
		);
		expect(
			items
				.slice(100)
				.every((item) => item.json.error === 'The Domain Data service failed with 500 Internal Server Error'),
		).toBe(true);
	});

	test('429 with Retry-After on a bulk call: retried after the wait, nothing lost or doubled', async () => {
		sim.setFaults({ requests: [{ endpoint: 'bulk', status: 429, retryAfter: 1, count: 1 }] });
		const { items } = await bulk(shuffledRanks(150).map(name).join(' '), { concurrency: 1 });
		const calls = sim.calls('bulk');
		expect(calls.map((entry) => entry.status)).toEqual([429, 200, 200]);
		expect(calls[1].time - calls[0].time).toBeGreaterThanOrEqual(1000);
		expect(calls[1].body).toEqual(calls[0].body);
		expect(items.map((item) => item.json.rank)).toEqual(shuffledRanks(150));
	});

	test('credits used up: a clear error; the key never shows', async () => {
		const { error } = await bulk(name(1), {}, { credentials: { apiKey: KEYS.exhausted, baseUrl: sim.url } });
		expect(error?.httpCode).toBe('402');
		expect(error?.message).toBe('The request credits of this Domain Data account are used up');
		expect(JSON.stringify(error)).not.toContain(KEYS.exhausted);
	});
});

describe('a service that fails the third of five calls (local server)', () => {
	const failingService = useFailingBulkService();

	const run = (continueOnFail: boolean) =>
		bulk(
			SITE_NAMES.join(' '),
			{ maxAttempts: 3 },
			{ continueOnFail, credentials: { apiKey: 'local-key-123', baseUrl: failingService().url } },
		);

	test('no call starts while one is retried; when it fails, the node stops without further calls', async () => {
		failingService().expectStoppedAtThirdCall((await run(false)).error);
	});

	test('continueOnFail: every answer paid for is kept; only the names of the failed call carry the error', async () => {
		const { items, error } = await run(true);
		expect(error).toBeUndefined();
		// held while c3 was retried, c5 went out once c3 had failed for good
		expect(failingService().startedAfterFirstFailure()).toEqual(['request c5']);
		expect(failingService().callsMade()).toEqual(['c1', 'c2', 'c3', 'c3', 'c3', 'c4', 'c5']);
		const message = THIRD_CALL_ERROR;
		expect(items.map((item) => item.json)).toEqual(
			SITE_NAMES.map((site, index) =>
				index >= 200 && index < 300 ? { name: site, error: message } : siteDomain(site),
			),
		);
	});

	test('continueOnFail after a failure every call would meet (402): no further call; the rest carry it', async () => {
		failingService().failure.status = 402;
		failingService().failure.body = { error: 'no credits left' };
		const { items, error } = await run(true);
		expect(error).toBeUndefined();
		expect(failingService().callsMade()).toEqual(['c1', 'c2', 'c3', 'c4']);
		const message = 'The request credits of this Domain Data account are used up';
		expect(items.map((item) => item.json)).toEqual(
			SITE_NAMES.map((site, index) =>
				(index >= 200 && index < 300) || index >= 400 ? { name: site, error: message } : siteDomain(site),
			),
		);
	});
});

describe('answers that spell a name otherwise (local server)', () => {
	let service: LocalService;
	/** How the service spells each name it was asked for (a name missing here is not in its index). */
	const spelling: Record<string, string> = {
		'xn--mnchen-3ya.de': 'münchen.de',
		'example.com': 'www.example.com',
		'shop.example.org': 'SHOP.Example.ORG.',
		'both.com': 'both.com',
	};
	beforeAll(async () => {
		service = await startLocalService((request) => {
			const asked = (request.body as { domains: string[] }).domains;
			const domains = asked.filter((name) => name in spelling).map((name) => ({ name: spelling[name], asked: name }));
			return { body: { domains } };
		});
	});
	afterAll(async () => {
		await service.close();
	});

	test('Unicode for punycode, a www. prefix, upper case and a trailing dot are matched by the normalised name', async () => {
		const { items, error } = await bulk(
			'münchen.de, example.com, shop.example.org, unknown.net',
			{ includeNotFound: true },
			{
				credentials: { apiKey: 'local-key-123', baseUrl: service.url },
			},
		);
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual([
			{ name: 'münchen.de', asked: 'xn--mnchen-3ya.de' },
			{ name: 'www.example.com', asked: 'example.com' },
			{ name: 'SHOP.Example.ORG.', asked: 'shop.example.org' },
			{ name: 'unknown.net', found: false },
		]);
	});

	test('with Remove "www." off, www.both.com and both.com stay apart: an answer for one is not the other', async () => {
		const { items } = await bulk(
			'www.both.com both.com',
			{ includeNotFound: true, removeWww: false },
			{
				credentials: { apiKey: 'local-key-123', baseUrl: service.url },
			},
		);
		expect(items.map((item) => item.json)).toEqual([
			{ name: 'www.both.com', found: false },
			{ name: 'both.com', asked: 'both.com' },
		]);
	});
});
