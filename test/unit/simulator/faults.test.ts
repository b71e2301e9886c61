/**
 * Every fault control of the simulator, in process and over /__sim/faults, over real HTTP.
 */
import { request } from 'undici';
import { useSimulator } from '../../harness/simulator';
import { KEYS, startSimulator } from '../../simulator';

const API = '/json/api/v1';
const AUTH = { authorization: `Bearer ${KEYS.pro}` };
const sim = useSimulator({ domains: 1000 });

function lookupPath(rank = 1): string {
	return `${sim.url}${API}/domain/${sim.index.domainAt(rank).name}`;
}

async function lookup(rank = 1): Promise<Response> {
	return fetch(lookupPath(rank), { headers: AUTH });
}

async function bulk(): Promise<Response> {
	return fetch(`${sim.url}${API}/domain/bulk`, {
		method: 'POST',
		headers: { ...AUTH, 'content-type': 'application/json' },
		body: JSON.stringify({ domains: [sim.index.domainAt(1).name] }),
	});
}

/** Reads a stream with undici, keeping the raw chunks; `error` is set when the connection broke. */
async function readStream(query: string): Promise<{ status: number; chunks: Buffer[]; text: string; error?: Error }> {
	const response = await request(`${sim.url}${API}/historical/domain/latest${query}`, { headers: AUTH });
	const chunks: Buffer[] = [];
	let error: Error | undefined;
	try {
		for await (const chunk of response.body as AsyncIterable<Buffer>) chunks.push(chunk);
	} catch (caught) {
		error = caught as Error;
	}
	return { status: response.statusCode, chunks, text: Buffer.concat(chunks).toString('utf8'), error };
}

function expectedStream(limit: number, fields?: string, eol = '\n'): string {
	let text = '';
	for (let i = 0; i < limit; i++) text += sim.index.lineAt(i, 'latest', fields) + eol;
	return text;
}

describe('latency', () => {
	test('latencyMs delays every API response (option and fault); control endpoints are not delayed', async () => {
		sim.setFaults({ latencyMs: 120 });
		const started = performance.now();
		expect((await lookup()).status).toBe(200);
		expect(performance.now() - started).toBeGreaterThanOrEqual(100);
		expect(sim.faults().latencyMs).toBe(120);
		sim.resetFaults();
		expect(sim.faults().latencyMs).toBe(0);
		const slow = await startSimulator({ domains: 10, latencyMs: 80 });
		try {
			const t = performance.now();
			await fetch(`${slow.url}${API}/historical/domain`, { headers: AUTH });
			expect(performance.now() - t).toBeGreaterThanOrEqual(60);
			slow.resetFaults();
			expect(slow.faults().latencyMs).toBe(80);
		} finally {
			await slow.close();
		}
	});

	test('a delay-only rule slows a burst of matching requests and then stops', async () => {
		sim.setFaults({ requests: [{ delayMs: 100, count: 1, endpoint: 'get' }] });
		const started = performance.now();
		const response = await lookup();
		expect(response.status).toBe(200);
		expect(performance.now() - started).toBeGreaterThanOrEqual(80);
		expect(sim.calls('get')[0].fault).toBe('delay');
		expect(sim.faults().requests).toEqual([]);
	});
});

describe('error bursts', () => {
	test('429 burst with Retry-After in seconds, then normal answers', async () => {
		sim.setFaults({ requests: [{ status: 429, count: 2, retryAfter: 3 }] });
		for (let i = 0; i < 2; i++) {
			const response = await lookup();
			expect(response.status).toBe(429);
			expect(response.headers.get('retry-after')).toBe('3');
			expect(response.headers.get('content-type')).toMatch(/^application\/json/);
			expect(Object.keys(await response.json())).toEqual(['error']);
		}
		expect((await lookup()).status).toBe(200);
		expect(sim.calls().map((e) => e.status)).toEqual([429, 429, 200]);
		expect(sim.calls().map((e) => e.fault)).toEqual(['status:429', 'status:429', undefined]);
	});

	test('429 without Retry-After, and with Retry-After as an HTTP date', async () => {
		sim.setFaults({ requests: [{ status: 429 }, { status: 429, retryAfter: 30, retryAfterDate: true }] });
		const plain = await lookup();
		expect(plain.status).toBe(429);
		expect(plain.headers.get('retry-after')).toBeNull();
		const dated = await lookup();
		expect(dated.status).toBe(429);
		const header = dated.headers.get('retry-after') as string;
		expect(header).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
		const seconds = (Date.parse(header) - Date.now()) / 1000;
		expect(seconds).toBeGreaterThan(20);
		expect(seconds).toBeLessThanOrEqual(31);
		expect((await lookup()).status).toBe(200);
	});

	test.each([500, 502, 503, 504])('a burst of %i answers with a JSON error, then recovers', async (status) => {
		sim.setFaults({ requests: [{ status, count: 2 }] });
		for (let i = 0; i < 2; i++) {
			const response = await lookup();
			expect(response.status).toBe(status);
			const body = await response.json();
			expect(typeof body.error).toBe('string');
		}
		expect((await lookup()).status).toBe(200);
	});

	test('an HTML proxy body (text/html) and an empty body', async () => {
		sim.setFaults({
			requests: [
				{ status: 502, body: 'html' },
				{ status: 503, body: 'empty', retryAfter: 1 },
			],
		});
		const html = await lookup();
		expect(html.status).toBe(502);
		expect(html.headers.get('content-type')).toBe('text/html');
		expect(await html.text()).toBe('<html><body><h1>502 Bad Gateway</h1></body></html>');
		const empty = await lookup();
		expect(empty.status).toBe(503);
		expect(empty.headers.get('retry-after')).toBe('1');
		expect(await empty.text()).toBe('');
	});

	test('faults can be scoped to an endpoint or a path pattern; rules apply in order', async () => {
		sim.setFaults({
			requests: [
				{ status: 503, count: 2, endpoint: 'bulk' },
				{ status: 500, path: '/historical/' },
			],
		});
		expect((await lookup()).status).toBe(200);
		expect((await bulk()).status).toBe(503);
		expect((await lookup()).status).toBe(200);
		expect((await bulk()).status).toBe(503);
		expect((await bulk()).status).toBe(200);
		expect((await fetch(`${sim.url}${API}/historical/domain`, { headers: AUTH })).status).toBe(500);
		expect((await fetch(`${sim.url}${API}/historical/domain`, { headers: AUTH })).status).toBe(200);
		sim.setFaults({
			requests: [
				{ status: 503, count: 1, endpoint: ['get', 'search'] },
				{ status: 429, count: 1 },
			],
		});
		expect((await lookup()).status).toBe(503);
		expect((await lookup()).status).toBe(429);
		expect((await lookup()).status).toBe(200);
	});

	test('faults act before authentication and spend no credit', async () => {
		sim.setKey('one-credit', 'pro', 1);
		sim.setFaults({ requests: [{ status: 503 }] });
		const faulted = await fetch(lookupPath(), { headers: { authorization: 'Bearer one-credit' } });
		expect(faulted.status).toBe(503);
		expect(sim.credits('one-credit')).toBe(1);
		expect((await fetch(lookupPath(), { headers: { authorization: 'Bearer one-credit' } })).status).toBe(200);
		expect(sim.credits('one-credit')).toBe(0);
	});

	test('faults() shows what is left; invalid fault settings are rejected', () => {
		sim.setFaults({ requests: [{ status: 429, count: 3 }], streams: [{ crlf: true, count: 2 }] });
		expect(sim.faults()).toEqual({
			latencyMs: 0,
			linkBytesPerSecond: 0,
			requests: [{ status: 429, count: 3 }],
			streams: [{ crlf: true, count: 2 }],
		});
		expect(() => sim.setFaults({ requests: [{ count: 2 }] })).toThrow(/status, reset or delayMs/);
		expect(() => sim.setFaults({ requests: [{ status: 200 }] })).toThrow(/status/);
		// @ts-expect-error an endpoint the simulator does not have: the runtime check must refuse it
		expect(() => sim.setFaults({ requests: [{ status: 500, endpoint: 'nope' }] })).toThrow(/endpoint/);
		expect(() => sim.setFaults({ streams: [{ dropAfterLines: -1 }] })).toThrow(/dropAfterLines/);
		expect(() => sim.setFaults({ latencyMs: -5 })).toThrow(/latencyMs/);
		// @ts-expect-error a key the fault plan does not have: the runtime check must refuse it
		expect(() => sim.setFaults({ other: 1 })).toThrow(/other/);
	});
});

describe('connection resets', () => {
	test('the next N matching requests get the connection destroyed without a response, then normal answers', async () => {
		sim.setFaults({ requests: [{ reset: true, count: 2, endpoint: 'bulk' }] });
		await expect(bulk()).rejects.toThrow();
		await expect(bulk()).rejects.toThrow();
		expect((await bulk()).status).toBe(200);
		expect(sim.calls('bulk').map((e) => [e.status, e.fault])).toEqual([
			[0, 'reset'],
			[0, 'reset'],
			[200, undefined],
		]);
		expect(sim.calls('bulk')[0].body).toEqual({ domains: [sim.index.domainAt(1).name] });
	});
});

describe('stream faults', () => {
	test('the connection drops after N lines on the next K stream requests', async () => {
		sim.setFaults({ streams: [{ dropAfterLines: 5, count: 2 }] });
		for (let i = 0; i < 2; i++) {
			const result = await readStream('?limit=100');
			expect(result.status).toBe(200);
			expect(result.error).toBeInstanceOf(Error); // the body broke off, it did not end
			expect(result.text).toBe(expectedStream(5));
		}
		const whole = await readStream('?limit=100');
		expect(whole.error).toBeUndefined();
		expect(whole.text).toBe(expectedStream(100));
		expect(sim.calls('stream').map((e) => e.lines)).toEqual([5, 5, 100]);
		expect(sim.calls('stream')[0].fault).toBe('stream:dropAfterLines');
	});

	test('dropAfterLines 0 sends the headers and no line; beyond the snapshot it completes', async () => {
		sim.setFaults({ streams: [{ dropAfterLines: 0 }, { dropAfterLines: 50 }] });
		const nothing = await readStream('?limit=10');
		expect(nothing.status).toBe(200);
		expect(nothing.error).toBeInstanceOf(Error);
		expect(nothing.text).toBe('');
		const complete = await readStream('?limit=10');
		expect(complete.error).toBeUndefined();
		expect(complete.text).toBe(expectedStream(10));
	});

	test('a malformed line at line N; the other lines are intact and the line count is unchanged', async () => {
		sim.setFaults({ streams: [{ malformedLineAt: 3 }] });
		const { text } = await readStream('?limit=6');
		const all = text.split('\n');
		expect(all.pop()).toBe('');
		expect(all).toHaveLength(6);
		expect(() => JSON.parse(all[2])).toThrow();
		expect(sim.index.lineAt(2).startsWith(all[2])).toBe(true);
		all.forEach((line, i) => {
			if (i !== 2) expect(line).toBe(sim.index.lineAt(i));
		});
	});

	test('CRLF line endings', async () => {
		sim.setFaults({ streams: [{ crlf: true }] });
		const { text } = await readStream('?limit=20');
		expect(text).toBe(expectedStream(20, undefined, '\r\n'));
	});

	test('a last line without newline', async () => {
		sim.setFaults({ streams: [{ noFinalNewline: true }] });
		const { text } = await readStream('?limit=4');
		expect(text).toBe(expectedStream(4).slice(0, -1));
		expect(text.endsWith('}')).toBe(true);
	});

	test('chunk boundaries that split multi-byte UTF-8 characters; the bytes are unchanged', async () => {
		sim.setFaults({ streams: [{ splitUtf8: true }] });
		const { chunks, text, error } = await readStream('?limit=200');
		expect(error).toBeUndefined();
		expect(text).toBe(expectedStream(200));
		const endsInsideCharacter = (chunk: Buffer) => {
			// Walk back over continuation bytes to the lead byte and compare the sequence length.
			let i = chunk.length - 1;
			let continuation = 0;
			while (i >= 0 && (chunk[i] & 0xc0) === 0x80) {
				i--;
				continuation++;
			}
			if (i < 0 || chunk[i] < 0xc0) return false;
			const needed = chunk[i] >= 0xf0 ? 3 : chunk[i] >= 0xe0 ? 2 : 1;
			return continuation < needed;
		};
		expect(chunks.filter(endsInsideCharacter).length).toBeGreaterThan(0);
	});

	test('trickle: small pieces with pauses; the bytes are unchanged', async () => {
		sim.setFaults({ streams: [{ trickle: { chunkBytes: 64, delayMs: 3 } }] });
		const { chunks, text } = await readStream('?limit=3');
		expect(text).toBe(expectedStream(3));
		expect(chunks.length).toBeGreaterThan(3);
		expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(Buffer.byteLength(text));
	});

	test('several stream damages combine in one entry; entries are used one per stream request', async () => {
		sim.setFaults({ streams: [{ crlf: true, noFinalNewline: true, splitUtf8: true }, { malformedLineAt: 1 }] });
		expect((await readStream('?limit=30')).text).toBe(expectedStream(30, undefined, '\r\n').slice(0, -2));
		const second = (await readStream('?limit=2')).text.split('\n');
		expect(() => JSON.parse(second[0])).toThrow();
		expect((await readStream('?limit=2')).text).toBe(expectedStream(2));
	});

	test('request faults also apply to the stream endpoint before it starts', async () => {
		sim.setFaults({ requests: [{ status: 503, endpoint: 'stream', retryAfter: 2 }] });
		const refused = await readStream('?limit=2');
		expect(refused.status).toBe(503);
		expect(JSON.parse(refused.text)).toEqual({ error: expect.stringMatching(/\S/) });
		expect((await readStream('?limit=2')).text).toBe(expectedStream(2));
	});

	test('a client that goes away stops the stream (the server does not keep generating)', async () => {
		const big = await startSimulator({ domains: 2_000_000 });
		try {
			const response = await request(`${big.url}${API}/historical/domain/latest`, { headers: AUTH });
			const iterator = (response.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
			await iterator.next();
			response.body.destroy();
			for (let i = 0; i < 100 && big.calls('stream')[0].lines === undefined; i++)
				await new Promise((r) => setTimeout(r, 20));
			const entry = big.calls('stream')[0];
			expect(entry.lines).toEqual(expect.any(Number));
			expect(entry.lines).toBeLessThan(2_000_000);
		} finally {
			await big.close();
		}
	});
});

describe('/__sim/faults over HTTP', () => {
	test('POST sets, GET shows, DELETE clears; bad shapes are a 400', async () => {
		const control = `${sim.url}/__sim/faults`;
		const posted = await fetch(control, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				requests: [{ status: 502, body: 'html', endpoint: 'get', count: 1 }],
				streams: [{ trickle: {} }],
			}),
		});
		expect(posted.status).toBe(200);
		expect(await posted.json()).toEqual({
			latencyMs: 0,
			linkBytesPerSecond: 0,
			requests: [{ status: 502, body: 'html', endpoint: 'get', count: 1 }],
			streams: [{ trickle: {}, count: 1 }],
		});
		expect((await lookup()).status).toBe(502);
		expect((await (await fetch(control)).json()).requests).toEqual([]);
		expect((await fetch(control, { method: 'DELETE' })).status).toBe(200);
		expect(sim.faults().streams).toEqual([]);
		const bad = await fetch(control, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ requests: [{ status: 'x' }] }),
		});
		expect(bad.status).toBe(400);
		expect(typeof (await bad.json()).error).toBe('string');
		expect(sim.calls()).toHaveLength(1);
	});
});
