/** Names as the service indexes them (lower-case ASCII, punycode, no final dot); a line's name from its raw text. */
import type { IDataObject } from 'n8n-workflow';

type NormalizedName = { ok: true; name: string } | { ok: false; reason: string };

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
/** A host the URL parser gives back unchanged (no xn-- label; the last starts with a letter, else it may be IPv4). */
const PLAIN_HOST = /^(?!.*(?:^|\.)xn--)[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z][a-z0-9-]*\.?$/;

/**
 * The host part of a value: `https://user@Shop.Example.com:8080/p?q#f` → `shop.example.com`,
 * `jane@example.com` and `Jane Doe <jane@example.com>` → `example.com`, `münchen.de` → `xn--mnchen-3ya.de`.
 */
export function normalizeDomainName(value: unknown, options: { removeWww?: boolean } = {}): NormalizedName {
	if (typeof value !== 'string') {
		if (value === undefined || value === null) return { ok: false, reason: 'it is empty' };
		const kind = Array.isArray(value) ? 'list' : typeof value;
		return { ok: false, reason: `it is ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}, not text` };
	}
	let text = value.trim();
	if (!text) return { ok: false, reason: 'it is empty' };
	text = unwrapped(text);
	if (!text) return { ok: false, reason: 'it holds no domain name' };

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

/** `Jane Doe <jane@example.com>`, `"Doe, Jane" <jane@example.com>`: an address after a display name. */
const NAMED_ADDRESS = /^[^<>]*<([^<>]*)>$/;
/** Marks around a value in exports and mail headers, the closing one of each opening one. */
const CLOSING: Record<string, string> = { '"': '"', "'": "'", '\u201c': '\u201d', '(': ')', '<': '>' };
/** Enough for `("x.com")`; bounded, so that no value of a million parentheses costs a copy per pair. */
const MAX_UNWRAPS = 4;

/** The value inside quotes, parentheses or `<>` (CRM and CSV exports), or the address in `Name <address>`. */
function unwrapped(text: string): string {
	for (let unwraps = 0; unwraps < MAX_UNWRAPS && text.length > 1; unwraps++) {
		const last = text[text.length - 1];
		const named = last === '>' && text[0] !== '<' ? NAMED_ADDRESS.exec(text) : null;
		if (named) text = named[1].trim();
		else if (CLOSING[text[0]] === last) text = text.slice(1, -1).trim();
		else break;
	}
	return text;
}

/** Names split at commas, semicolons, white space (a text with `<`: an address list); non-text kept for the error. */
export function splitDomainList(value: unknown): unknown[] {
	if (value === undefined || value === null) return [];
	if (Array.isArray(value)) return value.flatMap((entry) => splitDomainList(entry));
	if (typeof value !== 'string') return [value];
	if (value.includes('<')) return namedEntries(value);
	return value.split(/[\s,;]+/).filter((part) => part.length > 0);
}

/** A quoted text, an address in angle brackets, a separator, a word, or a `<` that opens nothing. */
const TOKEN = /"[^"\r\n]*"|<[^<>\r\n]*>|[,;\r\n]|[^\s,;<]+|</g;
/** A word that can be an entry (a name, URL or email address): a dot, @, colon or slash inside it. */
const NAME_LIKE = /[.@:/]./;

/**
 * The entries of a text with `Name <address>` forms: `<address>` is one entry with the words before it that cannot be
 * a name (`Jane Doe`) or a quoted `"Doe, Jane"`; other words are their own entries (so a spaced list loses no name).
 */
function namedEntries(text: string): string[] {
	const entries: string[] = [];
	/** The words since the last entry or separator that may be the display name of an address after them. */
	let words: string[] = [];
	let wordsFrom = 0;
	for (const match of text.matchAll(TOKEN)) {
		const token = match[0];
		if (token.length > 1 && token[0] === '<') {
			entries.push(text.slice(words.length > 0 ? wordsFrom : match.index, match.index + token.length));
			words = [];
			continue;
		}
		const quoted = token.length > 1 && token[0] === '"' && token.endsWith('"');
		const separator = token === ',' || token === ';' || token === '\r' || token === '\n';
		if (quoted || (!separator && !NAME_LIKE.test(token))) {
			if (words.length === 0) wordsFrom = match.index;
			words.push(token);
			continue;
		}
		for (const word of words) entries.push(word);
		words = [];
		if (!separator) entries.push(token);
	}
	for (const word of words) entries.push(word);
	return entries;
}

/**
 * A reader's verdict on the line `text.slice(start, end)`, asked before parsing: true to parse it (also when unsure);
 * false to decline it (neither a record nor malformed); or the record that stands for it, handed out unparsed.
 */
export type LineSelector = (text: string, start: number, end: number) => boolean | IDataObject;

export const NAME_FIRST = '{"name":"';
const DOT = 0x2e;
/** The characters a name in normal form holds (a-z, 0-9, `-`, `.`), matched from `lastIndex` on; then its quote. */
const NORMAL_CHARS = /[a-z0-9.-]*/y;
const NORMAL_RAW_NAME = /[a-z0-9.-]*"/y;
/** Any name without escapes or control characters, then its quote. */
const RAW_NAME = /[^"\\\u0000-\u001f]*"/y;

/**
 * The closing quote of the line's name when it starts `{"name":"` with a non-empty name free of escapes and control
 * characters (as JSON.parse reads it): its position in normal form, else `~position` (below -1); -1 for other shapes.
 */
export function rawName(text: string, start: number, end: number): number {
	if (!text.startsWith(NAME_FIRST, start)) return -1;
	const from = start + NAME_FIRST.length;
	NORMAL_RAW_NAME.lastIndex = from;
	if (NORMAL_RAW_NAME.test(text) && NORMAL_RAW_NAME.lastIndex <= end) {
		const close = NORMAL_RAW_NAME.lastIndex - 1;
		if (close === from) return -1;
		return text.charCodeAt(close - 1) === DOT ? ~close : close;
	}
	// Not in normal form; an empty name (a quote at `from`) was matched above.
	RAW_NAME.lastIndex = from;
	return RAW_NAME.test(text) && RAW_NAME.lastIndex <= end ? ~(RAW_NAME.lastIndex - 1) : -1;
}

/** rawName's closing quote, the name in normal form or not (-1: the name cannot be read raw). */
export function nameEnd(text: string, start: number, end: number): number {
	const found = rawName(text, start, end);
	return found < -1 ? ~found : found;
}

/** Whether `"name"` occurs again in the line after `from` (a repeated key, which JSON.parse lets win). */
export function repeatsName(text: string, from: number, end: number): boolean {
	const again = text.indexOf('"name"', from);
	return again !== -1 && again < end;
}

/** Whether `text.slice(start, end)` is a name as normalizeDomainName leaves it: a-z, 0-9, `-`, `.`, no final dot. */
export function isNormalName(text: string, start = 0, end = text.length): boolean {
	NORMAL_CHARS.lastIndex = start;
	NORMAL_CHARS.test(text);
	return NORMAL_CHARS.lastIndex >= end && (end === start || text.charCodeAt(end - 1) !== DOT);
}
