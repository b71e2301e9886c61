/** What the sink reads from a dataset operation, and what it tells about a source once read (facts, hints). */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { SnapshotReadStats } from '../../../helpers/snapshotReader';
import type { OutputParameters } from '../output';

/** Refuse with `error()` as soon as more than `max` records are certain: the memory guard, handed to the source. */
export interface Guard {
	max: number;
	error: () => Error;
}

export interface RecordRequest {
	/** Records per yielded array that suits the output (a source that batches anyway uses it). */
	batchSize?: number;
	guard?: Guard;
}

/** What an operation's item reads, once its labels are resolved. */
export interface DatasetSource {
	/** Named first in every Batches, File and summary item: `{ label }` or `{ label, baseLabel }`. */
	names: { label: string; baseLabel?: string };
	/** How the "too many" error starts: `The dataset "…" has`, `The comparison of "…" with "…" finds`. */
	subject: string;
	/** The File output's name, without `.ndjson`. */
	fileName: string;
	/** The records, in arrays of any size, each a fresh object the sink may extend. */
	records(request: RecordRequest): AsyncIterable<IDataObject[]>;
	/** The File output's NDJSON, for a source that has the bytes cheaper than serialising its records. */
	ndjson?(): { bytes: AsyncIterable<Uint8Array>; records: () => number };
	/** The snapshot reads behind the records, filled in as they go. */
	reads(): readonly SnapshotReadStats[];
	/** Facts for the File and Sub-Workflow summary items, once read (fields, counts by kind...). */
	summary(): IDataObject;
	/** Once read without any record: the hint that says why. */
	emptyHint(): string;
	/** Once read: hints of the source's own (Compare's domains left out). */
	hints?(): string[];
}

export function count(value: number): string {
	return value.toLocaleString('en-US');
}

/** Skipped lines and reconnects of the reads, for File, Batches and summary items. */
export function factsOfReads(source: DatasetSource, output: OutputParameters): IDataObject {
	const facts: IDataObject = {};
	if (output.onMalformed === 'skip') facts.skippedLines = sum(source.reads(), 'skippedLines');
	const reconnects = sum(source.reads(), 'reconnects');
	if (reconnects > 0) facts.reconnects = reconnects;
	return facts;
}

export function sum(reads: readonly SnapshotReadStats[], key: 'skippedLines' | 'reconnects'): number {
	return reads.reduce((total, read) => total + read[key], 0);
}

/** A hint under the output in the editor (older n8n versions have no addExecutionHints: then nothing). */
function addHint(context: IExecuteFunctions, message: string): void {
	if (typeof context.addExecutionHints === 'function') context.addExecutionHints({ message, location: 'outputPane' });
}

/** The hints once a source gave `records`: its skipped lines, and why nothing came (or `instead` of that). */
export function addHints(this: IExecuteFunctions, source: DatasetSource, records: number, instead?: string): void {
	for (const read of source.reads()) {
		if (read.skippedLines === 0) continue;
		const { skippedLines, skippedLineNumbers } = read;
		const numbers = skippedLineNumbers.join(', ') + (skippedLines > skippedLineNumbers.length ? ', …' : '');
		const lines = `${read.skippedLines} malformed line${read.skippedLines > 1 ? 's' : ''}`;
		addHint(this, `Skipped ${lines} of the dataset "${read.label}" (line ${numbers})`);
	}
	for (const hint of source.hints?.() ?? []) addHint(this, hint);
	if (instead) addHint(this, instead);
	else if (records === 0) addHint(this, source.emptyHint());
}
