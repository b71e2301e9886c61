/**
 * Reads one snapshot from the stream endpoint, in memory bounded by a chunk of the body (plus whatever the
 * caller keeps).
 *
 * Guarantees, whatever the network does:
 * - one snapshot: the caller gives a concrete date label (resolve `latest` first, datasets.ts), and
 *   every re-request asks for that same label;
 * - no gap, no duplicate, bounded retries: the stream comes from transport's resumable source
 *   (readNdjsonStream), which resumes after a drop where it stopped, checks that the lines sent again are
 *   those read before, and spends one retry budget for the whole read;
 * - every line judged once: `takeLines` (snapshotLines.ts) classifies each new line (blank, holding the API
 *   key, declined by the caller, malformed, or a record) and applies the selection.
 *
 * Two ways out: `readSnapshot` yields batches of parsed records (shared with the trigger and Compare),
 * and `readSnapshotBytes` yields the NDJSON bytes of the kept lines (for the file output).
 */
import type { IDataObject } from 'n8n-workflow';

import { operationError } from '../errors';
import { credentialSecret, type DomainDataFunctions, readNdjsonStream, type RetryTiming } from '../transport';
import { DEFAULT_BATCH_SIZE, rebatch } from './batches';
import { listDatasets, unknownLabelError } from './datasets';
import { compileRecordFilter, fieldsReadBy, type RecordFilter } from './recordFilter';
import { toCanonicalFields, withFields } from './snapshotFields';
import {
	type LineSelector,
	type MalformedLineHandling,
	type Read,
	type ReadBlock,
	type ReadPlan,
	serviceDataError,
	type SnapshotReadStats,
	takeLines,
} from './snapshotLines';

export type { LineSelector, MalformedLineHandling, SnapshotReadStats } from './snapshotLines';

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
	/** Told each line skipped as malformed (with onMalformed 'skip'), for callers that must know which. */
	onSkippedLine?: (line: string) => void;
	/** Records per yielded array (default DEFAULT_BATCH_SIZE; the last one can be shorter). */
	batchSize?: number;
	/**
	 * For callers that need only some lines of a snapshot, or know some without parsing them (Compare): sees each
	 * line as `text.slice(start, end)` before it is parsed, after the resume, blank-line and API-key checks. A line
	 * it declines is read (counted in `stats.lines`, and it keeps the resume point) but never parsed: it is no
	 * record, and not judged malformed either. A record it returns stands for the line, unparsed (no filter goes
	 * with such a selector). Return true when unsure: the line is then parsed as usual.
	 */
	wanted?: LineSelector;
	/** Filled in while reading. */
	stats?: SnapshotReadStats;
	itemIndex?: number;
}

function planRead(
	context: DomainDataFunctions,
	options: ReadSnapshotOptions,
	collect: { records: boolean; bytes: boolean },
): ReadPlan {
	const node = context.getNode();
	const canonical = toCanonicalFields(options.fields);
	if (!canonical.ok) throw operationError(node, canonical.message, { itemIndex: options.itemIndex });
	const filterFields = fieldsReadBy(options.filter);
	const requestFields = withFields(canonical.fields, filterFields);
	const filterOnlyFields = requestFields.filter((field) => !canonical.fields.includes(field));
	const predicate = compileRecordFilter(options.filter);
	// Read and checked by the caller's parameter reader (readLimit, the trigger's Number of Records).
	const limit = options.limit;
	return {
		label: options.label,
		requestFields,
		filterOnlyFields,
		predicate,
		wanted: options.wanted,
		recordLimit: limit,
		// With a filter, "limit" counts matches, which the service cannot know: it must not cut the stream.
		serviceLimit: predicate || options.wanted ? undefined : limit,
		maxAttempts: options.maxAttempts,
		idleTimeoutMs: options.idleTimeoutMs,
		retryTiming: options.retryTiming,
		onMalformed: options.onMalformed ?? 'error',
		onSkippedLine: options.onSkippedLine,
		itemIndex: options.itemIndex,
		collectRecords: collect.records,
		collectBytes: collect.bytes,
		reencode: collect.bytes && filterOnlyFields.length > 0,
	};
}

/**
 * Reads the plan's snapshot through the resumable source: yields what each block of lines completed
 * (nothing for blocks that complete no kept line). A snapshot without a single record is an error.
 */
async function* readBlocks(
	this: DomainDataFunctions,
	plan: ReadPlan,
	stats: SnapshotReadStats,
): AsyncGenerator<ReadBlock> {
	const read: Read = {
		context: this,
		plan,
		stats,
		progress: { recordLines: 0, limitReached: false },
		secret: await credentialSecret.call(this),
	};
	stats.label = plan.label;
	stats.requestedFields = plan.requestFields;
	const qs: Record<string, string | number> = { fields: plan.requestFields.join(',') };
	if (plan.serviceLimit !== undefined) qs.limit = plan.serviceLimit;
	const lines = readNdjsonStream.call(this, {
		label: plan.label,
		qs,
		maxAttempts: plan.maxAttempts,
		idleTimeoutMs: plan.idleTimeoutMs,
		retryTiming: plan.retryTiming,
		itemIndex: plan.itemIndex,
		counts: stats,
		notFound: async () => {
			const datasets = await listDatasets.call(this, { maxAttempts: plan.maxAttempts, itemIndex: plan.itemIndex });
			return unknownLabelError.call(this, plan.label, datasets, plan.itemIndex);
		},
		cancelled: () => cancelledError(read),
	});
	for await (const range of lines) {
		const out = takeLines(read, range);
		if (out) yield out;
		if (read.progress.limitReached) {
			stats.complete = true;
			return;
		}
	}
	if (read.progress.recordLines === 0) throw noRecordError(read);
	stats.complete = true;
}

// ---------------------------------------------------------------------------------------------------------
// Errors of a read.

/**
 * The stream ended without a single record: an empty 200, or only lines that are not records (a proxy's
 * page served as NDJSON, read with "Skip and Count"). Never a successful empty snapshot.
 */
function noRecordError(read: Read) {
	const { stats } = read;
	const skipped = stats.skippedLines > 0 ? ` (${stats.skippedLines.toLocaleString('en-US')} skipped as malformed)` : '';
	const what =
		stats.lines === 0
			? 'the answer was empty'
			: `none of its ${stats.lines.toLocaleString('en-US')} line${stats.lines === 1 ? '' : 's'} is a record${skipped}`;
	return serviceDataError(
		read,
		`The dataset "${read.plan.label}" came back without any record: ${what}`,
		'A snapshot holds records; something else answered (a proxy, or a service that failed without saying so). ' +
			'Nothing is output. Check the Base URL of the credential and try again later.',
	);
}

/** The execution was cancelled: say so, and how far the read got (nothing of it is output). */
function cancelledError(read: Read) {
	const { stats } = read;
	const records = stats.records.toLocaleString('en-US');
	return operationError(
		read.context.getNode(),
		`The execution was cancelled while the dataset "${read.plan.label}" was streaming, after ${records} ` +
			`record${stats.records === 1 ? '' : 's'} (${stats.lines.toLocaleString('en-US')} lines)`,
		{
			itemIndex: read.plan.itemIndex,
			description:
				'Someone stopped the execution (or n8n did, e.g. on a timeout of the workflow). The node outputs ' +
				'nothing of this read; run it again to read the dataset.',
		},
	);
}

// ---------------------------------------------------------------------------------------------------------
// The two ways out.

/**
 * Reads a snapshot and yields its records in arrays of `batchSize` (the last one can be shorter).
 * Stop iterating at any time: the connection is closed at once. `options.stats` tells what happened.
 */
export async function* readSnapshot(
	this: DomainDataFunctions,
	options: ReadSnapshotOptions,
): AsyncGenerator<IDataObject[]> {
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
export async function* readSnapshotBytes(
	this: DomainDataFunctions,
	options: ReadSnapshotOptions,
): AsyncGenerator<Uint8Array> {
	const plan = planRead(this, options, { records: false, bytes: true });
	const stats = options.stats ?? createReadStats();
	for await (const block of readBlocks.call(this, plan, stats)) {
		for (const piece of block.bytes) yield piece;
	}
}
