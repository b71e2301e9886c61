/**
 * The one retry policy (transport/retry.ts) counted over real HTTP: for each mix of failures, how many
 * requests one read makes. "Max Attempts" is the most requests one read makes in a row without progress,
 * whatever failed; a stream's resume after a drop spends the same budget as the transport's retries.
 * The simulator's request log counts the calls; a small local server plays what the simulator cannot
 * (alternating failures, Retry-After values that ask for no wait). Each read gets a retry budget of its own with
 * fast waits (RetryBudget's timing), passed as the request's or the stream's `budget`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { apiRequest, DEFAULT_CALL_LIMITS, readNdjsonStream } from '../../../nodes/DomainData/transport';
import { RetryBudget, type RetryTiming } from '../../../nodes/DomainData/transport/retry';
import { closedPort, startLocalServer } from '../../harness/localServer';
import { createExecuteContext } from '../../harness/n8n';
import { useSimulator } from '../../harness/simulator';
import { KEYS } from '../../simulator';

const FAST: RetryTiming = { baseDelayMs: 20, maxDelayMs: 200, maxRetryAfterMs: 60_000 };
const LABEL = '2025-06-30';
const DOMAINS = 300;

const sim = useSimulator({ domains: DOMAINS });

type Outcome = { error?: Error & { description?: string }; records: number };

async function context(baseUrl: string) {
	const { context: ctx } = await createExecuteContext({
		parameters: { resource: 'dataset', operation: 'stream' },
		credentials: { apiKey: KEYS.pro, baseUrl },
	});
	return ctx;
}

/** One JSON read (Domain → Get) with the given budget. */
async function jsonRead(baseUrl: string, maxAttempts: number, timing = FAST): Promise<Outcome> {
	try {
		await apiRequest.call(await context(baseUrl), {
			method: 'GET',
			path: ['domain', sim.index.domainAt(1).name],
			limits: { ...DEFAULT_CALL_LIMITS, maxAttempts },
			budget: new RetryBudget({ maxAttempts }, undefined, timing),
		});
		return { records: 1 };
	} catch (error) {
		return { error: error as Outcome['error'], records: 0 };
	}
}

/** One stream read (the resumable source under Dataset → Stream's reader) with the given budget; records: lines. */
async function streamRead(baseUrl: string, maxAttempts: number): Promise<Outcome> {
	let records = 0;
	try {
		const lines = readNdjsonStream.call(await context(baseUrl), {
			label: LABEL,
			qs: { fields: 'name,rank' },
			limits: { ...DEFAULT_CALL_LIMITS, maxAttempts },
			budget: new RetryBudget({ maxAttempts }, undefined, FAST),
			notFound: async () => new Error(`no dataset ${LABEL}`),
			cancelled: () => new Error('cancelled'),
		});
		for await (const { block, from } of lines) records += block.count - from;
		return { records };
	} catch (error) {
		return { error: error as Outcome['error'], records };
	}
}

/** A server that answers request n (1-based) with `script[(n - 1) % script.length]`. */
async function scripted(script: Array<(res: ServerResponse, req: IncomingMessage) => void>) {
	let count = 0;
	return await startLocalServer((req, res) => script[count++ % script.length](res, req));
}
const answer503 = (res: ServerResponse) =>
	res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"Service temporarily unavailable."}');
/** Headers of a good stream, then the connection is cut before any line. */
const dropAfterHeaders = (res: ServerResponse) => {
	res.writeHead(200, { 'content-type': 'application/x-ndjson' });
	res.flushHeaders();
	setTimeout(() => res.socket?.destroy(), 20);
};
/** The connection is cut before any answer. */
const dropBeforeAnswer = (res: ServerResponse) => res.socket?.destroy();

describe('JSON requests: Max Attempts = requests in all', () => {
	test('only 503s: 3 requests for Max Attempts 3', async () => {
		sim.setFaults({ requests: [{ status: 503, count: 20 }] });
		const { error } = await jsonRead(sim.url, 3);
		expect(sim.calls()).toHaveLength(3);
		expect(error?.message).toBe('The Domain Data service failed with 503 Service Unavailable after 3 tries');
	});

	test('only dropped connections: 3 requests for Max Attempts 3', async () => {
		sim.setFaults({ requests: [{ reset: true, count: 20 }] });
		const { error } = await jsonRead(sim.url, 3);
		expect(sim.calls()).toHaveLength(3);
		expect(error?.message).toBe(
			`The connection to the Domain Data service at ${sim.url} broke before an answer came after 3 tries`,
		);
	});

	test('503 and drop alternating: 3 requests for Max Attempts 3, and the error names both', async () => {
		const server = await scripted([answer503, dropBeforeAnswer]);
		try {
			const { error } = await jsonRead(server.url, 3);
			expect(server.received).toHaveLength(3);
			expect(error?.message).toBe(
				'The Domain Data service failed with 503 Service Unavailable after 3 tries (2× HTTP 503, 1× connection dropped)',
			);
		} finally {
			await server.close();
		}
	});

	test('429 with Retry-After: 2 requests for Max Attempts 2, the second after the asked wait', async () => {
		sim.setFaults({ requests: [{ status: 429, count: 20, retryAfter: 1 }] });
		const { error } = await jsonRead(sim.url, 2);
		const calls = sim.calls();
		expect(calls).toHaveLength(2);
		expect(calls[1].time - calls[0].time).toBeGreaterThanOrEqual(1000);
		expect(error?.message).toBe('The Domain Data service is still rate limiting the requests after 2 tries (429)');
	});

	test('refused connection: at most 3 requests, even for Max Attempts 10', async () => {
		const port = await closedPort();
		const { error } = await jsonRead(`http://127.0.0.1:${port}`, 10);
		expect(error?.message).toBe(
			`Could not connect to the Domain Data service at http://127.0.0.1:${port} after 3 tries`,
		);
	});
});

describe("streams: one budget for the transport's retries and the resumes", () => {
	test('only 503s: 3 stream requests for Max Attempts 3', async () => {
		sim.setFaults({ requests: [{ endpoint: 'stream', status: 503, count: 20 }] });
		const { error } = await streamRead(sim.url, 3);
		expect(sim.calls('stream')).toHaveLength(3);
		expect(error?.message).toBe('The Domain Data service failed with 503 Service Unavailable after 3 tries');
	});

	test('only drops before any line: 3 stream requests for Max Attempts 3', async () => {
		sim.setFaults({ streams: [{ dropAfterLines: 0, count: 20 }] });
		const { error } = await streamRead(sim.url, 3);
		expect(sim.calls('stream')).toHaveLength(3);
		expect(error?.message).toBe(
			`The dataset "${LABEL}" could not be read to the end: 3 requests in a row failed without new lines (3× connection dropped)`,
		);
	});

	test('503 then drop, again and again: 3 stream requests for Max Attempts 3 (was 6 and more)', async () => {
		const server = await scripted([answer503, dropAfterHeaders]);
		try {
			const { error } = await streamRead(server.url, 3);
			expect(server.received).toHaveLength(3);
			expect(error?.message).toBe(
				'The Domain Data service failed with 503 Service Unavailable after 3 tries (2× HTTP 503, 1× connection dropped)',
			);
		} finally {
			await server.close();
		}
	});

	test('drop then 503, again and again: 4 stream requests for Max Attempts 4, the error names both', async () => {
		const server = await scripted([dropAfterHeaders, answer503]);
		try {
			const { error } = await streamRead(server.url, 4);
			expect(server.received).toHaveLength(4);
			expect(error?.message).toBe(
				'The Domain Data service failed with 503 Service Unavailable after 4 tries (2× connection dropped, 2× HTTP 503)',
			);
		} finally {
			await server.close();
		}
	});

	test('429 with Retry-After on the stream: 2 requests for Max Attempts 2, the second after the asked wait', async () => {
		sim.setFaults({ requests: [{ endpoint: 'stream', status: 429, count: 20, retryAfter: 1 }] });
		const { error } = await streamRead(sim.url, 2);
		const calls = sim.calls('stream');
		expect(calls).toHaveLength(2);
		expect(calls[1].time - calls[0].time).toBeGreaterThanOrEqual(1000);
		expect(error?.message).toBe('The Domain Data service is still rate limiting the requests after 2 tries (429)');
	});

	test('refused connection: at most 3 requests, even for Max Attempts 10', async () => {
		const port = await closedPort();
		const { error } = await streamRead(`http://127.0.0.1:${port}`, 10);
		expect(error?.message).toBe(
			`Could not connect to the Domain Data service at http://127.0.0.1:${port} after 3 tries`,
		);
	});

	test('progress starts a new budget: drops after new lines each time still complete the read', async () => {
		sim.setFaults({ streams: [{ dropAfterLines: 100 }, { dropAfterLines: 200 }, { dropAfterLines: 250 }] });
		const { error, records } = await streamRead(sim.url, 1);
		expect(error).toBeUndefined();
		expect(records).toBe(DOMAINS);
		expect(sim.calls('stream')).toHaveLength(4);
	});
});

describe('Retry-After that asks for no wait is treated as absent (backoff applies)', () => {
	const SLOW: RetryTiming = { baseDelayMs: 400, maxDelayMs: 2000, maxRetryAfterMs: 60_000 };
	test.each([['-5'], ['-1'], ['0'], [new Date(Date.now() - 3600_000).toUTCString()]])(
		'Retry-After: %s',
		async (value) => {
			const server = await startLocalServer((_req, res) => {
				res.writeHead(503, { 'content-type': 'application/json', 'retry-after': value }).end('{"error":"busy"}');
			});
			try {
				const { error } = await jsonRead(server.url, 3, SLOW);
				expect(error?.message).toBe('The Domain Data service failed with 503 Service Unavailable after 3 tries');
				const times = server.received.map((request) => request.time);
				expect(times).toHaveLength(3);
				// Equal-jitter backoff waits at least half of 400 ms, then half of 800 ms.
				expect(times[1] - times[0]).toBeGreaterThanOrEqual(200);
				expect(times[2] - times[1]).toBeGreaterThanOrEqual(400);
			} finally {
				await server.close();
			}
		},
	);
});
