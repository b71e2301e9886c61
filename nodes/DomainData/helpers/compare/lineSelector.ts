/**
 * Domain names read from raw NDJSON lines, without parsing them: pass 3's line selector, and the name of a
 * line the reader skipped as malformed.
 */
import type { LineSelector } from '../snapshotReader';
import { type DomainTable, NOT_FOUND } from './domainTable';

const NAME_FIRST = '{"name":"';
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SPACE = 0x20;

/**
 * Where the domain name of the NDJSON line `text.slice(start, end)` ends, when the line starts the way
 * the service writes it: `{"name":"` and a non-empty name without backslash or control character (so its
 * text is the name JSON.parse gives, from `start + 9` to the returned index, the closing quote). -1 for
 * any other shape (other key order, whitespace, escapes, an empty name). The line may still be malformed
 * after the name, or repeat the key (see repeatsName).
 */
function nameEnd(text: string, start: number, end: number): number {
	if (!text.startsWith(NAME_FIRST, start)) return -1;
	const from = start + NAME_FIRST.length;
	for (let at = from; at < end; at++) {
		const code = text.charCodeAt(at);
		if (code === QUOTE) return at === from ? -1 : at;
		if (code === BACKSLASH || code < SPACE) return -1;
	}
	return -1;
}

/** Whether `"name"` occurs again in the line after `from` (a repeated key, which JSON.parse lets win). */
function repeatsName(text: string, from: number, end: number): boolean {
	const again = text.indexOf('"name"', from);
	return again !== -1 && again < end;
}

/**
 * Pass 3's line selector: whether the line is one of `needed` (by the table's ordinal), without parsing
 * it. Pass 3 reads the snapshot of pass 1, so the line is first checked against the ordinal after the
 * previous line's (a hash compared in arrays read in order); when it is that line of pass 1 (same name),
 * JSON.parse gave pass 1 this name, so the name is right. Any other line is looked up in the table only
 * when its name is certain from the raw text (the service's shape, see nameEnd, and no later `"name"` key
 * that JSON.parse would let win). Undecidable lines are wanted: the caller parses them and decides itself.
 */
export function lineSelector(table: DomainTable, needed: (ordinal: number) => boolean): LineSelector {
	let nextOrdinal = 0;
	return function selectLine(text, start, end) {
		const close = nameEnd(text, start, end);
		if (close === -1) return true;
		const from = start + NAME_FIRST.length;
		let ordinal = nextOrdinal;
		if (!table.holds(ordinal, text, from, close)) {
			if (repeatsName(text, close, end)) return true;
			ordinal = table.find(text, from, close);
			if (ordinal === NOT_FOUND) return false;
		}
		nextOrdinal = ordinal + 1;
		return needed(ordinal);
	};
}

/** `"name"`, a colon and a JSON string, with any whitespace between. */
const NAME_MEMBER = /"name"\s*:\s*("(?:[^"\\\u0000-\u001f]|\\.)*")/;

/**
 * The domain name of a line that is no valid record (cut off, or broken after the name), when one can be
 * read: the first `"name"` member whose value is a complete JSON string. Undefined when there is none.
 */
export function readableName(line: string): string | undefined {
	const match = NAME_MEMBER.exec(line);
	if (!match) return undefined;
	try {
		const name = JSON.parse(match[1]) as string;
		return name.length > 0 ? name : undefined;
	} catch {
		return undefined;
	}
}
