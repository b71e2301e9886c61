/**
 * What a request of the package is, and what every request needs before it is sent: the credential's
 * address and key, the encoded path, the execution's cancel signal.
 */
import type { IDataObject, IExecuteFunctions, ILoadOptionsFunctions, IPollFunctions } from 'n8n-workflow';

import { encodePathSegment, resolveBaseUrl } from './baseUrl';
import { operationError } from '../errors';
import type { RetryBudget, RetryTiming } from './retry';

export type DomainDataFunctions = IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions;

export interface ApiRequest {
	method: 'GET' | 'POST';
	/** Path segments after /json/api/v1, for example ['domain', name]; each one is encoded here. */
	path: string[];
	qs?: Record<string, string | number>;
	body?: IDataObject;
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
	 * Idle timeout: no byte for this long while the node waits for the service (for the answer, or for the
	 * next chunk of a stream) counts as a dropped connection, retried under the retry policy. Default
	 * DEFAULT_IDLE_TIMEOUT_MS (60 s).
	 */
	timeoutMs?: number;
	/**
	 * A JSON answer that is not whole this long after the request was sent (one that trickles) counts as
	 * failed, retried under the retry policy. Default DEFAULT_REQUEST_DEADLINE_MS (2 minutes).
	 */
	deadlineMs?: number;
	/** Told before each wait for another try (callers that run calls side by side hold back new ones). */
	onRetry?: () => void;
}

export interface Target {
	root: string;
	shown: string;
	secret?: string;
}

export async function resolveTarget(this: DomainDataFunctions, itemIndex?: number): Promise<Target> {
	const credentials = await this.getCredentials<{ baseUrl?: string; apiKey?: string }>('domainDataApi');
	const resolved = resolveBaseUrl(credentials.baseUrl);
	if (!resolved.ok) {
		throw operationError(this.getNode(), resolved.problem, {
			itemIndex,
			description:
				'Open the Domain Data credential and enter the address of the service, for example ' +
				'https://api.domain-data.example.',
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

export function encodePath(this: DomainDataFunctions, request: ApiRequest): string {
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
	return typeof withSignal.getExecutionCancelSignal === 'function' ? withSignal.getExecutionCancelSignal() : undefined;
}

export function header(headers: unknown, name: string): string | undefined {
	if (!headers || typeof headers !== 'object') return undefined;
	const value = (headers as Record<string, unknown>)[name];
	if (Array.isArray(value)) return value.length ? String(value[0]) : undefined;
	return value === undefined || value === null ? undefined : String(value);
}
