/** Dataset → Compare's shapes (spec, changes, stats) and the state one comparison carries through its passes. */
import type { IDataObject } from 'n8n-workflow';

import { bytesPerLine, type DomainDataFunctions, type Hash64, Hasher64 } from '../../transport';
import { mayHoldLongInteger, parseJsonExact } from '../../transport';
import type { SnapshotPair } from '../datasets';
import type { LineSelector } from '../domainName';
import { DomainSet } from '../domainSet';
import { listedLines } from '../domainsFilter';
import { compileRecordFilter, fieldsReadBy, type RecordFilter, type RecordPredicate } from '../recordFilter';
import { createReadStats, readSnapshot, type ReadSnapshotOptions, type SnapshotReadStats } from '../snapshotReader';
import { type SnapshotField, withFields } from '../snapshotFields';
import { DomainTable, KeptRecords } from './domainTable';
import { diffRecords, type FieldChange, hashCompared } from './recordDiff';
import { COMPARE_LIMITS, type CompareLimits, noNameError } from './refusals';

/** The memory guard of the Items and Batches outputs: `error()` as soon as more than `max` records are certain. */
export type MemoryGuard = { max: number; error: () => Error };

export type ChangeKind = 'added' | 'removed' | 'changed';
export const CHANGE_KINDS: readonly ChangeKind[] = ['added', 'removed', 'changed'];

/** Why a domain is added or removed: new to / gone from the index, or it only crossed the filters. */
type ChangeReason = 'newToIndex' | 'enteredSelection' | 'goneFromIndex' | 'leftSelection' | 'valuesChanged';

export interface DomainChange extends IDataObject {
	change: ChangeKind;
	reason: ChangeReason;
	name: string;
	label: string;
	baseLabel: string;
	record: IDataObject;
	changes: Record<string, FieldChange>;
}

/** Its two labels are concrete date labels (as DatasetLabels.pair resolves them). */
export interface CompareSpec extends SnapshotPair, Pick<ReadSnapshotOptions, 'limits' | 'onMalformed' | 'itemIndex'> {
	/** Compared fields (canonical, without `name`). */
	fields: SnapshotField[];
	kinds: ReadonlySet<ChangeKind>;
	filter?: RecordFilter;
	/** Rank moves smaller than this are no change (when rank is compared). */
	minRankMove: number;
	limit?: number;
	/** Counted in changes. */
	guard?: MemoryGuard;
	/** Where pass 1 keeps the newer snapshot for pass 3; without it (or when it cannot keep), pass 3 reads again. */
	spool?: SnapshotSpool;
	/** Compare's memory bounds; COMPARE_LIMITS when absent. */
	bounds?: CompareLimits;
}

/** The newer snapshot's lines as pass 1 read them, kept (n8n's binary storage) so that pass 3 reads no more. */
export interface SnapshotSpool {
	/** Reads `ndjson` (pieces of whole lines) to its end, keeping it; false when binary data is kept in memory. */
	keep(ndjson: AsyncIterable<Uint8Array>): Promise<boolean>;
	/** The kept lines as sent, one file of whole lines at a time, in order. */
	files(): AsyncIterable<Uint8Array>;
	/** What it has written into n8n's binary data so far (also when keeping failed part way). */
	written(): { files: number; bytes: number };
}

export function createCompareStats() {
	return {
		/** One read's stats per pass, in order (newer, older, newer). */
		reads: [] as SnapshotReadStats[],
		/** Domains left out because a line of theirs was skipped as malformed (distinct names). */
		unreadableDomains: 0,
		/** Skipped lines without a readable name (their domains may show as added or removed). */
		namelessLines: 0,
	};
}

export type CompareStats = ReturnType<typeof createCompareStats>;

/** Flags per ordinal: the filters select the newer record; the older snapshot has the domain (or hid it). */
export const SELECTED = 1;
export const SEEN_IN_BASE = 2;

export class Comparison {
	readonly table: DomainTable;
	/** Older records (JSON of the request fields) kept for pass 3, by ordinal; sized at the end of pass 1. */
	kept = new KeptRecords(0, { maxBytes: 0, tooLarge: () => new Error('No record is kept before pass 2') });
	output = 0;
	readonly limit: number;
	readonly bounds: CompareLimits;
	/** Names of the newer snapshot's lines that pass 1 skipped as malformed, and how many had no readable name. */
	readonly skippedNew = new DomainSet();
	namelessNew = 0;
	private readonly unreadable = new DomainSet();
	private readonly hasher = new Hasher64();
	private readonly values: Hash64 = { hi: 0, lo: 0 };
	private readonly predicate: RecordPredicate | undefined;
	private readonly filterFields: SnapshotField[];
	private readonly requestFields: SnapshotField[];
	/** What explains an entered or left selection: the compared fields and those the filters read. */
	private readonly explainFields: SnapshotField[];
	private readonly compareRank: boolean;
	/** Rank is asked for (compared, or read by a filter): else any rank the service sends anyway plays no part. */
	private readonly readsRank: boolean;
	/** Pass 1 kept the newer snapshot in the spec's spool: pass 3 replays it. */
	spooled = false;
	/** With a Limit, kept ordinals from here on can never be output (enough smaller ones are kept). */
	private keepBelow = Infinity;

	constructor(
		readonly context: DomainDataFunctions,
		readonly spec: CompareSpec,
		readonly stats: CompareStats,
	) {
		this.filterFields = fieldsReadBy(spec.filter);
		this.predicate = compileRecordFilter(spec.filter);
		this.requestFields = withFields(['name', ...spec.fields], this.filterFields);
		this.explainFields = withFields(spec.fields, this.filterFields);
		this.compareRank = spec.fields.includes('rank');
		this.readsRank = this.requestFields.includes('rank');
		this.table = new DomainTable(this.readsRank);
		this.limit = spec.limit ?? Infinity;
		this.bounds = spec.bounds ?? COMPARE_LIMITS;
	}

	read(label: string, wanted: LineSelector, onSkipped: (name: string | undefined) => void) {
		return readSnapshot.call(this.context, this.readOptions(label, wanted, onSkipped));
	}

	/** How a pass reads one snapshot; `onSkipped` hears of each line skipped as malformed, with its name if readable. */
	readOptions(label: string, wanted: LineSelector, onSkipped: (name: string | undefined) => void) {
		const stats = createReadStats(label);
		this.stats.reads.push(stats);
		const { limits, onMalformed, itemIndex } = this.spec;
		return {
			label,
			fields: this.requestFields,
			limits,
			onMalformed,
			itemIndex,
			// A Domains filter declines the other names' lines unparsed: they are neither indexed nor kept.
			wanted: this.spec.filter?.domains ? listedLines(this.spec.filter.domains.names, wanted) : wanted,
			stats,
			onSkippedLine: (line: string) => onSkipped(readableName(line)),
		} satisfies ReadSnapshotOptions;
	}

	/**
	 * The spooled records of the ordinals `needed` selects, parsed as the reader parses them. Line n of the spool is
	 * ordinal n (pass 1 spools exactly the lines it indexes), each ended by one '\n': the other lines are skipped as
	 * bytes, never decoded (which NdjsonLineSplitter would do).
	 */
	async *replay(needed: (ordinal: number) => boolean): AsyncGenerator<IDataObject[]> {
		const decoder = new TextDecoder();
		let ordinal = 0;
		for await (const bytes of this.spec.spool!.files()) {
			const batch: IDataObject[] = [];
			for (const bytesOfLine of bytesPerLine([bytes])) {
				if (!needed(ordinal++)) continue;
				const line = decoder.decode(bytesOfLine);
				// The lines as sent: integers beyond 2^53 kept exact, as pass 1 read them.
				batch.push((mayHoldLongInteger(line) ? parseJsonExact : JSON.parse)(line) as IDataObject);
			}
			if (batch.length > 0) yield batch;
		}
	}

	selects(record: IDataObject): boolean {
		return this.predicate?.(record) ?? true;
	}

	nameOf(record: IDataObject, label: string, records: number): string {
		if (typeof record.name === 'string' && record.name.length > 0) return record.name;
		throw noNameError(this.context.getNode(), this.spec.itemIndex, label, records);
	}

	hashOf(record: IDataObject): Hash64 {
		return hashCompared(record, this.spec.fields, this.hasher, this.values);
	}

	/** Any number the service sent, exactly; NaN for anything else. */
	rankOf(record: IDataObject): number {
		return this.readsRank && typeof record.rank === 'number' ? record.rank : NaN;
	}

	/** Whether rank is compared and moved enough to be a change (as diffField decides). */
	rankMoved(ordinal: number, record: IDataObject): boolean {
		if (!this.compareRank) return false;
		const before = this.rankOf(record);
		const after = this.table.rankAt(ordinal);
		if (Number.isNaN(before) || Number.isNaN(after)) return Number.isNaN(before) !== Number.isNaN(after);
		return before !== after && Math.abs(after - before) >= this.spec.minRankMove;
	}

	/** A domain left out of the diff because one of its lines could not be read (undefined: no name in it). */
	leaveOut(name: string | undefined): void {
		if (name === undefined) this.stats.namelessLines++;
		else if (this.unreadable.add(name)) this.stats.unreadableDomains++;
	}

	/** Refuses when `more` changes to come would pass the memory guard. */
	checkRoomFor(more: number): void {
		const { guard } = this.spec;
		if (guard && this.output + Math.min(this.limit - this.output, more) > guard.max) throw guard.error();
	}

	/** Keeps the older record of `ordinal` for pass 3 (a change or a crossed selection). */
	keep(ordinal: number, record: IDataObject): void {
		const { kept } = this;
		if (ordinal >= this.keepBelow) return;
		kept.set(ordinal, JSON.stringify(record));
		this.checkRoomFor(kept.size);
		const room = this.limit - this.output;
		if (kept.size > 2 * room && room > 0) {
			// Only the `room` smallest ordinals can still be output: forget the others.
			const ordinals = kept.ordinals();
			this.keepBelow = ordinals[room];
			for (const dropped of ordinals.slice(room)) kept.delete(dropped);
			kept.compact();
		}
	}

	/** A change to output, counted at once (against the Limit and the memory guard). */
	change(change: ChangeKind, reason: ChangeReason, name: string, record: IDataObject, changes = {}): DomainChange {
		const { label, baseLabel, fields, guard } = this.spec;
		this.output++;
		if (guard && this.output > guard.max) throw guard.error();
		// The record as output: the name and the compared fields, as the service sent them.
		const picked: IDataObject = { name: record.name };
		for (const field of fields) picked[field] = record[field] === undefined ? null : record[field];
		return { change, reason, name, label, baseLabel, record: picked, changes };
	}

	/** An entered or left selection: the compared fields that moved, and the filter fields that did (any rank move). */
	explain(before: IDataObject, after: IDataObject): Record<string, FieldChange> {
		const minRankMove = this.filterFields.includes('rank') ? 1 : this.spec.minRankMove;
		return diffRecords(before, after, this.explainFields, minRankMove);
	}
}

/** `"name"`, a colon and a JSON string, with any whitespace between. */
const NAME_MEMBER = /"name"\s*:\s*("(?:[^"\\\u0000-\u001f]|\\.)*")/;

/** The name of a line that is no valid record, when a complete `"name"` member can be read from it. */
export function readableName(line: string): string | undefined {
	const match = NAME_MEMBER.exec(line);
	if (!match) return undefined;
	try {
		const name = JSON.parse(match[1]) as string;
		return name.length > 0 ? name : undefined;
	} catch {
		return undefined;
	}
}
