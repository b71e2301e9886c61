/**
 * The API key never shows in what the node builds from service bytes (issue 15, items 2 and 3): error
 * messages quote bodies and lines only after the key was masked, and a stream line that holds the key is
 * never output. Hostile servers on 127.0.0.1 echo the key back in every shape.
 */
import type { ServerResponse } from 'node:http';

import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { asNodeError } from '../../../nodes/DomainData/errors';
import { apiRequest, type ApiRequest, DEFAULT_CALL_LIMITS } from '../../../nodes/DomainData/transport';
import { startLocalServer, type LocalServer } from '../../harness/localServer';
import { keyPieces as pieces, views } from '../../harness/keyLeaks';
import { createExecuteContext, readBinary, runNode } from '../../harness/n8n';

/** A key with no repeated run of characters, so that any 6 characters of it in a text mean a leak. */
const KEY = 'k3Y9xQ7wZ2pL5mN8vB4tR6hJ1';
const LABEL = '2025-06-30';

const keyPieces = (text: string) => pieces(text, KEY);

let server: LocalServer;
let answer: (res: ServerResponse) => void = (res) => res.end();
beforeAll(async () => {
	server = await startLocalServer((_req, res) => answer(res));
});
afterAll(async () => {
	await server.close();
});

const ONE_TRY = { ...DEFAULT_CALL_LIMITS, maxAttempts: 1 };

async function requestFailure(request: ApiRequest): Promise<Error> {
	const { context } = await createExecuteContext({
		parameters: { resource: 'domain', operation: 'get', domain: 'example.com' },
		credentials: { apiKey: KEY, baseUrl: server.url },
	});
	try {
		await apiRequest.call(context, request);
	} catch (error) {
		return error as Error;
	}
	throw new Error('expected the request to fail');
}

describe('error bodies: the key is masked before the text is cut', () => {
	// Each body puts the key across the place where the message is cut (300 characters for text, 120 for a
	// page title), so cutting first would keep most of the key.
	test.each([
		['JSON error', 'application/json', (key: string) => JSON.stringify({ error: `${'x'.repeat(290)} ${key} rest` })],
		['HTML title', 'text/html', (key: string) => `<html><head><title>${'t'.repeat(110)} ${key}</title></head></html>`],
		['HTML heading', 'text/html', (key: string) => `<html><body><h1>${'h'.repeat(110)} ${key}</h1></body></html>`],
		['plain text', 'text/plain', (key: string) => `${'p'.repeat(290)} ${key} and more`],
	])('%s', async (_kind, contentType, body) => {
		answer = (res) => res.writeHead(401, { 'content-type': contentType }).end(body(KEY));
		const error = await requestFailure({ method: 'GET', path: ['domain', 'example.com'], limits: ONE_TRY });
		expect(error.message).toBe('The Domain Data service rejected the API key');
		expect(keyPieces(views(error))).toEqual([]);
	});

	test('a reason phrase that holds the key (HTTP/1.1 502 <key>): masked in the message', async () => {
		answer = (res) => res.writeHead(502, `Bad Gateway ${KEY}`, { 'content-type': 'text/plain' }).end('down');
		const error = await requestFailure({ method: 'GET', path: ['domain', 'example.com'], limits: ONE_TRY });
		expect(error.message).toBe('The Domain Data service failed with 502 Bad Gateway ***');
		expect(keyPieces(views(error))).toEqual([]);
	});

	test('a content type that holds the key, on a stream: masked in the message', async () => {
		answer = (res) => res.writeHead(200, { 'content-type': `text/x-${KEY}` }).end('<html></html>');
		const result = await runNode({
			parameters: {
				resource: 'dataset',
				operation: 'stream',
				label: LABEL,
				returnAll: true,
				options: { maxAttempts: 1 },
			},
			credentials: { apiKey: KEY, baseUrl: server.url },
		});
		expect(result.error?.message).toContain('instead of NDJSON records');
		expect(keyPieces(views(result.error))).toEqual([]);
	});

	test('a short message that holds the key shows *** in its place', async () => {
		answer = (res) =>
			res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `bad key ${KEY}` }));
		const error = await requestFailure({ method: 'GET', path: ['domain', 'example.com'], limits: ONE_TRY });
		expect((error as { description?: string }).description).toContain('The service said: "bad key ***".');
	});
});

describe('Dataset → Stream: a server that echoes the request', () => {
	const stream = (output: 'items' | 'file', onMalformedLine: 'error' | 'skip' = 'error') =>
		runNode({
			parameters: {
				resource: 'dataset',
				operation: 'stream',
				label: LABEL,
				returnAll: true,
				output,
				options: { onMalformedLine, maxAttempts: 1 },
			},
			credentials: { apiKey: KEY, baseUrl: server.url },
		});
	const good = '{"name":"example.com","rank":1}';

	test.each(['error', 'skip'] as const)(
		'an echoed header line: the malformed-line error (%s) does not quote the key',
		async (onMalformed) => {
			answer = (res) =>
				res
					.writeHead(200, { 'content-type': 'application/x-ndjson' })
					.end(`${good}\nGET /x HTTP/1.1 authorization: Bearer ${KEY}\n`);
			const result = await stream('items', onMalformed);
			expect(result.items).toEqual([]);
			expect(keyPieces(views(result.error))).toEqual([]);
			expect(result.error?.message).toBe(`Line 2 of the dataset "${LABEL}" contains the API key of the credential`);
		},
	);

	test.each(['items', 'file'] as const)('an echo shaped as a JSON object is never output (%s)', async (output) => {
		answer = (res) =>
			res
				.writeHead(200, { 'content-type': 'application/x-ndjson' })
				.end(`${good}\n{"name":"echo","headers":{"authorization":"Bearer ${KEY}"}}\n${good}\n`);
		const result = await stream(output);
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(`Line 2 of the dataset "${LABEL}" contains the API key of the credential`);
		expect(result.error?.description).toContain('Nothing of it is output');
		expect(keyPieces(views(result.error))).toEqual([]);
	});

	test('honest records are untouched (the check costs no record)', async () => {
		answer = (res) =>
			res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end(`${good}\n${good.replace('1', '2')}\n`);
		const result = await stream('file');
		expect(result.error).toBeUndefined();
		expect((await readBinary(result.items[0])).toString()).toBe(`${good}\n${good.replace('1', '2')}\n`);
	});
});

describe('JSON answers that echo the key are refused whole: no field of them reaches an output or a message', () => {
	/** The server answers 200 with JSON built around what it received in the Authorization header. */
	const echoing = (build: (key: string) => unknown) => {
		answer = (res) => {
			res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(build(KEY)));
		};
	};
	const run = (parameters: Record<string, unknown>) =>
		runNode({
			parameters: { options: { maxAttempts: 1 }, ...parameters },
			credentials: { apiKey: KEY, baseUrl: server.url },
		});

	test.each([
		[
			'Get: the key as the title',
			{ resource: 'domain', operation: 'get', domain: 'example.com' },
			(key: string) => ({
				domain: { name: 'example.com', title: `Bearer ${key}`, tld1: 'example.com', id: 1, rank: 1 },
			}),
			'GET /json/api/v1/domain/example.com',
		],
		[
			'Search: the key as the cursor (it would go out in the paging info and a repeated-cursor message)',
			{ resource: 'domain', operation: 'search', limit: 5, options: { includePagingInfo: true } },
			(key: string) => ({
				results: [{ name: 'a.com', tld1: 'a.com', id: 1, rank: 1 }],
				search_after: [1, key],
				total: 9,
			}),
			'POST /json/api/v1/domain/search',
		],
		[
			'Dataset → List: the key as a label (it would be named in "the newest datasets are")',
			{ resource: 'dataset', operation: 'list', returnAll: true },
			(key: string) => ({ datasets: [{ label: key, value: 'x' }] }),
			'GET /json/api/v1/historical/domain',
		],
	])('%s', async (_case, parameters, body, request) => {
		echoing(body);
		const result = await run(parameters);
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(
			`The answer of ${server.url} to ${request} contains the API key of the credential`,
		);
		expect(result.error?.description).toContain('Nothing of it is output');
		expect(keyPieces(views(result.error))).toEqual([]);
	});
});

describe('errors are built from clean objects (nodes/DomainData/errors.ts)', () => {
	test('an error that is no node error is rebuilt from its words alone: its cause (a request with the key) does not travel', () => {
		const request = {
			headers: { 'X-API-Key': KEY },
			url: 'https://api.domain-data.example/json/api/v1/historical/domain',
		};
		const node = {
			id: 'n',
			name: 'Domain Data',
			type: 'n8n-nodes-domain-data.domainData',
			parameters: {},
		} as unknown as INode;
		const raw = Object.assign(new Error('Request failed with status code 500'), {
			config: request,
			cause: { config: request },
		});
		const error = asNodeError(node, raw, 2);
		expect([error.message, error.context.itemIndex]).toEqual(['Request failed with status code 500', 2]);
		expect(keyPieces(views(error))).toEqual([]);

		const thrown = { message: 'socket hang up', config: request };
		expect(asNodeError(node, thrown).message).toBe('socket hang up');
		expect(keyPieces(views(asNodeError(node, thrown)))).toEqual([]);
		// n8n's own constructor keeps such an object as the error's response: the reason for the rule.
		expect(keyPieces(views(new NodeApiError(node, thrown as unknown as JsonObject))).length).toBeGreaterThan(0);
	});
});
