/**
 * The per-domain memory of Dataset → Compare: for each record of one snapshot, in stream order (its
 * ordinal), a 64-bit hash of the name, a 64-bit hash of the compared values, the rank (a float64: any
 * number the service sends, exactly; NaN for none) and a few flag bits, in typed arrays: 25 bytes a domain,
 * plus 8 to 16 for the name index, a hash table of the name hashes (about 41 MB for a million domains,
 * whatever the fields).
 */
import { hash64, type Hash64 } from './hash64';

const INITIAL_CAPACITY = 1 << 14;
export const NOT_FOUND = -1;

export class DomainTable {
	count = 0;
	nameHi = new Uint32Array(INITIAL_CAPACITY);
	nameLo = new Uint32Array(INITIAL_CAPACITY);
	valueHi = new Uint32Array(INITIAL_CAPACITY);
	valueLo = new Uint32Array(INITIAL_CAPACITY);
	rank = new Float64Array(INITIAL_CAPACITY);
	flags = new Uint8Array(INITIAL_CAPACITY);
	/** After `index()`: the name hash table (see there). */
	private slots = new Uint32Array(2);
	private mask = 0;
	private readonly scratch: Hash64 = { hi: 0, lo: 0 };

	/** Appends a domain with the hash of its compared values; returns its ordinal. */
	add(name: string, values: Hash64, rank: number, flags: number): number {
		if (this.count === this.flags.length) this.grow();
		const at = this.count++;
		this.valueHi[at] = values.hi;
		this.valueLo[at] = values.lo;
		const hash = hash64(name, this.scratch);
		this.nameHi[at] = hash.hi;
		this.nameLo[at] = hash.lo;
		this.rank[at] = rank;
		this.flags[at] = flags;
		return at;
	}

	/** True when `values` is the stored hash of the compared values of `ordinal`. */
	sameValues(ordinal: number, values: Hash64): boolean {
		return this.valueHi[ordinal] === values.hi && this.valueLo[ordinal] === values.lo;
	}

	/**
	 * Builds the name index: an open-addressing hash table (linear probing) of slot pairs
	 * [ordinal + 1, high half of the name hash], so that most lookups touch one cache line instead of the
	 * ~20 scattered reads of a binary search over a million names. Returns the number of names that occur
	 * more than once (0 for a well-formed snapshot); a repeat is left out of the index.
	 */
	index(): number {
		let capacity = 1024;
		while (capacity < this.count * 1.5) capacity *= 2;
		const slots = new Uint32Array(capacity * 2);
		const mask = capacity - 1;
		let repeats = 0;
		for (let ordinal = 0; ordinal < this.count; ordinal++) {
			const hi = this.nameHi[ordinal];
			const lo = this.nameLo[ordinal];
			let slot = lo & mask;
			for (;;) {
				const held = slots[slot * 2];
				if (held === 0) {
					slots[slot * 2] = ordinal + 1;
					slots[slot * 2 + 1] = hi;
					break;
				}
				if (slots[slot * 2 + 1] === hi && this.nameLo[held - 1] === lo) {
					repeats++;
					break;
				}
				slot = (slot + 1) & mask;
			}
		}
		this.slots = slots;
		this.mask = mask;
		return repeats;
	}

	/** The ordinal of `name` (or of `name.slice(start, end)`), or NOT_FOUND. Call `index()` first. */
	find(name: string, start = 0, end = name.length): number {
		const { hi, lo } = hash64(name, this.scratch, start, end);
		const slots = this.slots;
		let slot = lo & this.mask;
		for (;;) {
			const held = slots[slot * 2];
			if (held === 0) return NOT_FOUND;
			if (slots[slot * 2 + 1] === hi && this.nameLo[held - 1] === lo) return held - 1;
			slot = (slot + 1) & this.mask;
		}
	}

	/**
	 * Whether `ordinal` is the domain `name` (or `name.slice(start, end)`), by its hash: for a caller that
	 * reads the snapshot of the table again in its order, a check in arrays read in order instead of a
	 * look-up in the hash table's scattered slots.
	 */
	holds(ordinal: number, name: string, start = 0, end = name.length): boolean {
		if (ordinal < 0 || ordinal >= this.count) return false;
		const { hi, lo } = hash64(name, this.scratch, start, end);
		return this.nameHi[ordinal] === hi && this.nameLo[ordinal] === lo;
	}

	private grow(): void {
		const capacity = this.flags.length * 2;
		const bigger = <T extends Uint32Array | Float64Array | Uint8Array>(array: T, make: new (size: number) => T): T => {
			const next = new make(capacity);
			next.set(array);
			return next;
		};
		this.nameHi = bigger(this.nameHi, Uint32Array);
		this.nameLo = bigger(this.nameLo, Uint32Array);
		this.valueHi = bigger(this.valueHi, Uint32Array);
		this.valueLo = bigger(this.valueLo, Uint32Array);
		this.rank = bigger(this.rank, Float64Array);
		this.flags = bigger(this.flags, Uint8Array);
	}
}
