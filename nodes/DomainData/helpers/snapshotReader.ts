/**
 * Reads one snapshot from the stream endpoint, resuming after dropped connections, in memory bounded by
 * a chunk of the body (plus whatever the caller keeps).
 *
 * Guarantees, whatever the network does:
 * - one snapshot: the caller gives a concrete date label (resolve `latest` first, datasets.ts), and
 *   every re-request asks for that same label;
 * - no gap, no duplicate: the endpoint has no offset, so after a drop the same request is sent again
 *   and its first N lines are skipped, N being the complete lines already handled (malformed and blank
 *   lines included: they are lines of the stream too). A half-received line is dropped and read again;
 * - bounded: one retry budget for the whole read (transport/retry.ts): at most `maxAttempts` requests in a
 *   row without new lines, whatever failed (an HTTP status, a refused, dropped or silent connection); each
 *   re-request re-reads the first N lines.
 *
 * Two ways out: `readSnapshot` yields batches of parsed records (shared with the trigger), and
 * `readSnapshotBytes` yields the NDJSON bytes of the kept lines (for the file output).
 */
import type { IDataObject, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	apiStream,
	cancelSignal,
	containsSecret,
	credentialSecret,
	type DomainDataFunctions,
	IdleTimeoutError,
	isTransientError,
	isUndecodableBody,
	KEY_ECHO_DESCRIPTION,
	networkErrorCode,
	networkFailureLabel,
	normalizeMaxAttempts,
	redact,
	RetryBudget,
	type RetryTiming,
	undecodableBodyError,
} from '../transport';
import { listDatasets, unknownLabelError } from './datasets';
import { bytesPerLine, excerpt, MAX_LINE_BYTES, NdjsonLineSplitter } from './ndjson';
import { asNodeError } from './nodeErrors';
import { compileRecordFilter, fieldsReadBy, type RecordFilter, type RecordPredicate } from './recordFilter';
import { type SnapshotField, toCanonicalFields, withFields } from './snapshotFields';

export type MalformedLineHandling = 'error' | 'skip';

/** Records per yielded batch of `readSnapshot` when the caller does not say. */
export const DEFAULT_READ_BATCH_SIZE = 1000;
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
	/** Records per yielded array (default 1000; the last one can be shorter). */
	batchSize?: number;
	/** Filled in while reading. */
	stats?: SnapshotReadStats;
	itemIndex?: number;
}

interface ReadPlan {
	label: string;
	requestFields: SnapshotField[];
	/** Fields asked only for the filter: removed from every record before it is handed out. */
	filterOnlyFields: SnapshotField[];
	predicate?: RecordPredicate;
	recordLimit?: number;
	/** `limit` query parameter: only when every line read is a record handed out (no filter). */
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
}

interface ReadBlock {
	records: IDataObject[];
	bytes: Uint8Array[];
}

function planRead(context: DomainDataFunctions, options: ReadSnapshotOptions, collect: { records: boolean; bytes: boolean }): ReadPlan {
	const node = context.getNode();
	const canonical = toCanonicalFields(options.fields);
	if (!canonical.ok) throw new NodeOperationError(node, canonical.message, { itemIndex: options.itemIndex });
	const filterFields = fieldsReadBy(options.filter);
	const requestFields = withFields(canonical.fields, filterFields);
	const predicate = compileRecordFilter(options.filter);
	const limit = options.limit;
	if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
		throw new NodeOperationError(node, `The limit must be a whole number of 1 or more, got ${limit}`, {
			itemIndex: options.itemIndex,
		});
	}
	return {
		label: options.label,
		requestFields,
		filterOnlyFields: requestFields.filter((field) => !canonical.fields.includes(field)),
		predicate,
		recordLimit: limit,
		// With a filter, "limit" counts matches, which the service cannot know: it must not cut the stream.
		serviceLimit: predicate ? undefined : limit,
		maxAttempts: normalizeMaxAttempts(options.maxAttempts),
		idleTimeoutMs: options.idleTimeoutMs,
		retryTiming: options.retryTiming,
		onMalformed: options.onMalformed ?? 'error',
		itemIndex: options.itemIndex,
		collectRecords: collect.records,
		collectBytes: collect.bytes,
	};
}

/** Opens the stream of the plan's label; a 404 becomes an error naming the labels that exist. */
async function openStream(this: DomainDataFunctions, plan: ReadPlan, budget: RetryBudget): Promise<AsyncIterable<Uint8Array>> {
	const qs: Record<string, string | number> = { fields: plan.requestFields.join(',') };
	if (plan.serviceLimit !== undefined) qs.limit = plan.serviceLimit;
	const notFoundMessage = `The dataset "${plan.label}" does not exist`;
	let failure: unknown;
	try {
		return await apiStream.call(this, {
			method: 'GET',
			path: ['historical', 'domain', plan.label],
			qs,
			budget,
			timeoutMs: plan.idleTimeoutMs,
			itemIndex: plan.itemIndex,
			notFoundMessage,
		});
	} catch (error) {
		failure = error;
	}
	// The transport's NodeApiError for the service's own 404: say which labels exist instead.
	const { httpCode, message } = (failure ?? {}) as { httpCode?: unknown; message?: unknown };
	if (String(httpCode) === '404' && message === notFoundMessage) {
		const datasets = await listDatasets.call(this, { maxAttempts: plan.maxAttempts, itemIndex: plan.itemIndex });
		throw unknownLabelError.call(this, plan.label, datasets, plan.itemIndex);
	}
	throw asNodeError(this.getNode(), failure, plan.itemIndex);
}

function serviceDataError(context: DomainDataFunctions, plan: ReadPlan, message: string, description: string) {
	return new NodeApiError(context.getNode(), { message } as JsonObject, {
		message,
		description,
		itemIndex: plan.itemIndex,
	});
}

/**
 * The reading loop: one body chunk in, the records (and/or bytes) it completed out. Yields nothing for
 * chunks that complete no kept line.
 */
async function* readBlocks(this: DomainDataFunctions, plan: ReadPlan, stats: SnapshotReadStats): AsyncGenerator<ReadBlock> {
	const { predicate, filterOnlyFields, recordLimit, collectRecords, collectBytes, onMalformed } = plan;
	const dropFields = filterOnlyFields.length > 0;
	const encoder = collectBytes && dropFields ? new TextEncoder() : undefined;
	const signal = cancelSignal(this);
	const secret = await credentialSecret.call(this);
	stats.label = plan.label;
	stats.requestedFields = plan.requestFields;

	/** One budget for the whole read: the transport's retries and the resumes below spend it together. */
	const budget = new RetryBudget(plan.maxAttempts, plan.retryTiming, signal);
	/** Complete lines of the snapshot handled so far, in stream order: the resume point. */
	let handled = 0;
	/** Lines that were records (before filters): a snapshot without any is not a snapshot. */
	let parsed = 0;
	for (;;) {
		const handledBefore = handled;
		let body: AsyncIterable<Uint8Array>;
		try {
			body = await openStream.call(this, plan, budget);
		} catch (error) {
			if (signal?.aborted) throw cancelledError(this, plan, stats);
			throw asNodeError(this.getNode(), error, plan.itemIndex);
		}
		stats.requests++;
		const splitter = new NdjsonLineSplitter();
		const chunks = body[Symbol.asyncIterator]();
		/** Lines seen in this response (a re-request starts at 1 again and skips up to `handled`). */
		let seen = 0;
		let settled = false;
		let dropped: unknown;
		try {
			for (;;) {
				let step: IteratorResult<Uint8Array>;
				try {
					step = await chunks.next();
				} catch (error) {
					// n8n aborts the body when the execution is cancelled.
					if (signal?.aborted) throw cancelledError(this, plan, stats);
					// Only the body can fail here, after a 2xx: normally the connection dropped mid-stream.
					dropped = error;
					break;
				}
				if (signal?.aborted) throw cancelledError(this, plan, stats);
				let block;
				try {
					block = step.done ? splitter.end() : splitter.push(step.value);
				} catch {
					// The splitter's only failure: a line too long to be a record (LineTooLongError).
					throw serviceDataError(
						this,
						plan,
						`Line ${handled + 1} of the dataset "${plan.label}" is longer than ${MAX_LINE_BYTES / (1024 * 1024)} MB`,
						'No record is that long: the service sent something else than NDJSON records. Try again later; if it persists, report it to the service.',
					);
				}
				const { lines } = block;
				const out: ReadBlock = { records: [], bytes: [] };
				/** Which lines of the block are kept; undefined while all of them are. */
				let kept: boolean[] | undefined;
				const leaveOut = (index: number) => {
					(kept ??= new Array<boolean>(lines.length).fill(true))[index] = false;
				};
				/** Lines whose bytes were not valid UTF-8, as the items see them (see REPLACEMENT_CHARACTER). */
				let repaired: Map<number, Uint8Array> | undefined;
				let limitReached = false;
				let processed = 0;
				while (processed < lines.length && !limitReached) {
					const index = processed++;
					seen++;
					if (seen <= handled) {
						leaveOut(index); // handed out before the connection dropped
						continue;
					}
					handled = seen;
					stats.lines = handled;
					const line = lines[index];
					if (line.length === 0 || line.trim().length === 0) {
						stats.blankLines++;
						leaveOut(index);
						continue;
					}
					if (containsSecret(line, secret)) {
						// No record of the index holds the user's own API key: the other end echoes the request.
						throw serviceDataError(
							this,
							plan,
							`Line ${handled} of the dataset "${plan.label}" contains the API key of the credential`,
							KEY_ECHO_DESCRIPTION,
						);
					}
					let record: IDataObject | undefined;
					let problem: string | undefined;
					try {
						const value: unknown = JSON.parse(line);
						if (value !== null && typeof value === 'object' && !Array.isArray(value)) record = value as IDataObject;
						else problem = 'it is not a JSON object';
					} catch (error) {
						problem = `it is not valid JSON (${(error as Error).message})`;
					}
					if (record === undefined) {
						if (onMalformed === 'error') {
							throw serviceDataError(
								this,
								plan,
								`Line ${handled} of the dataset "${plan.label}" cannot be read: ${problem}`,
								`The line starts with: ${excerpt(redact(line, secret))}\nSet "On Malformed Line" to "Skip and Count" to leave such lines out; the output then tells how many were skipped.`,
							);
						}
						stats.skippedLines++;
						if (stats.skippedLineNumbers.length < SKIPPED_LINE_NUMBERS_KEPT) stats.skippedLineNumbers.push(handled);
						leaveOut(index);
						continue;
					}
					parsed++;
					if (predicate && !predicate(record)) {
						leaveOut(index);
						continue;
					}
					if (dropFields) for (const field of filterOnlyFields) delete record[field];
					if (collectRecords) out.records.push(record);
					if (encoder) out.bytes.push(encoder.encode(JSON.stringify(record) + '\n'));
					else if (collectBytes && line.includes(REPLACEMENT_CHARACTER)) {
						// The decoder replaced invalid bytes (or the service sent U+FFFD itself: then the bytes are
						// the same): the file gets the line as the items read it.
						(repaired ??= new Map()).set(index, utf8.encode(line + '\n'));
					}
					stats.records++;
					if (recordLimit !== undefined && stats.records >= recordLimit) limitReached = true;
				}
				if (collectBytes && !encoder) {
					if (kept === undefined && repaired === undefined && processed === lines.length) {
						out.bytes = block.bytes; // the usual case: the service's bytes as they came
					} else {
						const perLine = bytesPerLine(block.bytes);
						for (let i = 0; i < processed; i++) if (!kept || kept[i]) out.bytes.push(repaired?.get(i) ?? perLine[i]);
					}
				}
				for (const piece of out.bytes) stats.bytes += piece.length;
				if (out.records.length > 0 || out.bytes.length > 0) yield out;
				if (limitReached) {
					stats.complete = true;
					return;
				}
				if (step.done) {
					if (seen < handled) {
						throw serviceDataError(
							this,
							plan,
							`The dataset "${plan.label}" ended after ${seen} lines when it was asked again after a dropped connection, but ${handled} lines had been read before`,
							'The snapshot changed between two requests, so the result cannot be completed without gaps. Nothing partial is returned. Run the node again.',
						);
					}
					if (parsed === 0) throw noRecordError(this, plan, stats);
					settled = true;
					stats.complete = true;
					return;
				}
			}
		} finally {
			// Stopped early (limit, guard, error or the caller left): close the connection now.
			if (!settled && dropped === undefined) await chunks.return?.();
		}
		splitter.discardPending();
		if (isUndecodableBody(dropped)) throw undecodableBodyError(this.getNode(), networkErrorCode(dropped), plan.itemIndex);
		if (!isTransientError(dropped)) throw asNodeError(this.getNode(), dropped, plan.itemIndex);
		// New lines read: the read got further, so the failures before do not count against the next ones.
		if (handled > handledBefore) budget.progress();
		const wait = budget.afterFailure({ label: dropLabel(dropped), retryable: true });
		if (wait === undefined) {
			const cause = redact(dropped instanceof Error ? dropped.message : String(dropped), secret);
			const requests = budget.requests;
			throw serviceDataError(
				this,
				plan,
				`The dataset "${plan.label}" could not be read to the end: ${requests} request${requests > 1 ? 's' : ''} in a row failed without new lines (${budget.summary()})`,
				`${handled} lines had been read when the connection failed the last time (${cause}). Nothing partial is returned. Try again later, raise "Max Attempts" or "Idle Timeout", or read less with a Limit or filters.`,
			);
		}
		stats.reconnects++;
		try {
			await budget.wait(wait);
		} catch (error) {
			if (signal?.aborted) throw cancelledError(this, plan, stats);
			throw asNodeError(this.getNode(), error, plan.itemIndex);
		}
	}
}

/**
 * The stream ended without a single record: an empty 200, or only lines that are not records (a proxy's
 * page served as NDJSON, read with "Skip and Count"). Never a successful empty snapshot.
 */
function noRecordError(context: DomainDataFunctions, plan: ReadPlan, stats: SnapshotReadStats) {
	const what =
		stats.lines === 0
			? 'the answer was empty'
			: `none of its ${stats.lines.toLocaleString('en-US')} line${stats.lines === 1 ? ' is a record' : 's is a record'}${stats.skippedLines > 0 ? ` (${stats.skippedLines.toLocaleString('en-US')} skipped as malformed)` : ''}`;
	return serviceDataError(
		context,
		plan,
		`The dataset "${plan.label}" came back without any record: ${what}`,
		'A snapshot holds records; something else answered (a proxy, or a service that failed without saying so). Nothing is output. Check the Base URL of the credential and try again later.',
	);
}

/** How the final error names a failure of the body: "connection dropped", "no data for 60 s"... */
function dropLabel(error: unknown): string {
	if (error instanceof IdleTimeoutError) return error.label;
	return networkFailureLabel(networkErrorCode(error) ?? 'ECONNRESET');
}

/** The execution was cancelled: say so, and how far the read got (nothing of it is output). */
function cancelledError(context: DomainDataFunctions, plan: ReadPlan, stats: SnapshotReadStats) {
	const records = stats.records.toLocaleString('en-US');
	return new NodeOperationError(
		context.getNode(),
		`The execution was cancelled while the dataset "${plan.label}" was streaming, after ${records} record${stats.records === 1 ? '' : 's'} (${stats.lines.toLocaleString('en-US')} lines)`,
		{
			itemIndex: plan.itemIndex,
			description: 'Someone stopped the execution (or n8n did, e.g. on a timeout of the workflow). The node outputs nothing of this read; run it again to read the dataset.',
		},
	);
}

/**
 * Reads a snapshot and yields its records in arrays of `batchSize` (the last one can be shorter).
 * Stop iterating at any time: the connection is closed at once. `options.stats` tells what happened.
 */
export async function* readSnapshot(this: DomainDataFunctions, options: ReadSnapshotOptions): AsyncGenerator<IDataObject[]> {
	const plan = planRead(this, options, { records: true, bytes: false });
	const stats = options.stats ?? createReadStats();
	const batchSize = Math.max(1, Math.floor(options.batchSize ?? DEFAULT_READ_BATCH_SIZE));
	let batch: IDataObject[] = [];
	for await (const block of readBlocks.call(this, plan, stats)) {
		for (const record of block.records) {
			batch.push(record);
			if (batch.length === batchSize) {
				yield batch;
				batch = [];
			}
		}
	}
	if (batch.length > 0) yield batch;
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

