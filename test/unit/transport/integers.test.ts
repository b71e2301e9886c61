/**
 * Integers beyond 2^53 in JSON answers (issue 22, item 8): JSON.parse rounds 9007199254740993 to …992. A
 * search cursor goes back to the service with the digits it came with, and a record's `id` comes out as a
 * string of its exact digits. A local server on 127.0.0.1 answers with such integers and records the raw
 * bodies it receives.
 */
import { readFileSync } from 'node:fs';

import { mayHoldLongInteger, parseJsonExact } from '../../../nodes/DomainData/transport/json';
import { startLocalServer, type LocalServer } from '../../harness/localServer';
import { binaryDataFiles, binaryDataPath, readBinary, runNode, runPoll } from '../../harness/n8n';

const BIG = '9007199254740993';
const BIGGER = '123456789012345678901234567890';

let server: LocalServer;
/** The raw request bodies, in order. */
let bodies: string[] = [];
let answers: string[] = [];
beforeAll(async () => {
	server = await startLocalServer((req, res) => {
		let text = '';
		req.on('data', (chunk: Buffer) => (text += chunk.toString()));
		req.on('end', () => {
			bodies.push(text);
			res.writeHead(200, { 'content-type': 'application/json' }).end(answers.shift() ?? '{"results":[]}');
		});
	});
});
afterAll(async () => {
	await server.close();
});
beforeEach(() => {
	bodies = [];
	answers = [];
});

const search = (options: Record<string, unknown> = {}) =>
	runNode({
		parameters: {
			resource: 'domain',
			operation: 'search',
			returnAll: true,
			options: { maxAttempts: 1, includePagingInfo: true, ...options },
		},
		credentials: { apiKey: 'integers-test-key', baseUrl: server.url },
	});

const record = (name: string, id: string) => `{"name":"${name}","tld1":"${name}","id":${id},"rank":1}`;

describe('Search over a service with integers beyond 2^53', () => {
	test('the cursor goes back with the digits the service sent; ids come out as exact strings', async () => {
		answers = [
			`{"results":[${record('a.com', BIG)}],"search_after":[1, ${BIG}],"total":3}`,
			`{"results":[${record('b.com', '7')}],"search_after":[-${BIGGER}, 2],"total":3}`,
			`{"results":[${record('c.com', '8')}],"total":3}`,
		];
		const result = await search();
		expect(result.error).toBeUndefined();
		expect(bodies.slice(1).map((body) => /"searchAfter":(\[[^\]]*\])/.exec(body)?.[1])).toEqual([
			`[1,${BIG}]`,
			`[-${BIGGER},2]`,
		]);
		expect(result.items.map((item) => item.json.id)).toEqual([BIG, 7, 8]);
	});

	test('the paging info holds the exact digits, and a Start Cursor with them is sent back as the same number', async () => {
		answers = [`{"results":[${record('a.com', '1')}],"search_after":[1, ${BIG}],"total":9}`];
		const first = await runNode({
			parameters: {
				resource: 'domain',
				operation: 'search',
				returnAll: false,
				limit: 1,
				options: { includePagingInfo: true, maxAttempts: 1 },
			},
			credentials: { apiKey: 'integers-test-key', baseUrl: server.url },
		});
		const paging = first.items[0].json._paging as { searchAfter: unknown[] };
		expect(paging.searchAfter).toEqual([1, BIG]);

		for (const start of [`[1, ${BIG}]`, JSON.stringify(paging.searchAfter)]) {
			bodies = [];
			answers = [`{"results":[${record('b.com', '2')}],"total":9}`];
			const next = await search({ searchAfter: start });
			expect(next.error).toBeUndefined();
			expect(/"searchAfter":(\[[^\]]*\])/.exec(bodies[0])?.[1]).toBe(`[1,${BIG}]`);
		}
	});
});

describe('parseJsonExact', () => {
	test.each([
		[`{"id":${BIG}}`, { id: BIG }],
		[
			`[-${BIG}, 9007199254740991, 1.5, 1e400, 12345678901234567.5, "${BIG}", "a\\"${BIG}"]`,
			[`-${BIG}`, 9007199254740991, 1.5, Infinity, 12345678901234567.5, BIG, `a"${BIG}`],
		],
		['{"a":"x\\\\","b":90071992547409930}', { a: 'x\\', b: '90071992547409930' }],
		['{"small":[1,2,3]}', { small: [1, 2, 3] }],
	])('%s', (text, expected) => {
		expect(parseJsonExact(text)).toEqual(expected);
	});
});

describe('mayHoldLongInteger (reads one position of every 16)', () => {
	test('a run of 16 digits at any offset, in any text length, and not one of 15', () => {
		for (const run of [15, 16, 17]) {
			for (let before = 0; before < 40; before++) {
				for (const after of [0, 1, 7]) {
					const text = `${'x'.repeat(before)}${'7'.repeat(run)}${'y'.repeat(after)}`;
					expect([text, mayHoldLongInteger(text)]).toEqual([text, run >= 16]);
				}
			}
		}
	});

	test('says what /\\d{16}/ says on digit-heavy texts', () => {
		let state = 7;
		for (let sample = 0; sample < 2000; sample++) {
			let text = '';
			for (let index = 0; index < 20 + (sample % 60); index++) {
				state = (Math.imul(state, 1103515245) + 12345) >>> 0;
				text += '0123456789012345678901234567890123456789", '[state % 43];
			}
			expect([text, mayHoldLongInteger(text)]).toEqual([text, /\d{16}/.test(text)]);
		}
	});
});

describe('snapshot records with integers beyond 2^53 (Stream, the trigger): the same rule as JSON answers', () => {
	let snapshot: LocalServer;
	const lines = [
		`{"name":"a.com","rank":${BIG},"title":"id 12345678901234567 in a string"}`,
		`{"name":"b.com","rank":${BIGGER}}`,
		'{"name":"c.com","rank":7}',
	];
	beforeAll(async () => {
		snapshot = await startLocalServer((req, res) => {
			if (/\/historical\/domain\/\d{4}/.test(req.url ?? '')) {
				res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end(lines.join('\n') + '\n');
			} else {
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end('{"datasets":[{"label":"2025-06-30","value":"s1"}]}');
			}
		});
	});
	afterAll(async () => {
		await snapshot.close();
	});

	const expected = [
		{ name: 'a.com', rank: BIG, title: 'id 12345678901234567 in a string' },
		{ name: 'b.com', rank: BIGGER },
		{ name: 'c.com', rank: 7 },
	];

	test.each(['items', 'file'])('Stream, Output %s', async (output) => {
		const result = await runNode({
			parameters: {
				resource: 'dataset',
				operation: 'stream',
				label: '2025-06-30',
				returnAll: true,
				fields: ['name', 'rank', 'title'],
				output,
			},
			credentials: { apiKey: 'integers-test-key', baseUrl: snapshot.url },
		});
		expect(result.error).toBeUndefined();
		if (output === 'items') {
			expect(result.items.map((item) => item.json)).toEqual(
				expected.map((record) => ({ ...record, label: '2025-06-30' })),
			);
		}
		// A file holds the bytes as the service sent them.
		else {
			expect((await readBinary(result.items[0])).toString()).toBe(lines.join('\n') + '\n');
		}
	});

	test('the trigger’s attached records', async () => {
		const items = await runPoll({
			parameters: { event: 'newDataset', attachRecords: true, recordCount: 3, fields: ['name', 'rank', 'title'] },
			credentials: { apiKey: 'integers-test-key', baseUrl: snapshot.url },
			staticData: {},
			mode: 'manual',
		});
		expect(items?.[0][0].json.records).toEqual(expected);
	});
});

describe('Compare of snapshots with integers beyond 2^53: exact in every pass, the spooled one included', () => {
	let snapshots: LocalServer;
	const requests: string[] = [];
	// 2^53 + 1 in the newer snapshot, 2^53 in the older: equal once rounded, so only exact values tell them apart.
	const lines: Record<string, string[]> = {
		'2025-06-30': [`{"name":"a.com","status":${BIG}}`, '{"name":"b.com","status":1}'],
		'2025-06-23': ['{"name":"a.com","status":9007199254740992}', '{"name":"b.com","status":1}'],
	};
	beforeAll(async () => {
		snapshots = await startLocalServer((req, res) => {
			const label = /\/historical\/domain\/([\d-]+)/.exec(req.url ?? '')?.[1];
			if (label !== undefined) {
				requests.push(label);
				res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end(lines[label].join('\n') + '\n');
			} else {
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end('{"datasets":[{"label":"2025-06-30","value":"s2"},{"label":"2025-06-23","value":"s1"}]}');
			}
		});
	});
	afterAll(async () => {
		await snapshots.close();
	});

	test('one change, with the exact digits, and each snapshot asked for once (pass 3 reads the spool)', async () => {
		const filesBefore = new Set(binaryDataFiles());
		const result = await runNode({
			parameters: {
				resource: 'dataset',
				operation: 'compare',
				label: '2025-06-30',
				baseLabel: '2025-06-23',
				fields: ['status'],
				returnAll: true,
			},
			credentials: { apiKey: 'integers-test-key', baseUrl: snapshots.url },
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.name)).toEqual(['a.com']);
		expect(JSON.stringify(result.items[0].json)).toContain(`{"from":"9007199254740992","to":"${BIG}"}`);
		expect(requests).toEqual(['2025-06-30', '2025-06-23']);
		// The spool holds the lines as sent (records written again would hold the digits as strings).
		const spooled = binaryDataFiles().filter((file) => !filesBefore.has(file));
		expect(spooled.map((file) => readFileSync(binaryDataPath(file), 'utf8'))).toEqual([
			lines['2025-06-30'].join('\n') + '\n',
		]);
	});
});
