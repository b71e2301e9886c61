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

import { type Hash64, Hasher64 } from './hash64';

import type { SnapshotField } from '../snapshotFields';

export const LIST_FIELDS: ReadonlySet<SnapshotField> = new Set<SnapshotField>([
	'technologies',
	'categories',
	'contact_information',
]);

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
const STRING_VALUE = 2;
const STRING_SET = 3;
const JSON_SET = 4;

/** Hashes one entry of a list on its own (see hashSet). */
const entryHasher = new Hasher64();
const entryDigest: Hash64 = { hi: 0, lo: 0 };
const NO_ENTRIES: readonly unknown[] = [];

/**
 * Hashes the compared fields of a record (rank left out: see the file comment) into `out`: per field, a
 * list as a set (hashSet), or the value (a string as is, marked as a string and with its length; any
 * other value as canonical JSON), each followed by a separator.
 */
export function hashCompared(
	record: IDataObject,
	fields: readonly SnapshotField[],
	hasher: Hasher64,
	out: Hash64,
): Hash64 {
	hasher.reset();
	for (const field of fields) {
		if (field === 'rank') continue;
		const value = record[field];
		if (LIST_FIELDS.has(field)) {
			hashSet(Array.isArray(value) ? value : NO_ENTRIES, hasher);
		} else if (typeof value === 'string') {
			hasher.code(STRING_VALUE).word(value.length).text(value);
		} else {
			hasher.text(canonicalJson(value));
		}
		hasher.code(FIELD_END);
	}
	return hasher.digest(out);
}

/**
 * A list as a set, without copying or sorting it: the 64-bit digests of its distinct entries added up
 * lane by lane (a sum has no order), and their number. Entries are compared as diffField compares them:
 * a list of strings by the strings (a repeat is found with indexOf: lists are short), any other list by
 * the canonical JSON of each entry; the two kinds are marked apart.
 */
function hashSet(entries: readonly unknown[], hasher: Hasher64): void {
	let keys = entries as readonly string[];
	let kind = STRING_SET;
	for (const entry of entries) {
		if (typeof entry !== 'string') {
			keys = entries.map(canonicalJson);
			kind = JSON_SET;
			break;
		}
	}
	let hi = 0;
	let lo = 0;
	let distinct = 0;
	for (let index = 0; index < keys.length; index++) {
		const key = keys[index];
		if (index > 0 && keys.indexOf(key) < index) continue;
		entryHasher.reset().text(key).digest(entryDigest);
		hi = (hi + entryDigest.hi) | 0;
		lo = (lo + entryDigest.lo) | 0;
		distinct++;
	}
	hasher.code(kind).word(distinct).word(hi).word(lo);
}

/** The difference in one field, or undefined when there is none. */
export function diffField(
	field: SnapshotField,
	before: unknown,
	after: unknown,
	minRankMove = 1,
): FieldChange | undefined {
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
		// Entries compare by canonical JSON; for strings that is the string itself (no text is made).
		const key = allStrings(beforeEntries) && allStrings(afterEntries) ? sameString : canonicalJson;
		const beforeKeys = new Set(beforeEntries.map(key));
		const afterKeys = new Set(afterEntries.map(key));
		const added = uniqueBy(afterEntries, key, beforeKeys);
		const removed = uniqueBy(beforeEntries, key, afterKeys);
		return added.length > 0 || removed.length > 0 ? { added, removed } : undefined;
	}
	const from = before === undefined ? null : before;
	const to = after === undefined ? null : after;
	if (typeof from === 'string' || typeof to === 'string') return from === to ? undefined : { from, to };
	return canonicalJson(from) === canonicalJson(to) ? undefined : { from, to };
}

const sameString = (entry: unknown) => entry as string;

function allStrings(entries: readonly unknown[]): boolean {
	for (const entry of entries) if (typeof entry !== 'string') return false;
	return true;
}

/** The entries whose key is not in `other`, each once, in their order. */
function uniqueBy(entries: unknown[], key: (entry: unknown) => string, other: ReadonlySet<string>): unknown[] {
	const seen = new Set<string>();
	const result: unknown[] = [];
	for (const entry of entries) {
		const text = key(entry);
		if (seen.has(text) || other.has(text)) continue;
		seen.add(text);
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
