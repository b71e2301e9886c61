/** Reads a snapshot a block of lines at a time (memory bounded by a body chunk): judges, filters, hands out lines. */
import type { IDataObject } from 'n8n-workflow';

import { buildApiError, containsSecret, count, holdsSecret, maskServiceText, operationError } from '../errors';
import { type CallLimits, credentialSecret, DEFAULT_CALL_LIMITS, type DomainDataFunctions } from '../transport';
import { excerpt, KEY_ECHO_DESCRIPTION, type LineRange, readNdjsonStream } from '../transport';
import { mayHoldLongInteger, type NdjsonStreamOptions, parseJsonExact, withoutMembers } from '../transport';
import { DEFAULT_BATCH_SIZE, rebatch } from './streams';
import { listDatasets, unknownLabelError } from './datasets';
import type { LineSelector } from './domainName';
import { compileRecordFilter, fieldsReadBy, type RecordFilter } from './recordFilter';
import { type SnapshotField, toCanonicalFields, withFields } from './snapshotFields';

export type MalformedLineHandling = 'error' | 'skip';

/** What happened during a read; the reader fills it in as it goes (pass one in to see it). */
export function createReadStats(label = '') {
	return {
		label,
		/** The fields asked from the service (output fields plus those filters read). */
		requestedFields: [] as SnapshotField[],
		/** Lines of the snapshot handled, each counted once even when read again after a drop. */
		lines: 0,
		/** Records handed out (after filters, at most `limit`). */
		records: 0,
		/** Malformed lines skipped (with onMalformed 'skip'), and the first of their 1-based line numbers. */
		skippedLines: 0,
		skippedLineNumbers: [] as number[],
		/** Times the stream was asked again after a drop. */
		reconnects: 0,
		/** True once the stream ended or the limit was reached (false if the caller stopped early). */
		complete: false,
	};
}

export type SnapshotReadStats = ReturnType<typeof createReadStats>;

/** `label`: a concrete date label (not `latest`). */
export interface ReadSnapshotOptions extends Pick<NdjsonStreamOptions, 'label' | 'itemIndex'> {
	limits?: CallLimits;
	/** Canonical field names (aliases are accepted too); the records hold exactly these. */
	fields: string[];
	/** Stop after this many (matching) records. */
	limit?: number;
	/** Only records that match; fields the filter reads but `fields` lacks are asked for and removed again. */
	filter?: RecordFilter;
	/** A line that is not a JSON object: fail (default) or skip it and count it in `stats`. */
	onMalformed?: MalformedLineHandling;
	/** Told each line skipped as malformed (with onMalformed 'skip'). */
	onSkippedLine?: (line: string) => void;
	/** Records per yielded array (default DEFAULT_BATCH_SIZE). */
	batchSize?: number;
	/** For callers that need only some lines, or know some without parsing them (Compare). */
	wanted?: LineSelector;
	stats?: SnapshotReadStats;
}

/** One read: the caller's options, what follows from them, and how far it got (this module's only state). */
type Read = Awaited<ReturnType<typeof startRead>>;

/** `withBytes`: the kept lines' NDJSON bytes are handed out too (File, Compare's spool). */
async function startRead(context: DomainDataFunctions, options: ReadSnapshotOptions, withBytes: boolean) {
	const canonical = toCanonicalFields(options.fields);
	if (!canonical.ok) throw operationError(context.getNode(), canonical.message, { itemIndex: options.itemIndex });
	const requestFields = withFields(canonical.fields, fieldsReadBy(options.filter));
	/** Asked only for the filter: removed from every record (and, with bytes, from every line) before it goes out. */
	const filterOnly = new Set<string>(requestFields.filter((field) => !canonical.fields.includes(field)));
	return {
		// Kept as their own object: copied into this one, they slow the per-line loop.
		options,
		context,
		limits: options.limits ?? DEFAULT_CALL_LIMITS,
		stats: options.stats ?? createReadStats(),
		secret: await credentialSecret.call(context),
		requestFields,
		filterOnly,
		predicate: compileRecordFilter(options.filter),
		onMalformed: options.onMalformed ?? 'error',
		withBytes,
		/** The kept lines' bytes lose the filter-only members (the rest as sent). */
		reencode: withBytes && filterOnly.size > 0,
		/** Lines that were records, or that the caller declined: a snapshot without any is not a snapshot. */
		recordLines: 0,
		limitReached: false,
	};
}

/** Yields what each block of lines kept (blocks without a kept line yield nothing); no record at all is an error. */
async function* readBlocks(read: Read): AsyncGenerator<ReadBlock> {
	const { context, stats, options, limits } = read;
	const { label, limit, itemIndex } = options;
	stats.label = label;
	stats.requestedFields = read.requestFields;
	const qs: Record<string, string | number> = { fields: read.requestFields.join(',') };
	// With a filter or a selector, `limit` counts matches, which the service cannot know: it must not cut the stream.
	if (limit !== undefined && !read.predicate && !options.wanted) qs.limit = limit;
	const lines = readNdjsonStream.call(context, {
		label,
		qs,
		limits,
		itemIndex,
		counts: stats,
		notFound: async () => {
			const datasets = await listDatasets.call(context, limits, itemIndex);
			return unknownLabelError.call(context, label, datasets, itemIndex);
		},
		cancelled: () => cancelledError(read),
	});
	for await (const range of lines) {
		const out = takeLines(read, range);
		if (out) yield out;
		// Leaving the loop closes the connection.
		if (read.limitReached) break;
	}
	if (read.recordLines === 0) throw noRecordError(read);
	stats.complete = true;
}

/** An empty 200, or only lines that are not records (a proxy's page, read with "Skip and Count"). */
function noRecordError(read: Read) {
	const { stats, options } = read;
	const skipped = stats.skippedLines > 0 ? ` (${count(stats.skippedLines)} skipped as malformed)` : '';
	const lines = `${count(stats.lines)} line${stats.lines === 1 ? '' : 's'}`;
	const what = stats.lines === 0 ? 'the answer was empty' : `none of its ${lines} is a record${skipped}`;
	const description =
		'A snapshot holds records; something else answered (a proxy, or a service that failed without saying so). ' +
		'Nothing is output. Check the Base URL of the credential and try again later.';
	return serviceDataError(read, `The dataset "${options.label}" came back without any record: ${what}`, description);
}

function cancelledError({ context, stats, options }: Read) {
	const records = `${count(stats.records)} record${stats.records === 1 ? '' : 's'} (${count(stats.lines)} lines)`;
	const message = `The execution was cancelled while the dataset "${options.label}" was streaming, after ${records}`;
	const description =
		'Someone stopped the execution (or n8n did, e.g. on a timeout of the workflow). The node outputs nothing of ' +
		'this read; run it again to read the dataset.';
	return operationError(context.getNode(), message, { itemIndex: options.itemIndex, description });
}

/** Yields the records in arrays of `batchSize`. Stop iterating at any time: the connection is closed at once. */
export async function* readSnapshot(this: DomainDataFunctions, options: ReadSnapshotOptions) {
	const blocks = readBlocks(await startRead(this, options, false));
	const records = (async function* () {
		for await (const block of blocks) yield block.records;
	})();
	yield* rebatch(records, Math.max(1, Math.floor(options.batchSize ?? DEFAULT_BATCH_SIZE)));
}

/** The kept lines' NDJSON bytes as sent (re-serialised if the filter read other fields); each piece ends a line. */
export async function* readSnapshotBytes(this: DomainDataFunctions, options: ReadSnapshotOptions) {
	for await (const block of readBlocks(await startRead(this, options, true))) yield* block.bytes;
}

/** Both at once, block by block: the kept records and their bytes as sent (what Compare indexes and spools). */
export async function* readSnapshotBlocks(this: DomainDataFunctions, options: ReadSnapshotOptions) {
	yield* readBlocks(await startRead(this, options, true));
}

const utf8 = new TextEncoder();
/** Skipped line numbers remembered for messages (the count is always exact). */
const SKIPPED_LINE_NUMBERS_KEPT = 20;

/** What one body chunk gave: the records and/or the bytes of the lines it completed and kept. */
type ReadBlock = { records: IDataObject[]; bytes: Uint8Array[] };

/** What is kept of a block's new lines (those before `range.from` went out before a drop); undefined if nothing. */
function takeLines(read: Read, range: LineRange): ReadBlock | undefined {
	const { stats } = read;
	const { limit, label } = read.options;
	const { block, from } = range;
	const { starts, ends, count } = block;
	const records: IDataObject[] = [];
	/** With `reencode`: each kept line without the filter-only members. */
	const trimmed: string[] = [];
	const rules: LineRules = {
		// The key is looked for in the whole block once, and line by line only when the block holds it or an escape
		// (which can spell it: `\/`, `\u0070`); a key too short to mask is never looked for.
		key: block.anyText((text) => containsSecret(text, read.secret) || text.includes('\\')) ? read.secret : undefined,
		wanted: read.options.wanted,
		// Integers beyond 2^53 kept exact, as in JSON answers: only a block with 16 digits in a row may hold one.
		parse: block.anyText(mayHoldLongInteger) ? parseJsonExact : JSON.parse,
	};
	/** Lines of the block left out of the bytes (undefined while none is). */
	let leftOut = from > 0 ? new Uint8Array(count).fill(1, 0, from) : undefined;
	const leaveOut = (index: number) => {
		(leftOut ??= new Uint8Array(count))[index] = 1;
	};
	let taken = from;
	while (taken < count && !read.limitReached) {
		const index = taken++;
		stats.lines = range.firstLine + index - from;
		const verdict = classifyLine(block.textOf(index), starts[index], ends[index], rules);
		if (verdict === HOLDS_KEY) {
			// No record of the index holds the user's own API key: the other end echoes the request.
			const message = `Line ${stats.lines} of the dataset "${label}" contains the API key of the credential`;
			throw serviceDataError(read, message, KEY_ECHO_DESCRIPTION);
		}
		if (verdict instanceof NotARecord) {
			skipMalformed(read, block.line(index), verdict.problem);
		} else if (verdict !== BLANK) {
			// A record or a declined line: either way, the snapshot has records.
			read.recordLines++;
			if (verdict !== DECLINED && (!read.predicate || read.predicate(verdict))) {
				for (const field of read.filterOnly) delete verdict[field];
				records.push(verdict);
				if (read.reencode)
					trimmed.push(withoutMembers(block.textOf(index), starts[index], ends[index], read.filterOnly));
				stats.records++;
				if (limit !== undefined && stats.records >= limit) read.limitReached = true;
				continue;
			}
		}
		leaveOut(index);
	}
	if (!read.withBytes) return records.length > 0 ? { records, bytes: [] } : undefined;
	const bytes = read.reencode ? trimmed.map((line) => utf8.encode(line + '\n')) : block.keptBytes(taken, leftOut);
	return bytes.length > 0 ? { records, bytes } : undefined;
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

/** How the lines of a block are judged: `key`, the API key when the block may hold it; the caller's selector. */
type LineRules = { key?: string; wanted?: LineSelector; parse: (text: string) => unknown };

function classifyLine(text: string, start: number, end: number, { key, wanted, parse }: LineRules): LineVerdict {
	// A record starts with '{'; anything else may be blank (only then is a string made to trim it).
	if (start === end || (text.charCodeAt(start) !== OPENING_BRACE && text.slice(start, end).trim().length === 0))
		return BLANK;
	const line = key === undefined ? undefined : text.slice(start, end);
	if (line !== undefined && containsSecret(line, key)) return HOLDS_KEY;
	const verdict = wanted?.(text, start, end) ?? true;
	if (verdict !== true) return verdict === false ? DECLINED : verdict;
	try {
		const value = parse(line ?? text.slice(start, end));
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

function serviceDataError({ context, options }: Read, message: string, description: string) {
	return buildApiError(context.getNode(), { message, description, itemIndex: options.itemIndex });
}
