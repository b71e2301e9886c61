/**
 * Reads one snapshot from the stream endpoint, resuming after dropped connections, in memory bounded by
 * a chunk of the body (plus whatever the caller keeps).
 *
 * Guarantees, whatever the network does:
 * - one snapshot: the caller gives a concrete date label (resolve `latest` first, datasets.ts), and
 *   every re-request asks for that same label;
 * - no gap, no duplicate: the endpoint has no offset, so after a drop the same request is sent again
 *   and its first N lines are skipped, N being the complete lines already handled (malformed, blank and
 *   declined lines included: they are lines of the stream too). A half-received line is dropped and read again;
 * - bounded: one retry budget for the whole read (transport/retry.ts): at most `maxAttempts` requests in a
 *   row without new lines, whatever failed (an HTTP status, a refused, dropped or silent connection); each
 *   re-request re-reads the first N lines.
 *
 * In small pieces: `readBlocks` is the resume loop (open, read a response, wait, again); `readResponse`
 * reads one body chunk by chunk through the splitter (ndjson.ts), which hands out line ranges of the
 * decoded text; `takeLines` skips what a resume re-reads and asks `classifyLine`, the line classifier,
 * what each line is (blank, holding the API key, declined by the caller, malformed, or a record).
 *
 * Two ways out: `readSnapshot` yields batches of parsed records (shared with the trigger and Compare),
 * and `readSnapshotBytes` yields the NDJSON bytes of the kept lines (for the file output).
 */
import type { IDataObject } from 'n8n-workflow';

import {
	asNodeError,
	buildApiError,
	containsSecret,
	holdsSecret,
	maskServiceText,
	mayHoldSecret,
	operationError,
	redact,
} from '../errors';
import { readWholeNumber } from '../parameters';
import {
	apiStreamOrNotFound,
	cancelSignal,
	credentialSecret,
	type DomainDataFunctions,
	IdleTimeoutError,
	isTransientError,
	isUndecodableBody,
	KEY_ECHO_DESCRIPTION,
	networkErrorCode,
	networkFailureLabel,
	normalizeMaxAttempts,
	RetryBudget,
	type RetryTiming,
	undecodableBodyError,
} from '../transport';
import { DEFAULT_BATCH_SIZE, rebatch } from './batches';
import { listDatasets, unknownLabelError } from './datasets';
import { bytesPerLine, excerpt, type LineBlock, MAX_LINE_BYTES, NdjsonLineSplitter } from './ndjson';
import { compileRecordFilter, fieldsReadBy, type RecordFilter, type RecordPredicate } from './recordFilter';
import { type SnapshotField, toCanonicalFields, withFields } from './snapshotFields';

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

export function createReadStats(label = ''): SnapshotReadStats {
	return {
		label,
		requestedFields: [],
		lines: 0,
		records: 0,
		skippedLines: 0,
		skippedLineNumbers: [],
		blankLines: 0,
		requests: 0,
		reconnects: 0,
		bytes: 0,
		complete: false,
	};
}

export interface ReadSnapshotOptions {
	/** A concrete date label (not `latest`). */
	label: string;
	/** Canonical field names (aliases are accepted too); the records hold exactly these. */
	fields: string[];
	/** Stop after this many (matching) records. */
	limit?: number;
	/** Only records that match; fields the filter reads but `fields` lacks are asked for and removed again. */
	filter?: RecordFilter;
	/** Requests in a row without new lines before the read gives up (default 4), whatever failed. */
	maxAttempts?: number;
	/** No byte for this long counts as a dropped connection (default 60 s). */
	idleTimeoutMs?: number;
	/** Backoff timing (tests pass a faster one); default RETRY_TIMING. */
	retryTiming?: RetryTiming;
	/** A line that is not a JSON object: fail (default) or skip it and count it in `stats`. */
	onMalformed?: MalformedLineHandling;
	/** Records per yielded array (default DEFAULT_BATCH_SIZE; the last one can be shorter). */
	batchSize?: number;
	/**
	 * For callers that need only some lines of a snapshot (Compare's third pass): sees each line as
	 * `text.slice(start, end)` before it is parsed, after the resume, blank-line and API-key checks. A line
	 * it declines is read (counted in `stats.lines`, and it keeps the resume point) but never parsed: it is
	 * no record, and not judged malformed either. Return true when unsure: the line is then parsed as usual.
	 */
	wanted?: LineSelector;
	/** Filled in while reading. */
	stats?: SnapshotReadStats;
	itemIndex?: number;
}

/** Whether the caller wants the line `text.slice(start, end)` parsed (see ReadSnapshotOptions.wanted). */
export type LineSelector = (text: string, start: number, end: number) => boolean;

interface ReadPlan {
	label: string;
	requestFields: SnapshotField[];
	/** Fields asked only for the filter: removed from every record before it is handed out. */
	filterOnlyFields: SnapshotField[];
	predicate?: RecordPredicate;
	wanted?: LineSelector;
	recordLimit?: number;
	/** `limit` query parameter: only when every line read is a record handed out (no filter, no selector). */
	serviceLimit?: number;
	maxAttempts: number;
	idleTimeoutMs?: number;
	retryTiming?: RetryTiming;
	onMalformed: MalformedLineHandling;
	itemIndex?: number;
	/** Keep the parsed records (false when only bytes are wanted). */
	collectRecords: boolean;
	/** Hand out the bytes of the kept lines. */
	collectBytes: boolean;
	/** Re-serialise the kept records for the bytes (filter-only fields were removed from them). */
	reencode: boolean;
}

/** What one body chunk gave: the records and/or the bytes of the lines it completed and kept. */
interface ReadBlock {
	records: IDataObject[];
	bytes: Uint8Array[];
}

/** Where a read is, across its requests. */
interface ReadProgress {
	/** Complete lines of the snapshot handled so far, in stream order: the resume point. */
	handled: number;
	/** Lines that were records, or that the caller declined unparsed: a snapshot without any is not a snapshot. */
	recordLines: number;
	/** Set once `limit` records were handed out. */
	limitReached: boolean;
}

/** The context of one read, for the functions below. */
interface Read {
	context: DomainDataFunctions;
	plan: ReadPlan;
	stats: SnapshotReadStats;
	progress: ReadProgress;
	secret?: string;
	signal?: AbortSignal;
}

function planRead(context: DomainDataFunctions, options: ReadSnapshotOptions, collect: { records: boolean; bytes: boolean }): ReadPlan {
	const node = context.getNode();
	const canonical = toCanonicalFields(options.fields);
	if (!canonical.ok) throw operationError(node, canonical.message, { itemIndex: options.itemIndex });
	const filterFields = fieldsReadBy(options.filter);
	const requestFields = withFields(canonical.fields, filterFields);
	const filterOnlyFields = requestFields.filter((field) => !canonical.fields.includes(field));
	const predicate = compileRecordFilter(options.filter);
	const limit = options.limit === undefined ? undefined : readWholeNumber(node, options.limit, 'parameter "Limit"', { itemIndex: options.itemIndex });
	return {
		label: options.label,
		requestFields,
		filterOnlyFields,
		predicate,
		wanted: options.wanted,
		recordLimit: limit,
		// With a filter, "limit" counts matches, which the service cannot know: it must not cut the stream.
		serviceLimit: predicate || options.wanted ? undefined : limit,
		maxAttempts: normalizeMaxAttempts(options.maxAttempts),
		idleTimeoutMs: options.idleTimeoutMs,
		retryTiming: options.retryTiming,
		onMalformed: options.onMalformed ?? 'error',
		itemIndex: options.itemIndex,
		collectRecords: collect.records,
		collectBytes: collect.bytes,
		reencode: collect.bytes && filterOnlyFields.length > 0,
	};
}

// ---------------------------------------------------------------------------------------------------------
// The resume loop: one request after the other, until the snapshot was read to its end (or the limit).

/**
 * Reads the plan's snapshot, resuming after dropped connections: yields what each body chunk completed
 * (nothing for chunks that complete no kept line).
 */
async function* readBlocks(this: DomainDataFunctions, plan: ReadPlan, stats: SnapshotReadStats): AsyncGenerator<ReadBlock> {
	const signal = cancelSignal(this);
	const read: Read = {
		context: this,
		plan,
		stats,
		progress: { handled: 0, recordLines: 0, limitReached: false },
		secret: await credentialSecret.call(this),
		signal,
	};
	stats.label = plan.label;
	stats.requestedFields = plan.requestFields;
	/** One budget for the whole read: the transport's retries and the resumes below spend it together. */
	const budget = new RetryBudget(plan.maxAttempts, plan.retryTiming, signal);
	for (;;) {
		const handledBefore = read.progress.handled;
		let body: AsyncIterable<Uint8Array>;
		try {
			body = await openStream.call(this, plan, budget);
		} catch (error) {
			throw failedWhile(read, error);
		}
		stats.requests++;
		const end = yield* readResponse(read, body);
		if (end.ended) return;
		// New lines read: the read got further, so the failures before do not count against the next ones.
		if (read.progress.handled > handledBefore) budget.progress();
		await waitBeforeResume(read, budget, end.failure);
	}
}

/**
 * Opens the stream of the plan's label. The service's 404 comes back from the transport as a value: then
 * the error names the labels that exist.
 */
async function openStream(this: DomainDataFunctions, plan: ReadPlan, budget: RetryBudget): Promise<AsyncIterable<Uint8Array>> {
	const qs: Record<string, string | number> = { fields: plan.requestFields.join(',') };
	if (plan.serviceLimit !== undefined) qs.limit = plan.serviceLimit;
	const body = await apiStreamOrNotFound.call(this, {
		method: 'GET',
		path: ['historical', 'domain', plan.label],
		qs,
		budget,
		timeoutMs: plan.idleTimeoutMs,
		itemIndex: plan.itemIndex,
	});
	if (body !== undefined) return body;
	const datasets = await listDatasets.call(this, { maxAttempts: plan.maxAttempts, itemIndex: plan.itemIndex });
	throw unknownLabelError.call(this, plan.label, datasets, plan.itemIndex);
}

/**
 * After a response broke off: gives up with an error when the failure is final or the budget is spent,
 * else waits before the next request (which re-reads and skips the lines already handled).
 */
async function waitBeforeResume(read: Read, budget: RetryBudget, failure: unknown): Promise<void> {
	const { context, plan, stats, progress, secret } = read;
	if (isUndecodableBody(failure)) throw undecodableBodyError(context.getNode(), networkErrorCode(failure), plan.itemIndex);
	if (!isTransientError(failure)) throw asNodeError(context.getNode(), failure, plan.itemIndex);
	const wait = budget.afterFailure({ label: dropLabel(failure), retryable: true });
	if (wait === undefined) {
		const cause = redact(failure instanceof Error ? failure.message : String(failure), secret);
		const requests = budget.requests;
		throw serviceDataError(
			read,
			`The dataset "${plan.label}" could not be read to the end: ${requests} request${requests > 1 ? 's' : ''} in a row failed without new lines (${budget.summary()})`,
			`${progress.handled} lines had been read when the connection failed the last time (${cause}). Nothing partial is returned. Try again later, raise "Max Attempts" or "Idle Timeout", or read less with a Limit or filters.`,
		);
	}
	stats.reconnects++;
	try {
		await budget.wait(wait);
	} catch (error) {
		throw failedWhile(read, error);
	}
}

// ---------------------------------------------------------------------------------------------------------
// One response: its body chunk by chunk, each split into lines and taken.

type ResponseEnd = { ended: true } | { ended: false; failure: unknown };

/**
 * Reads one response's body. Ends the read (`ended`) at the end of the snapshot or at the limit; returns
 * the failure when the body broke off (the caller decides about a resume). Leaving early closes the
 * connection.
 */
async function* readResponse(read: Read, body: AsyncIterable<Uint8Array>): AsyncGenerator<ReadBlock, ResponseEnd> {
	const { stats, progress, signal } = read;
	const splitter = new NdjsonLineSplitter();
	const chunks = body[Symbol.asyncIterator]();
	/** Lines seen in this response (a re-request starts at 1 again and skips up to `handled`). */
	const response = { seen: 0 };
	let settled = false;
	try {
		for (;;) {
			let step: IteratorResult<Uint8Array>;
			try {
				step = await chunks.next();
			} catch (error) {
				// n8n aborts the body when the execution is cancelled.
				if (signal?.aborted) throw cancelledError(read);
				// Only the body can fail here, after a 2xx: normally the connection dropped mid-stream.
				settled = true;
				return { ended: false, failure: error };
			}
			if (signal?.aborted) throw cancelledError(read);
			const out = takeLines(read, response, splitChunk(read, splitter, step));
			if (out) yield out;
			if (progress.limitReached) {
				stats.complete = true;
				return { ended: true };
			}
			if (step.done) {
				checkSnapshotEnd(read, response.seen);
				settled = true;
				stats.complete = true;
				return { ended: true };
			}
		}
	} finally {
		// Stopped early (limit, guard, error or the caller left): close the connection now.
		if (!settled) await chunks.return?.();
	}
}

/** The lines a chunk (or the end of the body) completed; a line too long to be a record is an error. */
function splitChunk(read: Read, splitter: NdjsonLineSplitter, step: IteratorResult<Uint8Array>): LineBlock {
	try {
		return step.done ? splitter.end() : splitter.push(step.value);
	} catch {
		// The splitter's only failure: a line too long to be a record (LineTooLongError).
		throw serviceDataError(
			read,
			`Line ${read.progress.handled + 1} of the dataset "${read.plan.label}" is longer than ${MAX_LINE_BYTES / (1024 * 1024)} MB`,
			'No record is that long: the service sent something else than NDJSON records. Try again later; if it persists, report it to the service.',
		);
	}
}

/** At the end of a body: it must reach the resume point, and a snapshot holds records. */
function checkSnapshotEnd(read: Read, seen: number): void {
	const { plan, progress } = read;
	if (seen < progress.handled) {
		throw serviceDataError(
			read,
			`The dataset "${plan.label}" ended after ${seen} lines when it was asked again after a dropped connection, but ${progress.handled} lines had been read before`,
			'The snapshot changed between two requests, so the result cannot be completed without gaps. Nothing partial is returned. Run the node again.',
		);
	}
	if (progress.recordLines === 0) throw noRecordError(read);
}

// ---------------------------------------------------------------------------------------------------------
// The lines of one block: the resume skip, the line classifier, the filter, and what goes out.

/**
 * Takes the lines of a block in order: skips those handed out before a drop, classifies the others, and
 * returns the kept records and/or bytes (undefined when nothing of the block is kept).
 */
function takeLines(read: Read, response: { seen: number }, block: LineBlock): ReadBlock | undefined {
	const { plan, stats, progress } = read;
	const { starts, ends, count } = block;
	const records: IDataObject[] = [];
	/** The key is looked for in the whole block once, and line by line only when the block holds it or an escape. */
	const keyInBlock = block.anyText((text) => mayHoldSecret(text, read.secret)) ? read.secret : undefined;
	/** Lines of the block left out of the bytes (undefined while none is). */
	let leftOut: Uint8Array | undefined;
	const leaveOut = (index: number) => {
		(leftOut ??= new Uint8Array(count))[index] = 1;
	};
	let taken = 0;
	while (taken < count && !progress.limitReached) {
		const index = taken++;
		if (++response.seen <= progress.handled) {
			leaveOut(index); // handed out before the connection dropped
			continue;
		}
		progress.handled = response.seen;
		stats.lines = progress.handled;
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
			throw serviceDataError(read, `Line ${progress.handled} of the dataset "${plan.label}" contains the API key of the credential`, KEY_ECHO_DESCRIPTION);
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
function classifyLine(text: string, start: number, end: number, key: string | undefined, wanted: LineSelector | undefined): LineVerdict {
	// A record starts with '{'; anything else may be blank (only then is a string made to trim it).
	if (start === end || (text.charCodeAt(start) !== OPENING_BRACE && text.slice(start, end).trim().length === 0)) return BLANK;
	const line = key === undefined ? undefined : text.slice(start, end);
	if (line !== undefined && containsSecret(line, key)) return HOLDS_KEY;
	if (wanted && !wanted(text, start, end)) return DECLINED;
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
	const { plan, stats, progress } = read;
	if (plan.onMalformed === 'error') {
		throw serviceDataError(
			read,
			`Line ${progress.handled} of the dataset "${plan.label}" cannot be read: ${maskServiceText(problem, read.secret)}`,
			`The line starts with: ${excerpt(maskServiceText(line, read.secret))}\nSet "On Malformed Line" to "Skip and Count" to leave such lines out; the output then tells how many were skipped.`,
		);
	}
	stats.skippedLines++;
	if (stats.skippedLineNumbers.length < SKIPPED_LINE_NUMBERS_KEPT) stats.skippedLineNumbers.push(progress.handled);
}

/** The record as handed out, or undefined when the filter leaves it out; fields asked only for the filter are removed. */
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
function keptBytes(plan: ReadPlan, block: LineBlock, records: IDataObject[], taken: number, leftOut: Uint8Array | undefined): Uint8Array[] {
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
// Errors of a read (built through transport/errors.ts).

function serviceDataError(read: Read, message: string, description: string) {
	return buildApiError(read.context.getNode(), { message, description, itemIndex: read.plan.itemIndex });
}

/** An error while opening or waiting: the cancellation when the execution was cancelled, else the error. */
function failedWhile(read: Read, error: unknown) {
	if (read.signal?.aborted) return cancelledError(read);
	return asNodeError(read.context.getNode(), error, read.plan.itemIndex);
}

/**
 * The stream ended without a single record: an empty 200, or only lines that are not records (a proxy's
 * page served as NDJSON, read with "Skip and Count"). Never a successful empty snapshot.
 */
function noRecordError(read: Read) {
	const { stats } = read;
	const what =
		stats.lines === 0
			? 'the answer was empty'
			: `none of its ${stats.lines.toLocaleString('en-US')} line${stats.lines === 1 ? ' is a record' : 's is a record'}${stats.skippedLines > 0 ? ` (${stats.skippedLines.toLocaleString('en-US')} skipped as malformed)` : ''}`;
	return serviceDataError(
		read,
		`The dataset "${read.plan.label}" came back without any record: ${what}`,
		'A snapshot holds records; something else answered (a proxy, or a service that failed without saying so). Nothing is output. Check the Base URL of the credential and try again later.',
	);
}

/** How the final error names a failure of the body: "connection dropped", "no data for 60 s"... */
function dropLabel(error: unknown): string {
	if (error instanceof IdleTimeoutError) return error.label;
	return networkFailureLabel(networkErrorCode(error) ?? 'ECONNRESET');
}

/** The execution was cancelled: say so, and how far the read got (nothing of it is output). */
function cancelledError(read: Read) {
	const { stats } = read;
	const records = stats.records.toLocaleString('en-US');
	return operationError(
		read.context.getNode(),
		`The execution was cancelled while the dataset "${read.plan.label}" was streaming, after ${records} record${stats.records === 1 ? '' : 's'} (${stats.lines.toLocaleString('en-US')} lines)`,
		{
			itemIndex: read.plan.itemIndex,
			description: 'Someone stopped the execution (or n8n did, e.g. on a timeout of the workflow). The node outputs nothing of this read; run it again to read the dataset.',
		},
	);
}

// ---------------------------------------------------------------------------------------------------------
// The two ways out.

/**
 * Reads a snapshot and yields its records in arrays of `batchSize` (the last one can be shorter).
 * Stop iterating at any time: the connection is closed at once. `options.stats` tells what happened.
 */
export async function* readSnapshot(this: DomainDataFunctions, options: ReadSnapshotOptions): AsyncGenerator<IDataObject[]> {
	const plan = planRead(this, options, { records: true, bytes: false });
	const stats = options.stats ?? createReadStats();
	const batchSize = Math.max(1, Math.floor(options.batchSize ?? DEFAULT_BATCH_SIZE));
	yield* rebatch(recordsOf(readBlocks.call(this, plan, stats)), batchSize);
}

async function* recordsOf(blocks: AsyncIterable<ReadBlock>): AsyncGenerator<IDataObject[]> {
	for await (const block of blocks) yield block.records;
}

/**
 * Reads a snapshot and yields the NDJSON bytes of the kept lines, as the service sent them (a filter
 * that reads fields not in `fields` re-serialises the records it keeps). Each piece ends at a line end.
 */
export async function* readSnapshotBytes(this: DomainDataFunctions, options: ReadSnapshotOptions): AsyncGenerator<Uint8Array> {
	const plan = planRead(this, options, { records: false, bytes: true });
	const stats = options.stats ?? createReadStats();
	for await (const block of readBlocks.call(this, plan, stats)) {
		for (const piece of block.bytes) yield piece;
	}
}
