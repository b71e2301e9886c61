/**
 * Answers that trickle, and streams whose reader pauses, over real HTTP through n8n-core's HTTP helper
 * (local servers on 127.0.0.1): a JSON answer that never completes has a deadline, a stream line that
 * never ends counts as stalled, both are retried under Max Attempts and end with a clear error; the
 * trigger's poll ends too. Timers longer than Node can hold are refused before any request. A reader that
 * pauses longer than the idle timeout keeps its one stream request.
 */
import type { ServerResponse } from 'node:http';

import { readSnapshot } from '../../../nodes/DomainData/helpers/snapshotReader';
import { DEFAULT_CALL_LIMITS } from '../../../nodes/DomainData/transport';
import { createExecuteContext, runNode, runPoll } from '../../harness/n8n';
import { startLocalServer, type LocalServer } from '../../harness/localServer';

const LABEL = '2025-06-30';
let server: LocalServer | undefined;
const timers = new Set<NodeJS.Timeout>();

afterEach(async () => {
	for (const timer of timers) clearInterval(timer);
	timers.clear();
	await server?.close();
	server = undefined;
});

/** Sends `piece` every 100 ms and never ends. */
function trickle(res: ServerResponse, contentType: string, first: string, piece: string): void {
	res.writeHead(200, { 'content-type': contentType });
	res.write(first);
	const timer = setInterval(() => res.write(piece), 100);
	timers.add(timer);
	res.on('close', () => clearInterval(timer));
}

const requestsTo = (path: RegExp) => server!.received.filter((request) => path.test(request.url)).length;

test('a JSON answer that trickles (Get): each try ends at the Request Deadline, then a clear error', async () => {
	server = await startLocalServer((_req, res) => trickle(res, 'application/json', '{"domain": {"name": "a.com"}', ' '));
	const result = await runNode({
		parameters: {
			resource: 'domain',
			operation: 'get',
			domain: 'a.com',
			options: { requestDeadline: 1, maxAttempts: 2 },
		},
		credentials: { apiKey: 'trickle-key', baseUrl: server.url },
	});
	expect(result.error?.message).toBe(
		`The Domain Data service at ${server.url} did not send its whole answer within 1 s (2 tries)`,
	);
	expect((result.error as { description?: string }).description).toContain('Request Deadline');
	expect(requestsTo(/\/domain\/a\.com$/)).toBe(2);
});

test("the trigger's poll of a dataset list that trickles ends with that error", async () => {
	server = await startLocalServer((_req, res) => trickle(res, 'application/json', '{"datasets": []', ' '));
	await expect(
		runPoll({
			parameters: { event: 'newDataset', options: { requestDeadline: 1, maxAttempts: 2 } },
			credentials: { apiKey: 'trickle-key', baseUrl: server.url },
			staticData: {},
		}),
	).rejects.toThrow('did not send its whole answer within 1 s (2 tries)');
	expect(requestsTo(/\/historical\/domain$/)).toBe(2);
});

test('a stream line that grows a byte at a time counts as stalled: resumed under Max Attempts, then a clear error', async () => {
	server = await startLocalServer((_req, res) =>
		trickle(res, 'application/x-ndjson', '{"name":"a.com","title":"', 'x'),
	);
	const result = await runNode({
		parameters: {
			resource: 'dataset',
			operation: 'stream',
			label: LABEL,
			returnAll: true,
			options: { idleTimeout: 1, maxAttempts: 2 },
		},
		credentials: { apiKey: 'trickle-key', baseUrl: server.url },
	});
	expect(result.error?.message).toBe(
		`The dataset "${LABEL}" could not be read to the end: 2 requests in a row failed without new lines (2× no complete record for 1 s)`,
	);
	expect(requestsTo(/\/historical\/domain\/2025-06-30/)).toBe(2);
});

describe('timeouts longer than a timer can hold are refused before any request', () => {
	test.each([
		['idleTimeout', 'Idle Timeout (Seconds)'],
		['requestDeadline', 'Request Deadline (Seconds)'],
	])('%s 2,147,484 s', async (option, name) => {
		server = await startLocalServer((_req, res) => res.end('{}'));
		const result = await runNode({
			parameters: {
				resource: 'dataset',
				operation: 'stream',
				label: LABEL,
				returnAll: true,
				options: { [option]: 2147484 },
			},
			credentials: { apiKey: 'timer-key', baseUrl: server.url },
		});
		expect(result.error?.message).toBe(`The option "${name}" must be at most 2,147,483 seconds, got 2147484`);
		expect(result.error?.constructor.name).toBe('NodeOperationError');
		expect(server.received).toHaveLength(0);
	});
});

test('a reader that pauses longer than the idle timeout between batches keeps its one stream request', async () => {
	const padding = 'x'.repeat(2000);
	const body = Array.from(
		{ length: 3000 },
		(_, i) => JSON.stringify({ name: `site-${i}.com`, title: padding }) + '\n',
	).join('');
	server = await startLocalServer((_req, res) => {
		res.writeHead(200, { 'content-type': 'application/x-ndjson' });
		res.end(body);
	});
	const { context } = await createExecuteContext({
		parameters: { resource: 'dataset', operation: 'stream' },
		credentials: { apiKey: 'pause-key', baseUrl: server.url },
	});
	let records = 0;
	const read = readSnapshot.call(context, {
		label: LABEL,
		fields: ['name', 'title'],
		limits: { ...DEFAULT_CALL_LIMITS, idleTimeoutMs: 1000 },
		batchSize: 1000,
	});
	for await (const batch of read) {
		records += batch.length;
		await new Promise((resolve) => setTimeout(resolve, 2500));
	}
	expect(records).toBe(3000);
	expect(server.received).toHaveLength(1);
}, 30_000);
