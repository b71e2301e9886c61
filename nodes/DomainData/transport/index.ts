/** Requests to the Domain Data service (docs/service-interface.md): one retry policy, errors never holding the key. */
import { send } from './send';
import type { ApiRequest, DomainDataFunctions } from './request';

// The rest of the transport's surface (lint keeps every caller outside transport/ on this index).
export { KEY_ECHO_DESCRIPTION, unexpectedAnswerError } from './failures';
export { cursorValue, mayHoldLongInteger, parseJsonExact, withoutMembers } from './json';
export { MAX_TIMER_MS } from './idle';
export { classifyNetworkCode, DEFAULT_MAX_ATTEMPTS, isTransientError } from './retry';
export {
	cancelSignal,
	credentialSecret,
	DEFAULT_CALL_LIMITS,
	resolveTarget,
	type ApiRequest,
	type CallLimits,
	type DomainDataFunctions,
} from './request';
export { type Hash64, hash64, Hasher64 } from './hash';
export { bytesPerLine, excerpt, joinBytes, NdjsonLineSplitter } from './ndjson';
export { readNdjsonStream, type LineRange, type NdjsonStreamOptions } from './ndjsonSource';

/** Sends a JSON request and returns the service's answer, a JSON object. */
export async function apiRequest<T>(this: DomainDataFunctions, request: ApiRequest): Promise<T> {
	return (await send.call(this, request, { stream: false })) as T;
}

/** Like apiRequest, but the service's own 404 resolves to undefined: for lookups where "not found" is an answer. */
export async function apiRequestOrNotFound<T>(this: DomainDataFunctions, request: ApiRequest): Promise<T | undefined> {
	return (await send.call(this, request, { stream: false, allowNotFound: true })) as T | undefined;
}
