/** What a request of the package is, and what it needs before it is sent: address (the Base URL rules), key, path. */
import type { IDataObject, IExecuteFunctions, ILoadOptionsFunctions, IPollFunctions } from 'n8n-workflow';

import { operationError } from '../errors';
import { DEFAULT_MAX_ATTEMPTS, type RetryBudget } from './retry';

export type DomainDataFunctions = IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions;

/** The limits a user sets on an item's calls: read once by readCallLimits (actions/common.ts), handed down whole. */
export interface CallLimits {
	/** Requests in a row without progress before giving up. */
	maxAttempts: number;
	/** No byte for this long while waiting for the service counts as a dropped connection (a stream or a JSON answer). */
	idleTimeoutMs: number;
	/** A JSON answer not whole this long after the request was sent counts as failed (one that trickles). */
	deadlineMs: number;
}

/** The limits of calls made without an item's options (the dataset dropdown), and the defaults of the options. */
export const DEFAULT_CALL_LIMITS: Readonly<CallLimits> = Object.freeze({
	maxAttempts: DEFAULT_MAX_ATTEMPTS,
	idleTimeoutMs: 60_000,
	deadlineMs: 120_000,
});

export interface ApiRequest {
	method: 'GET' | 'POST';
	/** Path segments after /json/api/v1, e.g. ['domain', name]; each one is encoded. */
	path: string[];
	qs?: Record<string, string | number>;
	body?: IDataObject;
	/** The description of a 400 error, e.g. a hint to lower Page Size. */
	badRequestDescription?: string;
	/** DEFAULT_CALL_LIMITS when absent. */
	limits?: CallLimits;
	/** The budget of a read of several requests (a stream and its resumes); else one of this request's own. */
	budget?: RetryBudget;
	itemIndex?: number;
	/** Told before each wait for another try (callers that run calls side by side hold back new ones). */
	onRetry?: () => void;
}

/** The credential's service: `root` for requests, `shown` (its Base URL without the API path) for messages. */
export async function resolveTarget(this: DomainDataFunctions, itemIndex?: number) {
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

/** The credential's API key, only so that callers can keep it out of what they build from the service's texts. */
export async function credentialSecret(this: DomainDataFunctions): Promise<string | undefined> {
	const credentials = await this.getCredentials<{ apiKey?: string }>('domainDataApi');
	return typeof credentials.apiKey === 'string' ? credentials.apiKey : undefined;
}

export function encodePath(this: DomainDataFunctions, request: ApiRequest): string {
	// URL parsers resolve "", "." and ".." (also spelt %2E) to another endpoint; encodeURIComponent leaves dots.
	const unsendable = request.path.find((segment) => segment === '' || /^(?:\.|%2e){1,2}$/i.test(segment));
	if (unsendable !== undefined) {
		throw operationError(
			this.getNode(),
			`The value "${unsendable}" cannot be sent to the Domain Data service: it is empty, "." or ".."`,
			{ itemIndex: request.itemIndex },
		);
	}
	return request.path.map((segment) => '/' + encodeURIComponent(segment)).join('');
}

/** The signal of a cancelled execution (older n8n versions offer none). */
export function cancelSignal(context: DomainDataFunctions): AbortSignal | undefined {
	return (context as { getExecutionCancelSignal?: () => AbortSignal | undefined }).getExecutionCancelSignal?.();
}

/** `root`: origin, path prefix and /json/api/v1, no trailing slash; `shown`: without the API path, for messages. */
type BaseUrlResult = { ok: true; root: string; shown: string } | { ok: false; problem: string };

const refused = (problem: string): BaseUrlResult => ({ ok: false, problem });

/** Reads the credential's Base URL, a trailing /json/api/v1 tolerated (the credential's test has the same rules). */
export function resolveBaseUrl(value: unknown): BaseUrlResult {
	const text = typeof value === 'string' ? value.trim() : '';
	if (!text) return refused('The Base URL of the Domain Data credential is empty');
	if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
		return refused(`The Base URL "${text}" of the Domain Data credential must start with https:// or http://`);
	}
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		return refused(`The Base URL "${text}" of the Domain Data credential is not a valid address`);
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		return refused(
			'The Base URL of the Domain Data credential must start with https:// or http:// ' +
				`(it starts with ${url.protocol}//)`,
		);
	}
	// A user name or password would be sent as basic authentication, never what is meant: named without the value.
	if (url.username || url.password) {
		return refused('The Base URL of the Domain Data credential must not contain a user name or password');
	}
	if (url.search || url.hash) {
		return refused(
			`The Base URL "${url.origin}${url.pathname}" of the Domain Data credential must not contain a query ` +
				'(?...) or a fragment (#...)',
		);
	}
	const shown = url.origin + url.pathname.replace(/\/*(?:\/json\/api\/v1\/*)?$/i, '');
	return { ok: true, root: shown + '/json/api/v1', shown };
}
