/**
 * The one place where the package talks HTTP. Every request of both nodes goes through `apiRequest`
 * (JSON) or `apiStream` (NDJSON body as byte chunks), and so through the same rules:
 * - the address comes from the credential's Base URL (baseUrl.ts) and every path segment is encoded;
 * - 429, 500, 502, 503, 504 and dropped connections are tried again with backoff and Retry-After (retry.ts);
 * - every failure becomes a NodeApiError that says what to do and never holds the API key (errors.ts).
 */
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IPollFunctions,
} from 'n8n-workflow';

import { DEFAULT_MAX_ATTEMPTS } from '../actions/common';
import { encodePathSegment, resolveBaseUrl } from './baseUrl';
import {
	classifyNetworkCode,
	networkError,
	networkErrorCode,
	operationError,
	readServiceMessage,
	statusError,
	unexpectedBodyError,
	type FailedAnswer,
	type FailureContext,
} from './errors';
import { MAX_ATTEMPTS_UNREACHABLE, RETRY_TIMING, RETRYABLE_STATUSES, planWait, waitFor } from './retry';

export { containsSecret, isTransientError, redact } from './errors';

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
	/** How many times to try in all before giving up on 429, 5xx and dropped connections. */
	maxAttempts?: number;
	itemIndex?: number;
	/** Give up on an answer that does not start within this time (JSON requests only). Default 2 minutes. */
	timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;
/** Enough of an error body to read `{"error": ...}` or a proxy's page title; the rest is not read. */
const ERROR_BODY_LIMIT = 64 * 1024;

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

function attemptsFor(request: ApiRequest): number {
	const wanted = Math.floor(Number(request.maxAttempts ?? DEFAULT_MAX_ATTEMPTS));
	return Number.isFinite(wanted) && wanted >= 1 ? wanted : 1;
}

function cancelSignal(context: DomainDataFunctions): AbortSignal | undefined {
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

function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array | string> {
	return (
		!!value &&
		typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
	);
}

/** Reads the small error body of a streamed request (and so releases its connection). */
async function readErrorBody(body: unknown): Promise<unknown> {
	if (!isAsyncIterable(body)) return body;
	const decoder = new TextDecoder();
	let text = '';
	let size = 0;
	try {
		for await (const chunk of body) {
			if (typeof chunk === 'string') {
				text += chunk;
				size += chunk.length;
			} else {
				text += decoder.decode(chunk, { stream: true });
				size += chunk.byteLength;
			}
			// Leaving the loop destroys the rest of the body.
			if (size >= ERROR_BODY_LIMIT) break;
		}
	} catch {
		// The body broke off: the status alone has to tell the story.
	}
	return text + decoder.decode();
}

interface Answer {
	status: number;
	statusText?: string;
	headers: unknown;
	body: unknown;
	/** What error messages need to know about the request. */
	context: FailureContext;
}

/**
 * Sends one request, trying again on 429, 500, 502, 503, 504 and connections that broke or could not be
 * made, and returns the first 2xx answer. Any other outcome throws an error that names what to do.
 * A 404 with the service's own error body resolves to undefined when `allowNotFound` is set.
 */
async function send(
	this: DomainDataFunctions,
	request: ApiRequest,
	mode: { stream: boolean; allowNotFound?: boolean },
): Promise<Answer | undefined> {
	const node = this.getNode();
	const target = await resolveTarget.call(this, request.itemIndex);
	const path = encodePath.call(this, request);
	const maxAttempts = attemptsFor(request);
	const signal = cancelSignal(this);
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

	for (let attempt = 1; ; attempt++) {
		// A fresh options object per try: n8n's helpers add headers and remove empty bodies in place.
		const options: IHttpRequestOptions = {
			method: request.method,
			url: target.root + path,
			qs: request.qs,
			body: request.body,
			json: !mode.stream,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			// The bearer key stays with the service's own address, also when a proxy redirects elsewhere.
			sendCredentialsOnCrossOriginRedirect: false,
			...(mode.stream ? { encoding: 'stream' as const } : { timeout: request.timeoutMs ?? DEFAULT_TIMEOUT_MS }),
		};

		let answer: Answer | undefined;
		let code: string | undefined;
		try {
			const response = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				'domainDataApi',
				options,
			)) as IN8nHttpFullResponse;
			answer = {
				status: response.statusCode,
				statusText: response.statusMessage,
				headers: response.headers,
				body: response.body,
				context,
			};
		} catch (error) {
			// n8n wraps axios's error (which holds the request headers, so the key) into a NodeApiError:
			// keep only the system error code.
			code = networkErrorCode(error);
		}

		if (answer && answer.status >= 200 && answer.status < 300) return answer;

		context.attempts = attempt;
		let failed: FailedAnswer | undefined;
		if (answer) {
			failed = {
				status: answer.status,
				statusText: answer.statusText,
				body: mode.stream ? await readErrorBody(answer.body) : answer.body,
				contentType: header(answer.headers, 'content-type'),
			};
		}

		const kind = classifyNetworkCode(code);
		const retryable = failed ? RETRYABLE_STATUSES.has(failed.status) : kind !== 'fatal';
		const allowed = !failed && kind === 'unreachable' ? Math.min(maxAttempts, MAX_ATTEMPTS_UNREACHABLE) : maxAttempts;

		if (!retryable || attempt >= allowed) {
			if (!failed) throw networkError(node, code, context);
			// Only the service's own "not found" answer means "not in the index"; a 404 page of some other
			// server at a wrong Base URL stays an error.
			if (
				failed.status === 404 &&
				mode.allowNotFound &&
				readServiceMessage(failed.body, failed.contentType).fromService
			) {
				return undefined;
			}
			throw statusError(node, failed, context);
		}

		const wait = planWait(attempt, failed ? header(answer?.headers, 'retry-after') : undefined);
		context.retryAfterNote =
			wait.capped && wait.requestedMs !== undefined
				? ` The service asked to wait ${Math.ceil(wait.requestedMs / 1000)} s before trying again; the node waits at most ${RETRY_TIMING.maxRetryAfterMs / 1000} s.`
				: undefined;
		this.logger.debug(
			`Domain Data: ${failed ? `HTTP ${failed.status}` : code} on ${request.method} ${path}; try ${attempt + 1} of ${allowed} in ${wait.ms} ms`,
		);
		await waitFor(wait.ms, signal);
	}
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
 * Opens a streamed GET and returns its body as byte chunks once the service answered 2xx. Opening the
 * stream gets the retries and error mapping of apiRequest; a connection that breaks while the body is
 * read is the caller's to handle (`isTransientError` recognises it).
 */
export async function apiStream(
	this: DomainDataFunctions,
	request: ApiRequest,
): Promise<AsyncIterable<Uint8Array>> {
	const answer = (await send.call(this, request, { stream: true })) as Answer;
	if (isAsyncIterable(answer.body)) return answer.body as AsyncIterable<Uint8Array>;
	throw unexpectedBodyError(this.getNode(), answer.context, 'the answer has no readable body');
}
