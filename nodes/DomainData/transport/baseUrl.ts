/** `root`: origin, path prefix and /json/api/v1, no trailing slash; `shown`: without the API path, for messages. */
export type BaseUrlResult = { ok: true; root: string; shown: string } | { ok: false; problem: string };

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
