/**
 * The transport over real HTTP through n8n-core's execution context: URL rules, status mapping, retries
 * and their timing (read from the simulator's request log), streams, and that the API key never shows.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { NodeOperationError } from 'n8n-workflow';

import {
	apiRequest,
	apiRequestOrNotFound,
	isTransientError,
	readNdjsonStream,
	type ApiRequest,
	type CallLimits,
	DEFAULT_CALL_LIMITS,
	type NdjsonStreamOptions,
} from '../../../nodes/DomainData/transport';
import { readServiceMessage } from '../../../nodes/DomainData/transport/failures';
import {
	backoffDelay,
	parseRetryAfter,
	planWait,
	RETRY_TIMING,
	RetryBudget,
} from '../../../nodes/DomainData/transport/retry';
import { createExecuteContext } from '../../harness/n8n';
import { useSimulator } from '../../harness/simulator';
import { KEYS } from '../../simulator';

const SECRET = 'sk-live-9f8e7d6c5b4a-SECRET';
const API = '/json/api/v1';

const sim = useSimulator({ domains: 500 });

beforeEach(() => {
	sim.setKey(SECRET, 'pro');
});

type NodeError = Error & {
	description?: string;
	httpCode?: string | null;
	context?: Record<string, unknown>;
	errorResponse?: unknown;
	cause?: unknown;
};

async function call<T = unknown>(
	request: ApiRequest,
	credentials: { apiKey?: string; baseUrl?: string } = {},
): Promise<T> {
	const { context } = await createExecuteContext({
		parameters: { resource: 'domain', operation: 'get', domain: 'example.com' },
		credentials: { apiKey: credentials.apiKey ?? SECRET, baseUrl: credentials.baseUrl ?? sim.url },
	});
	return (await apiRequest.call(context, request)) as T;
}

async function failure(
	request: ApiRequest,
	credentials: { apiKey?: string; baseUrl?: string } = {},
	run: typeof apiRequest | typeof apiRequestOrNotFound = apiRequest,
): Promise<NodeError> {
	const { context } = await createExecuteContext({
		parameters: { resource: 'domain', operation: 'get', domain: 'example.com' },
		credentials: { apiKey: credentials.apiKey ?? SECRET, baseUrl: credentials.baseUrl ?? sim.url },
	});
	try {
		await (run as typeof apiRequest).call(context, request);
	} catch (error) {
		expectNoSecret(error, credentials.apiKey ?? SECRET);
		return error as NodeError;
	}
	throw new Error('expected the request to fail');
}

/** The key in none of the ways an error is shown, logged or stored. */
function expectNoSecret(error: unknown, secret: string): void {
	const e = error as NodeError;
	const views = [
		e.message,
		String(e.description),
		JSON.stringify(e),
		JSON.stringify(e.errorResponse ?? null),
		JSON.stringify(e.context ?? null),
		inspect(e.cause, { depth: 20 }),
		inspect(e, { depth: 20, showHidden: true }),
		String(e.stack),
	];
	for (const view of views) expect(view).not.toContain(secret);
}

const getRequest = (name: string, limits: Partial<CallLimits> = {}): ApiRequest => ({
	method: 'GET',
	path: ['domain', name],
	limits: withLimits({ maxAttempts: 1, ...limits }),
});

/** The call limits of a test: the defaults but for `limits`. */
const withLimits = (limits: Partial<CallLimits>): CallLimits => ({ ...DEFAULT_CALL_LIMITS, ...limits });

describe('URL rules', () => {
	test.each(['../historical/domain', 'a/b', 'x?y', 'x#y', '#', '%2F', '..%2Fhistorical', 'a b', '...'])(
		'the name %j stays one path segment of /domain/<name>',
		async (name) => {
			const { context } = await createExecuteContext({
				parameters: { resource: 'domain', operation: 'get', domain: 'example.com' },
				credentials: { apiKey: SECRET, baseUrl: sim.url },
			});
			// The service's own 404 for that one name (undefined), not a 404 of some other path.
			await expect(apiRequestOrNotFound.call(context, getRequest(name))).resolves.toBeUndefined();
			const [entry] = sim.calls();
			expect(entry.status).toBe(404);
			expect(sim.calls()).toHaveLength(1);
			expect(entry.endpoint).toBe('get');
			expect(entry.path).toBe(`${API}/domain/${encodeURIComponent(name)}`);
			expect(entry.query).toEqual({});
			expect(entry.method).toBe('GET');
		},
	);

	test.each(['..', '.', '%2e%2e', '%2E.', ''])('the dot-segment %j is refused before any request', async (name) => {
		const error = await failure(getRequest(name));
		expect(error.name).toBe('NodeOperationError');
		expect(error.message).toContain('cannot be sent');
		expect(sim.calls()).toHaveLength(0);
	});

	test.each([
		['', '/'],
		['/', '/'],
		['///', '/'],
		['/json/api/v1', '/'],
		['/json/api/v1/', '/'],
		['/JSON/API/V1', '/'],
	])('Base URL with the tail %j reaches /json/api/v1', async (tail) => {
		const answer = await call<{ domain: { name: string } }>(getRequest(sim.index.domainAt(1).name), {
			baseUrl: `  ${sim.url}${tail}  `,
		});
		expect(answer.domain.name).toBe(sim.index.domainAt(1).name);
		expect(sim.calls()[0].path).toBe(`${API}/domain/${sim.index.domainAt(1).name}`);
	});

	test.each([
		['ftp://127.0.0.1/', 'must start with https:// or http://'],
		['127.0.0.1:8080', 'must start with https:// or http://'],
		['not a url', 'must start with https:// or http://'],
		['https://not a host/', 'is not a valid address'],
		['', 'is empty'],
		['http://127.0.0.1:1/?x=1', 'must not contain a query'],
		['http://someone:pa55word@127.0.0.1:1/', 'must not contain a user name or password'],
	])('Base URL %j is refused with a clear message', async (baseUrl, text) => {
		const error = await failure(getRequest('example.com'), { baseUrl });
		expect(error.name).toBe('NodeOperationError');
		expect(error.message).toContain(text);
		expect(error.message).not.toContain('pa55word');
		expect(sim.calls()).toHaveLength(0);
	});

	test('the bearer key is sent as n8n applies the credential; bodies are JSON', async () => {
		await call({ method: 'POST', path: ['domain', 'bulk'], body: { domains: ['example.com'] } });
		const [entry] = sim.calls('bulk');
		expect(entry.headers.authorization).toBe(`Bearer ${SECRET}`);
		expect(entry.headers['content-type']).toMatch(/^application\/json/);
		expect(entry.body).toEqual({ domains: ['example.com'] });
	});
});

describe('statuses become NodeApiErrors that say what to do', () => {
	test('400: the service reason, no retry', async () => {
		const names = Array.from({ length: 101 }, (_, i) => `n${i}.com`);
		const error = await failure({
			method: 'POST',
			path: ['domain', 'bulk'],
			body: { domains: names },
			badRequestDescription: 'Hint X',
		});
		expect(error.name).toBe('NodeApiError');
		expect(error.httpCode).toBe('400');
		expect(error.message).toBe(
			'The service rejected the request: Too many domains: 101 given, at most 100 per request.',
		);
		expect(error.description).toBe('Hint X');
		expect(sim.calls('bulk')).toHaveLength(1);
	});

	test('401: the key was rejected, check the credential; never the key itself', async () => {
		const wrong = 'sk-wrong-0123456789-SECRET';
		const error = await failure(getRequest('example.com', { maxAttempts: 4 }), { apiKey: wrong });
		expect(error.httpCode).toBe('401');
		expect(error.message).toBe('The Domain Data service rejected the API key');
		expect(error.description).toContain('Check the API Key of the Domain Data credential');
		expect(error.description).toContain('Invalid API key.');
		expect(sim.calls()).toHaveLength(1);
	});

	test('402: credits used up', async () => {
		const error = await failure(getRequest('example.com', { maxAttempts: 4 }), { apiKey: KEYS.exhausted });
		expect(error.httpCode).toBe('402');
		expect(error.message).toBe('The request credits of this Domain Data account are used up');
		expect(error.description).toContain('monthly allowance');
		expect(sim.calls()).toHaveLength(1);
	});

	test('403: the plan lacks the feature', async () => {
		const error = await failure(
			{ method: 'GET', path: ['historical', 'domain'], limits: withLimits({ maxAttempts: 4 }) },
			{ apiKey: KEYS.basic },
		);
		expect(error.httpCode).toBe('403');
		expect(error.message).toBe('The plan of this Domain Data account does not include this feature');
		expect(error.description).toContain('historical data feature');
		expect(sim.calls()).toHaveLength(1);
	});

	test('404: no retry, the service words kept; a 404 of an unknown endpoint points at the Base URL', async () => {
		const notIndexed = await failure(getRequest('not-indexed.com', { maxAttempts: 4 }));
		expect(notIndexed.httpCode).toBe('404');
		expect(notIndexed.message).toBe(
			`The address ${sim.url} has no Domain Data endpoint GET /json/api/v1/domain/not-indexed.com (404)`,
		);
		expect(notIndexed.description).toContain('The service said: "Domain not found: not-indexed.com".');
		expect(sim.calls()).toHaveLength(1);

		const wrongBase = await failure(
			{ method: 'POST', path: ['domain', 'search'], body: { pageSize: 1 } },
			{ baseUrl: `${sim.url}/some/prefix` },
		);
		expect(wrongBase.httpCode).toBe('404');
		expect(wrongBase.message).toBe(
			`The address ${sim.url}/some/prefix has no Domain Data endpoint POST /json/api/v1/domain/search (404)`,
		);
		expect(wrongBase.description).toContain('Check the Base URL');
	});

	test('apiRequestOrNotFound: the service 404 is an answer (undefined), other statuses are errors', async () => {
		const { context } = await createExecuteContext({
			parameters: { resource: 'domain', operation: 'get', domain: 'example.com' },
			credentials: { apiKey: SECRET, baseUrl: sim.url },
		});
		await expect(apiRequestOrNotFound.call(context, getRequest('not-indexed.com'))).resolves.toBeUndefined();
		const found = (await apiRequestOrNotFound.call(context, getRequest(sim.index.domainAt(2).name))) as {
			domain: { rank: number };
		};
		expect(found.domain.rank).toBe(2);
		sim.setFaults({ requests: [{ status: 404, body: 'html' }] });
		const error = await failure(getRequest('x.com'), {}, apiRequestOrNotFound);
		expect(error.message).toContain('has no Domain Data endpoint');
	});

	test('429 after the retries: says it is still rate limited and what to do', async () => {
		sim.setFaults({ requests: [{ status: 429, count: 10 }] });
		const error = await failure(getRequest('example.com', { maxAttempts: 2 }));
		expect(error.httpCode).toBe('429');
		expect(error.message).toBe('The Domain Data service is still rate limiting the requests after 2 tries (429)');
		expect(error.description).toContain('lower Concurrency, or raise Max Attempts');
		expect(sim.calls()).toHaveLength(2);
		expect(isTransientError(error)).toBe(true);
	});

	test.each([500, 502, 503, 504])('%i: retried, then a clear service failure', async (status) => {
		sim.setFaults({ requests: [{ status, count: 10, message: `upstream trouble ${status}` }] });
		const error = await failure(getRequest('example.com', { maxAttempts: 2 }));
		expect(error.httpCode).toBe(String(status));
		expect(error.message).toMatch(
			new RegExp(`^The Domain Data service failed with ${status} [A-Za-z -]+ after 2 tries$`),
		);
		expect(error.description).toContain(`The service said: "upstream trouble ${status}"`);
		expect(sim.calls()).toHaveLength(2);
	});

	test("a proxy's HTML 502 page: its title, never the HTML", async () => {
		sim.setFaults({ requests: [{ status: 502, count: 10, body: 'html' }] });
		const error = await failure(getRequest('example.com', { maxAttempts: 2 }));
		expect(error.httpCode).toBe('502');
		expect(error.message).toBe('The Domain Data service failed with 502 Bad Gateway after 2 tries');
		expect(error.description).toContain('The answer was: "502 Bad Gateway"');
		expect(`${error.message} ${error.description}`).not.toMatch(/<|>/);
	});

	test('an empty error body still gives a message', async () => {
		sim.setFaults({ requests: [{ status: 503, count: 10, body: 'empty' }] });
		const error = await failure(getRequest('example.com', { maxAttempts: 1 }));
		expect(error.message).toBe('The Domain Data service failed with 503 Service Unavailable');
		expect(error.description).not.toContain('said');
	});

	test('a service message that echoes the key is redacted', async () => {
		sim.setFaults({ requests: [{ status: 400, message: `Key ${SECRET} is not allowed here` }] });
		const error = await failure(getRequest('example.com'));
		expect(error.message).toBe('The service rejected the request: Key *** is not allowed here');
	});

	test('no retry for 400, 401, 402, 403, 404', async () => {
		for (const status of [400, 401, 402, 403, 404]) {
			sim.clearLog();
			sim.setFaults({ requests: [{ status, count: 5 }] });
			const error = await failure(getRequest('example.com', { maxAttempts: 4 }));
			expect(error.httpCode).toBe(String(status));
			expect(sim.calls()).toHaveLength(1);
		}
	});
});

describe('retries and their timing', () => {
	const gaps = () => {
		const times = sim.calls().map((entry) => entry.time);
		return times.slice(1).map((time, i) => time - times[i]);
	};

	test('without Retry-After: capped exponential backoff with jitter (at least half of each step)', async () => {
		sim.setFaults({ requests: [{ status: 503, count: 3 }] });
		const answer = await call<{ domain: { rank: number } }>(getRequest(sim.index.domainAt(4).name, { maxAttempts: 4 }));
		expect(answer.domain.rank).toBe(4);
		expect(sim.calls().map((entry) => entry.status)).toEqual([503, 503, 503, 200]);
		const [first, second, third] = gaps();
		expect(first).toBeGreaterThanOrEqual(RETRY_TIMING.baseDelayMs / 2);
		expect(second).toBeGreaterThanOrEqual(RETRY_TIMING.baseDelayMs);
		expect(third).toBeGreaterThanOrEqual(RETRY_TIMING.baseDelayMs * 2);
	});

	test('Retry-After in seconds is honoured', async () => {
		sim.setFaults({ requests: [{ status: 429, count: 1, retryAfter: 2 }] });
		await call(getRequest(sim.index.domainAt(1).name, { maxAttempts: 2 }));
		expect(sim.calls().map((entry) => entry.status)).toEqual([429, 200]);
		expect(gaps()[0]).toBeGreaterThanOrEqual(2000);
	});

	test('Retry-After as an HTTP date is honoured', async () => {
		sim.setFaults({ requests: [{ status: 503, count: 1, retryAfter: 3, retryAfterDate: true }] });
		await call(getRequest(sim.index.domainAt(1).name, { maxAttempts: 2 }));
		expect(sim.calls().map((entry) => entry.status)).toEqual([503, 200]);
		// An HTTP date has whole seconds: the wait is at least the time left to that second.
		expect(gaps()[0]).toBeGreaterThanOrEqual(2000);
	});

	test('an absurd Retry-After is capped, and the error says so', async () => {
		// The 60 s cap, shortened for the test in the timing of the request's own retry budget.
		const budget = new RetryBudget({ maxAttempts: 2 }, undefined, { ...RETRY_TIMING, maxRetryAfterMs: 1500 });
		sim.setFaults({ requests: [{ status: 429, count: 5, retryAfter: 3600 }] });
		const error = await failure({ ...getRequest('example.com', { maxAttempts: 2 }), budget });
		expect(sim.calls()).toHaveLength(2);
		expect(gaps()[0]).toBeGreaterThanOrEqual(1500);
		expect(error.description).toContain(
			'The service asked to wait 3600 s before trying again; the node waits at most 1.5 s.',
		);
	});

	test('a dropped connection is retried; too many drops give a clear, transient error', async () => {
		sim.setFaults({ requests: [{ reset: true, count: 2 }] });
		const answer = await call<{ domain: { rank: number } }>(getRequest(sim.index.domainAt(3).name, { maxAttempts: 3 }));
		expect(answer.domain.rank).toBe(3);
		expect(sim.calls().map((entry) => entry.fault ?? entry.status)).toEqual(['reset', 'reset', 200]);

		sim.clearLog();
		sim.setFaults({ requests: [{ reset: true, count: 10 }] });
		const error = await failure(getRequest('example.com', { maxAttempts: 2 }));
		expect(sim.calls()).toHaveLength(2);
		expect(error.message).toBe(
			`The connection to the Domain Data service at ${sim.url} broke before an answer came after 2 tries`,
		);
		expect(error.description).toContain('ECONNRESET');
		expect(error.httpCode ?? null).toBeNull();
		expect(isTransientError(error)).toBe(true);
	});

	test('an answer that does not come in time is retried, then named', async () => {
		sim.setFaults({ requests: [{ delayMs: 1500, count: 2 }] });
		const error = await failure(getRequest('example.com', { maxAttempts: 2, idleTimeoutMs: 300 }));
		expect(error.message).toBe(`The Domain Data service at ${sim.url} did not answer in time after 2 tries`);
		expect(sim.calls()).toHaveLength(2);
	});

	test('nothing listening: a couple of tries, then a message that names the Base URL', async () => {
		const closed = createServer();
		await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
		const port = (closed.address() as AddressInfo).port;
		await new Promise((resolve) => closed.close(resolve));
		const error = await failure(getRequest('example.com', { maxAttempts: 10 }), {
			baseUrl: `http://127.0.0.1:${port}/json/api/v1/`,
		});
		expect(error.message).toBe(
			`Could not connect to the Domain Data service at http://127.0.0.1:${port} after 3 tries`,
		);
		expect(error.description).toContain('ECONNREFUSED');
		expect(error.description).toContain('Check the Base URL');
	});

	test('a certificate that cannot be verified (self-signed): the TLS message with its code, one try', async () => {
		const folder = mkdtempSync(join(tmpdir(), 'dd-tls-'));
		const [key, cert] = [join(folder, 'key.pem'), join(folder, 'cert.pem')];
		const subject = ['-subj', '/CN=127.0.0.1', '-days', '1', '-nodes'];
		execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-keyout', key, '-out', cert, ...subject], {
			stdio: 'ignore',
		});
		let handshakes = 0;
		const server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => res.end());
		server.on('connection', () => handshakes++);
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
		try {
			const error = await failure(getRequest('example.com', { maxAttempts: 4 }), { baseUrl: url });
			expect(error.message).toBe(`The TLS certificate of ${url} could not be verified (DEPTH_ZERO_SELF_SIGNED_CERT)`);
			expect(error.description).toContain('NODE_EXTRA_CA_CERTS');
			expect(handshakes).toBe(1);
		} finally {
			server.close();
			rmSync(folder, { recursive: true, force: true });
		}
	});

	test('an API key with a line break: an error that names the key, not the Base URL, and no call', async () => {
		const error = await failure(getRequest(sim.index.domainAt(1).name), { apiKey: `${SECRET}\n` });
		expect(error.message).toBe(
			'The API Key of the Domain Data credential holds a character that cannot be sent in a request header',
		);
		expect(error.description).not.toContain('Base URL');
		expect(sim.calls()).toHaveLength(0);
	});
});

describe('answers that do not come from the service', () => {
	let server: Server;
	let other: Server;
	let base = '';
	let otherBase = '';
	const seenByOther: Array<string | undefined> = [];

	beforeAll(async () => {
		other = createServer((req, res) => {
			seenByOther.push(req.headers.authorization);
			res.setHeader('content-type', 'application/json');
			res.end(JSON.stringify({ domain: { name: 'elsewhere.com' } }));
		});
		await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
		otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
		server = createServer((req, res) => {
			if (req.url?.includes('redirect')) {
				res.writeHead(302, { location: `${otherBase}/json/api/v1/domain/elsewhere.com` });
				res.end();
				return;
			}
			res.setHeader('content-type', 'text/html');
			res.end('<!doctype html><html><head><title>Welcome</title></head><body>A web site</body></html>');
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	});
	afterAll(async () => {
		await new Promise((resolve) => server.close(resolve));
		await new Promise((resolve) => other.close(resolve));
	});

	test('a web page answered with 200 is named as a wrong Base URL', async () => {
		const error = await failure(getRequest('example.com'), { baseUrl: base });
		expect(error.message).toBe(
			`The address ${base} did not answer like the Domain Data service (the answer is not a JSON object)`,
		);
		expect(error.description).toContain('Check the Base URL');
	});

	test('a redirect to another origin does not take the key along', async () => {
		const answer = await call<{ domain: { name: string } }>(getRequest('redirect.com'), { baseUrl: base });
		expect(answer.domain.name).toBe('elsewhere.com');
		expect(seenByOther).toEqual([undefined]);
	});
});

describe('readNdjsonStream', () => {
	/** The errors `notFound` made: what the service's 404 becomes is the caller's to say. */
	let toldNotFound: Error[] = [];
	beforeEach(() => {
		toldNotFound = [];
	});

	async function streamContext(apiKey = SECRET) {
		const { context } = await createExecuteContext({
			parameters: { resource: 'dataset', operation: 'list' },
			credentials: { apiKey, baseUrl: sim.url },
		});
		return context;
	}

	/** Reads a stream to its end: its lines, and the resumes it counted. */
	async function readLines(options: Partial<NdjsonStreamOptions> = {}, apiKey = SECRET) {
		const counts = { reconnects: 0 };
		const lines: string[] = [];
		const context = await streamContext(apiKey);
		const notFound = async () => {
			toldNotFound.push(
				new NodeOperationError(context.getNode(), `The dataset "${options.label ?? 'latest'}" does not exist`),
			);
			return toldNotFound[toldNotFound.length - 1];
		};
		const stream = readNdjsonStream.call(context, {
			label: 'latest',
			qs: { limit: 3, fields: 'name,rank' },
			notFound,
			cancelled: () => new Error('cancelled'),
			counts,
			limits: DEFAULT_CALL_LIMITS,
			...options,
		});
		for await (const range of stream) {
			for (let index = range.from; index < range.block.count; index++) lines.push(range.block.line(index));
		}
		return { lines, counts };
	}

	async function streamFailure(options: Partial<NdjsonStreamOptions> = {}, apiKey = SECRET): Promise<NodeError> {
		try {
			await readLines(options, apiKey);
		} catch (error) {
			expectNoSecret(error, apiKey);
			return error as NodeError;
		}
		throw new Error('expected the stream to fail');
	}

	test('opens a streamed GET and yields its lines', async () => {
		const { lines, counts } = await readLines();
		expect(lines).toEqual([0, 1, 2].map((i) => sim.index.lineAt(i, 'latest', 'name,rank')));
		expect(sim.calls('stream')[0].path).toBe(`${API}/historical/domain/latest`);
		expect(sim.calls('stream')[0].query).toEqual({ limit: '3', fields: 'name,rank' });
		expect(counts).toEqual({ reconnects: 0 });
		expect(sim.calls('stream')).toHaveLength(1);
	});

	test('the opening is retried (503, reset) with the same rules', async () => {
		sim.setFaults({
			requests: [
				{ status: 503, count: 1, endpoint: 'stream' },
				{ reset: true, count: 1, endpoint: 'stream' },
			],
		});
		const { lines } = await readLines({ limits: withLimits({ maxAttempts: 3 }) });
		expect(lines).toHaveLength(3);
		expect(sim.calls('stream').map((entry) => entry.fault ?? entry.status)).toEqual(['status:503', 'reset', 200]);
	});

	test('a non-2xx answer is read from the stream for its {"error": ...}', async () => {
		const forbidden = await streamFailure({}, KEYS.basic);
		expect(forbidden.httpCode).toBe('403');
		expect(forbidden.description).toContain('does not include the historical data feature');

		// The service's 404: the caller's error, after one request.
		sim.clearLog();
		const unknown = await streamFailure({ label: '1999-01-01' });
		expect(toldNotFound).toHaveLength(1);
		expect(unknown).toBe(toldNotFound[0]);
		expect(unknown.message).toBe('The dataset "1999-01-01" does not exist');
		expect(sim.calls('stream').map((entry) => entry.status)).toEqual([404]);

		sim.setFaults({ requests: [{ status: 502, count: 5, body: 'html', endpoint: 'stream' }] });
		const proxy = await streamFailure({ limits: withLimits({ maxAttempts: 2 }) });
		expect(proxy.message).toBe('The Domain Data service failed with 502 Bad Gateway after 2 tries');
	});

	test('a 404 of another server (HTML) is an error that names the endpoint; 403 stays an error', async () => {
		sim.setFaults({ requests: [{ status: 404, body: 'html', endpoint: 'stream' }] });
		const proxy = await streamFailure();
		expect(toldNotFound).toHaveLength(0);
		expect(proxy.message).toContain('has no Domain Data endpoint GET /json/api/v1/historical/domain/latest (404)');
		const forbidden = await streamFailure({ label: '1999-01-01' }, KEYS.basic);
		expect(forbidden.httpCode).toBe('403');
	});

	test('a connection dropped while reading is recognised by isTransientError and resumed', async () => {
		sim.setFaults({ streams: [{ dropAfterLines: 2, trickle: { chunkBytes: 64, delayMs: 1 } }] });
		const { lines, counts } = await readLines({
			qs: { limit: 50, fields: 'name,rank' },
			limits: withLimits({ maxAttempts: 2 }),
		});
		// Resumed (only a transient failure is): every line once, in two requests.
		expect(lines).toEqual(Array.from({ length: 50 }, (_, i) => sim.index.lineAt(i, 'latest', 'name,rank')));
		expect(counts).toEqual({ reconnects: 1 });
		expect(sim.calls('stream')).toHaveLength(2);
		expect(isTransientError(new Error('something else'))).toBe(false);
		expect(isTransientError(undefined)).toBe(false);
	});
});

describe('pure rules of retry and error reading', () => {
	test('Retry-After: seconds, HTTP dates, garbage; the cap', () => {
		const now = Date.parse('2025-06-30T12:00:00Z');
		expect(parseRetryAfter('5', now)).toBe(5000);
		expect(parseRetryAfter(' 0 ', now)).toBeUndefined();
		expect(parseRetryAfter(['2'], now)).toBe(2000);
		expect(parseRetryAfter('Mon, 30 Jun 2025 12:00:07 GMT', now)).toBe(7000);
		expect(parseRetryAfter('Mon, 30 Jun 2025 11:00:00 GMT', now)).toBeUndefined();
		expect(parseRetryAfter('soon', now)).toBeUndefined();
		expect(parseRetryAfter(undefined, now)).toBeUndefined();
		expect(planWait(1, '3600', RETRY_TIMING, now)).toEqual({ ms: 60_000, requestedMs: 3_600_000, capped: true });
		expect(planWait(1, '2', RETRY_TIMING, now)).toEqual({ ms: 2000, requestedMs: 2000, capped: false });
	});

	test('backoff: equal jitter between half and all of a doubling step, capped at 30 s', () => {
		expect(backoffDelay(1, RETRY_TIMING, () => 0)).toBe(250);
		expect(backoffDelay(1, RETRY_TIMING, () => 1)).toBe(500);
		expect(backoffDelay(3, RETRY_TIMING, () => 0)).toBe(1000);
		expect(backoffDelay(20, RETRY_TIMING, () => 1)).toBe(30_000);
		expect(backoffDelay(20, RETRY_TIMING, () => 0)).toBe(15_000);
	});

	test('error bodies: the service JSON, a JSON text, an HTML page (title only), plain text', () => {
		expect(readServiceMessage({ error: 'Invalid API key.' })).toEqual({ text: 'Invalid API key.', fromService: true });
		expect(readServiceMessage('{"error": "x"}')).toEqual({ text: 'x', fromService: true });
		expect(
			readServiceMessage(
				'<html><head><title>502 Bad Gateway</title></head><body><h1>nginx</h1></body></html>',
				'text/html',
			),
		).toEqual({
			text: '502 Bad Gateway',
			fromService: false,
		});
		expect(readServiceMessage('<!DOCTYPE html><html><body><p>no title</p></body></html>')).toEqual({
			text: undefined,
			fromService: false,
		});
		expect(readServiceMessage('upstream   connect error\n or reset')).toEqual({
			text: 'upstream connect error or reset',
			fromService: false,
		});
		expect(readServiceMessage('')).toEqual({ fromService: false });
	});
});
