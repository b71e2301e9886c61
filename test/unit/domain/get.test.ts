/**
 * Domain → Get over real HTTP against the simulator, through n8n-core's execution context.
 */
import { domainToUnicode } from 'node:url';

import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { DomainData } from '../../../nodes/DomainData/DomainData.node';
import { createExecuteContext, runNode } from '../../harness/n8n';
import { useSimulator } from '../../harness/simulator';
import { KEYS } from '../../simulator';

const API = '/json/api/v1';
const sim = useSimulator({ domains: 1000 });
let credentials: { apiKey: string; baseUrl: string };

beforeAll(() => {
	credentials = { apiKey: KEYS.pro, baseUrl: sim.url };
});

const get = (
	domain: unknown,
	options: Record<string, unknown> = {},
	extra: { input?: INodeExecutionData[]; continueOnFail?: boolean } = {},
) =>
	runNode({
		parameters: { resource: 'domain', operation: 'get', domain: domain as string, options } as INodeParameters,
		credentials,
		...extra,
	});

/** The first ranked domain whose name is an IDN (punycode), searched in a bounded range. */
function firstIdn(): string {
	for (let rank = 1; rank <= 1000; rank++) {
		const { name } = sim.index.domainAt(rank);
		if (name.startsWith('xn--') && !name.includes('.xn--')) return name;
	}
	throw new Error('no IDN in the first 1000 ranks');
}

describe('Domain → Get', () => {
	test('the node is usable as an AI tool', () => {
		expect(new DomainData().description.usableAsTool).toBe(true);
	});

	test('outputs the domain object itself (no wrapper), paired with its input', async () => {
		const expected = sim.index.domainAt(7);
		const { items, error } = await get(expected.name);
		expect(error).toBeUndefined();
		expect(items).toEqual([{ json: expected, pairedItem: { item: 0 } }]);
		expect(sim.calls().map((entry) => entry.path)).toEqual([`${API}/domain/${expected.name}`]);
	});

	test('accepts a URL, an email address, upper case, a trailing dot, spaces, www. and an IDN in Unicode', async () => {
		const plain = sim.index.domainAt(3).name;
		const idn = firstIdn();
		const unicode = domainToUnicode(idn);
		expect(unicode).not.toBe(idn);
		const inputs: Array<[string, string]> = [
			[`https://user:pw@WWW.${plain.toUpperCase()}:8443/path/x?y=1#z`, plain],
			[`sales@${plain}`, plain],
			[`  ${plain.toUpperCase()}.  `, plain],
			[`ftp://${plain}/`, plain],
			[unicode, idn],
			[`https://${unicode}/seite`, idn],
		];
		for (const [input, name] of inputs) {
			sim.clearLog();
			const { items, error } = await get(input);
			expect(error).toBeUndefined();
			expect(items[0].json).toEqual(sim.index.findByName(name));
			expect(sim.calls().map((entry) => entry.path)).toEqual([`${API}/domain/${name}`]);
		}
	});

	test('"www." is kept when Remove "www." is off', async () => {
		const plain = sim.index.domainAt(3).name;
		const { error } = await get(`www.${plain}`, { removeWww: false });
		expect(error?.message).toBe(`The domain "www.${plain}" is not in the index`);
		expect(sim.calls()[0].path).toBe(`${API}/domain/www.${plain}`);
	});

	test('a URL with a path never reaches another endpoint', async () => {
		const plain = sim.index.domainAt(2).name;
		await get(`${plain}/../historical/domain`);
		await get(`${plain}?x=/historical/domain#/historical`);
		expect(sim.calls().map((entry) => [entry.endpoint, entry.path])).toEqual([
			['get', `${API}/domain/${plain}`],
			['get', `${API}/domain/${plain}`],
		]);
	});

	test.each([
		['', 'The domain "" is not valid: it is empty'],
		['   ', 'The domain "   " is not valid: it is empty'],
		['localhost', 'The domain "localhost" is not valid: a domain name has at least two parts, like example.com'],
		['../historical/domain', 'The domain "../historical/domain" is not valid: it is not a valid domain name'],
		['a/b', 'The domain "a/b" is not valid: a domain name has at least two parts, like example.com'],
		['10.0.0.1', 'The domain "10.0.0.1" is not valid: it is an IP address, not a domain name'],
	])('invalid input %j: a clear NodeOperationError naming the value, no call', async (input, message) => {
		const { error } = await get(input);
		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message).toBe(message);
		expect(error?.description).toContain('example.com');
		expect(sim.calls()).toHaveLength(0);
	});

	test('not in the index: a NodeApiError that says so (and names that read like system codes stay intact)', async () => {
		const { error } = await get('https://www.deeperm.com/x');
		expect(error?.name).toBe('NodeApiError');
		expect(error?.httpCode).toBe('404');
		expect(error?.message).toBe('The domain "deeperm.com" (from "https://www.deeperm.com/x") is not in the index');
		expect(error?.description).toContain('On Not Found');
		expect(sim.calls()).toHaveLength(1);
	});

	test('On Not Found = Return Not-Found Item: { name, found: false }', async () => {
		const { items, error } = await get('Not-Indexed.example.com', { onNotFound: 'returnNotFound' });
		expect(error).toBeUndefined();
		expect(items).toEqual([{ json: { name: 'not-indexed.example.com', found: false }, pairedItem: { item: 0 } }]);
	});

	test('one call per item, computed by expression; a name asked twice is asked once; outputs are copies', async () => {
		const a = sim.index.domainAt(1).name;
		const b = sim.index.domainAt(2).name;
		const input = [{ json: { site: `https://${a}` } }, { json: { site: b } }, { json: { site: a.toUpperCase() } }];
		const { items, error } = await get('={{ $json.site }}', {}, { input });
		expect(error).toBeUndefined();
		expect(items.map((item) => [item.json.name, item.pairedItem])).toEqual([
			[a, { item: 0 }],
			[b, { item: 1 }],
			[a, { item: 2 }],
		]);
		expect(items[0].json).not.toBe(items[2].json);
		expect(sim.calls().map((entry) => entry.path)).toEqual([`${API}/domain/${a}`, `${API}/domain/${b}`]);
	});

	test('continueOnFail: failing items become { error } paired with their input, the others go on', async () => {
		const a = sim.index.domainAt(1).name;
		const input = [
			{ json: { site: a } },
			{ json: { site: '' } },
			{ json: { site: 'nothere.com' } },
			{ json: { site: a } },
		];
		const { items, error } = await get('={{ $json.site }}', {}, { input, continueOnFail: true });
		expect(error).toBeUndefined();
		expect(items).toEqual([
			{ json: sim.index.findByName(a), pairedItem: { item: 0 } },
			{ json: { error: 'The domain "" is not valid: it is empty' }, pairedItem: { item: 1 } },
			{ json: { error: 'The domain "nothere.com" is not in the index' }, pairedItem: { item: 2 } },
			{ json: sim.index.findByName(a), pairedItem: { item: 3 } },
		]);
	});

	test('service errors reach the user clearly (401) and the retries option applies (503)', async () => {
		const denied = await runNode({
			parameters: { resource: 'domain', operation: 'get', domain: 'example.com' },
			credentials: { apiKey: 'sk-not-valid-000000', baseUrl: sim.url },
		});
		expect(denied.error?.message).toBe('The Domain Data service rejected the API key');
		expect(JSON.stringify(denied.error)).not.toContain('sk-not-valid-000000');

		sim.clearLog();
		sim.setFaults({ requests: [{ status: 503, count: 5 }] });
		const failing = await get(sim.index.domainAt(1).name, { maxAttempts: 2 });
		expect(failing.error?.message).toBe('The Domain Data service failed with 503 Service Unavailable after 2 tries');
		expect(sim.calls()).toHaveLength(2);
	});
});

describe('Domain → Get with many input items', () => {
	test('Concurrency: every distinct name once, output in input order, and a hint at Bulk Get / Enrich Items', async () => {
		const names = Array.from({ length: 120 }, (_, i) => sim.index.domainAt((i % 110) + 1).name);
		const { context } = await createExecuteContext({
			parameters: { resource: 'domain', operation: 'get', domain: '={{ $json.site }}', options: { concurrency: 4 } },
			credentials,
			input: names.map((site) => ({ json: { site } })),
		});
		const [items] = await new DomainData().execute.call(context);
		expect(items.map((item) => item.json.name)).toEqual(names);
		expect(items.map((item) => item.pairedItem)).toEqual(names.map((_, item) => ({ item })));
		expect(sim.calls('get')).toHaveLength(110);
		const hints = (context as unknown as { hints: Array<{ message: string }> }).hints.map((hint) => hint.message);
		expect(hints).toEqual([
			'120 items asked for one domain each (110 lookups): Bulk Get, or Enrich Items for names in a field of the ' +
				'items, asks for 100 names a call.',
		]);
	});

	test('Concurrency with a failing name: that item fails once (no second call), Continue On Fail goes on', async () => {
		sim.setKey('sim-two-credits', 'pro', 2);
		const names = [sim.index.domainAt(1).name, sim.index.domainAt(2).name, sim.index.domainAt(3).name];
		const { items } = await runNode({
			parameters: { resource: 'domain', operation: 'get', domain: '={{ $json.site }}', options: {} },
			credentials: { apiKey: 'sim-two-credits', baseUrl: sim.url },
			input: names.map((site) => ({ json: { site } })),
			continueOnFail: true,
		});
		expect(items.filter((item) => item.json.error)).toHaveLength(1);
		expect(sim.calls('get')).toHaveLength(3);
	});

	test('a name not in the index stops the node: the lookups ahead stop there, not one call per item', async () => {
		const names = ['not-indexed-zz.com', ...Array.from({ length: 50 }, (_, i) => sim.index.domainAt(i + 1).name)];
		const { items, error } = await runNode({
			parameters: { resource: 'domain', operation: 'get', domain: '={{ $json.site }}', options: {} },
			credentials,
			input: names.map((site) => ({ json: { site } })),
		});
		expect(items).toHaveLength(0);
		expect(error?.message).toBe('The domain "not-indexed-zz.com" is not in the index');
		// Concurrency 2: the name not found, and at most the one lookup under way beside it.
		expect(sim.calls('get').length).toBeLessThanOrEqual(2);
	});

	test('an error every call would meet (credits used up): no call after it, every item left gets it', async () => {
		const names = Array.from({ length: 60 }, (_, i) => sim.index.domainAt(i + 1).name);
		const { items } = await runNode({
			parameters: { resource: 'domain', operation: 'get', domain: '={{ $json.site }}', options: {} },
			credentials: { apiKey: KEYS.exhausted, baseUrl: sim.url },
			input: names.map((site) => ({ json: { site } })),
			continueOnFail: true,
		});
		expect(items).toHaveLength(60);
		expect(items.map((item) => item.pairedItem)).toEqual(names.map((_, item) => ({ item })));
		expect(new Set(items.map((item) => item.json.error))).toEqual(
			new Set([expect.stringMatching(/request credits of this Domain Data account are used up/)]),
		);
		// The calls under way when the first answer came (Concurrency 2), none after.
		expect(sim.calls('get').length).toBeLessThanOrEqual(2);
	});
});
