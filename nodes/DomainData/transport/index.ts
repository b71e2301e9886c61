/**
 * The one place where the package talks HTTP. Every request of both nodes goes through `apiRequest`
 * (JSON) or `readNdjsonStream` (ndjsonSource.ts: the NDJSON lines of a stream, resumed after drops), and so
 * through the same rules:
 * - the address comes from the credential's Base URL (baseUrl.ts) and every path segment is encoded;
 * - 429, 500, 502, 503, 504 and dropped connections are tried again with backoff and Retry-After (retry.ts);
 * - every failure becomes a NodeApiError that says what to do and never holds the API key (answerErrors.ts,
 *   networkFailures.ts).
 * The service's interface, as this client implements it: docs/service-interface.md.
 */
import type { IDataObject } from 'n8n-workflow';

import { unexpectedBodyError } from './answerErrors';
import { send, type Answer } from './send';
import type { ApiRequest, DomainDataFunctions } from './request';

// The rest of the transport's surface (lint keeps every caller outside transport/ on this index).
export { KEY_ECHO_DESCRIPTION, unexpectedAnswerError } from './answerErrors';
export { cursorValue, JsonInteger, parseJsonExact } from './json';
export { classifyNetworkCode, isTransientError } from './networkFailures';
export { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_REQUEST_DEADLINE_MS, MAX_TIMER_MS } from './idle';
export { DEFAULT_MAX_ATTEMPTS, type RetryTiming } from './retry';
export { credentialSecret, type ApiRequest, type DomainDataFunctions } from './request';
export { bytesPerLine, excerpt, type LineBlock } from './ndjson';
export { readNdjsonStream, type LineRange, type NdjsonStreamOptions } from './ndjsonSource';

/** Sends a JSON request and returns the service's JSON answer. */
export async function apiRequest<T>(this: DomainDataFunctions, request: ApiRequest): Promise<T> {
	const answer = (await send.call(this, request, { stream: false })) as Answer;
	return jsonObject(this, answer) as T;
}

/**
 * Like apiRequest, but a 404 of the service (its own `{"error": ...}` answer) resolves to undefined:
 * for lookups where "not in the index" is an answer, not a failure.
 */
export async function apiRequestOrNotFound<T>(this: DomainDataFunctions, request: ApiRequest): Promise<T | undefined> {
	const answer = await send.call(this, request, { stream: false, allowNotFound: true });
	return answer === undefined ? undefined : (jsonObject(this, answer) as T);
}

/** Every answer of the service is a JSON object; anything else came from something else (a wrong Base URL). */
function jsonObject(context: DomainDataFunctions, answer: Answer): IDataObject {
	const { body } = answer;
	if (body && typeof body === 'object' && !Array.isArray(body)) return body as IDataObject;
	throw unexpectedBodyError(context.getNode(), answer.context, 'the answer is not a JSON object');
}
