/**
 * The API key echoed in JSON escapes (issue 22, item 1), in real n8n: a hostile service on 127.0.0.1 writes
 * the Authorization header it received back into its answers, the way PHP's json_encode writes it (every '/'
 * as '\/') or with a \u escape. The bytes never hold the key, the parsed values do. Domain → Get and
 * Dataset → Stream run through `n8n execute`: each run fails with the key-echo error, and neither the key nor
 * its escaped forms appear anywhere in what n8n printed (the whole run data) or in its database.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { N8nInstance } from '../../scripts/n8n/instance';
import { CREDENTIAL_TYPE } from '../../scripts/n8n/package';
import type { ExecutionResult } from '../../scripts/n8n/run-data';
import { chain, domainData, manualTrigger, workflow, workflowId } from '../../scripts/n8n/workflows';
import { startLocalServer, type LocalServer } from '../harness/localServer';
import { startSimulator, type Simulator } from '../simulator';
import { createInstance, e2eVersion } from './support';

/** A key with '/' in it (escaped by PHP) and no repeated run of characters. */
const KEY = 'e2e/pr0beK3y9xQ7wZ2pL5mN8vB4tR6';
const LABEL = '2025-06-30';

const ESCAPES = {
	slash: (text: string) => text.replace(/\//g, '\\/'),
	unicode: (text: string) => text.replace(/[eE]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`),
};
type Escape = keyof typeof ESCAPES;

/** The Authorization header the server received, as a JSON string with the escapes of `escape`. */
function echoed(req: IncomingMessage, escape: Escape): string {
	const text = ESCAPES[escape](JSON.stringify(String(req.headers.authorization ?? '')));
	if (text.includes(KEY)) throw new Error('the escaped echo still holds the key as it is');
	return text;
}

function answer(req: IncomingMessage, res: ServerResponse): void {
	const url = req.url ?? '';
	const escape: Escape = url.includes('unicode') || url.includes('2025-06-23') ? 'unicode' : 'slash';
	if (url.includes('/historical/domain/')) {
		res.writeHead(200, { 'content-type': 'application/x-ndjson' });
		res.end(
			`{"name":"a.com","rank":1}\n{"name":"echo.com","rank":2,"title":${echoed(req, escape)}}\n{"name":"b.com","rank":3}\n`,
		);
		return;
	}
	res.writeHead(200, { 'content-type': 'application/json' });
	res.end(`{"domain":{"name":"example.com","tld1":"example.com","id":1,"rank":1,"title":${echoed(req, escape)}}}`);
}

/** Every 6-character piece of the key, and the key in each escaped form, that a text holds. */
function leaks(text: string): string[] {
	const found: string[] = [];
	for (let start = 0; start + 6 <= KEY.length; start++) {
		if (text.includes(KEY.slice(start, start + 6))) found.push(KEY.slice(start, start + 6));
	}
	for (const escape of Object.values(ESCAPES)) {
		const form = escape(KEY);
		if (text.includes(form) || text.includes(form.slice(1, -1))) found.push(form);
	}
	return found;
}

const CREDENTIAL = { id: 'ddE2eCredEscape1', name: 'Domain Data (echoing service)' };
const RUNS = {
	getSlash: {
		id: workflowId('escGetSlash'),
		node: domainData('Get', { resource: 'domain', operation: 'get', domain: 'example.com' }, CREDENTIAL),
	},
	getUnicode: {
		id: workflowId('escGetUnicode'),
		node: domainData('Get', { resource: 'domain', operation: 'get', domain: 'unicode.com' }, CREDENTIAL),
	},
	streamSlash: {
		id: workflowId('escStreamSlash'),
		node: domainData(
			'Stream',
			{ resource: 'dataset', operation: 'stream', label: LABEL, returnAll: true, output: 'items' },
			CREDENTIAL,
		),
	},
	streamUnicode: {
		id: workflowId('escStreamUnicode'),
		node: domainData(
			'Stream',
			{ resource: 'dataset', operation: 'stream', label: '2025-06-23', returnAll: true, output: 'items' },
			CREDENTIAL,
		),
	},
};

let sim: Simulator;
let hostile: LocalServer;
let n8n: N8nInstance;
const results = new Map<string, ExecutionResult>();

beforeAll(async () => {
	sim = await startSimulator({ domains: 10 });
	hostile = await startLocalServer(answer);
	n8n = await createInstance(sim, {
		credentials: [{ ...CREDENTIAL, type: CREDENTIAL_TYPE, data: { apiKey: KEY, baseUrl: hostile.url } }],
	});
	await n8n.importWorkflows(
		Object.entries(RUNS).map(([name, run]) =>
			workflow(run.id, `Key echo in escapes: ${name}`, chain(manualTrigger(), run.node)),
		),
	);
	for (const [name, run] of Object.entries(RUNS)) results.set(name, await n8n.execute(run.id));
}, 10 * 60_000);

afterAll(async () => {
	await n8n?.dispose();
	await hostile?.close();
	await sim?.close();
});

describe(`n8n ${e2eVersion()}: a service that echoes the key in JSON escapes`, () => {
	test.each([
		['getSlash', `GET /json/api/v1/domain/example.com`],
		['getUnicode', `GET /json/api/v1/domain/unicode.com`],
	])('Get (%s): the run fails with the key-echo error and shows nothing of the key', (name, request) => {
		const result = results.get(name)!;
		expect(result.error?.message).toBe(
			`The answer of ${hostile.url} to ${request} contains the API key of the credential`,
		);
		expect(result.run).toBeDefined();
		expect(leaks(result.log)).toEqual([]);
	});

	test.each([
		['streamSlash', LABEL],
		['streamUnicode', '2025-06-23'],
	])('Stream (%s): the run fails at the echoing line, no item is output, nothing of the key shows', (name, label) => {
		const result = results.get(name)!;
		expect(result.error?.message).toBe(`Line 2 of the dataset "${label}" contains the API key of the credential`);
		expect(result.run?.data?.resultData.runData.Stream?.[0]?.data).toBeUndefined();
		expect(leaks(result.log)).toEqual([]);
	});

	test('the server really echoed the key (the runs reached it with the credential)', () => {
		expect(hostile.received.length).toBeGreaterThanOrEqual(4);
		expect(hostile.received.every((request) => request.headers.authorization === `Bearer ${KEY}`)).toBe(true);
	});

	test("n8n's database holds nothing of the key in clear", () => {
		const files = readdirSync(join(n8n.userFolder, '.n8n')).filter((file) => file.startsWith('database.sqlite'));
		expect(files.length).toBeGreaterThan(0);
		for (const file of files)
			expect(leaks(readFileSync(join(n8n.userFolder, '.n8n', file)).toString('latin1'))).toEqual([]);
	});
});
