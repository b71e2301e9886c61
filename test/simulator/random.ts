/**
 * Small, fast, seedable integer hashing. Every generated value in the simulator is a pure function of
 * (seed, domain key, field salt), so any record can be produced on its own without holding the index.
 * Math.imul keeps everything in 32-bit integer arithmetic, which is what makes per-record generation cheap.
 */

/**
 * Bound once: under jest every `Math.x` is a slow global lookup (about 30x slower in the hot loops),
 * while a module-level binding is as fast as in plain Node.
 */
const imul = Math.imul;

/** murmur3 finaliser: a good 32-bit avalanche mix. */
export function mix32(value: number): number {
	let x = value | 0;
	x ^= x >>> 16;
	x = imul(x, 0x85ebca6b);
	x ^= x >>> 13;
	x = imul(x, 0xc2b2ae35);
	x ^= x >>> 16;
	return x >>> 0;
}

/** Hash of two integers (unsigned 32-bit result). */
export function hash2(a: number, b: number): number {
	return mix32(mix32(a ^ 0x9e3779b9) ^ imul(b | 0, 0x27d4eb2f));
}

/** Hash of three integers (unsigned 32-bit result). */
export function hash3(a: number, b: number, c: number): number {
	return mix32(hash2(a, b) ^ imul(c | 0, 0x165667b1));
}

/** Hash of a string (FNV-1a then mixed), used to turn labels into salts. */
export function hashString(text: string): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		h ^= text.charCodeAt(i);
		h = imul(h, 0x01000193);
	}
	return mix32(h);
}

/** Deterministic stream of numbers from one starting hash, for fields that need several choices. */
export class HashStream {
	private state: number;

	constructor(start: number) {
		this.state = start >>> 0;
	}

	/** Next unsigned 32-bit value. */
	next(): number {
		this.state = (this.state + 0x6d2b79f5) | 0;
		return mix32(this.state);
	}

	/** Integer in [0, bound). */
	below(bound: number): number {
		return this.next() % bound;
	}

	/** True with the given probability (0..1). */
	chance(probability: number): boolean {
		return this.next() / 4294967296 < probability;
	}

	pick<T>(items: readonly T[]): T {
		return items[this.next() % items.length];
	}
}

/**
 * A keyed bijection on [0, size) (a Feistel network over the next even power of two, with cycle walking
 * to stay inside the range). Used to scatter keys over word combinations and ids; `invert` undoes `apply`,
 * which is what makes name -> key lookups O(1).
 */
export class Permutation {
	private readonly halfBits: number;
	private readonly halfMask: number;
	private readonly roundKeys: number[];

	constructor(
		readonly size: number,
		seed: number,
		rounds = 4,
	) {
		if (!Number.isInteger(size) || size < 1 || size > 2 ** 30) throw new Error(`bad permutation size ${size}`);
		let bits = 2;
		while (2 ** bits < size) bits += 2;
		this.halfBits = bits / 2;
		this.halfMask = (1 << this.halfBits) - 1;
		this.roundKeys = [];
		for (let i = 0; i < rounds; i++) this.roundKeys.push(hash2(seed, i + 1));
	}

	apply(value: number): number {
		let x = this.forward(value);
		while (x >= this.size) x = this.forward(x);
		return x;
	}

	invert(value: number): number {
		let x = this.backward(value);
		while (x >= this.size) x = this.backward(x);
		return x;
	}

	private forward(value: number): number {
		let left = value >>> this.halfBits;
		let right = value & this.halfMask;
		for (const key of this.roundKeys) {
			const next = left ^ (mix32(right ^ key) & this.halfMask);
			left = right;
			right = next;
		}
		return left * (1 << this.halfBits) + right;
	}

	private backward(value: number): number {
		let left = value >>> this.halfBits;
		let right = value & this.halfMask;
		for (let i = this.roundKeys.length - 1; i >= 0; i--) {
			const previous = right ^ (mix32(left ^ this.roundKeys[i]) & this.halfMask);
			right = left;
			left = previous;
		}
		return left * (1 << this.halfBits) + right;
	}
}
