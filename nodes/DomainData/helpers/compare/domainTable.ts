/**
 * Compare's memory, by the newer snapshot's ordinal of a record (its place in stream order). DomainTable: per record,
 * 64-bit hashes of the name, of the compared values and of the line as it came, flag bits and, when rank is read, the
 * rank (a float64: any number, exactly; NaN for none), in typed arrays, plus a hash index of the names.
 */
import { hash64, type Hash64 } from '../../transport';
import { copied, HashIndex } from '../domainSet';

const INITIAL_CAPACITY = 1 << 14;
export const NOT_FOUND = -1;

export class DomainTable extends HashIndex {
	count = 0;
	/** Hash pairs [hi, lo] per ordinal: of the name, of the compared values, of the line (see stageLine). */
	names = new Uint32Array(2 * INITIAL_CAPACITY);
	values = new Uint32Array(2 * INITIAL_CAPACITY);
	lines = new Uint32Array(2 * INITIAL_CAPACITY);
	rank?: Float64Array;
	flags = new Uint8Array(INITIAL_CAPACITY);
	/** Lines staged ahead of `add`: the reader judges a whole block of lines before their records come. */
	private staged = 0;
	private readonly scratch: Hash64 = { hi: 0, lo: 0 };

	constructor(keepsRank = true) {
		super();
		if (keepsRank) this.rank = new Float64Array(INITIAL_CAPACITY);
	}

	/** Notes the hash of the next record's line, so that pass 2 knows a byte-identical line without parsing it. */
	stageLine(text: string, start: number, end: number): void {
		if (this.staged === this.flags.length) this.grow();
		this.put(this.lines, this.staged++, hash64(text, this.scratch, start, end));
	}

	/** Drops the last staged line: it was no record after all (skipped as malformed). */
	unstageLine(): void {
		this.staged--;
	}

	/** Whether `text.slice(start, end)` is, byte for byte, the line staged for `ordinal` (by its hash). */
	sameLine(ordinal: number, text: string, start: number, end: number): boolean {
		return this.holdsHash(this.lines, ordinal, hash64(text, this.scratch, start, end));
	}

	/** Appends a domain with the hash of its compared values (and its staged line). */
	add(name: string, values: Hash64, rank: number, flags: number): void {
		if (this.count === this.flags.length) this.grow();
		const at = this.count++;
		this.staged = Math.max(this.staged, this.count);
		this.put(this.values, at, values);
		this.put(this.names, at, hash64(name, this.scratch));
		if (this.rank) this.rank[at] = rank;
		this.flags[at] = flags;
	}

	rankAt(ordinal: number): number {
		return this.rank ? this.rank[ordinal] : NaN;
	}

	sameValues(ordinal: number, values: Hash64): boolean {
		return this.holdsHash(this.values, ordinal, values);
	}

	/** Builds the name index; returns how many names occur more than once (a repeat is left out of the index). */
	index(): number {
		this.makeRoom(this.count, 1024);
		let repeats = 0;
		for (let ordinal = 0; ordinal < this.count; ordinal++) {
			const slot = this.slotOf(this.names[2 * ordinal], this.names[2 * ordinal + 1]);
			if (this.entryAt(slot) === NOT_FOUND) this.place(slot, ordinal, this.names[2 * ordinal]);
			else repeats++;
		}
		return repeats;
	}

	/** The ordinal of `name.slice(start, end)`, or NOT_FOUND (after `index()`). */
	find(name: string, start = 0, end = name.length): number {
		const { hi, lo } = hash64(name, this.scratch, start, end);
		return this.entryAt(this.slotOf(hi, lo));
	}

	/** Whether `ordinal` is the domain `name.slice(start, end)`: for a reader in the table's order, no index look-up. */
	holds(ordinal: number, name: string, start = 0, end = name.length): boolean {
		return ordinal < this.count && this.holdsHash(this.names, ordinal, hash64(name, this.scratch, start, end));
	}

	/** The index's test: the low half of the name hash (the high half matched). */
	protected isEntry(ordinal: number, lo: number): boolean {
		return this.names[2 * ordinal + 1] === lo;
	}

	private put(pairs: Uint32Array, ordinal: number, hash: Hash64): void {
		pairs[2 * ordinal] = hash.hi;
		pairs[2 * ordinal + 1] = hash.lo;
	}

	private holdsHash(pairs: Uint32Array, ordinal: number, hash: Hash64): boolean {
		return pairs[2 * ordinal] === hash.hi && pairs[2 * ordinal + 1] === hash.lo;
	}

	private grow(): void {
		this.names = copied(this.names, this.names.length * 2);
		this.values = copied(this.values, this.values.length * 2);
		this.lines = copied(this.lines, this.lines.length * 2);
		if (this.rank) this.rank = copied(this.rank, this.rank.length * 2);
		this.flags = copied(this.flags, this.flags.length * 2);
	}
}

const CHUNK_BYTES = 1 << 20;
const MAX_CHUNKS = 0xffff;

/**
 * The older records Compare keeps between pass 2 and pass 3, by the newer snapshot's ordinal: their JSON as UTF-8 in
 * 1 MB chunks (strings in a Map would take two bytes a character past U+00FF, and more per entry). Past `maxBytes`
 * (or 65,535 chunks: a 16-bit chunk index) the owner's error is thrown.
 */
export class KeptRecords {
	size = 0;
	/** Bytes of the chunks: what the kept records cost. */
	byteLength = 0;
	private chunks: Uint8Array[] = [];
	/** Bytes used in the last chunk; all of them before the first chunk, so that the first record opens one. */
	private used = CHUNK_BYTES;
	/** Per ordinal: chunk index + 1 (0: none kept), offset and length of its JSON. */
	private chunkOf: Uint16Array;
	private readonly offsets: Uint32Array;
	private readonly lengths: Uint32Array;
	private readonly encoder = new TextEncoder();
	private readonly decoder = new TextDecoder();

	constructor(
		ordinals: number,
		private readonly options: { maxBytes: number; tooLarge: () => Error },
	) {
		this.chunkOf = new Uint16Array(ordinals);
		this.offsets = new Uint32Array(ordinals);
		this.lengths = new Uint32Array(ordinals);
	}

	set(ordinal: number, json: string): void {
		if (this.chunkOf[ordinal] === 0) this.size++;
		this.place(ordinal, this.encoder.encode(json));
	}

	has(ordinal: number): boolean {
		return this.chunkOf[ordinal] !== 0;
	}

	get(ordinal: number): string | undefined {
		const bytes = this.bytesOf(ordinal, this.chunkOf, this.chunks);
		return bytes && this.decoder.decode(bytes);
	}

	delete(ordinal: number): void {
		if (this.chunkOf[ordinal] === 0) return;
		this.chunkOf[ordinal] = 0;
		this.size--;
	}

	/** Ordinals held, ascending. */
	ordinals(): number[] {
		const result: number[] = [];
		for (let ordinal = 0; ordinal < this.chunkOf.length; ordinal++) if (this.has(ordinal)) result.push(ordinal);
		return result;
	}

	/** Copies what is still held into fresh chunks, so that deleted records free their memory. */
	compact(): void {
		const { chunks, chunkOf } = this;
		this.chunkOf = new Uint16Array(chunkOf.length);
		this.chunks = [];
		this.byteLength = 0;
		this.used = CHUNK_BYTES;
		for (let ordinal = 0; ordinal < chunkOf.length; ordinal++) {
			const source = this.bytesOf(ordinal, chunkOf, chunks);
			if (source !== undefined) this.place(ordinal, source);
		}
	}

	private bytesOf(ordinal: number, chunkOf: Uint16Array, chunks: Uint8Array[]): Uint8Array | undefined {
		const chunk = chunkOf[ordinal];
		if (chunk === 0) return undefined;
		const offset = this.offsets[ordinal];
		return chunks[chunk - 1].subarray(offset, offset + this.lengths[ordinal]);
	}

	/** Copies `bytes` into the last chunk (or a new one) and records where. */
	private place(ordinal: number, bytes: Uint8Array): void {
		if (this.used + bytes.length > CHUNK_BYTES) {
			// A record larger than a chunk gets a chunk of its own.
			const size = Math.max(CHUNK_BYTES, bytes.length);
			if (this.byteLength + size > this.options.maxBytes || this.chunks.length >= MAX_CHUNKS) {
				throw this.options.tooLarge();
			}
			this.chunks.push(new Uint8Array(size));
			this.byteLength += size;
			this.used = 0;
		}
		this.chunks[this.chunks.length - 1].set(bytes, this.used);
		this.chunkOf[ordinal] = this.chunks.length;
		this.offsets[ordinal] = this.used;
		this.lengths[ordinal] = bytes.length;
		this.used += bytes.length;
	}
}
