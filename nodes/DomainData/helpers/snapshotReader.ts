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
 * - bounded: `maxAttempts` stream requests in all (each re-request re-reads the first N lines).
 *
 * Two ways out: `readSnapshot` yields batches of parsed records (shared with the trigger), and
 * `readSnapshotBytes` yields the NDJSON bytes of the kept lines (for the file output).
 */
import type { IDataObject, IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { DEFAULT_MAX_ATTEMPTS } from '../actions/common';
import { apiStream, containsSecret, credentialSecret, type DomainDataFunctions, isTransientError, redact } from '../transport';
import { listDatasets, unknownLabelError } from './datasets';
import { bytesPerLine, excerpt, MAX_LINE_BYTES, NdjsonLineSplitter } from './ndjson';
import { asNodeError } from './nodeErrors';
import { compileRecordFilter, fieldsReadBy, type RecordFilter, type RecordPredicate } from './recordFilter';
import { type SnapshotField, toCanonicalFields, withFields } from './snapshotFields';

export type MalformedLineHandling = 'error' | 'skip';

/** Records per yielded batch of `readSnapshot` when the caller does not say. */
export const DEFAULT_READ_BATCH_SIZE = 1000;
/** Pause before re-requesting a dropped stream, doubled on each further drop. */
const RESUME_PAUSE_MS = 250;
/** Why a line that holds the API key stops the read (whatever "On Malformed Line" says). */
const KEY_ECHO_DESCRIPTION =
	'No record of the service holds your API key: whatever answered echoes the request, headers included. The line is not output (not as an item, not in a file) and the read stops. Check the Base URL of the credential; if it is right, report it to the service and consider replacing the key.';
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
	/** Stream requests in all, the first included (default 4). Also passed to the transport for 429/5xx. */
	maxAttempts?: number;
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
		maxAttempts: Math.max(1, Math.floor(options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS)),
		onMalformed: options.onMalformed ?? 'error',
		itemIndex: options.itemIndex,
		collectRecords: collect.records,
		collectBytes: collect.bytes,
	};
}

/** Opens the stream of the plan's label; a 404 becomes an error naming the labels that exist. */
async function openStream(this: DomainDataFunctions, plan: ReadPlan): Promise<AsyncIterable<Uint8Array>> {
	const qs: Record<string, string | number> = { fields: plan.requestFields.join(',') };
	if (plan.serviceLimit !== undefined) qs.limit = plan.serviceLimit;
	const notFoundMessage = `The dataset "${plan.label}" does not exist`;
	let failure: unknown;
	try {
		return await apiStream.call(this, {
			method: 'GET',
			path: ['historical', 'domain', plan.label],
			qs,
			maxAttempts: plan.maxAttempts,
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

function cancelSignal(context: DomainDataFunctions): AbortSignal | undefined {
	const execute = context as Partial<IExecuteFunctions>;
	return typeof execute.getExecutionCancelSignal === 'function' ? execute.getExecutionCancelSignal() : undefined;
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

	/** Complete lines of the snapshot handled so far, in stream order: the resume point. */
	let handled = 0;
	for (let attempt = 1; ; attempt++) {
		const body = await openStream.call(this, plan);
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
					// Only the body can fail here, after a 2xx: normally the connection dropped mid-stream.
					dropped = error;
					break;
				}
				if (signal?.aborted) {
					throw new NodeOperationError(this.getNode(), 'The execution was cancelled while the dataset was streaming', {
						itemIndex: plan.itemIndex,
					});
				}
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
					if (predicate && !predicate(record)) {
						leaveOut(index);
						continue;
					}
					if (dropFields) for (const field of filterOnlyFields) delete record[field];
					if (collectRecords) out.records.push(record);
					if (encoder) out.bytes.push(encoder.encode(JSON.stringify(record) + '\n'));
					stats.records++;
					if (recordLimit !== undefined && stats.records >= recordLimit) limitReached = true;
				}
				if (collectBytes && !encoder) {
					if (kept === undefined && processed === lines.length) {
						out.bytes = block.bytes; // the usual case: the service's bytes as they came
					} else {
						const perLine = bytesPerLine(block.bytes);
						for (let i = 0; i < processed; i++) if (!kept || kept[i]) out.bytes.push(perLine[i]);
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
		if (!isTransientError(dropped)) throw asNodeError(this.getNode(), dropped, plan.itemIndex);
		if (attempt >= plan.maxAttempts) {
			const cause = dropped instanceof Error ? dropped.message : String(dropped);
			throw new NodeApiError(this.getNode(), { message: cause } as JsonObject, {
				message: `The connection dropped while the dataset "${plan.label}" was streaming, ${plan.maxAttempts} time${plan.maxAttempts > 1 ? 's' : ''} in all`,
				description: `${handled} lines had been read when it dropped the last time (${cause}). Nothing partial is returned. Try again later, raise "Max Attempts", or read less with a Limit or filters.`,
				itemIndex: plan.itemIndex,
			});
		}
		stats.reconnects++;
		await sleep(RESUME_PAUSE_MS * 2 ** (attempt - 1));
	}
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

