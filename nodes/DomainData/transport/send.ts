/** One request under retry.ts's policy and idle.ts's timeouts; every body comes as a stream, read only as needed. */
import type { IHttpRequestOptions, IN8nHttpFullResponse, INode } from 'n8n-workflow';

import { clip, containsSecret, holdsSecret, maskServiceText } from '../errors';
import {
	deadlineError,
	keyEchoError,
	networkError,
	readServiceMessage,
	statusError,
	unexpectedBodyError,
	type FailedAnswer,
	type FailureContext,
} from './failures';
import { parseJsonExact, requestBody } from './json';
import { answerWithin, IdleTimeoutError, MAX_TIMER_MS, RequestDeadlineError, withIdleTimeout } from './idle';
import {
	cancelSignal,
	DEFAULT_CALL_LIMITS,
	encodePath,
	resolveTarget,
	type ApiRequest,
	type DomainDataFunctions,
} from './request';
import { classifyNetworkCode, networkErrorCode, networkFailureLabel, RETRYABLE_STATUSES, RetryBudget } from './retry';

/** Enough of an error body to read `{"error": ...}` or a proxy's page title; the rest is not read. */
const ERROR_BODY_LIMIT = 64 * 1024;

/** No JSON answer of the service comes near this (a search page of 1000 results is about 3 MB). */
const JSON_BODY_LIMIT = 64 * 1024 * 1024;

const utf8 = new TextEncoder();

/** What the transport knows about a request that got no usable answer. */
interface Failed {
	answer?: FailedAnswer;
	/** The system error code of a connection that failed, or of a body that broke. */
	code?: string;
	/** The body of a 2xx answer stayed silent for the idle timeout, or missed the deadline. */
	idle?: IdleTimeoutError;
	retryAfter?: string;
}

type SendMode = { stream: boolean; allowNotFound?: boolean };

/** A try's outcome: the 2xx answer's body (a JSON one read whole), or what went wrong. */
type Tried = { body: unknown } | { failed: Failed };

/** What stays the same across the tries of one request. */
type Sending = { node: INode; request: ApiRequest; mode: SendMode; url: string; context: FailureContext };

/** Sends `request` until a 2xx answer comes (its body: a stream's chunks, a JSON answer parsed) or the budget ends. */
export async function send(this: DomainDataFunctions, request: ApiRequest, mode: SendMode): Promise<unknown> {
	const target = await resolveTarget.call(this, request.itemIndex);
	const path = encodePath.call(this, request);
	const budget = request.budget ?? new RetryBudget(request.limits ?? DEFAULT_CALL_LIMITS, cancelSignal(this));
	// The request's method, item and 400 description, with what the errors add.
	const context: FailureContext = { ...request, path, shown: target.shown, budget, secret: target.secret };
	const sending: Sending = { node: this.getNode(), request, mode, url: target.root + path, context };

	for (;;) {
		const attempt = budget.startRequest();
		const tried = await tryOnce.call(this, sending);
		if ('body' in tried) return tried.body;
		const { failed } = tried;
		const kind = failed.idle ? 'dropped' : classifyNetworkCode(failed.code);
		const label = failed.answer
			? `HTTP ${failed.answer.status}`
			: (failed.idle?.label ?? networkFailureLabel(failed.code));
		const wait = budget.afterFailure({
			label,
			retryable: failed.answer ? RETRYABLE_STATUSES.has(failed.answer.status) : kind !== 'fatal',
			unreachable: !failed.answer && kind === 'unreachable',
			retryAfter: failed.retryAfter,
		});
		if (wait === undefined) return givenUp(failed, sending);
		this.logger.debug(
			`Domain Data: ${label} on ${request.method} ${path}; request ${attempt + 1} of at most ` +
				`${budget.limits.maxAttempts} in ${wait.ms} ms`,
		);
		request.onRetry?.();
		await budget.wait(wait);
	}
}

async function tryOnce(this: DomainDataFunctions, { node, request, mode, url, context }: Sending): Promise<Tried> {
	const { idleTimeoutMs, deadlineMs } = request.limits ?? DEFAULT_CALL_LIMITS;
	// A fresh options object per try: n8n's helpers add headers and remove empty bodies in place.
	const options: IHttpRequestOptions = {
		method: request.method,
		url,
		qs: request.qs,
		body: requestBody(request.body),
		json: false,
		encoding: 'stream',
		headers: { accept: mode.stream ? 'application/x-ndjson, application/json' : 'application/json' },
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// The bearer key stays with the service's own address, also when a proxy redirects elsewhere.
		sendCredentialsOnCrossOriginRedirect: false,
		// n8n's client applies `timeout` to a silent socket even while a stream's body is paused: a stream gets an hour
		// or more (it only frees an abandoned socket); withIdleTimeout counts silence only while a chunk is awaited.
		timeout: mode.stream ? Math.min(MAX_TIMER_MS, Math.max(idleTimeoutMs, 60 * 60_000)) : idleTimeoutMs,
	};
	if (request.body !== undefined) options.headers = { ...options.headers, 'content-type': 'application/json' };

	const sentAt = Date.now();
	let response: IN8nHttpFullResponse | undefined;
	try {
		const pending = this.helpers.httpRequestWithAuthentication.call(this, 'domainDataApi', options);
		response = await answerWithin(pending as Promise<IN8nHttpFullResponse>, mode.stream ? idleTimeoutMs : deadlineMs);
	} catch (error) {
		// n8n wraps axios's error (which holds the request headers, so the key): keep only the system error code.
		return { failed: { code: networkErrorCode(error) } };
	}
	if (!response) {
		// No answer in time: named as n8n's own timeout names it (a stream), or as the missed deadline.
		return { failed: mode.stream ? { code: 'ECONNABORTED' } : { idle: new RequestDeadlineError(deadlineMs) } };
	}
	const { statusCode: status, headers } = response;
	const deadline = mode.stream ? undefined : { at: sentAt + deadlineMs, ms: deadlineMs };
	const body = isAsyncIterable(response.body) ? withIdleTimeout(response.body, idleTimeoutMs, deadline) : response.body;
	if (status < 200 || status >= 300) {
		const { text } = await readText(body, ERROR_BODY_LIMIT);
		const contentType = header(headers, 'content-type');
		const answer = { status, statusText: response.statusMessage, body: text, contentType };
		return { failed: { answer, retryAfter: header(headers, 'retry-after') } };
	}
	if (mode.stream) return { body: await ndjsonBody(node, context, response, body) };
	return await readJsonAnswer(node, context, body);
}

/** The end of a request the budget gives up on: the error that names what to do, or undefined for an allowed 404. */
function givenUp(failed: Failed, { node, mode, context }: Sending): undefined {
	if (failed.idle instanceof RequestDeadlineError) throw deadlineError(node, failed.idle.ms, context);
	if (!failed.answer) throw networkError(node, failed.idle ? 'ETIMEDOUT' : failed.code, context);
	// Only the service's own "not found" means "not in the index"; another server's 404 page stays an error.
	const { status, body, contentType } = failed.answer;
	if (status === 404 && mode.allowNotFound && readServiceMessage(body, contentType).fromService) return undefined;
	throw statusError(node, failed.answer, context);
}

/** Reads a 2xx JSON answer whole (capped) and parses it; a body that broke off or stalled is a failure to retry. */
async function readJsonAnswer(node: INode, context: FailureContext, body: unknown): Promise<Tried> {
	const { text, more, broke } = await readText(body, JSON_BODY_LIMIT);
	const error = broke?.error;
	if (error instanceof IdleTimeoutError) return { failed: { idle: error } };
	if (broke) return { failed: { code: networkErrorCode(error) ?? 'ECONNRESET' } };
	if (more) throw unexpectedBodyError(node, context, `the answer is larger than ${JSON_BODY_LIMIT / (1024 * 1024)} MB`);
	// The key is looked for in the text as it came, then in the parsed strings (escapes can spell it in the bytes).
	if (containsSecret(text, context.secret)) throw keyEchoError(node, context);
	let parsed: unknown;
	try {
		parsed = parseJsonExact(text);
	} catch {
		// not JSON: refused below
	}
	// Text without a backslash parses to no more than it holds.
	if (text.includes('\\') && holdsSecret(parsed, context.secret)) throw keyEchoError(node, context);
	// Every answer of the service is a JSON object; anything else came from something else (a wrong Base URL).
	if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { body: parsed };
	throw unexpectedBodyError(node, context, 'the answer is not a JSON object');
}

/** The body of a 2xx stream answer, unless it is something else than the service's records. */
async function ndjsonBody(node: INode, context: FailureContext, response: IN8nHttpFullResponse, body: unknown) {
	const contentType = header(response.headers, 'content-type');
	if (contentType !== undefined && !/json/i.test(contentType)) {
		// A proxy's or a captive portal's page: say what came instead of reading it as lines.
		const read = readServiceMessage((await readText(body, ERROR_BODY_LIMIT)).text, contentType, context.secret);
		// Masked whole before it is split or cut: a key with a ';' in it would otherwise show up to there.
		const shownType = clip(maskServiceText(contentType, context.secret).split(';')[0].trim(), 80);
		throw unexpectedBodyError(
			node,
			context,
			`it answered ${response.statusCode} with ${shownType || 'another content type'} instead of NDJSON records` +
				(read.text ? `: "${read.text}"` : ''),
		);
	}
	if (isAsyncIterable(body)) return body;
	throw unexpectedBodyError(node, context, 'the answer has no readable body');
}

function header(headers: unknown, name: string): string | undefined {
	const value = (headers as Record<string, unknown> | undefined)?.[name];
	const first: unknown = Array.isArray(value) ? value[0] : value;
	return first === undefined || first === null ? undefined : String(first);
}

function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array | string> {
	return !!value && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}

/** Up to `limit` bytes of a body as text, whether more came (the rest is not read), and the error of one that broke. */
async function readText(body: unknown, limit: number) {
	const chunks = isAsyncIterable(body) ? body : typeof body === 'string' ? [body] : [];
	const decoder = new TextDecoder();
	let text = '';
	let size = 0;
	let broke: { error: unknown } | undefined;
	try {
		for await (const chunk of chunks) {
			const bytes = typeof chunk === 'string' ? utf8.encode(chunk) : chunk;
			text += decoder.decode(bytes.subarray(0, limit - size), { stream: true });
			size += bytes.length;
			if (size > limit) break;
		}
	} catch (error) {
		broke = { error };
	}
	return { text: text + decoder.decode(), more: size > limit, broke };
}
