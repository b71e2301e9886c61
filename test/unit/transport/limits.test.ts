/**
 * The call limits a user sets (Max Attempts, Idle Timeout, Request Deadline) reach every call of the item, over
 * real HTTP to a local server on 127.0.0.1: the silence a JSON answer may keep follows Idle Timeout where the
 * operation offers it and the Request Deadline elsewhere (no fixed 60 s), and the dataset list asked after a
 * stream's 404 keeps the Request Deadline.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IHttpRequestOptions, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { DomainData } from '../../../nodes/DomainData/DomainData.node';
import { createExecuteContext, runNode } from '../../harness/n8n';
import { startLocalServer, type LocalServer } from '../../harness/localServer';

const LABEL = '2025-06-30';
let server: LocalServer | undefined;
const timers = new Set<NodeJS.Timeout>();

afterEach(async () => {
	for (const timer of timers) clearTimeout(timer);
	timers.clear();
	await server?.close();
	server = undefined;
});

const later = (ms: number, run: () => void) => timers.add(setTimeout(run, ms));
const requestsTo = (path: RegExp) => server!.received.filter((request) => path.test(request.url)).length;

/** The dataset list (its headers at once, the rest after `silentMs`) and a snapshot of two records. */
function service(listSilentMs: number) {
	return (req: IncomingMessage, res: ServerResponse) => {
		if (/\/historical\/domain\/\d{4}-\d{2}-\d{2}/.test(req.url ?? '')) {
			res.writeHead(200, { 'content-type': 'application/x-ndjson' });
			res.end('{"name":"a.com"}\n{"name":"b.com"}\n');
			return;
		}
		res.writeHead(200, { 'content-type': 'application/json' });
		res.write('{"datasets": ');
		later(listSilentMs, () => res.end(`[{"label": "${LABEL}", "value": "s1"}]}`));
	};
}

/** Dataset → Stream of `label` with `options`, on the local server. */
async function stream(label: string, options: INodeParameters = {}) {
	return await runNode({
		parameters: { resource: 'dataset', operation: 'stream', label, returnAll: true, fields: ['name'], options },
		credentials: { apiKey: 'limits-key', baseUrl: server!.url },
	});
}

test('Stream: the dataset list behind "Latest" is cut by Idle Timeout, not after a fixed 60 s', async () => {
	server = await startLocalServer(service(2500));
	const result = await stream('latest', { idleTimeout: 1, maxAttempts: 2 });
	expect(result.error?.message).toBe(`The Domain Data service at ${server.url} did not answer in time after 2 tries`);
	expect(requestsTo(/\/historical\/domain$/)).toBe(2);
	expect(requestsTo(/\/historical\/domain\//)).toBe(0);
});

test('Stream: a dataset list silent for less than Idle Timeout is read', async () => {
	server = await startLocalServer(service(300));
	const result = await stream('latest');
	expect(result.error).toBeUndefined();
	expect(result.items.map((item) => item.json.name)).toEqual(['a.com', 'b.com']);
});

test('Get: the silence a JSON answer may keep follows Request Deadline (Get has no Idle Timeout)', async () => {
	server = await startLocalServer((_req, res) => {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end('{"domain": {"name": "a.com"}}');
	});
	const { context } = await createExecuteContext({
		parameters: { resource: 'domain', operation: 'get', domain: 'a.com', options: { requestDeadline: 300 } },
		credentials: { apiKey: 'limits-key', baseUrl: server.url },
	});
	// n8n's client is told how long a silent socket may stay open: the Request Deadline, not 60 s.
	const timeouts: Array<number | undefined> = [];
	const send = context.helpers.httpRequestWithAuthentication;
	context.helpers.httpRequestWithAuthentication = (async (...args: Parameters<typeof send>) => {
		timeouts.push((args[1] as IHttpRequestOptions).timeout);
		return await send.apply(context, args);
	}) as typeof send;
	const output = (await new DomainData().execute.call(context)) as INodeExecutionData[][];
	expect(output[0].map((item) => item.json.name)).toEqual(['a.com']);
	expect(timeouts).toEqual([300_000]);
});

test('Stream: the dataset list asked after a 404 keeps the Request Deadline', async () => {
	server = await startLocalServer((req, res) => {
		if (req.url?.includes('/historical/domain/')) {
			res.writeHead(404, { 'content-type': 'application/json' });
			res.end('{"error": "dataset not found"}');
			return;
		}
		// A list that trickles for 3 s, then ends: without the deadline it would be read whole.
		res.writeHead(200, { 'content-type': 'application/json' });
		res.write('{"datasets": []');
		const timer = setInterval(() => res.write(' '), 100);
		timers.add(timer);
		later(3000, () => {
			clearInterval(timer);
			res.end('}');
		});
		res.on('close', () => clearInterval(timer));
	});
	const result = await stream('2024-01-01', { requestDeadline: 1, maxAttempts: 1 });
	expect(result.error?.message).toBe(
		`The Domain Data service at ${server.url} did not send its whole answer within 1 s`,
	);
	expect(requestsTo(/\/historical\/domain$/)).toBe(1);
}, 15_000);
