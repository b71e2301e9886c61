/** The shapes of Dataset → Compare: what is asked (CompareSpec), what comes out (DomainChange), what it did. */
import type { IDataObject } from 'n8n-workflow';

import type { MalformedLineHandling, SnapshotReadStats } from '../snapshotReader';
import type { RecordFilter } from '../recordFilter';
import type { SnapshotField } from '../snapshotFields';
import type { FieldChange } from './recordDiff';

export type ChangeKind = 'added' | 'removed' | 'changed';
export const CHANGE_KINDS: readonly ChangeKind[] = ['added', 'removed', 'changed'];

/** Why a domain is added or removed: it is new to / gone from the index, or only crossed the filters. */
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

/** The caller's memory guard: refuse with `error()` as soon as more than `max` changes are certain. */
export interface CompareGuard {
	max: number;
	error: () => Error;
}

export interface CompareSpec {
	/** Concrete date labels: the newer and the older snapshot. */
	label: string;
	baseLabel: string;
	/** Compared fields (canonical, without `name`). */
	fields: SnapshotField[];
	kinds: ReadonlySet<ChangeKind>;
	filter?: RecordFilter;
	/** Rank moves smaller than this are not changes (only when rank is compared). */
	minRankMove: number;
	/** Stop after this many changes. */
	limit?: number;
	/** Undefined: no cap on changes (the File and Sub-Workflow outputs). */
	guard?: CompareGuard;
	maxAttempts?: number;
	/** No byte for this long counts as a dropped connection (see transport/idle.ts). */
	idleTimeoutMs?: number;
	onMalformed?: MalformedLineHandling;
	itemIndex?: number;
}

/** What the passes did: one read's stats per pass, in order (new, base, new). */
export interface CompareStats {
	reads: SnapshotReadStats[];
	/** Older records kept for pass 3 at most at once, and the bytes they took. */
	keptPeak: number;
	keptBytesPeak: number;
	/** Domains left out of the diff because one of their lines was skipped as malformed (distinct names). */
	unreadableDomains: number;
	/** Skipped malformed lines in which no domain name could be read (their domains may show as added or removed). */
	namelessLines: number;
}

export function createCompareStats(): CompareStats {
	return { reads: [], keptPeak: 0, keptBytesPeak: 0, unreadableDomains: 0, namelessLines: 0 };
}
