/**
 * The per-domain memory of Dataset → Compare: for each record of one snapshot, in stream order (its
 * ordinal), a 64-bit hash of the name, a 64-bit hash of the compared values, the rank and a few flag
 * bits, in typed arrays: 21 bytes a domain, plus 12 for the sorted name index (about 33 MB for a
 * million domains, whatever the fields). Names are found by binary search over the sorted hashes.
 */
import { hash64, type Hash64 } from './hash64';

const INITIAL_CAPACITY = 1 << 14;
const RADIX_BUCKETS = 1 << 16;
export const NOT_FOUND = -1;

export class DomainTable {
	count = 0;
	nameHi = new Uint32Array(INITIAL_CAPACITY);
	nameLo = new Uint32Array(INITIAL_CAPACITY);
	valueHi = new Uint32Array(INITIAL_CAPACITY);
	valueLo = new Uint32Array(INITIAL_CAPACITY);
	rank = new Int32Array(INITIAL_CAPACITY);
	flags = new Uint8Array(INITIAL_CAPACITY);
	/** After `index()`: ordinals sorted by name hash, and the hashes in that order. */
	private order = new Uint32Array(0);
	private sortedHi = new Uint32Array(0);
	private sortedLo = new Uint32Array(0);
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
	 * Sorts the names for lookups (an LSD radix sort, 4 passes of 16 bits: linear, no comparisons).
	 * Returns the number of names that occur more than once (0 for a well-formed snapshot).
	 */
	index(): number {
		const n = this.count;
		let order = new Uint32Array(n);
		let spare = new Uint32Array(n);
		for (let i = 0; i < n; i++) order[i] = i;
		const counts = new Uint32Array(RADIX_BUCKETS);
		for (const [keys, shift] of [
			[this.nameLo, 0],
			[this.nameLo, 16],
			[this.nameHi, 0],
			[this.nameHi, 16],
		] as Array<[Uint32Array, number]>) {
			counts.fill(0);
			for (let i = 0; i < n; i++) counts[(keys[order[i]] >>> shift) & 0xffff]++;
			let sum = 0;
			for (let bucket = 0; bucket < RADIX_BUCKETS; bucket++) {
				const size = counts[bucket];
				counts[bucket] = sum;
				sum += size;
			}
			for (let i = 0; i < n; i++) {
				const ordinal = order[i];
				spare[counts[(keys[ordinal] >>> shift) & 0xffff]++] = ordinal;
			}
			[order, spare] = [spare, order];
		}
		this.order = order;
		this.sortedHi = spare; // reuse the spare buffer
		this.sortedLo = new Uint32Array(n);
		let repeats = 0;
		for (let i = 0; i < n; i++) {
			this.sortedHi[i] = this.nameHi[order[i]];
			this.sortedLo[i] = this.nameLo[order[i]];
			if (i > 0 && this.sortedHi[i] === this.sortedHi[i - 1] && this.sortedLo[i] === this.sortedLo[i - 1]) repeats++;
		}
		return repeats;
	}

	/** The ordinal of `name`, or NOT_FOUND. Call `index()` first. */
	find(name: string): number {
		const { hi, lo } = hash64(name, this.scratch);
		const sortedHi = this.sortedHi;
		const sortedLo = this.sortedLo;
		let low = 0;
		let high = this.count - 1;
		while (low <= high) {
			const middle = (low + high) >>> 1;
			const midHi = sortedHi[middle];
			if (midHi < hi || (midHi === hi && sortedLo[middle] < lo)) low = middle + 1;
			else if (midHi > hi || sortedLo[middle] > lo) high = middle - 1;
			else return this.order[middle];
		}
		return NOT_FOUND;
	}

	private grow(): void {
		const capacity = this.flags.length * 2;
		const bigger = <T extends Uint32Array | Int32Array | Uint8Array>(array: T, make: new (size: number) => T): T => {
			const next = new make(capacity);
			next.set(array);
			return next;
		};
		this.nameHi = bigger(this.nameHi, Uint32Array);
		this.nameLo = bigger(this.nameLo, Uint32Array);
		this.valueHi = bigger(this.valueHi, Uint32Array);
		this.valueLo = bigger(this.valueLo, Uint32Array);
		this.rank = bigger(this.rank, Int32Array);
		this.flags = bigger(this.flags, Uint8Array);
	}
}
