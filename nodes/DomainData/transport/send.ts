/**
 * Sends one request under the retry policy (retry.ts) and the timeouts (idle.ts), and reads what a caller
 * may see of the answer: a stream's body as chunks, a JSON answer whole (capped) and parsed.
 */
import type { IHttpRequestOptions, IN8nHttpFullResponse, INode, NodeApiError } from 'n8n-workflow';

import { buildApiError, containsSecret, holdsSecret, maskServiceText } from '../errors';
import { keyEchoError, statusError, unexpectedBodyError, type FailedAnswer, type FailureContext } from './answerErrors';
import { parseJsonExact, requestBody } from './json';
import { classifyNetworkCode, networkError, networkErrorCode, networkFailureLabel } from './networkFailures';
import { clip, readServiceMessage } from './serviceMessage';
import { BodyTooLargeError, isAsyncIterable, JSON_BODY_LIMIT, readHead, readWhole } from './body';
import {
	answerWithin,
	DEFAULT_IDLE_TIMEOUT_MS,
	DEFAULT_REQUEST_DEADLINE_MS,
	formatSeconds,
	IdleTimeoutError,
	RequestDeadlineError,
	streamSocketTimeoutMs,
	withIdleTimeout,
} from './idle';
import { cancelSignal, encodePath, header, resolveTarget, type ApiRequest, type DomainDataFunctions } from './request';
import { RETRYABLE_STATUSES, RetryBudget } from './retry';

export interface Answer {
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
export async function send(
	this: DomainDataFunctions,
	request: ApiRequest,
	mode: { stream: boolean; allowNotFound?: boolean },
): Promise<Answer | undefined> {
	const node = this.getNode();
	const target = await resolveTarget.call(this, request.itemIndex);
	const path = encodePath.call(this, request);
	const idleMs = request.timeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
	const deadlineMs = request.deadlineMs ?? DEFAULT_REQUEST_DEADLINE_MS;
	const budget = request.budget ?? new RetryBudget(request.maxAttempts, request.retryTiming, cancelSignal(this));
	const context: FailureContext = {
		method: request.method,
		path,
		shown: target.shown,
		attempts: 0,
		itemIndex: request.itemIndex,
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
			// n8n's HTTP client applies `timeout` to a silent socket, also while the caller pauses a stream's body:
			// a stream gets a long one, and withIdleTimeout counts silence only while the node waits for a chunk.
			timeout: mode.stream ? streamSocketTimeoutMs(idleMs) : idleMs,
		};
		if (request.body !== undefined) options.headers = { ...options.headers, 'content-type': 'application/json' };

		let failed: Failed;
		/** A 2xx answer that is not the service's and not worth another try: thrown after the network's catch. */
		let refused: NodeApiError | undefined;
		const sentAt = Date.now();
		try {
			const pending = this.helpers.httpRequestWithAuthentication.call(this, 'domainDataApi', options);
			const waitMs = mode.stream ? idleMs : deadlineMs;
			const response = await answerWithin(pending as Promise<IN8nHttpFullResponse>, waitMs, closeBody);
			if (response === undefined)
				throw mode.stream ? new IdleTimeoutError(idleMs) : new RequestDeadlineError(deadlineMs);
			const deadline = mode.stream ? undefined : { at: sentAt + deadlineMs, ms: deadlineMs };
			const body = isAsyncIterable(response.body) ? withIdleTimeout(response.body, idleMs, deadline) : response.body;
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
			// No answer in time: named as n8n's own timeout names it (a stream), or as the missed deadline.
			if (error instanceof RequestDeadlineError) failed = { idle: error };
			else if (error instanceof IdleTimeoutError) failed = { code: 'ECONNABORTED' };
			// n8n wraps axios's error (which holds the request headers, so the key) into a NodeApiError:
			// keep only the system error code.
			else failed = { code: networkErrorCode(error) };
		}
		if (refused) throw refused;

		const kind = failed.idle ? 'dropped' : classifyNetworkCode(failed.code);
		const wait = budget.afterFailure({
			label: failed.answer ? `HTTP ${failed.answer.status}` : (failed.idle?.label ?? networkFailureLabel(failed.code)),
			retryable: failed.answer ? RETRYABLE_STATUSES.has(failed.answer.status) : kind !== 'fatal',
			unreachable: !failed.answer && kind === 'unreachable',
			retryAfter: failed.retryAfter,
		});

		if (wait === undefined) {
			context.attempts = budget.requests;
			context.failureSummary = budget.kindsMet > 1 ? budget.summary() : undefined;
			context.retryAfterNote = budget.retryAfterNote();
			if (failed.idle instanceof RequestDeadlineError) throw deadlineError(node, failed.idle, context);
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
			`Domain Data: ${failed.answer ? `HTTP ${failed.answer.status}` : (failed.idle?.label ?? failed.code)} on ` +
				`${request.method} ${path}; request ${attempt + 1} of at most ${budget.maxAttempts} in ${wait.ms} ms`,
		);
		request.onRetry?.();
		await budget.wait(wait);
	}
}

/** Closes the body of an answer that came after the node stopped waiting for it. */
function closeBody(late: IN8nHttpFullResponse): void {
	(late?.body as { destroy?: () => void } | undefined)?.destroy?.();
}

/** A JSON answer that was still not whole at its deadline, on every try. */
function deadlineError(node: INode, error: RequestDeadlineError, context: FailureContext): NodeApiError {
	const tries = context.attempts > 1 ? ` (${context.attempts} tries)` : '';
	return buildApiError(node, {
		itemIndex: context.itemIndex,
		transient: true,
		message:
			`The Domain Data service at ${context.shown} did not send its whole answer within ` +
			`${formatSeconds(error.ms)}${tries}`,
		description:
			'The answer kept arriving too slowly (a service or proxy that trickles). Try again later; if the service is ' +
			'just slow, raise "Request Deadline" in the options.',
	});
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
			return {
				ok: false,
				refused: unexpectedBodyError(
					node,
					answer.context,
					`the answer is larger than ` + `${JSON_BODY_LIMIT / (1024 * 1024)} MB`,
				),
			};
		}
		if (error instanceof IdleTimeoutError) return { ok: false, failed: { idle: error } };
		return { ok: false, failed: { code: networkErrorCode(error) ?? 'ECONNRESET' } };
	}
	// Checked on the text as it came, so that no field of a parsed answer can carry the key into an output.
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

/** The body of a 2xx stream answer, unless it is something else than the service's records. */
export async function ndjsonBody(context: DomainDataFunctions, answer: Answer): Promise<AsyncIterable<Uint8Array>> {
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
