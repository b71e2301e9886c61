/** Lines judged from their raw text, unparsed: the selectors of passes 2 and 3, and the name of a skipped line. */
import type { IDataObject } from 'n8n-workflow';

import { nameEnd, NAME_FIRST, repeatsName } from '../domainSet';
import type { LineSelector } from '../../transport';
import { type DomainTable, NOT_FOUND } from './domainTable';

/**
 * Pass 3's selector: whether the line is one of `needed` (by ordinal). The read is pass 1's again, so the line is
 * first checked against the ordinal after the previous line's (arrays read in order); any other line is looked up
 * only when its raw name is certain (no later `"name"` key). Undecidable lines are wanted: the caller parses them.
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

/**
 * A line of the older snapshot that is, byte for byte, the newer snapshot's line of the same domain: the record that
 * stands for it in the read (its name, and the ordinal of the newer line).
 */
export class SameLine implements IDataObject {
	[key: string]: string | number;

	constructor(
		readonly name: string,
		readonly ordinal: number,
	) {}
}

/**
 * Pass 2's selector: a line with a plain raw name whose bytes are those of the newer snapshot's line of that name
 * stands as a SameLine, unparsed (pass 1 parsed and judged those very bytes: no change, no crossed filter).
 */
export function sameLineSelector(table: DomainTable): LineSelector {
	return function selectLine(text, start, end) {
		const close = nameEnd(text, start, end);
		if (close === -1) return true;
		const from = start + NAME_FIRST.length;
		const ordinal = table.find(text, from, close);
		if (ordinal === NOT_FOUND || !table.sameLine(ordinal, text, start, end)) return true;
		return new SameLine(text.slice(from, close), ordinal);
	};
}

/** `"name"`, a colon and a JSON string, with any whitespace between. */
const NAME_MEMBER = /"name"\s*:\s*("(?:[^"\\\u0000-\u001f]|\\.)*")/;

/** The name of a line that is no valid record, when a complete `"name"` member can be read from it. */
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
