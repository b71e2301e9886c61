/**
 * HashIndex, the package's hash table (Compare's DomainTable extends it too), and DomainSet, a compact set of names on
 * it (a Domains list, names Compare remembers). Each name is stored once as bytes and compared exactly on a hit, so a
 * hash collision never lets a record through: L characters cost L + 4 bytes, a "seen" bit and 12 to 24 bytes of index.
 */
import { type Hash64, hash64 } from '../transport';

/** What `indexOf` gives for a name the set does not hold (and HashIndex's `entryAt` for an empty slot). */
export const NOT_LISTED = -1;

/** Open addressing: slot pairs [entry + 1, hash's high half], the low half the first slot; the owner keeps entries. */
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
	/** How many names a line held (each counted once). */
	seenCount = 0;
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
		const bit = 1 << (index & 7);
		if ((this.seenBits[index >> 3] & bit) !== 0) return;
		this.seenBits[index >> 3] |= bit;
		this.seenCount++;
	}

	/** How many names were never seen, and the first `examples` of them in list order. */
	unseen(examples = 5): { count: number; examples: string[] } {
		const count = this.size - this.seenCount;
		const found: string[] = [];
		for (let index = 0; index < this.size && found.length < Math.min(examples, count); index++) {
			if ((this.seenBits[index >> 3] & (1 << (index & 7))) === 0) found.push(this.nameAt(index));
		}
		return { count, examples: found };
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
