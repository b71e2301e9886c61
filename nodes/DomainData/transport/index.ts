/**
 * The one place where the package talks HTTP. Every request of both nodes goes through `apiRequest`
 * (JSON) or `apiStream` (NDJSON body as byte chunks), and so through the same rules:
 * - the address comes from the credential's Base URL (baseUrl.ts) and every path segment is encoded;
 * - 429, 500, 502, 503, 504 and dropped connections are tried again with backoff and Retry-After (retry.ts);
 * - every failure becomes a NodeApiError that says what to do and never holds the API key (answerErrors.ts,
 *   networkFailures.ts).
 * The service's interface, as this client implements it: docs/service-interface.md.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INode,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IPollFunctions,
	NodeApiError,
} from 'n8n-workflow';

import { encodePathSegment, resolveBaseUrl } from './baseUrl';
import { containsSecret, holdsSecret, maskServiceText, operationError } from '../errors';
import { keyEchoError, statusError, unexpectedBodyError, type FailedAnswer, type FailureContext } from './answerErrors';
import { parseJsonExact, requestBody } from './json';
import { classifyNetworkCode, networkError, networkErrorCode, networkFailureLabel } from './networkFailures';
import { clip, readServiceMessage } from './serviceMessage';
import { BodyTooLargeError, isAsyncIterable, JSON_BODY_LIMIT, readHead, readWhole } from './body';
import { DEFAULT_IDLE_TIMEOUT_MS, IdleTimeoutError, withIdleTimeout } from './idle';
import { RETRYABLE_STATUSES, RetryBudget, type RetryTiming } from './retry';

// The rest of the transport's surface (lint keeps every caller outside transport/ on this index).
export { KEY_ECHO_DESCRIPTION, unexpectedAnswerError } from './answerErrors';
export { cursorValue, JsonInteger, parseJsonExact } from './json';
export {
	classifyNetworkCode,
	isTransientError,
	isUndecodableBody,
	networkErrorCode,
	networkFailureLabel,
	undecodableBodyError,
} from './networkFailures';
export { DEFAULT_IDLE_TIMEOUT_MS, IdleTimeoutError } from './idle';
export { DEFAULT_MAX_ATTEMPTS, normalizeMaxAttempts, RETRY_TIMING, RetryBudget, type RetryTiming } from './retry';

export type DomainDataFunctions = IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions;

export interface ApiRequest {
	method: 'GET' | 'POST';
	/** Path segments after /json/api/v1, for example ['domain', name]; each one is encoded here. */
	path: string[];
	qs?: Record<string, string | number>;
	body?: IDataObject;
	/** What a 404 means in the words of the operation, e.g. `The domain "x.com" is not in the index`. */
	notFoundMessage?: string;
	/** What to do about that 404 (the error's description). */
	notFoundDescription?: string;
	/** What to do about a 400 (the error's description), e.g. a hint to lower Page Size. */
	badRequestDescription?: string;
	/** Requests in a row without progress before giving up on 429, 5xx, refused and dropped connections. */
	maxAttempts?: number;
	/**
	 * The budget of a read that makes several requests (a stream and its resumes): the requests of this call
	 * count against it. Without one, the call has a budget of its own (`maxAttempts`, `retryTiming`).
	 */
	budget?: RetryBudget;
	/** Backoff timing (tests pass a faster one); default RETRY_TIMING. */
	retryTiming?: RetryTiming;
	itemIndex?: number;
	/**
	 * Idle timeout: no byte for this long (waiting for the answer, or between two chunks of a stream) counts
	 * as a dropped connection, retried under the retry policy. Default DEFAULT_IDLE_TIMEOUT_MS (60 s).
	 */
	timeoutMs?: number;
	/** Told before each wait for another try (callers that run calls side by side hold back new ones). */
	onRetry?: () => void;
}


interface Target {
	root: string;
	shown: string;
	secret?: string;
}

async function resolveTarget(this: DomainDataFunctions, itemIndex?: number): Promise<Target> {
	const credentials = await this.getCredentials<{ baseUrl?: string; apiKey?: string }>('domainDataApi');
	const resolved = resolveBaseUrl(credentials.baseUrl);
	if (!resolved.ok) {
		throw operationError(this.getNode(), resolved.problem, {
			itemIndex,
			description:
				'Open the Domain Data credential and enter the address of the service, for example https://api.domain-data.example.',
		});
	}
	return { root: resolved.root, shown: resolved.shown, secret: credentials.apiKey };
}

/**
 * The credential's API key, only so that callers can keep it out of texts and records built from what the
 * service sent (see redact and containsSecret).
 */
export async function credentialSecret(this: DomainDataFunctions): Promise<string | undefined> {
	const credentials = await this.getCredentials<{ apiKey?: string }>('domainDataApi');
	return typeof credentials.apiKey === 'string' ? credentials.apiKey : undefined;
}

function encodePath(this: DomainDataFunctions, request: ApiRequest): string {
	let path = '';
	for (const segment of request.path) {
		const encoded = encodePathSegment(String(segment));
		if (encoded === undefined) {
			throw operationError(
				this.getNode(),
				`The value "${segment}" cannot be sent to the Domain Data service: it is empty, "." or ".."`,
				{ itemIndex: request.itemIndex },
			);
		}
		path += '/' + encoded;
	}
	return path;
}

export function cancelSignal(context: DomainDataFunctions): AbortSignal | undefined {
	const withSignal = context as { getExecutionCancelSignal?: () => AbortSignal | undefined };
	return typeof withSignal.getExecutionCancelSignal === 'function'
		? withSignal.getExecutionCancelSignal()
		: undefined;
}

function header(headers: unknown, name: string): string | undefined {
	if (!headers || typeof headers !== 'object') return undefined;
	const value = (headers as Record<string, unknown>)[name];
	if (Array.isArray(value)) return value.length ? String(value[0]) : undefined;
	return value === undefined || value === null ? undefined : String(value);
}

interface Answer {
	status: number;
	statusText?: string;
	headers: unknown;
	body: unknown;
	/** What error messages need to know about the request. */
	context: FailureContext;
}

/** What the transport knows about a request that got no usable answer. */
interface Failed {
	answer?: FailedAnswer;
	/** The system error code of a connection that failed, or of a body that broke. */
	code?: string;
	/** The body of a 2xx answer stayed silent for the idle timeout. */
	idle?: IdleTimeoutError;
	retryAfter?: string;
}

/**
 * Sends one request under the retry policy (retry.ts) and returns the first 2xx answer: for a stream, its
 * body as chunks (watched by the idle timeout); for JSON, its body read whole (capped) as text. Any other
 * outcome throws an error that names what to do. A 404 with the service's own error body resolves to
 * undefined when `allowNotFound` is set.
 */
async function send(
	this: DomainDataFunctions,
	request: ApiRequest,
	mode: { stream: boolean; allowNotFound?: boolean },
): Promise<Answer | undefined> {
	const node = this.getNode();
	const target = await resolveTarget.call(this, request.itemIndex);
	const path = encodePath.call(this, request);
	const idleMs = request.timeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
	const budget = request.budget ?? new RetryBudget(request.maxAttempts, request.retryTiming, cancelSignal(this));
	const context: FailureContext = {
		method: request.method,
		path,
		shown: target.shown,
		attempts: 0,
		itemIndex: request.itemIndex,
		notFoundMessage: request.notFoundMessage,
		notFoundDescription: request.notFoundDescription,
		badRequestDescription: request.badRequestDescription,
		secret: target.secret,
	};

	for (;;) {
		const attempt = budget.startRequest();
		// A fresh options object per try: n8n's helpers add headers and remove empty bodies in place.
		const options: IHttpRequestOptions = {
			method: request.method,
			url: target.root + path,
			qs: request.qs,
			body: requestBody(request.body),
			// Always a stream (body.ts): no body, not even an error page, is read whole before we decide.
			json: false,
			encoding: 'stream',
			headers: { accept: mode.stream ? 'application/x-ndjson, application/json' : 'application/json' },
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			// The bearer key stays with the service's own address, also when a proxy redirects elsewhere.
			sendCredentialsOnCrossOriginRedirect: false,
			// n8n's HTTP client applies `timeout` to a silent socket until the answer's headers came; the body is
			// watched by withIdleTimeout.
			timeout: idleMs,
		};
		if (request.body !== undefined) options.headers = { ...options.headers, 'content-type': 'application/json' };

		let failed: Failed;
		/** A 2xx answer that is not the service's and not worth another try: thrown after the network's catch. */
		let refused: NodeApiError | undefined;
		try {
			const response = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				'domainDataApi',
				options,
			)) as IN8nHttpFullResponse;
			const body = isAsyncIterable(response.body) ? withIdleTimeout(response.body, idleMs) : response.body;
			const answer: Answer = {
				status: response.statusCode,
				statusText: response.statusMessage,
				headers: response.headers,
				body,
				context,
			};
			if (answer.status >= 200 && answer.status < 300) {
				if (mode.stream) return answer;
				const read = await readJsonAnswer(node, answer);
				if (read.ok) return answer;
				if ('refused' in read) refused = read.refused;
				failed = read.failed ?? {};
			} else {
				failed = {
					answer: {
						status: answer.status,
						statusText: answer.statusText,
						body: await readHead(body),
						contentType: header(answer.headers, 'content-type'),
					},
					retryAfter: header(answer.headers, 'retry-after'),
				};
			}
		} catch (error) {
			// n8n wraps axios's error (which holds the request headers, so the key) into a NodeApiError:
			// keep only the system error code.
			failed = { code: networkErrorCode(error) };
		}
		if (refused) throw refused;

		const kind = failed.idle ? 'dropped' : classifyNetworkCode(failed.code);
		const wait = budget.afterFailure({
			label: failed.answer
				? `HTTP ${failed.answer.status}`
				: (failed.idle?.label ?? networkFailureLabel(failed.code)),
			retryable: failed.answer ? RETRYABLE_STATUSES.has(failed.answer.status) : kind !== 'fatal',
			unreachable: !failed.answer && kind === 'unreachable',
			retryAfter: failed.retryAfter,
		});

		if (wait === undefined) {
			context.attempts = budget.requests;
			context.failureSummary = budget.kindsMet > 1 ? budget.summary() : undefined;
			context.retryAfterNote = budget.retryAfterNote();
			if (!failed.answer) throw networkError(node, failed.idle ? 'ETIMEDOUT' : failed.code, context);
			// Only the service's own "not found" answer means "not in the index"; a 404 page of some other
			// server at a wrong Base URL stays an error.
			if (
				failed.answer.status === 404 &&
				mode.allowNotFound &&
				readServiceMessage(failed.answer.body, failed.answer.contentType).fromService
			) {
				return undefined;
			}
			throw statusError(node, failed.answer, context);
		}

		this.logger.debug(
			`Domain Data: ${failed.answer ? `HTTP ${failed.answer.status}` : (failed.idle?.label ?? failed.code)} on ${request.method} ${path}; request ${attempt + 1} of at most ${budget.maxAttempts} in ${wait.ms} ms`,
		);
		request.onRetry?.();
		await budget.wait(wait);
	}
}

/**
 * Reads a 2xx JSON answer whole (capped) and parses it into `answer.body`. A body that breaks off or stays
 * silent is a failure to retry; a body too large or not JSON is not the service's (an error at once).
 */
async function readJsonAnswer(
	node: INode,
	answer: Answer,
): Promise<{ ok: true } | { ok: false; failed: Failed } | { ok: false; refused: NodeApiError; failed?: undefined }> {
	let text: string;
	try {
		text = isAsyncIterable(answer.body) ? await readWhole(answer.body) : String(answer.body ?? '');
	} catch (error) {
		if (error instanceof BodyTooLargeError) {
			return { ok: false, refused: unexpectedBodyError(node, answer.context, `the answer is larger than ${JSON_BODY_LIMIT / (1024 * 1024)} MB`) };
		}
		if (error instanceof IdleTimeoutError) return { ok: false, failed: { idle: error } };
		return { ok: false, failed: { code: networkErrorCode(error) ?? 'ECONNRESET' } };
	}
	// The key is looked for in the parsed strings (escapes such as \/ or \u0070 can spell it in the bytes),
	// so that no field of the answer can carry it into an output; text without a backslash parses to no more.
	const secret = answer.context.secret;
	if (containsSecret(text, secret)) return { ok: false, refused: keyEchoError(node, answer.context) };
	try {
		answer.body = parseJsonExact(text);
	} catch {
		answer.body = text;
		return { ok: true };
	}
	if (text.includes('\\') && holdsSecret(answer.body, secret)) {
		return { ok: false, refused: keyEchoError(node, answer.context) };
	}
	return { ok: true };
}

/** Sends a JSON request and returns the service's JSON answer. */
export async function apiRequest<T>(this: DomainDataFunctions, request: ApiRequest): Promise<T> {
	const answer = (await send.call(this, request, { stream: false })) as Answer;
	return jsonObject(this, answer) as T;
}

/**
 * Like apiRequest, but a 404 of the service (its own `{"error": ...}` answer) resolves to undefined:
 * for lookups where "not in the index" is an answer, not a failure.
 */
export async function apiRequestOrNotFound<T>(
	this: DomainDataFunctions,
	request: ApiRequest,
): Promise<T | undefined> {
	const answer = await send.call(this, request, { stream: false, allowNotFound: true });
	return answer === undefined ? undefined : (jsonObject(this, answer) as T);
}

/** Every answer of the service is a JSON object; anything else came from something else (a wrong Base URL). */
function jsonObject(context: DomainDataFunctions, answer: Answer): IDataObject {
	const { body } = answer;
	if (body && typeof body === 'object' && !Array.isArray(body)) return body as IDataObject;
	throw unexpectedBodyError(context.getNode(), answer.context, 'the answer is not a JSON object');
}

/**
 * Opens a streamed GET and returns its body as byte chunks once the service answered 2xx with NDJSON (or
 * JSON, or no content type). Opening the stream gets the retries and error mapping of apiRequest; a
 * connection that breaks or stays silent for the idle timeout (IdleTimeoutError) while the body is read is
 * the caller's to handle, under the same retry budget (`request.budget`; `isTransientError` recognises both).
 */
export async function apiStream(
	this: DomainDataFunctions,
	request: ApiRequest,
): Promise<AsyncIterable<Uint8Array>> {
	const answer = (await send.call(this, request, { stream: true })) as Answer;
	return await ndjsonBody(this, answer);
}

/**
 * Like apiStream, but a 404 of the service (its own `{"error": ...}` answer) resolves to undefined, so that
 * the caller can say what does exist (a snapshot label that is not published) without reading messages.
 */
export async function apiStreamOrNotFound(
	this: DomainDataFunctions,
	request: ApiRequest,
): Promise<AsyncIterable<Uint8Array> | undefined> {
	const answer = await send.call(this, request, { stream: true, allowNotFound: true });
	return answer === undefined ? undefined : await ndjsonBody(this, answer);
}

/** The body of a 2xx stream answer, unless it is something else than the service's records. */
async function ndjsonBody(context: DomainDataFunctions, answer: Answer): Promise<AsyncIterable<Uint8Array>> {
	const contentType = header(answer.headers, 'content-type');
	if (contentType !== undefined && !/json/i.test(contentType)) {
		// A proxy's or a captive portal's page: say what came instead of reading it as lines.
		const head = await readHead(answer.body);
		const read = readServiceMessage(head, contentType, answer.context.secret);
		// Masked whole before it is split or cut: a key with a ';' in it would otherwise show up to there.
		const shownType = clip(maskServiceText(contentType, answer.context.secret).split(';')[0].trim(), 80);
		throw unexpectedBodyError(
			context.getNode(),
			answer.context,
			`it answered ${answer.status} with ${shownType || 'another content type'} instead of NDJSON records` +
				(read.text ? `: "${read.text}"` : ''),
		);
	}
	if (isAsyncIterable(answer.body)) return answer.body as AsyncIterable<Uint8Array>;
	throw unexpectedBodyError(context.getNode(), answer.context, 'the answer has no readable body');
}
