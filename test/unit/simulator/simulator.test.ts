/**
 * The simulator against the interface document, endpoint by endpoint, over real HTTP.
 * Fault controls: faults.test.ts. Data generation details: data.test.ts.
 */
import { domainToASCII, domainToUnicode } from 'node:url';
import { useSimulator } from '../../harness/simulator';
import { DEFAULT_RECORD_FIELDS, KEYS, PLANS, RECORD_FIELDS, startSimulator, type DomainObject } from '../../simulator';

const API = '/json/api/v1';
const sim = useSimulator({ port: 0, domains: 1000 });

interface Answer {
	status: number;
	headers: Headers;
	text: string;
	json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function call(
	method: string,
	path: string,
	options: { key?: string | null; body?: unknown; rawBody?: string; contentType?: string } = {},
): Promise<Answer> {
	const headers: Record<string, string> = {};
	const key = options.key === undefined ? KEYS.pro : options.key;
	if (key !== null) headers.authorization = `Bearer ${key}`;
	let body: string | undefined;
	if (options.rawBody !== undefined || options.body !== undefined) {
		body = options.rawBody ?? JSON.stringify(options.body);
		headers['content-type'] = options.contentType ?? 'application/json';
	}
	const response = await fetch(`${sim.url}${path.startsWith('/__sim') ? '' : API}${path}`, { method, headers, body });
	const text = await response.text();
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch {
		json = undefined;
	}
	return { status: response.status, headers: response.headers, text, json };
}

const get = (path: string, key?: string | null) => call('GET', path, { key });
const post = (path: string, body: unknown, key?: string | null) => call('POST', path, { key, body });

function expectError(answer: Answer, status: number, messagePart?: string | RegExp): void {
	expect(answer.status).toBe(status);
	expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
	expect(Object.keys(answer.json)).toEqual(['error']);
	expect(typeof answer.json.error).toBe('string');
	expect(answer.json.error.length).toBeGreaterThan(5);
	if (messagePart !== undefined) expect(answer.json.error).toMatch(messagePart);
}

function lines(text: string): string[] {
	const all = text.split('\n');
	if (all[all.length - 1] === '') all.pop();
	return all;
}

describe('server', () => {
	test('listens on 127.0.0.1 with a random port and a base URL without the API prefix', () => {
		expect(sim.url).toBe(`http://127.0.0.1:${sim.port}`);
		expect(sim.port).toBeGreaterThan(0);
	});

	test('unknown paths answer 404 and wrong methods 405, with JSON errors', async () => {
		expectError(await get('/nothing'), 404);
		expectError(await get('/domain/search'), 405);
		expectError(await call('DELETE', '/domain/bulk'), 405);
		expectError(await post('/domain/example.com', {}), 405);
		const outside = await fetch(`${sim.url}/other`);
		expect(outside.status).toBe(404);
	});

	test('close() ends open keep-alive connections and running streams at once', async () => {
		const other = await startSimulator({ domains: 200_000 });
		const stream = await fetch(`${other.url}${API}/historical/domain/latest`, {
			headers: { authorization: `Bearer ${KEYS.pro}` },
		});
		const reader = stream.body!.getReader();
		await reader.read();
		await other.close();
		await expect(
			(async () => {
				for (;;) if ((await reader.read()).done) return 'ended';
			})(),
		).rejects.toThrow();
	});
});

describe('authentication, plans and credits', () => {
	test('a missing, malformed or unknown key answers 401 on every endpoint', async () => {
		for (const key of [null, 'not-a-key']) {
			expectError(await get('/domain/x.com', key), 401);
			expectError(await post('/domain/search', {}, key), 401);
			expectError(await post('/domain/bulk', { domains: [] }, key), 401);
			expectError(await get('/historical/domain', key), 401);
			expectError(await get('/historical/domain/latest', key), 401);
		}
		const malformed = await fetch(`${sim.url}${API}/historical/domain`, { headers: { authorization: KEYS.pro } });
		expect(malformed.status).toBe(401);
		const basic = await fetch(`${sim.url}${API}/historical/domain`, {
			headers: { authorization: `Basic ${KEYS.pro}` },
		});
		expect(basic.status).toBe(401);
	});

	test('the basic plan has no historical feature: 403 on both historical endpoints, but lookups work', async () => {
		expectError(await get('/historical/domain', KEYS.basic), 403, /historical/);
		expectError(await get('/historical/domain/latest', KEYS.basic), 403, /historical/);
		expect((await get(`/domain/${sim.index.domainAt(1).name}`, KEYS.basic)).status).toBe(200);
	});

	test('the exhausted key answers 402 everywhere', async () => {
		expectError(await get(`/domain/${sim.index.domainAt(1).name}`, KEYS.exhausted), 402, /credit/);
		expectError(await post('/domain/search', {}, KEYS.exhausted), 402);
		expectError(await get('/historical/domain', KEYS.exhausted), 402);
	});

	test('every authenticated request spends one credit; at 0 the key answers 402', async () => {
		sim.setKey('three-credits', 'basic', 3);
		const name = sim.index.domainAt(1).name;
		expect((await get(`/domain/${name}`, 'three-credits')).status).toBe(200);
		expect((await get('/domain/not-indexed.example', 'three-credits')).status).toBe(404);
		expect(sim.credits('three-credits')).toBe(1);
		expect((await post('/domain/search', {}, 'three-credits')).status).toBe(200);
		expect(sim.credits('three-credits')).toBe(0);
		expectError(await get(`/domain/${name}`, 'three-credits'), 402);
		expect(sim.credits(KEYS.pro)).toBeNull();
		expect(sim.credits('unknown')).toBeUndefined();
	});

	test('plan limits are the documented numbers', () => {
		expect(PLANS.basic).toEqual({ maxPageSize: 50, historical: false });
		expect(PLANS.pro).toEqual({ maxPageSize: 1000, historical: true });
		expect(KEYS).toEqual({ pro: 'sim-pro-key', basic: 'sim-basic-key', exhausted: 'sim-exhausted-key' });
	});
});

describe('GET /domain/<name>', () => {
	test('answers {"domain": <domain object>} with the fields of section 2.1 in order', async () => {
		for (const rank of [1, 2, 500, 1000]) {
			const expected = sim.index.domainAt(rank);
			const answer = await get(`/domain/${expected.name}`);
			expect(answer.status).toBe(200);
			expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
			expect(Object.keys(answer.json)).toEqual(['domain']);
			expect(answer.json.domain).toEqual(expected);
			expect(Object.keys(answer.json.domain)).toEqual(
				['name', 'title', 'meta_description', 'language', 'categories', 'technologies', 'tld1', 'id', 'rank'].filter(
					(k) => k in expected,
				),
			);
		}
	});

	test('a name not in the index answers 404 with an error body', async () => {
		expectError(await get('/domain/not-indexed.example'), 404, /not-indexed\.example/);
		expectError(await get('/domain/brightmarket999999.com'), 404);
	});

	test('names are matched case-insensitively; the answer carries the indexed lower-case name', async () => {
		const expected = sim.index.domainAt(3);
		const answer = await get(`/domain/${expected.name.toUpperCase()}`);
		expect(answer.status).toBe(200);
		expect(answer.json.domain.name).toBe(expected.name);
	});

	test('some domain objects lack technologies and meta_description; none lacks tld1', () => {
		const all = Array.from({ length: 1000 }, (_, i) => sim.index.domainAt(i + 1));
		const withoutTechnologies = all.filter((d) => !('technologies' in d));
		expect(withoutTechnologies.length).toBeGreaterThan(100);
		expect(all.some((d) => d.technologies?.length === 0)).toBe(false);
		expect(all.filter((d) => !('meta_description' in d)).length).toBeGreaterThan(50);
		expect(all.every((d) => typeof d.tld1 === 'string' && d.tld1.length > 0)).toBe(true);
	});
});

describe('POST /domain/search', () => {
	test('defaults: 10 results of rank 1..10, total = index size, search_after = [rank, id] of the last', async () => {
		const answer = await post('/domain/search', {});
		expect(answer.status).toBe(200);
		expect(Object.keys(answer.json)).toEqual(['results', 'search_after', 'total']);
		expect(answer.json.total).toBe(1000);
		expect(answer.json.results.map((d: DomainObject) => d.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
		expect(answer.json.results[0]).toEqual(sim.index.domainAt(1));
		const last = answer.json.results[9];
		expect(answer.json.search_after).toEqual([last.rank, last.id]);
		expect(last.id).not.toBe(last.rank);
		const empty = await call('POST', '/domain/search', {});
		expect(empty.status).toBe(200);
		expect(empty.json.results).toHaveLength(10);
	});

	test('paging with the cursor returns every rank exactly once, in order, and no cursor on the last page', async () => {
		for (const pageSize of [100, 7]) {
			const ranks: number[] = [];
			let searchAfter: unknown;
			let pages = 0;
			for (;;) {
				const answer = await post('/domain/search', searchAfter ? { pageSize, searchAfter } : { pageSize });
				expect(answer.status).toBe(200);
				expect(answer.json.total).toBe(1000);
				pages++;
				ranks.push(...answer.json.results.map((d: DomainObject) => d.rank));
				if (!('search_after' in answer.json)) break;
				searchAfter = answer.json.search_after;
			}
			expect(pages).toBe(Math.ceil(1000 / pageSize));
			expect(ranks).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
		}
	});

	test('pageSize limits depend on the plan and are named in the 400 message', async () => {
		expect((await post('/domain/search', { pageSize: 50 }, KEYS.basic)).json.results).toHaveLength(50);
		expectError(await post('/domain/search', { pageSize: 51 }, KEYS.basic), 400, /50/);
		expect((await post('/domain/search', { pageSize: 1000 })).json.results).toHaveLength(1000);
		expectError(await post('/domain/search', { pageSize: 1001 }), 400, /1000/);
		for (const pageSize of [0, -1, 2.5, '10', null])
			expectError(await post('/domain/search', { pageSize }), 400, /pageSize/);
	});

	test('a cursor that is not a real [rank, id] pair, or not two integers, is a 400', async () => {
		const second = sim.index.domainAt(2);
		expect((await post('/domain/search', { searchAfter: [2, second.id] })).json.results[0].rank).toBe(3);
		for (const searchAfter of [
			[2, second.id + 1],
			[2, 2],
			[1001, second.id],
			[0, 1],
			[2],
			[2, second.id, 3],
			['2', second.id],
			'x',
			null,
			{},
		]) {
			expectError(await post('/domain/search', { searchAfter }), 400, /searchAfter/);
		}
	});

	test('unknown body keys, a non-object body, invalid JSON and a missing content type are 400', async () => {
		expectError(await post('/domain/search', { page_size: 10 }), 400, /page_size/);
		expectError(await post('/domain/search', { country: 'DE' }), 400, /country/);
		expectError(await post('/domain/search', [1, 2]), 400);
		expectError(await call('POST', '/domain/search', { rawBody: '{"pageSize": 1' }), 400, /JSON/);
		expectError(
			await call('POST', '/domain/search', { rawBody: '{}', contentType: 'text/plain' }),
			400,
			/Content-Type/,
		);
	});

	test('filters: language, technology, category prefix, tld1 and maxRank, with exact totals and paging', async () => {
		const all = Array.from({ length: 1000 }, (_, i) => sim.index.domainAt(i + 1));
		const cases: Array<[Record<string, unknown>, (d: DomainObject) => boolean]> = [
			[{ language: 'de' }, (d) => d.language === 'de'],
			[{ language: 'EN' }, (d) => d.language === 'en'],
			[{ technology: 'shopify' }, (d) => (d.technologies ?? []).includes('Shopify')],
			[{ category: '/Shopping' }, (d) => d.categories.some((c) => c.startsWith('/Shopping'))],
			[{ tld1: all[41].tld1 }, (d) => d.tld1 === all[41].tld1],
			[{ maxRank: 25 }, (d) => d.rank <= 25],
			[
				{ language: 'en', technology: 'WordPress', maxRank: 600 },
				(d) => d.language === 'en' && (d.technologies ?? []).includes('WordPress') && d.rank <= 600,
			],
		];
		for (const [filters, predicate] of cases) {
			const expected = all.filter(predicate).map((d) => d.rank);
			expect(expected.length).toBeGreaterThan(0);
			const ranks: number[] = [];
			let searchAfter: unknown;
			for (;;) {
				const answer = await post('/domain/search', {
					...filters,
					pageSize: 20,
					...(searchAfter ? { searchAfter } : {}),
				});
				expect(answer.status).toBe(200);
				expect(answer.json.total).toBe(expected.length);
				ranks.push(...answer.json.results.map((d: DomainObject) => d.rank));
				if (!answer.json.search_after) break;
				searchAfter = answer.json.search_after;
			}
			expect(ranks).toEqual(expected);
		}
		const none = await post('/domain/search', { language: 'xx' });
		expect(none.json).toEqual({ results: [], total: 0 });
		for (const bad of [
			{ language: 5 },
			{ technology: '' },
			{ category: 'Shopping' },
			{ maxRank: 0 },
			{ tld1: ['a'] },
		]) {
			expectError(await post('/domain/search', bad), 400);
		}
	});
});

describe('POST /domain/bulk', () => {
	test('returns the indexed domains, leaves unknown names out, never in request order, deterministically', async () => {
		const names = [5, 1, 300, 42, 999].map((rank) => sim.index.domainAt(rank).name);
		const request = [names[0], 'unknown-one.example', names[1], names[2], names[3], 'nope.invalid', names[4]];
		const answer = await post('/domain/bulk', { domains: request });
		expect(answer.status).toBe(200);
		expect(Object.keys(answer.json)).toEqual(['domains']);
		const returned = answer.json.domains.map((d: DomainObject) => d.name);
		expect([...returned].sort()).toEqual([...names].sort());
		expect(returned).not.toEqual(names);
		for (const domain of answer.json.domains) expect(domain).toEqual(sim.index.findByName(domain.name));
		const again = await post('/domain/bulk', { domains: request });
		expect(again.json.domains.map((d: DomainObject) => d.name)).toEqual(returned);
		const two = [sim.index.domainAt(1).name, sim.index.domainAt(2).name];
		for (const order of [two, [...two].reverse()]) {
			expect(
				(await post('/domain/bulk', { domains: order })).json.domains.map((d: DomainObject) => d.name),
			).not.toEqual(order);
		}
	});

	test('accepts 100 names, rejects 101 with a 400 naming the limit', async () => {
		const hundred = Array.from({ length: 100 }, (_, i) => sim.index.domainAt(i + 1).name);
		const answer = await post('/domain/bulk', { domains: hundred });
		expect(answer.status).toBe(200);
		expect(answer.json.domains).toHaveLength(100);
		expectError(await post('/domain/bulk', { domains: [...hundred, sim.index.domainAt(101).name] }), 400, /100/);
	});

	test('a body that is not {"domains": string[]} is a 400; duplicates and case are folded', async () => {
		for (const body of [
			{},
			{ domains: 'a.com' },
			{ domains: [1, 2] },
			{ domains: ['a.com', null] },
			{ domains: [], extra: 1 },
			['a.com'],
		]) {
			expectError(await post('/domain/bulk', body), 400);
		}
		const name = sim.index.domainAt(7).name;
		const answer = await post('/domain/bulk', { domains: [name, name.toUpperCase(), name] });
		expect(answer.json.domains).toEqual([sim.index.domainAt(7)]);
		expect((await post('/domain/bulk', { domains: [] })).json).toEqual({ domains: [] });
	});
});

describe('GET /historical/domain', () => {
	test('lists 4 weekly datasets newest first, with date labels and opaque ids', async () => {
		const answer = await get('/historical/domain');
		expect(answer.status).toBe(200);
		expect(answer.json).toEqual({ datasets: sim.datasets() });
		const labels = answer.json.datasets.map((d: { label: string }) => d.label);
		expect(labels).toEqual(['2025-06-30', '2025-06-23', '2025-06-16', '2025-06-09']);
		for (const dataset of answer.json.datasets) {
			expect(Object.keys(dataset)).toEqual(['label', 'value']);
			expect(dataset.value).toMatch(/^snap_[0-9a-f]{16}$/);
		}
		expect(new Set(answer.json.datasets.map((d: { value: string }) => d.value)).size).toBe(4);
	});

	test('snapshots can be added and removed while running, in process and over /__sim/snapshots', async () => {
		expect(sim.addSnapshot()).toEqual({ label: '2025-07-07', value: expect.stringMatching(/^snap_/) });
		const added = await call('POST', '/__sim/snapshots', { body: { label: '2025-07-10' } });
		expect(added.status).toBe(201);
		expect(added.json.label).toBe('2025-07-10');
		let labels = (await get('/historical/domain')).json.datasets.map((d: { label: string }) => d.label);
		expect(labels.slice(0, 3)).toEqual(['2025-07-10', '2025-07-07', '2025-06-30']);
		const latest = await get('/historical/domain/latest?limit=1&fields=rank');
		expect(latest.text).toBe('{"rank":1}\n');
		expect((await call('POST', '/__sim/snapshots', { body: { label: 'July' } })).status).toBe(400);
		expect((await call('POST', '/__sim/snapshots', { body: { label: '2025-07-10' } })).status).toBe(400);
		expect((await call('DELETE', '/__sim/snapshots/2025-07-10')).status).toBe(200);
		sim.removeSnapshot('2025-07-07');
		labels = (await get('/historical/domain')).json.datasets.map((d: { label: string }) => d.label);
		expect(labels[0]).toBe('2025-06-30');
	});

	test('a snapshot can be published with chosen changes (fields replaced, domains dropped), in process and over /__sim/snapshots', async () => {
		const before = lines((await get('/historical/domain/latest?fields=name,technologies,country_code')).text).map(
			(line) => JSON.parse(line),
		);
		// Names that the next snapshot holds too (same label, same data: add it plain, look, remove it).
		sim.addSnapshot('2025-07-07');
		const next = new Set(
			lines((await get('/historical/domain/2025-07-07?fields=name')).text).map((line) => JSON.parse(line).name),
		);
		sim.removeSnapshot('2025-07-07');
		const [edited, dropped] = before.filter((record) => next.has(record.name));
		sim.addSnapshot('2025-07-07', {
			records: { [edited.name]: { technologies: ['Shopify'], country_code: 'DE' } },
			drop: [dropped.name],
		});
		const after = lines((await get('/historical/domain/2025-07-07?fields=name,technologies,country_code')).text).map(
			(line) => JSON.parse(line),
		);
		expect(after).toHaveLength(1000);
		expect(after.find((record) => record.name === edited.name)).toEqual({
			name: edited.name,
			technologies: ['Shopify'],
			country_code: 'DE',
		});
		expect(after.some((record) => record.name === dropped.name)).toBe(false);
		const position = after.findIndex((record) => record.name === edited.name);
		expect(sim.index.recordAt(position, '2025-07-07')).toMatchObject({
			name: edited.name,
			technologies: ['Shopify'],
			country_code: 'DE',
		});
		expect(sim.index.lineAt(position, '2025-07-07', 'name,country_code')).toBe(
			`{"name":"${edited.name}","country_code":"DE"}`,
		);

		const overHttp = await call('POST', '/__sim/snapshots', {
			body: { label: '2025-07-14', edits: { drop: ['no-such-domain.example'] } },
		});
		expect(overHttp.status).toBe(400);
		expect(overHttp.json.error).toBe('snapshot 2025-07-14 has no domain "no-such-domain.example"');
		expect(sim.datasets()[0].label).toBe('2025-07-07'); // a refused snapshot is not added
		const badField = await call('POST', '/__sim/snapshots', {
			body: { label: '2025-07-14', edits: { records: { [edited.name]: { rank: 1 } } } },
		});
		expect(badField.status).toBe(400);
		expect(
			(
				await call('POST', '/__sim/snapshots', {
					body: { label: '2025-07-14', edits: { records: { [edited.name]: { title: 'Hello' } } } },
				})
			).status,
		).toBe(201);
	});
});

describe('GET /historical/domain/<label>', () => {
	test('streams the whole snapshot as NDJSON with the default fields, line by line equal to the records', async () => {
		const response = await fetch(`${sim.url}${API}/historical/domain/latest`, {
			headers: { authorization: `Bearer ${KEYS.pro}` },
		});
		expect(response.status).toBe(200);
		expect(response.headers.get('content-type')).toBe('application/x-ndjson');
		const text = await response.text();
		expect(text.endsWith('\n')).toBe(true);
		expect(text).not.toContain('\r');
		const all = lines(text);
		expect(all).toHaveLength(1000);
		all.forEach((line, position) => {
			expect(line).toBe(sim.index.lineAt(position));
			const record = JSON.parse(line);
			expect(Object.keys(record)).toEqual([...DEFAULT_RECORD_FIELDS]);
			const full = sim.index.recordAt(position);
			expect(record).toEqual(Object.fromEntries(DEFAULT_RECORD_FIELDS.map((f) => [f, full[f]])));
			expect(record.rank).toBe(position + 1);
			expect(Array.isArray(record.technologies)).toBe(true);
		});
		expect(all.filter((line) => line.includes('"technologies":[]')).length).toBeGreaterThan(100);
		expect(all.filter((line) => line.includes('"meta_description":null')).length).toBeGreaterThan(50);
	});

	test('every field: canonical order, documented contact types, all 17 keys on every line', async () => {
		const answer = await get(`/historical/domain/latest?limit=300&fields=${[...RECORD_FIELDS].reverse().join(',')}`);
		expect(answer.status).toBe(200);
		const records = lines(answer.text).map((line) => JSON.parse(line));
		expect(records).toHaveLength(300);
		const types = new Set<string>();
		records.forEach((record, position) => {
			expect(Object.keys(record)).toEqual([...RECORD_FIELDS]);
			expect(record).toEqual(sim.index.recordAt(position));
			for (const contact of record.contact_information) {
				expect(Object.keys(contact)).toEqual(['type', 'value', 'full_value']);
				types.add(contact.type);
			}
			expect(typeof record.status).toBe('number');
			expect(Object.keys(record.dns)).toEqual(['a', 'mx', 'ns']);
		});
		const documented = [
			'email',
			'phone',
			'facebook',
			'instagram',
			'twitter',
			'linkedin',
			'tiktok',
			'youtube',
			'pinterest',
			'snapchat',
			'yelp',
			'whatsapp',
			'discord',
		];
		for (const type of types) expect(documented).toContain(type);
		expect(types.size).toBeGreaterThan(8);
		const sizes = lines(answer.text).map((line) => Buffer.byteLength(line));
		expect(Math.max(...sizes)).toBeGreaterThan(700);
	});

	test('the aliases domain, tld, country and language select their canonical fields, in canonical order', async () => {
		const answer = await get('/historical/domain/latest?limit=3&fields=language,%20tld,country,domain,domain');
		const records = lines(answer.text).map((line) => JSON.parse(line));
		expect(records).toHaveLength(3);
		for (const record of records)
			expect(Object.keys(record)).toEqual(['name', 'country_code', 'language_code', 'tld1']);
		expect(records[0]).toEqual({
			name: sim.index.recordAt(0).name,
			country_code: sim.index.recordAt(0).country_code,
			language_code: sim.index.recordAt(0).language_code,
			tld1: sim.index.recordAt(0).tld1,
		});
		const repeated = await fetch(`${sim.url}${API}/historical/domain/latest?limit=1&fields=rank&fields=name`, {
			headers: { authorization: `Bearer ${KEYS.pro}` },
		});
		expect(Object.keys(JSON.parse(await repeated.text()))).toEqual(['name', 'rank']);
	});

	test('an unknown field is a 400 naming it; an empty selection is a 400', async () => {
		expectError(await get('/historical/domain/latest?fields=name,country_name'), 400, /country_name/);
		expectError(await get('/historical/domain/latest?fields=Name'), 400, /Name/);
		expectError(await get('/historical/domain/latest?fields='), 400, /fields/);
	});

	test('limit gives exactly that many lines (at most the snapshot); a limit that is not a positive integer is a 400', async () => {
		for (const [limit, expected] of [
			[1, 1],
			[37, 37],
			[1000, 1000],
			[5000, 1000],
		]) {
			expect(lines((await get(`/historical/domain/latest?limit=${limit}&fields=rank`)).text)).toHaveLength(expected);
		}
		for (const limit of ['0', '-1', 'ten', '2.5', ''])
			expectError(await get(`/historical/domain/latest?limit=${limit}`), 400, /limit/);
	});

	test('an unknown label is a 404 with a JSON error; the date label and the snapshot id work like latest', async () => {
		expectError(await get('/historical/domain/2020-01-01'), 404, /2020-01-01/);
		expectError(await get('/historical/domain/yesterday'), 404);
		const [newest, older] = sim.datasets();
		const latest = (await get('/historical/domain/latest?limit=50')).text;
		expect((await get(`/historical/domain/${newest.label}?limit=50`)).text).toBe(latest);
		expect((await get(`/historical/domain/${newest.value}?limit=50`)).text).toBe(latest);
		expect((await get(`/historical/domain/${older.value}?limit=50`)).text).toBe(
			(await get(`/historical/domain/${older.label}?limit=50`)).text,
		);
	});

	test('snapshots differ from each other: ranks move and some domains come and go', async () => {
		const names = async (label: string) =>
			lines((await get(`/historical/domain/${label}?fields=name`)).text).map((l) => JSON.parse(l).name as string);
		const [a, b] = sim.datasets();
		const newest = await names(a.label);
		const previous = await names(b.label);
		expect(new Set(newest).size).toBe(1000);
		expect(newest).not.toEqual(previous);
		const inBoth = newest.filter((name) => previous.includes(name));
		expect(inBoth.length).toBeGreaterThan(900);
		expect(inBoth.length).toBeLessThan(1000);
		expect(inBoth.some((name) => newest.indexOf(name) !== previous.indexOf(name))).toBe(true);
		const gone = newest.filter((name) => !sim.index.findByName(name));
		expect(gone.length).toBeGreaterThan(0);
	});
});

describe('request log', () => {
	test('records time, method, path, query, endpoint, headers (with Authorization), body and status', async () => {
		sim.clearLog();
		const name = sim.index.domainAt(1).name;
		await get(`/domain/${name}`);
		await post('/domain/search', { pageSize: 2 }, KEYS.basic);
		await post('/domain/bulk', { domains: [name] });
		await get('/historical/domain');
		await get('/historical/domain/latest?limit=2&fields=name');
		await get('/domain/unknown.example', null);
		const log = sim.log;
		expect(log.map((e) => e.endpoint)).toEqual(['get', 'search', 'bulk', 'datasets', 'stream', 'get']);
		expect(log.map((e) => e.status)).toEqual([200, 200, 200, 200, 200, 401]);
		expect(log[0]).toMatchObject({ method: 'GET', path: `${API}/domain/${name}`, query: {}, key: KEYS.pro });
		expect(log[0].headers.authorization).toBe(`Bearer ${KEYS.pro}`);
		expect(log[1]).toMatchObject({ method: 'POST', body: { pageSize: 2 }, key: KEYS.basic });
		expect(log[1].headers['content-type']).toBe('application/json');
		expect(log[4]).toMatchObject({ query: { limit: '2', fields: 'name' }, lines: 2 });
		expect(log[5].headers.authorization).toBeUndefined();
		for (let i = 1; i < log.length; i++) expect(log[i].time).toBeGreaterThanOrEqual(log[i - 1].time);
		expect(Math.abs(log[0].time - Date.now())).toBeLessThan(60_000);
		expect(sim.calls('bulk')).toHaveLength(1);
		expect(sim.calls()).toHaveLength(6);
		const overHttp = await get('/__sim/log?endpoint=search');
		expect(overHttp.json.entries).toHaveLength(1);
		expect(overHttp.json.entries[0].body).toEqual({ pageSize: 2 });
		sim.clearLog();
		expect(sim.log).toHaveLength(0);
		expect(sim.calls()).toHaveLength(0);
	});
});

describe('control endpoints', () => {
	test('keys, stats and reset over HTTP', async () => {
		const set = await call('POST', '/__sim/keys', { body: { key: 'two', plan: 'pro', credits: 2 } });
		expect(set.status).toBe(200);
		expect(set.json.keys).toContainEqual({ key: 'two', plan: 'pro', credits: 2, spent: 0 });
		expect((await get('/historical/domain', 'two')).status).toBe(200);
		expect((await get('/__sim/keys')).json.keys).toContainEqual({ key: 'two', plan: 'pro', credits: 1, spent: 1 });
		expect((await call('POST', '/__sim/keys', { body: { key: 'x', plan: 'gold' } })).status).toBe(400);
		const stats = await get('/__sim/stats');
		expect(stats.json).toMatchObject({ pid: process.pid, index: { size: 1000 } });
		expect(stats.json.memory.rss).toBeGreaterThan(0);
		expect((await call('POST', '/__sim/reset')).json).toEqual({ ok: true });
		expect(sim.credits('two')).toBeUndefined();
		expect(sim.log).toHaveLength(0);
		expect((await get('/__sim/nothing')).status).toBe(404);
	});
});

describe('generated data', () => {
	const all = () => Array.from({ length: 1000 }, (_, i) => sim.index.domainAt(i + 1));

	test('ids are unique, large and never equal to the rank; names are unique and found by name', () => {
		const domains = all();
		expect(new Set(domains.map((d) => d.id)).size).toBe(1000);
		expect(new Set(domains.map((d) => d.name)).size).toBe(1000);
		for (const domain of domains) {
			expect(domain.id).not.toBe(domain.rank);
			expect(domain.id).toBeGreaterThan(1_000_000);
			expect(sim.index.findByName(domain.name)).toEqual(domain);
		}
		const ids = domains.map((d) => d.id);
		expect(ids).not.toEqual([...ids].sort((a, b) => a - b));
	});

	test('realistic names: subdomains with another tld1, multi-part suffixes, valid punycode IDNs', () => {
		const domains = all();
		const subdomains = domains.filter((d) => d.name !== d.tld1);
		expect(subdomains.length).toBeGreaterThan(20);
		for (const d of subdomains) expect(d.name.endsWith(`.${d.tld1}`)).toBe(true);
		expect(domains.some((d) => d.tld1.endsWith('.co.uk'))).toBe(true);
		expect(domains.some((d) => d.tld1.endsWith('.com.au'))).toBe(true);
		const idns = domains.filter((d) => d.name.includes('xn--'));
		expect(idns.length).toBeGreaterThan(10);
		for (const d of idns) {
			const unicode = domainToUnicode(d.name);
			expect(unicode).not.toBe(d.name);
			expect(/[^\x20-\x7e]/.test(unicode)).toBe(true);
			expect(domainToASCII(unicode)).toBe(d.name);
		}
		for (const d of domains) {
			expect(d.name).toMatch(/^[a-z0-9.-]+$/);
			expect(d.name).toBe(d.name.toLowerCase());
		}
	});

	test('codes, categories with their parents, technologies and non-ASCII texts', () => {
		const domains = all();
		const records = Array.from({ length: 1000 }, (_, i) => sim.index.recordAt(i, 'live'));
		for (const d of domains) {
			expect(d.language).toMatch(/^[a-z]{2}$/);
			for (const category of d.categories) {
				expect(category).toMatch(/^\/[^/]/);
				const parent = category.slice(0, category.lastIndexOf('/'));
				if (parent) expect(d.categories).toContain(parent);
			}
		}
		for (const r of records) expect(r.country_code).toMatch(/^[A-Z]{2}$/);
		expect(new Set(domains.map((d) => d.language)).size).toBeGreaterThan(8);
		expect(
			domains.some(
				(d) =>
					d.categories.includes('/Arts & Entertainment/Music & Audio') &&
					d.categories.includes('/Arts & Entertainment'),
			),
		).toBe(true);
		expect(domains.some((d) => d.categories.length === 0)).toBe(true);
		expect(domains.some((d) => d.technologies?.includes('Shopify'))).toBe(true);
		expect(domains.some((d) => /[\u3040-\u30ff\u4e00-\u9fff]/.test(d.title))).toBe(true);
		expect(domains.some((d) => /[àâçéèêëîïôûùüÿñæœäöß]/i.test(d.title + (d.meta_description ?? '')))).toBe(true);
		expect(domains.some((d) => /\p{Extended_Pictographic}/u.test(d.title + (d.meta_description ?? '')))).toBe(true);
	});

	test('determinism: same seed, same data; another seed, other data', async () => {
		const same = await startSimulator({ domains: 1000 });
		const other = await startSimulator({ domains: 1000, seed: 7 });
		try {
			for (const rank of [1, 10, 999]) expect(same.index.domainAt(rank)).toEqual(sim.index.domainAt(rank));
			expect(same.datasets()).toEqual(sim.datasets());
			expect(same.index.lineAt(17)).toBe(sim.index.lineAt(17));
			expect(other.index.domainAt(1)).not.toEqual(sim.index.domainAt(1));
			expect(other.datasets()[0].label).toBe(sim.datasets()[0].label);
			expect(other.datasets()[0].value).not.toBe(sim.datasets()[0].value);
		} finally {
			await same.close();
			await other.close();
		}
	});

	test('a 1,000,000-domain index answers lookups, deep cursors and streams without holding the index', async () => {
		const big = await startSimulator({ domains: 1_000_000 });
		try {
			const headers = { authorization: `Bearer ${KEYS.pro}`, 'content-type': 'application/json' };
			const deep = big.index.domainAt(999_990);
			const lookup = await fetch(`${big.url}${API}/domain/${deep.name}`, { headers });
			expect((await lookup.json()).domain).toEqual(deep);
			const page = await fetch(`${big.url}${API}/domain/search`, {
				method: 'POST',
				headers,
				body: JSON.stringify({ pageSize: 1000, searchAfter: [deep.rank, deep.id] }),
			});
			const body = await page.json();
			expect(body.total).toBe(1_000_000);
			expect(body.results.map((d: DomainObject) => d.rank)).toEqual([
				999_991, 999_992, 999_993, 999_994, 999_995, 999_996, 999_997, 999_998, 999_999, 1_000_000,
			]);
			expect(body.search_after).toBeUndefined();
			const stream = await fetch(`${big.url}${API}/historical/domain/latest?limit=2000&fields=name`, { headers });
			const names = lines(await stream.text()).map((l) => JSON.parse(l).name);
			expect(new Set(names).size).toBe(2000);
			const ids = new Set<number>();
			for (let rank = 1; rank <= 1_000_000; rank += 997) {
				const domain = big.index.domainAt(rank);
				expect(domain.id).not.toBe(rank);
				ids.add(domain.id);
				expect(big.index.findByName(domain.name)?.rank).toBe(rank);
			}
			expect(ids.size).toBe(Math.ceil(1_000_000 / 997));
		} finally {
			await big.close();
		}
	});
});
