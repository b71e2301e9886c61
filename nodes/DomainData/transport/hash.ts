/** The 64-bit hash: cyrb53 with both lanes kept (no Node crypto here); a million names collide with odds 3 in 10^8. */

const imul = Math.imul;

// cyrb53's constants as int32 values: a constant above 2^31 is a heap number and keeps the loop in floating point.
const SEED1 = 0xdeadbeef | 0;
const SEED2 = 0x41c6ce57 | 0;
const M1 = 2654435761 | 0;
const M2 = 1597334677 | 0;
const F1 = 2246822507 | 0;
const F2 = 3266489909 | 0;

export type Hash64 = { hi: number; lo: number };

/** The hash fed in pieces (`reset`, then `text`, `code`, `word` in any order, then `digest`): no string is built. */
export class Hasher64 {
	private h1 = SEED1;
	private h2 = SEED2;

	reset(): this {
		this.h1 = SEED1;
		this.h2 = SEED2;
		return this;
	}

	text(text: string, start = 0, end = text.length): this {
		let { h1, h2 } = this;
		for (let i = start; i < end; i++) {
			const code = text.charCodeAt(i);
			h1 = imul(h1 ^ code, M1);
			h2 = imul(h2 ^ code, M2);
		}
		this.h1 = h1;
		this.h2 = h2;
		return this;
	}

	/** One UTF-16 code unit (a separator). */
	code(code: number): this {
		this.h1 = imul(this.h1 ^ code, M1);
		this.h2 = imul(this.h2 ^ code, M2);
		return this;
	}

	/** A 32-bit number, as two code units. */
	word(value: number): this {
		return this.code(value & 0xffff).code(value >>> 16);
	}

	digest(out: Hash64): Hash64 {
		let { h1, h2 } = this;
		h1 = imul(h1 ^ (h1 >>> 16), F1);
		h1 ^= imul(h2 ^ (h2 >>> 13), F2);
		h2 = imul(h2 ^ (h2 >>> 16), F1);
		h2 ^= imul(h1 ^ (h1 >>> 13), F2);
		out.hi = h2 >>> 0;
		out.lo = h1 >>> 0;
		return out;
	}
}

const shared = new Hasher64();

/** Hashes `text.slice(start, end)` into `out` (unsigned halves) and returns `out`. */
export function hash64(text: string, out: Hash64, start = 0, end = text.length): Hash64 {
	return shared.reset().text(text, start, end).digest(out);
}
