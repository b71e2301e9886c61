/**
 * What "different" means for Compare, field by field: lists (technologies, categories, contact_information) are sets
 * (order and repeats do not count; missing is empty), a difference names the entries added and removed; any other
 * field is one value, compared by the hash of its canonical JSON (keys sorted; missing is null), a difference
 * `{ from, to }`; rank moves smaller than `minRankMove` are none. So `hashCompared` hashes alike exactly what
 * `diffField` finds equal (rank aside: its threshold is no equality, so the table keeps rank as a number).
 */
import type { IDataObject } from 'n8n-workflow';

import type { SnapshotField } from '../snapshotFields';
import { type Hash64, Hasher64 } from '../../transport';

const LIST_FIELDS = new Set<SnapshotField>(['technologies', 'categories', 'contact_information']);

export type FieldChange = { added: unknown[]; removed: unknown[] } | { from: unknown; to: unknown };

const allStrings = (entries: readonly unknown[]) => entries.every((entry) => typeof entry === 'string');
const entriesOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

// Markers that keep the hash of one kind of value apart from another's.
const FIELD_END = 0;
const STRING_VALUE = 2;
const SET = 3;
const NULL_VALUE = 4;
const OTHER_VALUE = 5; // a number or a boolean, as JSON writes it
const ARRAY_VALUE = 6;
const OBJECT_VALUE = 7;
const entryHasher = new Hasher64();
const entryDigest: Hash64 = { hi: 0, lo: 0 };

/** Hashes the compared fields of a record into `out` (see the file comment). */
export function hashCompared(record: IDataObject, fields: readonly SnapshotField[], hasher: Hasher64, out: Hash64) {
	hasher.reset();
	for (const field of fields) {
		if (field === 'rank') continue;
		const value = record[field];
		if (LIST_FIELDS.has(field)) hashSet(entriesOf(value), hasher);
		else hashJson(value, hasher);
		hasher.code(FIELD_END);
	}
	return hasher.digest(out);
}

/**
 * A list as a set without copying or sorting it: the digests of its distinct entries added up lane by lane (a sum
 * has no order) and their number. Entries compare as in diffField: strings as themselves, others as canonical JSON.
 */
function hashSet(entries: readonly unknown[], hasher: Hasher64): void {
	let hi = 0;
	let lo = 0;
	const digests: number[] = []; // hi, lo of each distinct entry: lists are short, so a repeat is found by a scan
	for (const entry of entries) {
		hashJson(entry, entryHasher.reset()).digest(entryDigest);
		let repeat = false;
		for (let at = 0; at < digests.length && !repeat; at += 2) {
			repeat = digests[at] === entryDigest.hi && digests[at + 1] === entryDigest.lo;
		}
		if (repeat) continue;
		digests.push(entryDigest.hi, entryDigest.lo);
		hi = (hi + entryDigest.hi) | 0;
		lo = (lo + entryDigest.lo) | 0;
	}
	const distinct = digests.length / 2;
	hasher.code(SET).word(distinct).word(hi).word(lo);
}

/** Feeds a JSON value to `hasher` as its canonical JSON reads (object keys sorted; undefined as null), unwritten. */
function hashJson(value: unknown, hasher: Hasher64): Hasher64 {
	if (typeof value === 'string') return hasher.code(STRING_VALUE).word(value.length).text(value);
	if (value === null || value === undefined) return hasher.code(NULL_VALUE);
	if (typeof value !== 'object') return hasher.code(OTHER_VALUE).text(JSON.stringify(value));
	if (Array.isArray(value)) {
		hasher.code(ARRAY_VALUE).word(value.length);
		for (const entry of value) hashJson(entry, hasher);
		return hasher;
	}
	const object = value as Record<string, unknown>;
	const keys = Object.keys(object).sort();
	hasher.code(OBJECT_VALUE).word(keys.length);
	for (const key of keys) hashJson(object[key], hasher.word(key.length).text(key));
	return hasher;
}

/** What tells two values apart: the digest of their canonical JSON. */
function canonicalKey(value: unknown): string {
	hashJson(value, entryHasher.reset()).digest(entryDigest);
	return `${entryDigest.hi}:${entryDigest.lo}`;
}

export function diffField(field: SnapshotField, before: unknown, after: unknown, minRankMove = 1) {
	if (field === 'rank') {
		const from = typeof before === 'number' ? before : null;
		const to = typeof after === 'number' ? after : null;
		if (from === to || (from !== null && to !== null && Math.abs(to - from) < minRankMove)) return undefined;
		return { from, to };
	}
	if (LIST_FIELDS.has(field)) {
		const [beforeEntries, afterEntries] = [entriesOf(before), entriesOf(after)];
		// Strings are their own key (no text is made); other entries compare by canonicalKey, made once each.
		const strings = allStrings(beforeEntries) && allStrings(afterEntries);
		const [beforeKeys, afterKeys] = strings
			? [beforeEntries as string[], afterEntries as string[]]
			: [beforeEntries.map(canonicalKey), afterEntries.map(canonicalKey)];
		const added = uniqueBy(afterEntries, afterKeys, new Set(beforeKeys));
		const removed = uniqueBy(beforeEntries, beforeKeys, new Set(afterKeys));
		return added.length > 0 || removed.length > 0 ? { added, removed } : undefined;
	}
	const [from, to] = [before ?? null, after ?? null];
	if (typeof from === 'string' || typeof to === 'string') return from === to ? undefined : { from, to };
	return canonicalKey(from) === canonicalKey(to) ? undefined : { from, to };
}

/** The entries whose key (`keys`, index by index) is not in `other`, each once, in their order. */
function uniqueBy(entries: unknown[], keys: readonly string[], other: ReadonlySet<string>): unknown[] {
	const seen = new Set<string>();
	return entries.filter((_entry, index) => {
		const text = keys[index];
		if (seen.has(text) || other.has(text)) return false;
		seen.add(text);
		return true;
	});
}

/** The differences in `fields`, one key per field that differs, in the order of `fields`. */
export function diffRecords(
	before: IDataObject,
	after: IDataObject,
	fields: readonly SnapshotField[],
	minRankMove: number,
): Record<string, FieldChange> {
	const changes: Record<string, FieldChange> = {};
	for (const field of fields) {
		const change = diffField(field, before[field], after[field], minRankMove);
		if (change) changes[field] = change;
	}
	return changes;
}
