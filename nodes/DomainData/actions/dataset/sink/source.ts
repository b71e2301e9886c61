/** What the sink reads from a dataset operation, what it tells about a source once read, and its NDJSON. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { MemoryGuard } from '../../../helpers/compare';
import { type DomainList, domainListReport } from '../../../helpers/domainsFilter';
import type { SnapshotReadStats } from '../../../helpers/snapshotReader';
import type { OutputParameters } from '../outputPlan';
import { addHint } from '../../perItem';

/** What an operation's item reads, once its labels are resolved. */
export interface DatasetSource {
	/** Named first in every Batches, File and summary item: `{ label }` or `{ label, baseLabel }`. */
	labels: { label: string; baseLabel?: string };
	/** The labels as the parameters gave them ("latest", "previous", a date label or a snapshot id). */
	asked: { label: string; baseLabel?: string };
	/** The File output's name, without `.ndjson`. */
	fileName: string;
	/** Arrays of any size (`batchSize` suits the output), each record a fresh object the sink may extend. */
	records(request: { batchSize?: number; guard?: MemoryGuard }): AsyncIterable<IDataObject[]>;
	/** The File output's NDJSON, for a source that has the bytes cheaper than serialising its records. */
	ndjson?(): AsyncIterable<Uint8Array>;
	/** The snapshot reads behind the records, filled in as they go. */
	reads(): readonly SnapshotReadStats[];
	/** Facts for the File and Sub-Workflow summary items, once read (fields, counts by kind...). */
	summary(): IDataObject;
	/** The source's own hints once read (Compare's domains left out), and why nothing came when `empty`. */
	hints(empty: boolean): string[];
}

/** Where a Domains list's names that no line held are missing: `not in the dataset "…"`, `in neither "…" nor "…"`. */
export function notHeldBy({ label, baseLabel }: DatasetSource['labels']): string {
	return baseLabel === undefined ? `not in the dataset "${label}"` : `in neither "${label}" nor "${baseLabel}"`;
}

/** The Domains filter's report, made once on the first call after the read: hints, summary and facts share it. */
export function domainsReport(list: DomainList | undefined, whole: () => boolean, labels: DatasetSource['labels']) {
	let report: ReturnType<typeof domainListReport> | undefined;
	return () => (report ??= domainListReport(list, whole(), notHeldBy(labels)));
}

/** What a run reads, as messages name it: `dataset "…"`, `comparison of "…" with "…"`. */
export function selectionName({ label, baseLabel }: DatasetSource['labels']): string {
	return baseLabel === undefined ? `dataset "${label}"` : `comparison of "${label}" with "${baseLabel}"`;
}

/**
 * `run it again with` `setting`, and with the snapshots this run read where they were asked as "Latest", "Previous" or
 * an id: Skip Records counts lines of those snapshots, and a newer one may be published before the next run.
 */
export function runAgainWith({ labels, asked }: DatasetSource, setting: string): string {
	const settings: string[] = [];
	if (asked.label !== labels.label) settings.push(`"Dataset Name or ID" set to "${labels.label}"`);
	if (asked.baseLabel !== labels.baseLabel) settings.push(`"Compare With Name or ID" set to "${labels.baseLabel}"`);
	const pinned = settings.length > 0 ? `${settings.join(', ')} and ` : '';
	return `run it again with ${pinned}${setting}`;
}

/** How a File or Sub-Workflow run that stopped goes on: the Skip Records of its next run. */
export function resumeHint(source: DatasetSource, skipRecords: number): string {
	return `To go on from there, ${runAgainWith(source, `the option "Skip Records" set to ${skipRecords}`)}.`;
}

export function sum(reads: readonly SnapshotReadStats[], key: 'skippedLines' | 'reconnects'): number {
	return reads.reduce((total, read) => total + read[key], 0);
}

/** Skipped lines and reconnects of the reads, for File, Batches and summary items. */
export function factsOfReads(source: DatasetSource, output: OutputParameters): IDataObject {
	const facts: IDataObject = {};
	if (output.onMalformed === 'skip') facts.skippedLines = sum(source.reads(), 'skippedLines');
	const reconnects = sum(source.reads(), 'reconnects');
	if (reconnects > 0) facts.reconnects = reconnects;
	return facts;
}

/** The hints once a source gave `records`: its skipped lines, and why nothing came (or `instead` of that). */
export function addHints(this: IExecuteFunctions, source: DatasetSource, records: number, instead?: string): void {
	for (const { label, skippedLines, skippedLineNumbers } of source.reads()) {
		if (skippedLines === 0) continue;
		const numbers = skippedLineNumbers.join(', ') + (skippedLines > skippedLineNumbers.length ? ', …' : '');
		const lines = `${skippedLines} malformed line${skippedLines > 1 ? 's' : ''}`;
		addHint(this, `Skipped ${lines} of the dataset "${label}" (line ${numbers})`);
	}
	for (const hint of source.hints(records === 0 && !instead)) addHint(this, hint);
	if (instead) addHint(this, instead);
}

/** Characters serialised before one encode: one TextEncoder call per piece instead of one per record. */
const PIECE_CHARS = 64 * 1024;

/** Pulls records from `source` and serialises them into NDJSON pieces of about 64 KB, counting them. */
export class Serialiser {
	private readonly iterator: AsyncIterator<IDataObject[]>;
	private batch: IDataObject[] = [];
	private position = 0;
	ended = false;
	records = 0;

	constructor(source: AsyncIterable<IDataObject[]>) {
		this.iterator = source[Symbol.asyncIterator]();
	}

	/** Every piece; stopping early stops the source (and its connection). */
	async *pieces(): AsyncGenerator<Uint8Array> {
		const encoder = new TextEncoder();
		try {
			while (!this.ended) {
				let text = '';
				while (text.length < PIECE_CHARS && (await this.hasRecord())) {
					text += JSON.stringify(this.batch[this.position++]) + '\n';
					this.records++;
				}
				if (text.length > 0) yield encoder.encode(text);
			}
		} finally {
			if (!this.ended) await this.iterator.return?.();
		}
	}

	/** Whether a record is at `position`, the next batch read when this one is done. */
	private async hasRecord(): Promise<boolean> {
		while (this.position === this.batch.length && !this.ended) {
			const step = await this.iterator.next();
			if (step.done) this.ended = true;
			else [this.batch, this.position] = [step.value, 0];
		}
		return this.position < this.batch.length;
	}

	/** What is left of the source: the rest of the current batch, then the stream itself. */
	async *rest(): AsyncGenerator<IDataObject[]> {
		if (this.position < this.batch.length) yield this.batch.slice(this.position);
		if (this.ended) return;
		yield* { [Symbol.asyncIterator]: () => this.iterator };
	}
}
