/**
 * JSON as the service writes it, with integers beyond 2^53 kept exact: `JSON.parse` rounds them and Node 20 gives
 * no access to a number's source text, so such literals become strings of their digits before parsing; a search
 * cursor that holds one is sent back as the same digits (`JsonInteger`), not as a string.
 */

/** Digits in a row that an integer beyond 2^53 needs: without such a run, JSON.parse is exact. */
const LONG_RUN = 16;
const MAX_SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

const isDigit = (code: number) => code >= ZERO && code <= NINE;

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
		if (code === QUOTE) {
			// Skip the string, escapes included.
			for (at++; at < text.length; at++) {
				const inner = text.charCodeAt(at);
				if (inner === BACKSLASH) at++;
				else if (inner === QUOTE) break;
			}
			at++;
			continue;
		}
		if (code !== MINUS && !isDigit(code)) {
			at++;
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

function holdsJsonInteger(value: unknown): boolean {
	if (value instanceof JsonInteger) return true;
	if (value === null || typeof value !== 'object') return false;
	return Object.values(value).some(holdsJsonInteger);
}

/** A request body for n8n: the object itself, or, when it holds a JsonInteger, its JSON text with those digits. */
export function requestBody<T extends object>(body: T | undefined): T | string | undefined {
	if (body === undefined || !holdsJsonInteger(body)) return body;
	const marker = `\u0000integer-${Math.random().toString(36).slice(2)}:`;
	const text = JSON.stringify(body, (_key, value: unknown) =>
		value instanceof JsonInteger ? marker + value.digits : value,
	);
	return text.replace(new RegExp(`"\\\\u0000${marker.slice(1)}(-?\\d+)"`, 'g'), '$1');
}
