/**
 * The one place where the package talks HTTP: JSON requests (`apiRequest`) and NDJSON streams (`readNdjsonStream`)
 * under one retry policy, with errors that say what to do and never hold the API key (docs/service-interface.md).
 */
import type { IDataObject } from 'n8n-workflow';

import { unexpectedBodyError } from './answerErrors';
import { send, type Answer } from './send';
import type { ApiRequest, DomainDataFunctions } from './request';

// The rest of the transport's surface (lint keeps every caller outside transport/ on this index).
export { KEY_ECHO_DESCRIPTION, unexpectedAnswerError } from './answerErrors';
export { cursorValue, mayHoldLongInteger, parseJsonExact } from './json';
export { classifyNetworkCode, isTransientError } from './networkFailures';
export { MAX_TIMER_MS } from './idle';
export { DEFAULT_MAX_ATTEMPTS, type RetryTiming } from './retry';
export {
	credentialSecret,
	DEFAULT_CALL_LIMITS,
	type ApiRequest,
	type CallLimits,
	type DomainDataFunctions,
} from './request';
export { excerpt, type Hash64, hash64, Hasher64, type LineSelector } from './ndjson';
export { readNdjsonStream, type LineRange, type NdjsonStreamOptions } from './ndjsonSource';

/** Sends a JSON request and returns the service's JSON answer. */
export async function apiRequest<T>(this: DomainDataFunctions, request: ApiRequest): Promise<T> {
	const answer = (await send.call(this, request, { stream: false })) as Answer;
	return jsonObject(this, answer) as T;
}

/** Like apiRequest, but the service's own 404 resolves to undefined: for lookups where "not found" is an answer. */
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
