/** A name, URL, email address or Unicode name as the service indexes it: lower-case ASCII, punycode, no final dot. */

type NormalizedName = { ok: true; name: string } | { ok: false; reason: string };

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
/**
 * A host the URL parser would give back unchanged: lower-case ASCII labels, none punycode (the parser checks those),
 * the last one starting with a letter (else it may read as an IPv4 number). A list of a million names is mostly
 * such names, and the parser costs several microseconds each.
 */
const PLAIN_HOST = /^(?!.*(?:^|\.)xn--)[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z][a-z0-9-]*\.?$/;

/**
 * The host part of a value: `https://user@Shop.Example.com:8080/p?q#f` → `shop.example.com`,
 * `jane@example.com` → `example.com`, `münchen.de` → `xn--mnchen-3ya.de`.
 */
export function normalizeDomainName(value: unknown, options: { removeWww?: boolean } = {}): NormalizedName {
	if (typeof value !== 'string') {
		if (value === undefined || value === null) return { ok: false, reason: 'it is empty' };
		const kind = Array.isArray(value) ? 'list' : typeof value;
		return { ok: false, reason: `it is ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}, not text` };
	}
	let text = value.trim();
	if (!text) return { ok: false, reason: 'it is empty' };

	text = text.replace(/^mailto:/i, '');
	if (!SCHEME.test(text) && !text.startsWith('//') && /^[^/?#]*@[^/?#@]*$/.test(text)) {
		// An email address: the domain is what follows the @.
		text = text.slice(text.lastIndexOf('@') + 1);
	}
	// Any scheme (ftp://, a custom one) becomes http://, so that the URL parser applies web hosts' rules (IDNA too).
	const withoutScheme = text.replace(SCHEME, '').replace(/^\/\//, '');
	let host = withoutScheme;
	if (!PLAIN_HOST.test(withoutScheme)) {
		try {
			host = new URL('http://' + withoutScheme).hostname;
		} catch {
			return { ok: false, reason: 'it is not a domain name, URL or email address' };
		}
	}
	if (host.endsWith('.')) host = host.slice(0, -1);
	if (!host) return { ok: false, reason: 'it holds no domain name' };
	if (host.startsWith('[') || /^\d+\.\d+\.\d+\.\d+$/.test(host)) {
		return { ok: false, reason: 'it is an IP address, not a domain name' };
	}
	// Websites are indexed under their registrable name.
	if ((options.removeWww ?? true) && /^www\.[^.]+\.[^.]/.test(host)) host = host.slice(4);

	const labels = host.split('.');
	if (labels.length < 2) return { ok: false, reason: 'a domain name has at least two parts, like example.com' };
	if (host.length > 253 || !labels.every((label) => LABEL.test(label)) || /^\d+$/.test(labels[labels.length - 1])) {
		return { ok: false, reason: 'it is not a valid domain name' };
	}
	return { ok: true, name: host };
}

/** Bulk Get's names: text (or texts) split at commas, semicolons, white space; non-text entries kept for the error. */
export function splitDomainList(value: unknown): unknown[] {
	if (value === undefined || value === null) return [];
	if (Array.isArray(value)) return value.flatMap((entry) => splitDomainList(entry));
	if (typeof value !== 'string') return [value];
	return value.split(/[\s,;]+/).filter((part) => part.length > 0);
}
