/**
 * A growing set of domain names held as 64-bit hashes (open addressing): the names Compare remembers beyond its
 * table (older-only names, to refuse a repeat; names of skipped lines). 16 to 32 bytes a name.
 */
import { type Hash64, hash64 } from '../../transport';

export class NameSet {
	size = 0;
	/** Slot pairs [hi, lo]; [0, 0] is empty (a name hashing to it is stored as [0, 1]). */
	private slots = new Uint32Array(2 * 1024);
	private mask = 1023;
	private readonly scratch: Hash64 = { hi: 0, lo: 0 };

	/** Adds the name; false when it was there already. */
	add(name: string): boolean {
		const { hi, lo } = this.hashOf(name);
		const slot = this.slotOf(hi, lo);
		if (this.slots[slot * 2] !== 0 || this.slots[slot * 2 + 1] !== 0) return false;
		this.slots[slot * 2] = hi;
		this.slots[slot * 2 + 1] = lo;
		if (++this.size * 2 > this.mask + 1) this.grow();
		return true;
	}

	has(name: string): boolean {
		if (this.size === 0) return false;
		const { hi, lo } = this.hashOf(name);
		const slot = this.slotOf(hi, lo);
		return this.slots[slot * 2] !== 0 || this.slots[slot * 2 + 1] !== 0;
	}

	private hashOf(name: string): Hash64 {
		const hash = hash64(name, this.scratch);
		if (hash.hi === 0 && hash.lo === 0) hash.lo = 1;
		return hash;
	}

	/** The slot that holds the hash, or the empty slot where it belongs. */
	private slotOf(hi: number, lo: number): number {
		const { slots, mask } = this;
		for (let slot = lo & mask; ; slot = (slot + 1) & mask) {
			const heldHi = slots[slot * 2];
			const heldLo = slots[slot * 2 + 1];
			if ((heldHi === 0 && heldLo === 0) || (heldHi === hi && heldLo === lo)) return slot;
		}
	}

	private grow(): void {
		const old = this.slots;
		this.slots = new Uint32Array(old.length * 2);
		this.mask = old.length - 1;
		for (let slot = 0; slot < old.length / 2; slot++) {
			const hi = old[slot * 2];
			const lo = old[slot * 2 + 1];
			if (hi === 0 && lo === 0) continue;
			const at = this.slotOf(hi, lo);
			this.slots[at * 2] = hi;
			this.slots[at * 2 + 1] = lo;
		}
	}
}
