/** The shapes of Dataset → Compare: what is asked (CompareSpec), what comes out (DomainChange), what it did. */
import type { IDataObject } from 'n8n-workflow';

import type { MemoryGuard } from '../batches';
import type { SnapshotPair } from '../datasets';
import type { RecordFilter } from '../recordFilter';
import type { SnapshotField } from '../snapshotFields';
import type { ReadSnapshotOptions, SnapshotReadStats } from '../snapshotReader';
import type { FieldChange } from './recordDiff';

export type ChangeKind = 'added' | 'removed' | 'changed';
export const CHANGE_KINDS: readonly ChangeKind[] = ['added', 'removed', 'changed'];

/** Why a domain is added or removed: new to / gone from the index, or it only crossed the filters. */
export type ChangeReason = 'newToIndex' | 'enteredSelection' | 'goneFromIndex' | 'leftSelection' | 'valuesChanged';

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
}

/** The newer snapshot's records as pass 1 read them, kept (n8n's binary storage) so that pass 3 reads no more. */
export interface SnapshotSpool {
	/** Reads `records` to their end, keeping them; false when they could not be kept (binary data in memory). */
	keep(records: AsyncIterable<IDataObject[]>): Promise<boolean>;
	/** The kept records as NDJSON texts of whole lines, in order. */
	texts(): AsyncIterable<string>;
}

export interface CompareStats {
	/** One read's stats per pass, in order (newer, older, newer). */
	reads: SnapshotReadStats[];
	/** Older records kept for pass 3 at most at once, and their bytes. */
	keptPeak: number;
	keptBytesPeak: number;
	/** Domains left out because a line of theirs was skipped as malformed (distinct names). */
	unreadableDomains: number;
	/** Skipped lines without a readable name (their domains may show as added or removed). */
	namelessLines: number;
}

export function createCompareStats(): CompareStats {
	return { reads: [], keptPeak: 0, keptBytesPeak: 0, unreadableDomains: 0, namelessLines: 0 };
}
