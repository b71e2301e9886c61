/** A read's lines, one block at a time: what each line is, whether it is kept (filter, fields), what goes out. */
import type { IDataObject } from 'n8n-workflow';

import { buildApiError, containsSecret, holdsSecret, maskServiceText, mayHoldSecret } from '../errors';
import { bytesPerLine, excerpt, KEY_ECHO_DESCRIPTION, type LineBlock, type LineRange } from '../transport';
import type { LineSelector, Read } from './snapshotReader';

/** Bytes that are not valid UTF-8 become U+FFFD (as TextDecoder makes them), in items and files alike. */
const REPLACEMENT_CHARACTER = '\uFFFD';
const utf8 = new TextEncoder();

/** Skipped line numbers remembered for messages (the count is always exact). */
const SKIPPED_LINE_NUMBERS_KEPT = 20;

/** What one body chunk gave: the records or the bytes of the lines it completed and kept. */
export interface ReadBlock {
	records: IDataObject[];
	bytes: Uint8Array[];
}

/** What is kept of a block's new lines (those before `range.from` went out before a drop); undefined if nothing. */
export function takeLines(read: Read, range: LineRange): ReadBlock | undefined {
	const { stats } = read;
	const { wanted, limit, label } = read.options;
	const { block, from } = range;
	const { starts, ends, count } = block;
	const records: IDataObject[] = [];
	// The key is looked for in the whole block once, and line by line only when the block holds it or an escape.
	const keyInBlock = block.anyText((text) => mayHoldSecret(text, read.secret)) ? read.secret : undefined;
	/** Lines of the block left out of the bytes (undefined while none is). */
	let leftOut: Uint8Array | undefined;
	const leaveOut = (index: number) => {
		(leftOut ??= new Uint8Array(count))[index] = 1;
	};
	for (let index = 0; index < from; index++) leaveOut(index);
	let taken = from;
	while (taken < count && !read.limitReached) {
		const index = taken++;
		stats.lines = range.firstLine + index - from;
		const verdict = classifyLine(block.textOf(index), starts[index], ends[index], keyInBlock, wanted);
		if (verdict === HOLDS_KEY) {
			// No record of the index holds the user's own API key: the other end echoes the request.
			throw serviceDataError(
				read,
				`Line ${stats.lines} of the dataset "${label}" contains the API key of the credential`,
				KEY_ECHO_DESCRIPTION,
			);
		}
		if (verdict === BLANK) {
			stats.blankLines++;
		} else if (verdict instanceof NotARecord) {
			skipMalformed(read, block.line(index), verdict.problem);
		} else {
			// A record or a declined line: either way, the snapshot has records.
			read.recordLines++;
			if (verdict !== DECLINED && (!read.predicate || read.predicate(verdict))) {
				for (const field of read.filterOnlyFields) delete verdict[field];
				records.push(verdict);
				stats.records++;
				if (limit !== undefined && stats.records >= limit) read.limitReached = true;
				continue;
			}
		}
		leaveOut(index);
	}
	if (!read.bytes) return records.length > 0 ? { records, bytes: [] } : undefined;
	const bytes = keptBytes(read, block, records, taken, leftOut);
	for (const piece of bytes) stats.bytes += piece.length;
	return bytes.length > 0 ? { records: [], bytes } : undefined;
}

/** A line that is no record of the snapshot, and why. */
class NotARecord {
	constructor(readonly problem: string) {}
}
const BLANK = Symbol('blank line');
const DECLINED = Symbol('declined by the caller');
const HOLDS_KEY = Symbol('holds the API key');
type LineVerdict = IDataObject | NotARecord | typeof BLANK | typeof DECLINED | typeof HOLDS_KEY;

const OPENING_BRACE = 0x7b;

/** What the line `text.slice(start, end)` is. `key` is the API key when the line's block holds it (see takeLines). */
function classifyLine(
	text: string,
	start: number,
	end: number,
	key: string | undefined,
	wanted: LineSelector | undefined,
): LineVerdict {
	// A record starts with '{'; anything else may be blank (only then is a string made to trim it).
	if (start === end || (text.charCodeAt(start) !== OPENING_BRACE && text.slice(start, end).trim().length === 0))
		return BLANK;
	const line = key === undefined ? undefined : text.slice(start, end);
	if (line !== undefined && containsSecret(line, key)) return HOLDS_KEY;
	const verdict = wanted?.(text, start, end) ?? true;
	if (verdict !== true) return verdict === false ? DECLINED : verdict;
	try {
		const value: unknown = JSON.parse(line ?? text.slice(start, end));
		// Escapes (\/, \u0070) can spell the key in the bytes: a line with one is judged by its parsed strings.
		if (line !== undefined && line.includes('\\') && holdsSecret(value, key)) return HOLDS_KEY;
		if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as IDataObject;
		return new NotARecord('it is not a JSON object');
	} catch (error) {
		return new NotARecord(`it is not valid JSON (${(error as Error).message})`);
	}
}

/** A malformed line: an error (the default), or skipped and counted. The excerpt is masked, then cut. */
function skipMalformed(read: Read, line: string, problem: string): void {
	const { stats, secret } = read;
	if (read.onMalformed === 'error') {
		throw serviceDataError(
			read,
			`Line ${stats.lines} of the dataset "${read.options.label}" cannot be read: ${maskServiceText(problem, secret)}`,
			`The line starts with: ${excerpt(maskServiceText(line, secret))}\nSet "On Malformed Line" to "Skip and ` +
				`Count" to leave such lines out; the output then tells how many were skipped.`,
		);
	}
	stats.skippedLines++;
	if (stats.skippedLineNumbers.length < SKIPPED_LINE_NUMBERS_KEPT) stats.skippedLineNumbers.push(stats.lines);
	read.options.onSkippedLine?.(line);
}

/**
 * The bytes of the kept lines among the first `taken`: the block's as they came when all are kept and valid UTF-8
 * (usually); else line by line, lines the decoder repaired as the items read them; or the records re-serialised.
 */
function keptBytes(
	read: Read,
	block: LineBlock,
	records: IDataObject[],
	taken: number,
	leftOut: Uint8Array | undefined,
): Uint8Array[] {
	if (read.reencode) return records.map((record) => utf8.encode(JSON.stringify(record) + '\n'));
	// The decoder replaced invalid bytes (or the service sent U+FFFD itself: then the bytes are the same).
	const repairs = block.anyText((text) => text.includes(REPLACEMENT_CHARACTER));
	if (leftOut === undefined && !repairs && taken === block.count) return block.bytes;
	const perLine = bytesPerLine(block.bytes);
	const bytes: Uint8Array[] = [];
	for (let index = 0; index < taken; index++) {
		if (leftOut?.[index]) continue;
		const line = repairs ? block.line(index) : undefined;
		bytes.push(line?.includes(REPLACEMENT_CHARACTER) ? utf8.encode(line + '\n') : perLine[index]);
	}
	return bytes;
}

export function serviceDataError({ context, options }: Read, message: string, description: string) {
	return buildApiError(context.getNode(), { message, description, itemIndex: options.itemIndex });
}
