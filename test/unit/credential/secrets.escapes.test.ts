/**
 * The API key spelled in a disguise by a hostile service (issue 22, item 1): JSON escapes (`\/`, as PHP's
 * json_encode writes every slash, and `\u0070`), HTML character references, tags inside the key, a key with
 * a ';' in a Content-Type. The bytes do not hold the key, the decoded values do: every answer and line is
 * judged on its decoded strings, and every service text quoted in an error is masked after decoding.
 * A hostile server on 127.0.0.1 answers each request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { IDataObject } from 'n8n-workflow';

import { keyPieces as pieces, views } from '../../harness/keyLeaks';
import { startLocalServer, type LocalServer } from '../../harness/localServer';
import { readBinary, runNode, runPoll } from '../../harness/n8n';

/** A key with a '/' (escaped as \/ by PHP) and no repeated run of characters. */
const KEY = 'pr0be/K3y9xQ7wZ2pL5mN8vB4tR6hJ1';
const LABEL = '2025-06-30';

/** The key as PHP's json_encode writes it inside a string. */
const slashEscaped = (key: string) => key.replace(/\//g, '\\/');
/** The key with its first character as a \u escape. */
const unicodeEscaped = (key: string) => `\\u${key.charCodeAt(0).toString(16).padStart(4, '0')}${key.slice(1)}`;
const ESCAPES = [
	['\\/ escapes', slashEscaped],
	['\\u escapes', unicodeEscaped],
] as const;

/** JSON text of `value` with every "@KEY@" replaced by the key in an escaped form (the bytes never hold the key). */
function jsonWith(value: unknown, escaped: string): string {
	const text = JSON.stringify(value).split('@KEY@').join(escaped);
	expect(text.includes(KEY)).toBe(false);
	return text;
}

const keyPieces = (text: string, key = KEY) => pieces(text, key);

/** What the node gave, error and items, with nothing of the key in it. */
function expectNoKey(result: { items: unknown[]; error?: unknown }, key = KEY): void {
	expect(keyPieces(views(result.error), key)).toEqual([]);
	expect(keyPieces(JSON.stringify(result.items), key)).toEqual([]);
}

type Handler = (path: string, res: ServerResponse, req: IncomingMessage) => void;
let server: LocalServer;
let handle: Handler = (_path, res) => res.end();
beforeAll(async () => {
	server = await startLocalServer((req, res) =>
		handle((req.url ?? '').replace(/^\/json\/api\/v1/, '').replace(/\?.*$/, ''), res, req),
	);
});
afterAll(async () => {
	await server.close();
});

const json = (res: ServerResponse, text: string, status = 200) =>
	res.writeHead(status, { 'content-type': 'application/json' }).end(text);
const ndjson = (res: ServerResponse, text: string) =>
	res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end(text);
const run = (parameters: Record<string, unknown>, key = KEY) =>
	runNode({
		parameters: { options: { maxAttempts: 1 }, ...parameters },
		credentials: { apiKey: key, baseUrl: server.url },
	});
const echoError = (request: string) =>
	`The answer of ${server.url} to ${request} contains the API key of the credential`;

const domain = (title: string) => ({ name: 'example.com', title, tld1: 'example.com', id: 1, rank: 1 });
const GOOD_LINE = '{"name":"example.com","rank":1}';

describe.each(ESCAPES)('JSON answers with the key in %s are refused whole', (_name, escape) => {
	test('Get: the key as the title (also what an AI agent would read)', async () => {
		handle = (_path, res) => json(res, jsonWith({ domain: domain('Bearer @KEY@') }, escape(KEY)));
		const result = await run({ resource: 'domain', operation: 'get', domain: 'example.com' });
		expect(result.error?.message).toBe(echoError('GET /json/api/v1/domain/example.com'));
		expectNoKey(result);
	});

	test('Bulk Get: the key in a record', async () => {
		handle = (_path, res) =>
			json(res, jsonWith({ domains: [domain('fine'), { ...domain('Bearer @KEY@'), name: 'b.com' }] }, escape(KEY)));
		const result = await run({ resource: 'domain', operation: 'bulk', domains: 'example.com, b.com' });
		expect(result.error?.message).toBe(echoError('POST /json/api/v1/domain/bulk'));
		expectNoKey(result);
	});

	test('Search: the key in the cursor (the paging info and the repeated-cursor error would show it)', async () => {
		handle = (_path, res) =>
			json(res, jsonWith({ results: [domain('a')], search_after: [1, '@KEY@'], total: 9 }, escape(KEY)));
		const result = await run({
			resource: 'domain',
			operation: 'search',
			limit: 5,
			options: { includePagingInfo: true, maxAttempts: 1 },
		});
		expect(result.error?.message).toBe(echoError('POST /json/api/v1/domain/search'));
		expectNoKey(result);
	});

	test('Dataset → List: the key as a label', async () => {
		handle = (_path, res) => json(res, jsonWith({ datasets: [{ label: '@KEY@', value: 'x' }] }, escape(KEY)));
		const result = await run({ resource: 'dataset', operation: 'list', returnAll: true });
		expect(result.error?.message).toBe(echoError('GET /json/api/v1/historical/domain'));
		expectNoKey(result);
	});

	test('Stream of an unknown label: the "newest datasets are" error would name the key', async () => {
		handle = (path, res) =>
			path === '/historical/domain'
				? json(res, jsonWith({ datasets: [{ label: '@KEY@', value: 'x' }] }, escape(KEY)))
				: json(res, '{"error":"Not found"}', 404);
		const result = await run({ resource: 'dataset', operation: 'stream', label: LABEL, returnAll: true });
		expect(result.error?.message).toBe(echoError('GET /json/api/v1/historical/domain'));
		expectNoKey(result);
	});

	test('Stream to a file of "latest": the label (json.label and the file name) would hold the key', async () => {
		handle = (path, res) =>
			path === '/historical/domain'
				? json(
						res,
						jsonWith(
							{
								datasets: [
									{ label: LABEL, value: '@KEY@' },
									{ label: '@KEY@', value: 'y' },
								],
							},
							escape(KEY),
						),
					)
				: ndjson(res, `${GOOD_LINE}\n`);
		const result = await run({
			resource: 'dataset',
			operation: 'stream',
			label: 'latest',
			returnAll: true,
			output: 'file',
		});
		expect(result.error?.message).toBe(echoError('GET /json/api/v1/historical/domain'));
		expectNoKey(result);
	});

	test.each(['items', 'file'] as const)(
		'Stream (%s): a line with the key is refused, nothing is output',
		async (output) => {
			handle = (_path, res) =>
				ndjson(
					res,
					`${GOOD_LINE}\n${jsonWith({ name: 'echo.com', title: 'Bearer @KEY@' }, escape(KEY))}\n${GOOD_LINE}\n`,
				);
			const result = await run({ resource: 'dataset', operation: 'stream', label: LABEL, returnAll: true, output });
			expect(result.error?.message).toBe(`Line 2 of the dataset "${LABEL}" contains the API key of the credential`);
			expect(result.items).toEqual([]);
			expectNoKey(result);
		},
	);

	test('Stream: the key as an object key of a line is refused too', async () => {
		handle = (_path, res) => ndjson(res, `${jsonWith({ name: 'echo.com', headers: { '@KEY@': 1 } }, escape(KEY))}\n`);
		const result = await run({ resource: 'dataset', operation: 'stream', label: LABEL, returnAll: true });
		expect(result.error?.message).toBe(`Line 1 of the dataset "${LABEL}" contains the API key of the credential`);
		expectNoKey(result);
	});

	test('Stream: a malformed line with the key is not quoted in the error', async () => {
		handle = (_path, res) => ndjson(res, `${GOOD_LINE}\nGET / authorization: Bearer ${escape(KEY)}\n`);
		const result = await run({ resource: 'dataset', operation: 'stream', label: LABEL, returnAll: true });
		expect(result.error?.message).toMatch(/^Line 2 of the dataset "2025-06-30" (cannot be read|contains the API key)/);
		expectNoKey(result);
	});

	test('the trigger: attached records with the key are never output nor reported with it', async () => {
		let listed = [{ label: LABEL, value: 'a' }];
		handle = (path, res) =>
			path === '/historical/domain'
				? json(res, JSON.stringify({ datasets: listed }))
				: ndjson(res, `${jsonWith({ name: 'echo.com', title: 'Bearer @KEY@' }, escape(KEY))}\n`);
		const staticData: IDataObject = {};
		const reported: Error[] = [];
		const parameters = {
			event: 'newDataset',
			attachRecords: true,
			recordCount: 5,
			fields: ['name', 'title'],
			options: { maxAttempts: 1 },
		};
		const poll = async () => {
			try {
				return await runPoll({ parameters, credentials: { apiKey: KEY, baseUrl: server.url }, staticData, reported });
			} catch (error) {
				return { thrown: error };
			}
		};
		await poll();
		listed = [{ label: '2025-07-07', value: 'b' }, ...listed];
		const events = await poll();
		expect(server.received.some((request) => request.url.includes('/historical/domain/2025-07-07'))).toBe(true);
		expect(keyPieces(views(events))).toEqual([]);
		expect(keyPieces(reported.map(views).join('\n'))).toEqual([]);
	});
});

describe('honest answers with escapes are kept (no false alarm)', () => {
	test('Get and Stream: \\/ and \\u escapes that do not spell the key decode as usual', async () => {
		handle = (path, res) =>
			path.startsWith('/historical/')
				? ndjson(res, '{"name":"a.com","title":"a\\/b \\u00e9"}\n')
				: json(res, '{"domain":{"name":"a.com","title":"https:\\/\\/a.com \\u00e9"}}');
		const got = await run({ resource: 'domain', operation: 'get', domain: 'a.com' });
		expect(got.items.map((item) => item.json.title)).toEqual(['https://a.com é']);
		const streamed = await run({
			resource: 'dataset',
			operation: 'stream',
			label: LABEL,
			returnAll: true,
			output: 'file',
		});
		expect(streamed.error).toBeUndefined();
		expect((await readBinary(streamed.items[0])).toString()).toBe('{"name":"a.com","title":"a\\/b \\u00e9"}\n');
	});
});

describe('error texts of the service are masked on their decoded form', () => {
	test.each([
		[
			'a JSON error body without an "error" field (\\/)',
			'application/json',
			`{"detail":"Bearer ${slashEscaped(KEY)}"}`,
		],
		[
			'a JSON error body without an "error" field (\\u)',
			'application/json',
			`{"detail":"Bearer ${unicodeEscaped(KEY)}"}`,
		],
		['a JSON error body, "error" field (\\/)', 'application/json', `{"error":"Bearer ${slashEscaped(KEY)}"}`],
		[
			'an HTML title with &#112;',
			'text/html',
			`<html><title>Bearer &#${KEY.charCodeAt(0)};${KEY.slice(1)}</title></html>`,
		],
		[
			'an HTML title with &#x70;',
			'text/html',
			`<html><title>Bearer &#x${KEY.charCodeAt(0).toString(16)};${KEY.slice(1)}</title></html>`,
		],
		['an HTML title with &sol;', 'text/html', `<html><title>Bearer ${KEY.replace('/', '&sol;')}</title></html>`],
		[
			'an HTML heading split by tags',
			'text/html',
			`<html><body><h1>Bearer ${KEY.slice(0, 9)}<b></b>${KEY.slice(9)}</h1></body></html>`,
		],
		['a plain text body with \\/', 'text/plain', `echo: Bearer ${slashEscaped(KEY)}`],
	])('%s', async (_case, contentType, body) => {
		handle = (_path, res) => res.writeHead(401, { 'content-type': contentType }).end(body);
		const result = await run({ resource: 'domain', operation: 'get', domain: 'example.com' });
		expect(result.error?.message).toBe('The Domain Data service rejected the API key');
		expectNoKey(result);
	});

	test('a reason phrase with \\/ (HTTP/1.1 502 <key>)', async () => {
		handle = (_path, res) =>
			res.writeHead(502, `Bad Gateway ${slashEscaped(KEY)}`, { 'content-type': 'text/plain' }).end('down');
		const result = await run({ resource: 'domain', operation: 'get', domain: 'example.com' });
		expect(result.error?.message).toMatch(/^The Domain Data service failed with 502 /);
		expectNoKey(result);
	});

	test("a Content-Type that holds a key with a ';': masked before it is split", async () => {
		const key = 'k3Y9xQ7wZ2pL;5mN8vB4tR6';
		handle = (_path, res) => res.writeHead(200, { 'content-type': `text/x-${key}` }).end('<html></html>');
		const result = await run({ resource: 'dataset', operation: 'stream', label: LABEL, returnAll: true }, key);
		expect(result.error?.message).toContain('instead of NDJSON records');
		expectNoKey(result, key);
	});
});
