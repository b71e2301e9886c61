/**
 * Where the service lives (the credential's Base URL), and path segments encoded so that no value (a domain name,
 * a dataset label) can change the endpoint or the query.
 */

export type BaseUrlResult =
	| {
			ok: true;
			/** Origin and path prefix followed by /json/api/v1, without a trailing slash. */
			root: string;
			/** The address as error messages show it (no user info, no API path). */
			shown: string;
	  }
	| { ok: false; problem: string };

const refused = (problem: string): BaseUrlResult => ({ ok: false, problem });

/**
 * Reads the credential's Base URL. A trailing slash and a trailing /json/api/v1 are tolerated (the address of the
 * service and the API root both work); the credential's test request applies the same rules.
 */
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
	const prefix = url.pathname
		.replace(/\/+$/, '')
		.replace(/\/json\/api\/v1$/i, '')
		.replace(/\/+$/, '');
	const shown = url.origin + prefix;
	return { ok: true, root: shown + '/json/api/v1', shown };
}

/**
 * One path segment, encoded; undefined for an empty, "." or ".." segment (also spelt %2E), which URL parsers
 * would resolve to another endpoint (`encodeURIComponent` leaves dots as they are).
 */
export function encodePathSegment(segment: string): string | undefined {
	if (segment === '' || /^(?:\.|%2e){1,2}$/i.test(segment)) return undefined;
	return encodeURIComponent(segment);
}
