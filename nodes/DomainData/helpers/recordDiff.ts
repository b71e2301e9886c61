/**
 * What "different" means for Dataset → Compare, field by field, on two versions of one record.
 *
 * - Lists (technologies, categories, contact_information) are sets: order and repeats do not count; a
 *   difference names the entries added and removed. A missing or null list is an empty set.
 * - Every other field is one value, compared as canonical JSON (object keys sorted, so that `dns` with
 *   its keys in another order is the same value); a missing field is null. A difference is `{ from, to }`.
 * - Rank moves smaller than `minRankMove` are no difference (rank moves a little every week).
 *
 * `hashCompared` hashes the compared fields of a record so that two versions hash alike exactly when
 * `diffRecords` finds no difference (up to 64-bit collisions), and the hash can stand for the record
 * (rank aside: its threshold is not an equality, so rank is kept as a number).
 */
import type { IDataObject } from 'n8n-workflow';

import type { Hash64, Hasher64 } from './hash64';

import type { SnapshotField } from './snapshotFields';

export const LIST_FIELDS: ReadonlySet<SnapshotField> = new Set<SnapshotField>(['technologies', 'categories', 'contact_information']);

export type FieldChange = { added: unknown[]; removed: unknown[] } | { from: unknown; to: unknown };

/** JSON with object keys sorted at every level: equal texts for equal values. */
export function canonicalJson(value: unknown): string {
	if (value === undefined || value === null) return 'null';
	if (typeof value !== 'object') return JSON.stringify(value);
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
	const object = value as Record<string, unknown>;
	const keys = Object.keys(object).sort();
	return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`).join(',')}}`;
}

function entriesOf(value: unknown): unknown[] {
	return Array.isArray(value) ? value : [];
}

const FIELD_END = 0;
const ENTRY_END = 1;
const STRING_VALUE = 2;

/**
 * Hashes the compared fields of a record (rank left out: see the file comment) into `out`: per field, a
 * list's distinct entries in sorted order, or the value (a string as is, marked as a string; any other
 * value as canonical JSON), each followed by a separator.
 */
export function hashCompared(record: IDataObject, fields: readonly SnapshotField[], hasher: Hasher64, out: Hash64): Hash64 {
	hasher.reset();
	for (const field of fields) {
		if (field === 'rank') continue;
		const value = record[field];
		if (LIST_FIELDS.has(field)) {
			const texts = entriesOf(value).map((entry) => (typeof entry === 'string' ? entry : canonicalJson(entry)));
			if (texts.length > 1) texts.sort();
			let previous: string | undefined;
			for (const text of texts) {
				if (text === previous) continue;
				previous = text;
				hasher.text(text).code(ENTRY_END);
			}
		} else if (typeof value === 'string') {
			hasher.code(STRING_VALUE).text(value);
		} else {
			hasher.text(canonicalJson(value));
		}
		hasher.code(FIELD_END);
	}
	return hasher.digest(out);
}

/** The difference in one field, or undefined when there is none. */
export function diffField(field: SnapshotField, before: unknown, after: unknown, minRankMove = 1): FieldChange | undefined {
	if (field === 'rank') {
		const from = typeof before === 'number' ? before : null;
		const to = typeof after === 'number' ? after : null;
		if (from === to) return undefined;
		if (from !== null && to !== null && Math.abs(to - from) < minRankMove) return undefined;
		return { from, to };
	}
	if (LIST_FIELDS.has(field)) {
		const beforeEntries = entriesOf(before);
		const afterEntries = entriesOf(after);
		const beforeKeys = new Set(beforeEntries.map(canonicalJson));
		const afterKeys = new Set(afterEntries.map(canonicalJson));
		const added = uniqueBy(afterEntries, (entry) => !beforeKeys.has(canonicalJson(entry)));
		const removed = uniqueBy(beforeEntries, (entry) => !afterKeys.has(canonicalJson(entry)));
		return added.length > 0 || removed.length > 0 ? { added, removed } : undefined;
	}
	const from = before === undefined ? null : before;
	const to = after === undefined ? null : after;
	return canonicalJson(from) === canonicalJson(to) ? undefined : { from, to };
}

/** The entries that pass `keep`, each once, in their order. */
function uniqueBy(entries: unknown[], keep: (entry: unknown) => boolean): unknown[] {
	const seen = new Set<string>();
	const result: unknown[] = [];
	for (const entry of entries) {
		const key = canonicalJson(entry);
		if (seen.has(key) || !keep(entry)) continue;
		seen.add(key);
		result.push(entry);
	}
	return result;
}

/** The differences in `fields`, one key per field that differs, in the order of `fields`. */
export function diffRecords(
	before: IDataObject,
	after: IDataObject,
	fields: readonly SnapshotField[],
	minRankMove = 1,
): Record<string, FieldChange> {
	const changes: Record<string, FieldChange> = {};
	for (const field of fields) {
		const change = diffField(field, before[field], after[field], minRankMove);
		if (change) changes[field] = change;
	}
	return changes;
}
