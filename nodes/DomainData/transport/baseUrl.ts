/**
 * URL rules of the transport: where the service lives (from the credential's Base URL) and how a path is
 * built so that no value (a domain name, a dataset label) can change the endpoint or the query.
 */

/** Every endpoint of the service lives below this path. */
export const API_PATH = '/json/api/v1';

export type BaseUrlResult =
	| {
			ok: true;
			/** Origin and path prefix followed by /json/api/v1, without a trailing slash. */
			root: string;
			/** The address as error messages show it (no user info, no API path). */
			shown: string;
	  }
	| { ok: false; problem: string };

/**
 * Reads the credential's Base URL. A trailing slash and a trailing /json/api/v1 are tolerated, so that
 * both the address of the service and the API root copied from its documentation work. The credential's
 * test request applies the same rules in an n8n expression (see DomainDataApi.credentials.ts).
 */
export function resolveBaseUrl(value: unknown): BaseUrlResult {
	const text = typeof value === 'string' ? value.trim() : '';
	if (!text) {
		return { ok: false, problem: 'The Base URL of the Domain Data credential is empty' };
	}
	if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
		return {
			ok: false,
			problem: `The Base URL "${text}" of the Domain Data credential must start with https:// or http://`,
		};
	}
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		return {
			ok: false,
			problem: `The Base URL "${text}" of the Domain Data credential is not a valid address`,
		};
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		return {
			ok: false,
			problem:
				`The Base URL of the Domain Data credential must start with https:// or http:// (it starts with ` +
				`${url.protocol}//)`,
		};
	}
	// A user name or password in the address would be sent as basic authentication: never what is meant,
	// and echoing the address would show it; name the problem without the value.
	if (url.username || url.password) {
		return {
			ok: false,
			problem: 'The Base URL of the Domain Data credential must not contain a user name or password',
		};
	}
	if (url.search || url.hash) {
		return {
			ok: false,
			problem:
				`The Base URL "${url.origin}${url.pathname}" of the Domain Data credential must not contain a query ` +
				`(?...) or a fragment (#...)`,
		};
	}
	const prefix = url.pathname
		.replace(/\/+$/, '')
		.replace(/\/json\/api\/v1$/i, '')
		.replace(/\/+$/, '');
	const shown = url.origin + prefix;
	return { ok: true, root: shown + API_PATH, shown };
}

/**
 * Encodes one path segment. `encodeURIComponent` turns "/", "?", "#" and "%" into escapes, but leaves
 * "." and ".." as they are, and URL parsers remove such dot-segments (also their %2E spellings): an empty,
 * "." or ".." segment could move the request to another endpoint, so it has no encoding (undefined).
 */
export function encodePathSegment(segment: string): string | undefined {
	if (segment === '' || /^(?:\.|%2e){1,2}$/i.test(segment)) return undefined;
	return encodeURIComponent(segment);
}
