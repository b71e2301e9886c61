/**
 * A fast 64-bit string hash for Dataset → Compare, which keeps one name hash and one value hash per
 * domain instead of the records (Node's crypto may not be used in a community node). It is cyrb53
 * (two multiplicative FNV-like lanes over the UTF-16 code units, cross-mixed at the end) with both
 * 32-bit lanes kept whole. For a million names the chance that two share a hash is about 3 in 10^8.
 */
const imul = Math.imul;

/** The two 32-bit halves of the last hash computed (read right after `hash64`). */
export interface Hash64 {
	hi: number;
	lo: number;
}

/**
 * The same hash fed in pieces (no string is built to hash several values): `reset`, then `text` and
 * `code` in any order, then `digest`. Hashing the pieces gives what hashing their concatenation gives.
 */
export class Hasher64 {
	private h1 = 0xdeadbeef;
	private h2 = 0x41c6ce57;

	reset(): this {
		this.h1 = 0xdeadbeef;
		this.h2 = 0x41c6ce57;
		return this;
	}

	text(text: string): this {
		let h1 = this.h1;
		let h2 = this.h2;
		for (let i = 0; i < text.length; i++) {
			const code = text.charCodeAt(i);
			h1 = imul(h1 ^ code, 2654435761);
			h2 = imul(h2 ^ code, 1597334677);
		}
		this.h1 = h1;
		this.h2 = h2;
		return this;
	}

	/** One UTF-16 code unit (a separator). */
	code(code: number): this {
		this.h1 = imul(this.h1 ^ code, 2654435761);
		this.h2 = imul(this.h2 ^ code, 1597334677);
		return this;
	}

	digest(out: Hash64): Hash64 {
		let h1 = this.h1;
		let h2 = this.h2;
		h1 = imul(h1 ^ (h1 >>> 16), 2246822507);
		h1 ^= imul(h2 ^ (h2 >>> 13), 3266489909);
		h2 = imul(h2 ^ (h2 >>> 16), 2246822507);
		h2 ^= imul(h1 ^ (h1 >>> 13), 3266489909);
		out.hi = h2 >>> 0;
		out.lo = h1 >>> 0;
		return out;
	}
}

const shared = new Hasher64();

/** Hashes `text` into `out` (unsigned 32-bit halves) and returns `out`. */
export function hash64(text: string, out: Hash64): Hash64 {
	return shared.reset().text(text).digest(out);
}
