/** JSON with integers beyond 2^53 kept exact (`JSON.parse` rounds them: quoted first); cursors sent back as digits. */

/** Digits in a row that an integer beyond 2^53 needs: without such a run, JSON.parse is exact. */
const LONG_RUN = 16;
const MAX_SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

const isDigit = (code: number) => code >= 0x30 && code <= 0x39;
const isSpace = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;

/** Whether a run of digits (no sign, no leading zero) is an integer that a JS number cannot hold exactly. */
function beyondSafeInteger(digits: string): boolean {
	const { length } = MAX_SAFE_DIGITS;
	return digits.length > length || (digits.length === length && digits > MAX_SAFE_DIGITS);
}

/** `text` with every integer literal beyond 2^53 (outside strings) written as a string of its digits. */
function quoteLongIntegers(text: string): string {
	let out = '';
	let copied = 0;
	let at = 0;
	while (at < text.length) {
		const code = text.charCodeAt(at);
		if (code === QUOTE || (code !== MINUS && !isDigit(code))) {
			at = code === QUOTE ? stringEnd(text, at) : at + 1;
			continue;
		}
		const start = at;
		const digitsFrom = code === MINUS ? at + 1 : at;
		for (at = digitsFrom; at < text.length && isDigit(text.charCodeAt(at)); at++);
		const next = text[at];
		if (next === '.' || next === 'e' || next === 'E') {
			// A fraction or an exponent: a floating-point number, left to JSON.parse.
			while (at < text.length && /[\d.eE+-]/.test(text[at])) at++;
			continue;
		}
		if (beyondSafeInteger(text.slice(digitsFrom, at))) {
			out += `${text.slice(copied, start)}"${text.slice(start, at)}"`;
			copied = at;
		}
	}
	return copied === 0 ? text : out + text.slice(copied);
}

/** JSON.parse, except that integers beyond 2^53 become strings of their exact digits (a record's `id`, a cursor's). */
export function parseJsonExact(text: string): unknown {
	return JSON.parse(mayHoldLongInteger(text) ? quoteLongIntegers(text) : text) as unknown;
}

/** Whether `text` may hold an integer beyond 2^53: a run of 16 digits holds one of every 16 positions, read alone. */
export function mayHoldLongInteger(text: string): boolean {
	for (let probe = LONG_RUN - 1; probe < text.length; probe += LONG_RUN) {
		if (!isDigit(text.charCodeAt(probe))) continue;
		let [start, end] = [probe, probe + 1];
		while (start > 0 && isDigit(text.charCodeAt(start - 1))) start--;
		while (end < text.length && isDigit(text.charCodeAt(end))) end++;
		if (end - start >= LONG_RUN) return true;
	}
	return false;
}

/** An integer the service wrote with more digits than a number holds: serialised as these digits. */
class JsonInteger {
	constructor(readonly digits: string) {}
}

/** A search cursor's value as it goes back: a string of digits beyond 2^53 came as an integer (see parseJsonExact). */
export function cursorValue(value: unknown): unknown {
	if (typeof value !== 'string') return value;
	const match = /^(-?)([1-9]\d*)$/.exec(value);
	return match && beyondSafeInteger(match[2]) ? new JsonInteger(value) : value;
}

/** A request body for n8n: the object itself, or, when it holds a JsonInteger, its JSON text with those digits. */
export function requestBody<T extends object>(body: T | undefined): T | string | undefined {
	const marker = `\u0000integer-${Math.random().toString(36).slice(2)}:`;
	let holdsInteger = false;
	const text = JSON.stringify(body, (_key, value: unknown) => {
		if (!(value instanceof JsonInteger)) return value;
		holdsInteger = true;
		return marker + value.digits;
	});
	if (!holdsInteger) return body;
	return text.replace(new RegExp(`"\\\\u0000${marker.slice(1)}(-?\\d+)"`, 'g'), '$1');
}

/** The index just past the string that opens at `at` (a quote), escapes included. */
function stringEnd(text: string, at: number): number {
	for (let next = at + 1; next < text.length; next++) {
		const code = text.charCodeAt(next);
		if (code === BACKSLASH) next++;
		else if (code === QUOTE) return next + 1;
	}
	return text.length;
}

/** The index just past the JSON value that starts at `at`. */
function valueEnd(text: string, at: number, end: number): number {
	let depth = 0;
	for (let next = at; next < end; next++) {
		const code = text.charCodeAt(next);
		const closes = code === CLOSE_BRACE || code === CLOSE_BRACKET;
		if (code === QUOTE) next = stringEnd(text, next) - 1;
		else if (code === OPEN_BRACE || code === OPEN_BRACKET) depth++;
		else if (depth === 0 && (closes || code === COMMA || isSpace(code))) return next;
		else if (closes && --depth === 0) return next + 1;
	}
	return end;
}

/**
 * The JSON object `text.slice(start, end)` without its top-level members named in `keys` (compared decoded), every
 * other byte as written; a removed member takes the separator before it (after it, when it is the first).
 */
export function withoutMembers(text: string, start: number, end: number, keys: ReadonlySet<string>): string {
	let at = start;
	const skipSpaces = () => {
		while (at < end && isSpace(text.charCodeAt(at))) at++;
	};
	skipSpaces();
	if (text.charCodeAt(at) !== OPEN_BRACE) return text.slice(start, end);
	at++;
	skipSpaces();
	let out = text.slice(start, at);
	let previousEnd = at;
	let keptAny = false;
	while (at < end && text.charCodeAt(at) === QUOTE) {
		const memberStart = at;
		const keyEnd = stringEnd(text, at);
		const raw = text.slice(at + 1, keyEnd - 1);
		const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
		at = keyEnd;
		skipSpaces();
		at++; // the colon
		skipSpaces();
		at = valueEnd(text, at, end);
		if (!keys.has(key)) {
			out += (keptAny ? text.slice(previousEnd, memberStart) : '') + text.slice(memberStart, at);
			keptAny = true;
		}
		previousEnd = at;
		skipSpaces();
		if (text.charCodeAt(at) === COMMA) at++;
		skipSpaces();
	}
	return out + text.slice(previousEnd, end);
}
