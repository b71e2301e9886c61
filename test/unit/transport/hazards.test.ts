/**
 * Dataset → Stream and JSON requests against a service that stalls, is cancelled mid-stream or sends bytes
 * that are not UTF-8 (issue 15, items 8 and 18). Each hostile server runs on 127.0.0.1 and is closed by
 * the test, which also closes any connection it left hanging.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { INodeParameters } from 'n8n-workflow';

import { normalizeDomainName } from '../../../nodes/DomainData/helpers/domainName';
import { apiRequest, type CallLimits, DEFAULT_CALL_LIMITS } from '../../../nodes/DomainData/transport';
import { startLocalServer, type LocalServer } from '../../harness/localServer';
import { createExecuteContext, readBinary, runNode, runPoll } from '../../harness/n8n';

const KEY = 'hazard-test-key-0123456789';
const LABEL = '2025-06-30';
const line = (rank: number) => JSON.stringify({ name: `site${rank}.com`, rank });

let server: LocalServer;
let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
beforeAll(async () => {
	server = await startLocalServer((req, res) => handle(req, res));
});
afterAll(async () => {
	await server.close();
});
beforeEach(() => {
	server.received.length = 0;
});

function stream(options: INodeParameters = {}, extra: { abortSignal?: AbortSignal; output?: string } = {}) {
	return runNode({
		parameters: {
			resource: 'dataset',
			operation: 'stream',
			label: LABEL,
			returnAll: true,
			output: extra.output ?? 'items',
			options,
		},
		credentials: { apiKey: KEY, baseUrl: server.url },
		abortSignal: extra.abortSignal,
	});
}

/** One JSON request (Domain → Get's) to the hostile server; its error, or undefined when it succeeded. */
async function jsonFailure(limits: Partial<CallLimits> = {}): Promise<(Error & { description?: string }) | undefined> {
	const { context } = await createExecuteContext({
		parameters: { resource: 'domain', operation: 'get', domain: 'example.com' },
		credentials: { apiKey: KEY, baseUrl: server.url },
	});
	return await apiRequest
		.call(context, {
			method: 'GET',
			path: ['domain', 'example.com'],
			limits: { ...DEFAULT_CALL_LIMITS, maxAttempts: 1, ...limits },
		})
		.then(
			() => undefined,
			(caught: Error) => caught,
		);
}

const ndjsonHeaders = (res: ServerResponse) => {
	res.writeHead(200, { 'content-type': 'application/x-ndjson' });
	res.flushHeaders();
};

describe('idle timeout (no byte for N seconds counts as a dropped connection)', () => {
	test('a stream that sends its headers and then nothing: Max Attempts requests, then an error that says so', async () => {
		handle = (_req, res) => ndjsonHeaders(res); // and then silence, until the test closes the server
		const result = await stream({ idleTimeout: 0.3, maxAttempts: 2 });
		expect(server.received).toHaveLength(2);
		expect(result.error?.message).toBe(
			`The dataset "${LABEL}" could not be read to the end: 2 requests in a row failed without new lines (2× no data for 0.3 s)`,
		);
	});

	test('a stream that stalls after some lines: the lines count as progress, then Max Attempts stalls in a row', async () => {
		handle = (_req, res) => {
			ndjsonHeaders(res);
			res.write(`${line(1)}\n${line(2)}\n`);
		};
		const result = await stream({ idleTimeout: 0.3, maxAttempts: 2 });
		// 1: two new lines, then silence; 2 and 3: the same two lines again (no progress), then silence.
		expect(server.received).toHaveLength(3);
		expect(result.error?.message).toContain('2 requests in a row failed without new lines (2× no data for 0.3 s)');
		expect(result.error?.description).toContain('2 lines had been read');
	});

	test('a stream whose answer never starts: the same idle timeout, named as no answer in time', async () => {
		handle = () => undefined; // never answers
		const result = await stream({ idleTimeout: 0.3, maxAttempts: 2 });
		expect(server.received).toHaveLength(2);
		expect(result.error?.message).toBe(`The Domain Data service at ${server.url} did not answer in time after 2 tries`);
	});

	test('a JSON answer that stalls after its headers: the same rule', async () => {
		handle = (_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.write('{"domain":');
		};
		const error = await jsonFailure({ maxAttempts: 2, idleTimeoutMs: 300 });
		expect(error?.message).toBe(`The Domain Data service at ${server.url} did not answer in time after 2 tries`);
		expect(server.received).toHaveLength(2);
	});

	test("the trigger's attached records: the same option and rule", async () => {
		handle = (req, res) => {
			if (req.url?.split('?')[0] === '/json/api/v1/historical/domain') {
				res
					.writeHead(200, { 'content-type': 'application/json' })
					.end(JSON.stringify({ datasets: [{ label: LABEL, value: 'snap_1' }] }));
				return;
			}
			ndjsonHeaders(res); // and then silence
		};
		const polled = runPoll({
			parameters: {
				event: 'newDataset',
				attachRecords: true,
				recordCount: 3,
				options: { idleTimeout: 0.3, maxAttempts: 1 },
			},
			credentials: { apiKey: KEY, baseUrl: server.url },
			staticData: {},
			mode: 'manual',
		});
		await expect(polled).rejects.toThrow('1 request in a row failed without new lines (1× no data for 0.3 s)');
		expect(server.received.map((request) => request.url?.split('?')[0])).toEqual([
			'/json/api/v1/historical/domain',
			`/json/api/v1/historical/domain/${LABEL}`,
		]);
	});

	test('a slow but steady stream is not cut: each chunk resets the idle time', async () => {
		handle = (_req, res) => {
			ndjsonHeaders(res);
			let rank = 0;
			const next = () => {
				if (res.destroyed) return;
				rank++;
				if (rank > 8) return void res.end();
				res.write(`${line(rank)}\n`);
				setTimeout(next, 100);
			};
			next();
		};
		const result = await stream({ idleTimeout: 0.3, maxAttempts: 1 });
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
		expect(server.received).toHaveLength(1);
	});
});

describe('a cancelled execution', () => {
	test('says that the execution was cancelled and how far the read got', async () => {
		let written = 0;
		handle = (_req, res) => {
			ndjsonHeaders(res);
			const next = () => {
				if (res.destroyed || written >= 2000) return void res.end();
				res.write(`${line(++written)}\n`);
				setTimeout(next, 5);
			};
			next();
		};
		const controller = new AbortController();
		const running = stream({}, { abortSignal: controller.signal });
		for (let waited = 0; written < 20 && waited < 10_000; waited += 10) await new Promise((r) => setTimeout(r, 10));
		controller.abort();
		const result = await running;
		expect(result.items).toEqual([]);
		expect(result.error?.message).toMatch(
			new RegExp(
				`^The execution was cancelled while the dataset "${LABEL}" was streaming, after [\\d,]+ records? \\([\\d,]+ lines\\)$`,
			),
		);
		expect(server.received).toHaveLength(1);
	});
});

describe('bytes that are not UTF-8: one rule for items and files', () => {
	// "caf" + 0xE9 (Latin-1 é, invalid in UTF-8) + "": both outputs hold "caf\uFFFD".
	const invalid = Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xe9]), Buffer.from('.com","rank":1}\n')]);
	const valid = Buffer.from(`${line(2)}\n`);

	test.each(['items', 'file'])('%s: U+FFFD in place of the invalid bytes', async (output) => {
		handle = (_req, res) => {
			ndjsonHeaders(res);
			res.end(Buffer.concat([invalid, valid]));
		};
		const result = await stream({}, { output });
		expect(result.error).toBeUndefined();
		const names =
			output === 'items'
				? result.items.map((item) => item.json.name)
				: (await readBinary(result.items[0]))
						.toString('utf8')
						.trim()
						.split('\n')
						.map((text) => JSON.parse(text).name);
		expect(names).toEqual(['caf\uFFFD.com', 'site2.com']);
		if (output === 'file') {
			expect(await readBinary(result.items[0])).toEqual(Buffer.from(`{"name":"caf\uFFFD.com","rank":1}\n${line(2)}\n`));
		}
	});
});

describe('messages speak English', () => {
	test.each([
		[{ a: 1 }, 'it is an object, not text'],
		[[1], 'it is a list, not text'],
		[5, 'it is a number, not text'],
	])('%j', (value, reason) => {
		expect(normalizeDomainName(value)).toEqual({ ok: false, reason });
	});
});

describe('answers that are not records (issue 15, item 11)', () => {
	test('a 200 HTML page with "Skip and Count": an error that says what came back, not an empty snapshot', async () => {
		handle = (_req, res) =>
			res
				.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
				.end('<html><head><title>Sign in to the proxy</title></head><body>…</body></html>');
		const result = await stream({ onMalformedLine: 'skip' });
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(
			`The address ${server.url} did not answer like the Domain Data service (it answered 200 with text/html instead of NDJSON records: "Sign in to the proxy")`,
		);
	});

	test('an empty 200 NDJSON body: an error, not an empty snapshot', async () => {
		handle = (_req, res) => res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end();
		const result = await stream({}, { output: 'file' });
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(`The dataset "${LABEL}" came back without any record: the answer was empty`);
	});

	test('only lines that are not records, skipped: an error that counts them', async () => {
		handle = (_req, res) =>
			res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end('<html>\n<body>busy</body>\n</html>\n');
		const result = await stream({ onMalformedLine: 'skip' });
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(
			`The dataset "${LABEL}" came back without any record: none of its 3 lines is a record (3 skipped as malformed)`,
		);
	});

	test.each(['stream', 'json'])('a %s body that claims gzip and is not: described as such', async (kind) => {
		handle = (_req, res) =>
			res
				.writeHead(200, {
					'content-type': kind === 'stream' ? 'application/x-ndjson' : 'application/json',
					'content-encoding': 'gzip',
				})
				.end(kind === 'stream' ? `${line(1)}\n`.repeat(50) : '{"domain":{"name":"example.com"}}');
		let error: (Error & { description?: string }) | undefined;
		if (kind === 'stream') {
			error = (await stream({ maxAttempts: 1 })).error;
		} else {
			error = await jsonFailure();
		}
		expect(error?.message).toBe(
			'The answer of the Domain Data service says it is compressed (Content-Encoding: gzip, deflate or br), but its bytes are not',
		);
		expect(error?.description).toContain('wrong Content-Encoding header');
	});
});

describe('error bodies are read only as far as a message needs (issue 15, item 9)', () => {
	const TOTAL = 50 * 1024 * 1024;
	/** A 502 page of TOTAL bytes, written as the client reads it; counts what the client let it send. */
	function hugeErrorPage(sent: { bytes: number; finished: boolean }) {
		return (_req: IncomingMessage, res: ServerResponse) => {
			res.writeHead(502, { 'content-type': 'text/html' });
			res.write('<html><head><title>502 Bad Gateway</title></head><body>');
			const piece = Buffer.alloc(64 * 1024, 'x');
			const pump = () => {
				while (!res.destroyed && sent.bytes < TOTAL) {
					sent.bytes += piece.length;
					if (!res.write(piece)) return void res.once('drain', pump);
				}
				if (!res.destroyed) res.end('</body></html>');
				sent.finished = !res.destroyed;
			};
			pump();
		};
	}

	test.each(['json', 'stream'])(
		'a 50 MB 502 page (%s): the error names it, and most of it is never sent',
		async (kind) => {
			const sent = { bytes: 0, finished: false };
			handle = hugeErrorPage(sent);
			let error: Error | undefined;
			if (kind === 'stream') {
				error = (await stream({ maxAttempts: 1 })).error;
			} else {
				error = await jsonFailure();
			}
			expect(error?.message).toBe('The Domain Data service failed with 502 Bad Gateway');
			// The client stopped reading after 64 KB: what the server managed to push is what the socket buffers
			// hold (a few MB at most), never the whole page.
			for (let waited = 0; !sent.finished && waited < 2000 && server.received.length > 0; waited += 50) {
				const before = sent.bytes;
				await new Promise((r) => setTimeout(r, 50));
				if (sent.bytes === before) break;
			}
			expect(sent.finished).toBe(false);
			expect(sent.bytes).toBeLessThan(TOTAL / 4);
		},
	);
});

test("the Idle Timeout option defaults to the transport's idle timeout", async () => {
	const { DEFAULT_CALL_LIMITS } = await import('../../../nodes/DomainData/transport');
	const { description } = await import('../../../nodes/DomainData/actions/dataset/stream.operation');
	const options = description.find((property) => property.name === 'options') as {
		options?: Array<{ name: string; default?: unknown }>;
	};
	expect(Number(options.options?.find((option) => option.name === 'idleTimeout')?.default) * 1000).toBe(
		DEFAULT_CALL_LIMITS.idleTimeoutMs,
	);
});
