/**
 * Reads one snapshot in memory bounded by a body chunk. A concrete date label (`latest` resolved in datasets.ts) makes
 * every re-request read the same snapshot; readNdjsonStream resumes after a drop without gap or duplicate.
 */
import type { IDataObject } from 'n8n-workflow';

import { operationError } from '../errors';
import { credentialSecret, type DomainDataFunctions, type NdjsonStreamOptions, readNdjsonStream } from '../transport';
import { DEFAULT_BATCH_SIZE, rebatch } from './batches';
import { listDatasets, unknownLabelError } from './datasets';
import { compileRecordFilter, fieldsReadBy, type RecordFilter } from './recordFilter';
import { type SnapshotField, toCanonicalFields, withFields } from './snapshotFields';
import { type ReadBlock, serviceDataError, takeLines } from './snapshotLines';

export type MalformedLineHandling = 'error' | 'skip';

/**
 * The caller's verdict on the line `text.slice(start, end)`, asked after the resume, blank-line and API-key checks,
 * before parsing: true to parse it (also when unsure); false to decline it (counted, and it keeps the resume point,
 * but it is neither a record nor malformed); or the record that stands for it, handed out unparsed and unfiltered.
 */
export type LineSelector = (text: string, start: number, end: number) => boolean | IDataObject;

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
		blankLines: 0,
		/** Stream requests sent (1 + reconnects), and times it was asked again after a drop. */
		requests: 0,
		reconnects: 0,
		/** NDJSON bytes handed out by readSnapshotBytes. */
		bytes: 0,
		/** True once the stream ended or the limit was reached (false if the caller stopped early). */
		complete: false,
	};
}

export type SnapshotReadStats = ReturnType<typeof createReadStats>;

export interface ReadSnapshotOptions extends Pick<
	NdjsonStreamOptions,
	'maxAttempts' | 'idleTimeoutMs' | 'retryTiming' | 'itemIndex'
> {
	/** A concrete date label (not `latest`). */
	label: string;
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

/** One read: the caller's options, what follows from them, and how far it got. */
export type Read = Awaited<ReturnType<typeof startRead>>;

/** `bytes`: the kept lines go out as NDJSON rather than records. */
async function startRead(context: DomainDataFunctions, options: ReadSnapshotOptions, bytes: boolean) {
	const canonical = toCanonicalFields(options.fields);
	if (!canonical.ok) throw operationError(context.getNode(), canonical.message, { itemIndex: options.itemIndex });
	const requestFields = withFields(canonical.fields, fieldsReadBy(options.filter));
	const filterOnlyFields = requestFields.filter((field) => !canonical.fields.includes(field));
	return {
		// The options stay an object of their own: copied into this one, they made the per-line loop 5 % slower.
		options,
		context,
		stats: options.stats ?? createReadStats(),
		secret: await credentialSecret.call(context),
		requestFields,
		/** Asked only for the filter: removed from every record before it is handed out. */
		filterOnlyFields,
		predicate: compileRecordFilter(options.filter),
		onMalformed: options.onMalformed ?? 'error',
		bytes,
		/** Re-serialise the kept records for the bytes (filter-only fields were removed from them). */
		reencode: bytes && filterOnlyFields.length > 0,
		/** Lines that were records, or that the caller declined: a snapshot without any is not a snapshot. */
		recordLines: 0,
		limitReached: false,
	};
}

/** Yields what each block of lines kept (blocks without a kept line yield nothing); no record at all is an error. */
async function* readBlocks(read: Read): AsyncGenerator<ReadBlock> {
	const { context, stats, options } = read;
	const { label, limit, itemIndex, maxAttempts } = options;
	stats.label = label;
	stats.requestedFields = read.requestFields;
	const qs: Record<string, string | number> = { fields: read.requestFields.join(',') };
	// With a filter or a selector, `limit` counts matches, which the service cannot know: it must not cut the stream.
	if (limit !== undefined && !read.predicate && !options.wanted) qs.limit = limit;
	const lines = readNdjsonStream.call(context, {
		label,
		qs,
		maxAttempts,
		idleTimeoutMs: options.idleTimeoutMs,
		retryTiming: options.retryTiming,
		itemIndex,
		counts: stats,
		notFound: async () => {
			const datasets = await listDatasets.call(context, { maxAttempts, itemIndex });
			return unknownLabelError.call(context, label, datasets, itemIndex);
		},
		cancelled: () => cancelledError(read),
	});
	for await (const range of lines) {
		const out = takeLines(read, range);
		if (out) yield out;
		if (read.limitReached) {
			stats.complete = true;
			return;
		}
	}
	if (read.recordLines === 0) throw noRecordError(read);
	stats.complete = true;
}

/** An empty 200, or only lines that are not records (a proxy's page, read with "Skip and Count"). */
function noRecordError(read: Read) {
	const { stats, options } = read;
	const skipped = stats.skippedLines > 0 ? ` (${stats.skippedLines.toLocaleString('en-US')} skipped as malformed)` : '';
	const what =
		stats.lines === 0
			? 'the answer was empty'
			: `none of its ${stats.lines.toLocaleString('en-US')} line${stats.lines === 1 ? '' : 's'} is a record${skipped}`;
	return serviceDataError(
		read,
		`The dataset "${options.label}" came back without any record: ${what}`,
		'A snapshot holds records; something else answered (a proxy, or a service that failed without saying so). ' +
			'Nothing is output. Check the Base URL of the credential and try again later.',
	);
}

function cancelledError({ context, stats, options }: Read) {
	const { label, itemIndex } = options;
	const records = stats.records.toLocaleString('en-US');
	return operationError(
		context.getNode(),
		`The execution was cancelled while the dataset "${label}" was streaming, after ${records} ` +
			`record${stats.records === 1 ? '' : 's'} (${stats.lines.toLocaleString('en-US')} lines)`,
		{
			itemIndex,
			description:
				'Someone stopped the execution (or n8n did, e.g. on a timeout of the workflow). The node outputs ' +
				'nothing of this read; run it again to read the dataset.',
		},
	);
}

/** Yields the records in arrays of `batchSize`. Stop iterating at any time: the connection is closed at once. */
export async function* readSnapshot(
	this: DomainDataFunctions,
	options: ReadSnapshotOptions,
): AsyncGenerator<IDataObject[]> {
	const read = await startRead(this, options, false);
	const batchSize = Math.max(1, Math.floor(options.batchSize ?? DEFAULT_BATCH_SIZE));
	yield* rebatch(recordsOf(readBlocks(read)), batchSize);
}

async function* recordsOf(blocks: AsyncIterable<ReadBlock>): AsyncGenerator<IDataObject[]> {
	for await (const block of blocks) yield block.records;
}

/** The kept lines' NDJSON bytes as sent (re-serialised if the filter read other fields); each piece ends a line. */
export async function* readSnapshotBytes(
	this: DomainDataFunctions,
	options: ReadSnapshotOptions,
): AsyncGenerator<Uint8Array> {
	for await (const block of readBlocks(await startRead(this, options, true))) {
		for (const piece of block.bytes) yield piece;
	}
}
