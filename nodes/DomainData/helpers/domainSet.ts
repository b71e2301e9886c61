/**
 * A set of domain names: a Domains list (the filter of Stream and Compare, the rows of Enrich Items from a snapshot),
 * and the names Compare remembers beyond its table (older-only names, to refuse a repeat; names of skipped lines). Up
 * to millions, each stored once as bytes, found through an open-addressing index of 64-bit hashes with an exact
 * comparison on a hit, so that a hash collision never lets a record through. A name of L characters costs L + 4
 * bytes, a bit of "seen", and 12 to 24 bytes of index: about 40 bytes for a name of 15 characters (measured in
 * test/unit/dataset/domains.test.ts).
 */
import type { IDataObject } from 'n8n-workflow';

import { clip, count, describeValue, quoteFew } from '../errors';
import { type Hash64, hash64, type LineSelector } from '../transport';
import { isNormalName, NAME_FIRST, normalizeDomainName, rawName, repeatsName, splitDomainList } from './domainName';

// Compare's selectors read a line's raw name (domainName.ts) along with the set.
export { nameEnd, NAME_FIRST, repeatsName } from './domainName';

export const NOT_LISTED = -1;
/** Names quoted in hints and summaries (the count is always exact). */
const EXAMPLES = 5;
/** Characters of an entry echoed in a summary, as many as describeValue quotes in a hint. */
const EXAMPLE_CHARS = 200;

/**
 * The one hash table of the package: open addressing over 64-bit hashes, slot pairs [entry + 1, high half of the
 * hash], the low half picking the first slot. The owner keeps its entries and tells whether one is the entry sought
 * (`isEntry`): DomainSet by its bytes, Compare's DomainTable by the low half it keeps.
 */
export abstract class HashIndex {
	protected slots = new Uint32Array(2);
	private mask = 0;

	/** Whether `entry`, whose high half matched, is the one sought (low half `lo`, name `text.slice(start, end)`). */
	protected abstract isEntry(entry: number, lo: number, text: string, start: number, end: number): boolean;

	/** Empties the table and makes room for `entries` at 1.5 slots each, and for at least `minimum` slots. */
	protected makeRoom(entries: number, minimum: number): void {
		let capacity = minimum;
		while (capacity < entries * 1.5) capacity *= 2;
		this.slots = new Uint32Array(capacity * 2);
		this.mask = capacity - 1;
	}

	/** The slot that holds the entry sought, or the empty slot where it belongs. */
	protected slotOf(hi: number, lo: number, text = '', start = 0, end = 0): number {
		const { slots, mask } = this;
		for (let slot = lo & mask; ; slot = (slot + 1) & mask) {
			const held = slots[slot * 2];
			if (held === 0 || (slots[slot * 2 + 1] === hi && this.isEntry(held - 1, lo, text, start, end))) return slot;
		}
	}

	/** The entry in `slot`, or -1 when it is empty. */
	protected entryAt(slot: number): number {
		return this.slots[slot * 2] - 1;
	}

	protected place(slot: number, entry: number, hi: number): void {
		this.slots[slot * 2] = entry + 1;
		this.slots[slot * 2 + 1] = hi;
	}
}

export class DomainSet extends HashIndex {
	size = 0;
	/** The names one after the other, name i at bytes[starts[i]] to bytes[starts[i + 1]]. */
	private bytes: Uint8Array;
	private used = 0;
	private starts: Uint32Array;
	/** One bit per name: a line of the snapshot holds it. */
	private seenBits: Uint8Array;
	/** Names with a code unit above U+00FF, whole (no byte holds them; a normalised name is ASCII). */
	private wide?: Map<number, string>;
	private readonly scratch: Hash64 = { hi: 0, lo: 0 };

	/** `expected`: names to make room for at once (more still fit, at the cost of a copy). */
	constructor(expected = 16) {
		super();
		const names = Math.max(16, expected);
		this.bytes = new Uint8Array(names * 16);
		this.starts = new Uint32Array(names + 1);
		this.seenBits = new Uint8Array(Math.ceil(names / 8));
		this.makeRoom(names, 32);
	}

	/** Adds a name (a Domains list's normalised, lower-case ASCII); false when it is there already. */
	add(name: string): boolean {
		const { hi, lo } = hash64(name, this.scratch);
		const slot = this.slotOf(hi, lo, name, 0, name.length);
		if (this.entryAt(slot) !== NOT_LISTED) return false;
		const index = this.size++;
		if (this.size === this.starts.length) this.growNames();
		while (this.used + name.length > this.bytes.length) this.bytes = copied(this.bytes, this.bytes.length * 2 + 64);
		let at = 0;
		while (at < name.length && name.charCodeAt(at) <= 0xff) this.bytes[this.used + at] = name.charCodeAt(at++);
		if (at < name.length) (this.wide ??= new Map()).set(index, name);
		else this.used += name.length;
		this.starts[index + 1] = this.used;
		this.place(slot, index, hi);
		if (this.size * 1.5 > this.slots.length / 2) this.growIndex();
		return true;
	}

	/** The index of the name `text.slice(start, end)`, or NOT_LISTED; no string is made. */
	indexOf(text: string, start = 0, end = text.length): number {
		const { hi, lo } = hash64(text, this.scratch, start, end);
		return this.entryAt(this.slotOf(hi, lo, text, start, end));
	}

	has(name: string): boolean {
		return this.indexOf(name) !== NOT_LISTED;
	}

	nameAt(index: number): string {
		const wide = this.wide?.get(index);
		if (wide !== undefined) return wide;
		let name = '';
		for (let at = this.starts[index]; at < this.starts[index + 1]; at++) name += String.fromCharCode(this.bytes[at]);
		return name;
	}

	markSeen(index: number): void {
		this.seenBits[index >> 3] |= 1 << (index & 7);
	}

	seen(index: number): boolean {
		return (this.seenBits[index >> 3] & (1 << (index & 7))) !== 0;
	}

	/** How many names were never seen, and the first few of them in list order. */
	unseen(examples = EXAMPLES): { count: number; examples: string[] } {
		const found: string[] = [];
		let count = 0;
		for (let index = 0; index < this.size; index++) {
			if (this.seen(index)) continue;
			if (count++ < examples) found.push(this.nameAt(index));
		}
		return { count, examples: found };
	}

	/** Bytes the set holds in its arrays (what the README states per name). */
	get byteLength(): number {
		return this.bytes.byteLength + this.starts.byteLength + this.slots.byteLength + this.seenBits.byteLength;
	}

	/** Gives back the room reserved for names that did not come (duplicates, bad entries). */
	trim(): this {
		this.bytes = copied(this.bytes, this.used);
		this.starts = copied(this.starts, this.size + 1);
		this.seenBits = copied(this.seenBits, Math.ceil(this.size / 8));
		return this;
	}

	/** Whether name `index` is, character for character, `text.slice(start, end)`. */
	protected isEntry(index: number, _lo: number, text: string, start: number, end: number): boolean {
		const wide = this.wide?.get(index);
		if (wide !== undefined) return wide === text.slice(start, end);
		const from = this.starts[index];
		if (this.starts[index + 1] - from !== end - start) return false;
		for (let at = 0; at < end - start; at++) if (this.bytes[from + at] !== text.charCodeAt(start + at)) return false;
		return true;
	}

	private growNames(): void {
		this.starts = copied(this.starts, this.starts.length * 2);
		this.seenBits = copied(this.seenBits, Math.ceil(this.starts.length / 8));
	}

	private growIndex(): void {
		this.makeRoom(this.size, 32);
		for (let index = 0; index < this.size; index++) {
			const { hi, lo } = hash64(this.nameAt(index), this.scratch);
			this.place(this.slotOf(hi, lo), index, hi);
		}
	}
}

/** `array`'s first `length` elements (or all, then zeros) in a new array of its kind. */
export function copied<T extends Uint8Array | Uint32Array | Float64Array>(array: T, length: number): T {
	const next = new (array.constructor as new (size: number) => T)(length);
	next.set(array.subarray(0, Math.min(length, array.length)));
	return next;
}

/**
 * The names of a Domains list, against which a record's name is read as Domain → Get reads a name ("www." kept: a
 * record of www.example.com is another domain than example.com). A name in normal form (lower-case ASCII, no final
 * dot: nearly every line) is looked up as sent, without a string made; any other (`Example.COM`, `example.org.`,
 * `münchen.de`) is normalised first, so that a listed domain the service spells otherwise is kept.
 */
class ListedNames extends DomainSet {
	/** `normal`: the caller already knows whether the name is in normal form (listedLines checks while it reads). */
	override indexOf(text: string, start = 0, end = text.length, normal?: boolean): number {
		const index = super.indexOf(text, start, end);
		if (index !== NOT_LISTED || (normal ?? isNormalName(text, start, end))) return index;
		const normalized = normalizeDomainName(text.slice(start, end), { removeWww: false });
		return normalized.ok ? super.indexOf(normalized.name) : NOT_LISTED;
	}
}

/** A Domains list: its names, and the entries that are no name, URL or email address (left out, counted). */
export type DomainList = { names: DomainSet; rejected: { count: number; examples: string[] } };

/**
 * Reads a list given as text (split at commas, semicolons, white space; see splitDomainList for `Name <address>`) or
 * as an array (from an expression, any nesting), normalised as Domain → Get does ("www." removed); blank entries are
 * ignored silently. The examples of entries left out are clipped (a cell can hold megabytes). The caller refuses a
 * list without any domain.
 */
export function readDomainList(value: unknown): DomainList {
	const entries = splitDomainList(value);
	const names = new ListedNames(entries.length);
	const rejected = { count: 0, examples: [] as string[] };
	for (const entry of entries) {
		const normalized = normalizeDomainName(entry);
		if (normalized.ok) names.add(normalized.name);
		// Text as typed, any other value as describeValue writes it: both clipped.
		else if (rejected.count++ < EXAMPLES) {
			rejected.examples.push(typeof entry === 'string' ? clip(entry, EXAMPLE_CHARS) : describeValue(entry));
		}
	}
	return { names: names.trim(), rejected };
}

/**
 * The lines of the listed names only, judged from the raw line (`{"name":"…"` as the service writes it) before it
 * is parsed; a line of a listed name (of a Domains list's ListedNames, in any spelling) is marked seen and handed to
 * `then` (the caller's own selector, if any). A line whose name cannot be read raw is handed on too: the record
 * filter judges it once parsed.
 */
export function listedLines(names: DomainSet, then?: LineSelector): LineSelector {
	const readsNames = names instanceof ListedNames ? names : undefined;
	return (text, start, end) => {
		const found = rawName(text, start, end);
		if (found !== -1) {
			const close = found < 0 ? ~found : found;
			const from = start + NAME_FIRST.length;
			const index = readsNames ? readsNames.indexOf(text, from, close, found >= 0) : names.indexOf(text, from, close);
			if (index !== NOT_LISTED) names.markSeen(index);
			else if (!repeatsName(text, close, end)) return false;
		}
		return then ? then(text, start, end) : true;
	};
}

/**
 * What the output tells about a Domains list once read: the entries left out, and (when `whole`, every line read)
 * the names no line held. `missing` ends the hint's sentence: "are not in the dataset "2025-06-30"".
 */
export function domainListReport(list: DomainList | undefined, whole: boolean, missing: string) {
	if (!list) return { summary: {}, hints: [] as string[] };
	const { names, rejected } = list;
	const hints: string[] = [];
	const domainList: IDataObject = { listed: names.size };
	if (whole) {
		const unseen = names.unseen();
		domainList.notFound = unseen.count;
		domainList.notFoundExamples = unseen.examples.map((name) => clip(name, EXAMPLE_CHARS));
		if (unseen.count > 0) {
			const which = `${count(unseen.count)} of the ${count(names.size)} listed domain${names.size > 1 ? 's' : ''}`;
			const verb = unseen.count > 1 ? 'are' : 'is';
			hints.push(`${which} ${verb} ${missing}: ${quoteFew(unseen.examples, unseen.count)}`);
		}
	}
	if (rejected.count > 0) {
		domainList.rejected = rejected.count;
		domainList.rejectedExamples = rejected.examples;
		const entries = rejected.count > 1 ? `${count(rejected.count)} entries` : '1 entry';
		hints.push(
			`Left out ${entries} of the filter "Domains" that ${rejected.count > 1 ? 'are' : 'is'} not a domain name: ` +
				quoteFew(rejected.examples, rejected.count),
		);
	}
	return { summary: { domainList }, hints };
}
