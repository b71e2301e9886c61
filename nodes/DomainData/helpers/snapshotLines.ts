/**
 * The lines of a snapshot read, one block at a time: the line classifier (blank, holding the API key,
 * declined by the caller, malformed, or a record), the selection (filter, fields), and what goes out (the
 * records and/or the bytes of the kept lines). The stream itself, with its resumes, is transport's
 * (readNdjsonStream); the read as a whole is snapshotReader.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import { buildApiError, containsSecret, holdsSecret, maskServiceText, mayHoldSecret } from '../errors';
import {
	bytesPerLine,
	type DomainDataFunctions,
	excerpt,
	KEY_ECHO_DESCRIPTION,
	type LineBlock,
	type LineRange,
	type RetryTiming,
} from '../transport';
import type { RecordPredicate } from './recordFilter';
import type { SnapshotField } from './snapshotFields';

export type MalformedLineHandling = 'error' | 'skip';

/**
 * One rule for bytes that are not valid UTF-8, in items and files alike: they become U+FFFD, the Unicode
 * replacement character (what TextDecoder makes of them).
 */
const REPLACEMENT_CHARACTER = '\uFFFD';
const utf8 = new TextEncoder();

/** Skipped line numbers remembered for messages (the count is always exact). */
const SKIPPED_LINE_NUMBERS_KEPT = 20;

/** What happened during a read; the reader fills it in as it goes (pass one in to see it). */
export interface SnapshotReadStats {
	/** The concrete label read. */
	label: string;
	/** The fields asked from the service (output fields plus those filters read). */
	requestedFields: SnapshotField[];
	/** Lines of the snapshot handled, each counted once even when read again after a drop. */
	lines: number;
	/** Records handed out (after filters, at most `limit`). */
	records: number;
	/** Malformed lines skipped (with onMalformed 'skip'). */
	skippedLines: number;
	/** The first line numbers (1-based) of those skipped lines. */
	skippedLineNumbers: number[];
	/** Empty lines (ignored, not records). */
	blankLines: number;
	/** Stream requests sent (1 + reconnects). */
	requests: number;
	/** Times the stream was asked again after the connection dropped. */
	reconnects: number;
	/** NDJSON bytes handed out by readSnapshotBytes. */
	bytes: number;
	/** True once the stream ended or the limit was reached (false if the caller stopped early). */
	complete: boolean;
}

/**
 * The caller's verdict on the line `text.slice(start, end)` before it is parsed (see ReadSnapshotOptions.wanted):
 * true to parse it, false to decline it, or the record that stands for it (handed out unparsed, unfiltered).
 */
export type LineSelector = (text: string, start: number, end: number) => boolean | IDataObject;

export interface ReadPlan {
	label: string;
	requestFields: SnapshotField[];
	/** Fields asked only for the filter: removed from every record before it is handed out. */
	filterOnlyFields: SnapshotField[];
	predicate?: RecordPredicate;
	wanted?: LineSelector;
	recordLimit?: number;
	/** `limit` query parameter: only when every line read is a record handed out (no filter, no selector). */
	serviceLimit?: number;
	maxAttempts?: number;
	idleTimeoutMs?: number;
	retryTiming?: RetryTiming;
	onMalformed: MalformedLineHandling;
	onSkippedLine?: (line: string) => void;
	itemIndex?: number;
	/** Keep the parsed records (false when only bytes are wanted). */
	collectRecords: boolean;
	/** Hand out the bytes of the kept lines. */
	collectBytes: boolean;
	/** Re-serialise the kept records for the bytes (filter-only fields were removed from them). */
	reencode: boolean;
}

/** What one body chunk gave: the records and/or the bytes of the lines it completed and kept. */
export interface ReadBlock {
	records: IDataObject[];
	bytes: Uint8Array[];
}

/** Where a read is, across its requests. */
export interface ReadProgress {
	/** Lines that were records, or that the caller declined unparsed: a snapshot without any is not a snapshot. */
	recordLines: number;
	/** Set once `limit` records were handed out. */
	limitReached: boolean;
}

/** The context of one read, for the functions below. */
export interface Read {
	context: DomainDataFunctions;
	plan: ReadPlan;
	stats: SnapshotReadStats;
	progress: ReadProgress;
	secret?: string;
}

/**
 * Takes the new lines of a block in order (those before `range.from` were handed out before a drop),
 * classifies them, and returns the kept records and/or bytes (undefined when nothing of the block is kept).
 */
export function takeLines(read: Read, range: LineRange): ReadBlock | undefined {
	const { plan, stats, progress } = read;
	const { block, from } = range;
	const { starts, ends, count } = block;
	const records: IDataObject[] = [];
	/** The key is looked for in the whole block once, and line by line only when the block holds it or an escape. */
	const keyInBlock = block.anyText((text) => mayHoldSecret(text, read.secret)) ? read.secret : undefined;
	/** Lines of the block left out of the bytes (undefined while none is). */
	let leftOut: Uint8Array | undefined;
	const leaveOut = (index: number) => {
		(leftOut ??= new Uint8Array(count))[index] = 1;
	};
	for (let index = 0; index < from; index++) leaveOut(index); // handed out before the connection dropped
	let taken = from;
	while (taken < count && !progress.limitReached) {
		const index = taken++;
		stats.lines = range.firstLine + index - from;
		const verdict = classifyLine(block.textOf(index), starts[index], ends[index], keyInBlock, plan.wanted);
		if (verdict === BLANK) {
			stats.blankLines++;
			leaveOut(index);
			continue;
		}
		if (verdict === DECLINED) {
			progress.recordLines++;
			leaveOut(index);
			continue;
		}
		if (verdict === HOLDS_KEY) {
			// No record of the index holds the user's own API key: the other end echoes the request.
			throw serviceDataError(
				read,
				`Line ${stats.lines} of the dataset "${plan.label}" contains the API key of the ` + `credential`,
				KEY_ECHO_DESCRIPTION,
			);
		}
		if (verdict instanceof NotARecord) {
			skipMalformed(read, block.line(index), verdict.problem);
			leaveOut(index);
			continue;
		}
		progress.recordLines++;
		const record = selected(plan, verdict);
		if (record === undefined) {
			leaveOut(index);
			continue;
		}
		records.push(record);
		stats.records++;
		if (plan.recordLimit !== undefined && stats.records >= plan.recordLimit) progress.limitReached = true;
	}
	const bytes = plan.collectBytes ? keptBytes(plan, block, records, taken, leftOut) : [];
	for (const piece of bytes) stats.bytes += piece.length;
	if (records.length === 0 && bytes.length === 0) return undefined;
	return { records: plan.collectRecords ? records : [], bytes };
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

/**
 * The line classifier: what the line `text.slice(start, end)` is. `key` is the API key when the line's
 * block holds it (see takeLines); `wanted` the caller's selector, asked before the line is parsed.
 */
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
	const { plan, stats } = read;
	if (plan.onMalformed === 'error') {
		throw serviceDataError(
			read,
			`Line ${stats.lines} of the dataset "${plan.label}" cannot be read: ${maskServiceText(problem, read.secret)}`,
			`The line starts with: ${excerpt(maskServiceText(line, read.secret))}\nSet "On Malformed Line" to "Skip and ` +
				`Count" to leave such lines out; the output then tells how many were skipped.`,
		);
	}
	stats.skippedLines++;
	if (stats.skippedLineNumbers.length < SKIPPED_LINE_NUMBERS_KEPT) stats.skippedLineNumbers.push(stats.lines);
	plan.onSkippedLine?.(line);
}

/**
 * The record as handed out, or undefined when the filter leaves it out; fields asked only for the filter are
 * removed.
 */
function selected(plan: ReadPlan, record: IDataObject): IDataObject | undefined {
	if (plan.predicate && !plan.predicate(record)) return undefined;
	for (const field of plan.filterOnlyFields) delete record[field];
	return record;
}

/**
 * The bytes of the kept lines among the first `taken` of the block: the service's bytes as they came when
 * every line is kept and valid UTF-8 (the usual case); else re-sliced line by line, with the lines the
 * decoder repaired as the items read them; or the kept records re-serialised (`plan.reencode`).
 */
function keptBytes(
	plan: ReadPlan,
	block: LineBlock,
	records: IDataObject[],
	taken: number,
	leftOut: Uint8Array | undefined,
): Uint8Array[] {
	if (plan.reencode) return records.map((record) => utf8.encode(JSON.stringify(record) + '\n'));
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

// ---------------------------------------------------------------------------------------------------------
// Errors of a read (built through ../errors.ts).

export function serviceDataError(read: Read, message: string, description: string) {
	return buildApiError(read.context.getNode(), { message, description, itemIndex: read.plan.itemIndex });
}
