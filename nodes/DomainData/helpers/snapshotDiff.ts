/**
 * The changes between two snapshots, found in three streamed passes without holding either snapshot:
 *
 * 1. the newer snapshot: per domain a name hash, a hash of the compared values, the rank and whether
 *    the filters select it (DomainTable, about 37 bytes a domain);
 * 2. the older snapshot: each record is looked up by name. Not found: the domain is gone from the index
 *    (`removed`, output at once). Found: the hashes tell whether it changed, entered or left the
 *    selection; the older record of those (the compared and filter fields only) is kept for pass 3;
 * 3. the newer snapshot again: each kept domain is output with its differences, and every selected
 *    domain that pass 2 did not find is `added` (new to the index). Only those lines are parsed: the
 *    reader hands each line over first (`lineSelector`), and the name is taken from the raw text when the
 *    line has the service's shape; any other shape is parsed as before, so the result is the same.
 *    A line that is not needed is not parsed, so a malformed one is not noticed here (pass 1 read the
 *    same snapshot and judged it); a needed one that turns out malformed is handled by On Malformed Line.
 *
 * So the newer snapshot is requested twice and the older once (plus the reader's resumes after dropped
 * connections). Pass 3 is left out when nothing can come of it, and every pass stops at the Limit.
 * Memory: the table, plus the kept older records, which are at most the changes (and at most Limit).
 *
 * Output order (deterministic): first the domains gone from the index, in the older snapshot's order;
 * then every other change in the newer snapshot's order.
 */
import type { IDataObject } from 'n8n-workflow';

import type { DomainDataFunctions } from '../transport';
import { buildApiError } from '../errors';
import { DEFAULT_BATCH_SIZE } from './batches';
import { DomainTable, NOT_FOUND } from './domainTable';
import { KeptRecords } from './keptRecords';
import { compileRecordFilter, fieldsReadBy, type RecordFilter } from './recordFilter';
import { Hasher64, type Hash64 } from './hash64';
import { diffField, diffRecords, hashCompared, type FieldChange } from './recordDiff';
import { withFields, type SnapshotField } from './snapshotFields';
import { createReadStats, type LineSelector, type MalformedLineHandling, readSnapshot, type SnapshotReadStats } from './snapshotReader';

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
	/**
	 * Refuse (with `tooMany`) as soon as more changes than this are certain; the caller's memory guard.
	 * Undefined: no cap (the file output).
	 */
	maxChanges?: number;
	tooMany?: () => Error;
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
}

const SELECTED = 1;
const SEEN_IN_BASE = 2;

export function createCompareStats(): CompareStats {
	return { reads: [], keptPeak: 0, keptBytesPeak: 0 };
}

function serviceError(context: DomainDataFunctions, spec: CompareSpec, message: string, description: string) {
	return buildApiError(context.getNode(), { message, description, itemIndex: spec.itemIndex });
}

const NAME_FIRST = '{"name":"';
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SPACE = 0x20;

/**
 * Where the domain name of the NDJSON line `text.slice(start, end)` ends, when the line starts the way
 * the service writes it: `{"name":"` and a non-empty name without backslash or control character (so its
 * text is the name JSON.parse gives, from `start + 9` to the returned index, the closing quote). -1 for
 * any other shape (other key order, whitespace, escapes, an empty name). The line may still be malformed
 * after the name, or repeat the key (see repeatsName).
 */
function nameEnd(text: string, start: number, end: number): number {
	if (!text.startsWith(NAME_FIRST, start)) return -1;
	const from = start + NAME_FIRST.length;
	for (let at = from; at < end; at++) {
		const code = text.charCodeAt(at);
		if (code === QUOTE) return at === from ? -1 : at;
		if (code === BACKSLASH || code < SPACE) return -1;
	}
	return -1;
}

/** Whether `"name"` occurs again in the line after `from` (a repeated key, which JSON.parse lets win). */
function repeatsName(text: string, from: number, end: number): boolean {
	const again = text.indexOf('"name"', from);
	return again !== -1 && again < end;
}

/**
 * Pass 3's line selector: whether the line is one of `needed` (by the table's ordinal), without parsing
 * it. Pass 3 reads the snapshot of pass 1, so the line is first checked against the ordinal after the
 * previous line's (a hash compared in arrays read in order); when it is that line of pass 1 (same name),
 * JSON.parse gave pass 1 this name, so the name is right. Any other line is looked up in the table only
 * when its name is certain from the raw text (the service's shape, see nameEnd, and no later `"name"` key
 * that JSON.parse would let win). Undecidable lines are wanted: the caller parses them and decides itself.
 */
export function lineSelector(table: DomainTable, needed: (ordinal: number) => boolean): LineSelector {
	let nextOrdinal = 0;
	return function selectLine(text, start, end) {
		const close = nameEnd(text, start, end);
		if (close === -1) return true;
		const from = start + NAME_FIRST.length;
		let ordinal = nextOrdinal;
		if (!table.holds(ordinal, text, from, close)) {
			if (repeatsName(text, close, end)) return true;
			ordinal = table.find(text, from, close);
			if (ordinal === NOT_FOUND) return false;
		}
		nextOrdinal = ordinal + 1;
		return needed(ordinal);
	};
}

function nameOf(context: DomainDataFunctions, spec: CompareSpec, record: IDataObject, label: string, stats: SnapshotReadStats): string {
	if (typeof record.name === 'string' && record.name.length > 0) return record.name;
	throw serviceError(
		context,
		spec,
		`Record ${stats.records} of the dataset "${label}" has no domain name`,
		'Dataset → Compare matches records by name, so every record needs one. The service sent something unexpected: try again later, or report it to the service.',
	);
}

/** The record as output: the name and the compared fields, as the service sent them. */
function outputRecord(record: IDataObject, fields: readonly SnapshotField[]): IDataObject {
	const picked: IDataObject = { name: record.name };
	for (const field of fields) picked[field] = record[field] === undefined ? null : record[field];
	return picked;
}

/** Yields the changes one by one, in the documented order. Stop iterating at any time. */
export async function* compareSnapshots(
	this: DomainDataFunctions,
	spec: CompareSpec,
	stats: CompareStats = createCompareStats(),
): AsyncGenerator<DomainChange> {
	const { label, baseLabel, fields, kinds, minRankMove } = spec;
	const filterFields = fieldsReadBy(spec.filter);
	const predicate = compileRecordFilter(spec.filter);
	const selects = (record: IDataObject) => (predicate ? predicate(record) : true);
	const requestFields = withFields(['name', ...fields], filterFields);
	/** Fields that explain an entered / left selection: the compared ones and those the filters read. */
	const explainFields = withFields(fields, filterFields);
	const compareRank = fields.includes('rank');
	const limit = spec.limit ?? Infinity;
	const cap = spec.maxChanges ?? Infinity;
	let output = 0;
	const read = (snapshot: string, wanted?: LineSelector) => {
		const readStats = createReadStats(snapshot);
		stats.reads.push(readStats);
		return {
			readStats,
			batches: readSnapshot.call(this, {
				label: snapshot,
				fields: requestFields,
				maxAttempts: spec.maxAttempts,
				idleTimeoutMs: spec.idleTimeoutMs,
				onMalformed: spec.onMalformed,
				batchSize: DEFAULT_BATCH_SIZE,
				wanted,
				stats: readStats,
				itemIndex: spec.itemIndex,
			}),
		};
	};
	const make = (change: ChangeKind, reason: ChangeReason, name: string, record: IDataObject, changes: Record<string, FieldChange> = {}): DomainChange => ({
		change,
		reason,
		name,
		label,
		baseLabel,
		record: outputRecord(record, fields),
		changes,
	});

	// Pass 1: the newer snapshot into the table.
	const table = new DomainTable();
	const hasher = new Hasher64();
	const values: Hash64 = { hi: 0, lo: 0 };
	{
		const { readStats, batches } = read(label);
		for await (const batch of batches) {
			for (const record of batch) {
				const name = nameOf(this, spec, record, label, readStats);
				const rank = typeof record.rank === 'number' ? record.rank : -1;
				table.add(name, hashCompared(record, fields, hasher, values), rank, selects(record) ? SELECTED : 0);
			}
		}
	}
	const repeats = table.index();
	if (repeats > 0) {
		throw serviceError(
			this,
			spec,
			`The dataset "${label}" lists ${repeats} domain name${repeats > 1 ? 's' : ''} more than once`,
			'Dataset → Compare matches records by name, so each name must occur once. Use Dataset → Stream to look at the records, and report it to the service.',
		);
	}

	// Pass 2: the older snapshot, looked up by name.
	/** Older records (JSON of the request fields) kept for pass 3, by the newer snapshot's ordinal. */
	const kept = new KeptRecords(table.count);
	/** With a Limit, kept ordinals above this can never be output (enough smaller ones are kept). */
	let keepBelow = Infinity;
	const keep = (ordinal: number, record: IDataObject) => {
		if (ordinal >= keepBelow) return;
		kept.set(ordinal, JSON.stringify(record));
		if (output + kept.size > cap) throw spec.tooMany?.() ?? new Error('Too many changes');
		const room = limit - output;
		if (kept.size > 2 * room && room > 0) {
			// Only the `room` smallest ordinals can still be output: forget the others.
			const ordinals = kept.ordinals();
			keepBelow = ordinals[room];
			for (const dropped of ordinals.slice(room)) kept.delete(dropped);
			kept.compact();
		}
		stats.keptPeak = Math.max(stats.keptPeak, kept.size);
		stats.keptBytesPeak = Math.max(stats.keptBytesPeak, kept.byteLength);
	};
	{
		const { readStats, batches } = read(baseLabel);
		for await (const batch of batches) {
			for (const record of batch) {
				const name = nameOf(this, spec, record, baseLabel, readStats);
				const inBase = selects(record);
				const ordinal = table.find(name);
				if (ordinal === NOT_FOUND) {
					if (inBase && kinds.has('removed')) {
						if (++output > cap) throw spec.tooMany?.() ?? new Error('Too many changes');
						yield make('removed', 'goneFromIndex', name, record);
						if (output >= limit) return;
					}
					continue;
				}
				const flags = table.flags[ordinal];
				if (flags & SEEN_IN_BASE) {
					throw serviceError(
						this,
						spec,
						`The dataset "${baseLabel}" lists the domain "${name}" more than once`,
						'Dataset → Compare matches records by name, so each name must occur once. Report it to the service.',
					);
				}
				table.flags[ordinal] = flags | SEEN_IN_BASE;
				const inNew = (flags & SELECTED) !== 0;
				if (inNew && inBase) {
					if (!kinds.has('changed')) continue;
					const rankMoved = compareRank && Math.abs(table.rank[ordinal] - (typeof record.rank === 'number' ? record.rank : -1)) >= minRankMove;
					if (rankMoved || !table.sameValues(ordinal, hashCompared(record, fields, hasher, values))) keep(ordinal, record);
				} else if (inNew ? kinds.has('added') : inBase && kinds.has('removed')) {
					keep(ordinal, record);
				}
			}
		}
	}

	// Pass 3: the newer snapshot again, for what pass 2 kept and for the domains new to the index.
	let newToIndex = 0;
	if (kinds.has('added')) {
		for (let ordinal = 0; ordinal < table.count; ordinal++) {
			if ((table.flags[ordinal] & (SELECTED | SEEN_IN_BASE)) === SELECTED) newToIndex++;
		}
	}
	if (output + Math.min(limit - output, kept.size + newToIndex) > cap) {
		throw spec.tooMany?.() ?? new Error('Too many changes');
	}
	if (kept.size + newToIndex === 0) return;
	const addsNew = kinds.has('added');
	/** Only the lines of kept domains and of those new to the index are parsed (see the file comment). */
	const wanted = lineSelector(table, (ordinal) => kept.has(ordinal) || (addsNew && (table.flags[ordinal] & (SELECTED | SEEN_IN_BASE)) === SELECTED));
	const { batches } = read(label, wanted);
	for await (const batch of batches) {
		for (const record of batch) {
			const name = record.name as string;
			const ordinal = typeof name === 'string' ? table.find(name) : NOT_FOUND;
			if (ordinal === NOT_FOUND) continue; // not in pass 1 (a line skipped as malformed there)
			const flags = table.flags[ordinal];
			let change: DomainChange | undefined;
			const older = kept.get(ordinal);
			if (older !== undefined) {
				kept.delete(ordinal);
				const before = JSON.parse(older) as IDataObject;
				const inBase = selects(before);
				if (inBase && (flags & SELECTED) !== 0) {
					change = make('changed', 'valuesChanged', name, record, diffRecords(before, record, fields, minRankMove));
				} else if (inBase) {
					change = make('removed', 'leftSelection', name, before, explain(before, record));
				} else {
					change = make('added', 'enteredSelection', name, record, explain(before, record));
				}
			} else if ((flags & (SELECTED | SEEN_IN_BASE)) === SELECTED && kinds.has('added')) {
				table.flags[ordinal] = flags | SEEN_IN_BASE; // output once, even if a resumed read repeated it
				newToIndex--;
				change = make('added', 'newToIndex', name, record);
			}
			if (!change) continue;
			output++;
			yield change;
			if (output >= limit || kept.size + newToIndex === 0) return;
		}
	}

	/** An entered / left selection: the compared fields that moved, and the filter fields that did (any rank move). */
	function explain(before: IDataObject, after: IDataObject): Record<string, FieldChange> {
		const changes: Record<string, FieldChange> = {};
		for (const field of explainFields) {
			const threshold = field === 'rank' && filterFields.includes('rank') ? 1 : minRankMove;
			const change = diffField(field, before[field], after[field], threshold);
			if (change) changes[field] = change;
		}
		return changes;
	}
}
