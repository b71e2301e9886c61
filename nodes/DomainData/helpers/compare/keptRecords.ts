/**
 * The older records Compare keeps between pass 2 and pass 3, by the newer snapshot's ordinal: their JSON as UTF-8 in
 * 1 MB chunks, found through typed arrays (chunk, offset, length). About the JSON's size each, where strings and a Map
 * would take two bytes a character past U+00FF and more per entry; chunks are never copied to grow. Past `maxBytes`
 * (or 65,535 chunks: a 16-bit chunk index) the owner's error is thrown.
 */
const DEFAULT_CHUNK_BYTES = 1 << 20;
const MAX_CHUNKS = 0xffff;

interface KeptRecordsOptions {
	maxBytes: number;
	tooLarge: () => Error;
	/** Tests use small chunks to reach many of them. */
	chunkBytes?: number;
}

export class KeptRecords {
	size = 0;
	/** Bytes of the chunks: what the kept records cost. */
	byteLength = 0;
	private chunks: Uint8Array[] = [];
	private readonly chunkBytes: number;
	/** Bytes used in the last chunk. */
	private used: number;
	/** Per ordinal: chunk index + 1 (0: none kept), offset and length of its JSON. */
	private chunkOf: Uint16Array;
	private readonly offsets: Uint32Array;
	private readonly lengths: Uint32Array;
	private readonly encoder = new TextEncoder();
	private readonly decoder = new TextDecoder();

	constructor(
		ordinals: number,
		private readonly options: KeptRecordsOptions,
	) {
		this.chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
		this.used = this.chunkBytes;
		this.chunkOf = new Uint16Array(ordinals);
		this.offsets = new Uint32Array(ordinals);
		this.lengths = new Uint32Array(ordinals);
	}

	set(ordinal: number, json: string): void {
		if (this.chunkOf[ordinal] === 0) this.size++;
		this.place(ordinal, (target) => this.encoder.encodeInto(json, target).written, json.length * 3);
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
		this.used = this.chunkBytes;
		for (let ordinal = 0; ordinal < chunkOf.length; ordinal++) {
			const source = this.bytesOf(ordinal, chunkOf, chunks);
			if (source !== undefined) this.place(ordinal, (target) => copyInto(target, source), source.length);
		}
	}

	private bytesOf(ordinal: number, chunkOf: Uint16Array, chunks: Uint8Array[]): Uint8Array | undefined {
		const chunk = chunkOf[ordinal];
		if (chunk === 0) return undefined;
		const offset = this.offsets[ordinal];
		return chunks[chunk - 1].subarray(offset, offset + this.lengths[ordinal]);
	}

	/** Writes at most `room` bytes through `write` (which returns how many it wrote) and records where. */
	private place(ordinal: number, write: (target: Uint8Array) => number, room: number): void {
		if (this.used + room > this.chunkBytes) {
			// A record larger than a chunk gets a chunk of its own (at offset 0, so the encoding still fits).
			const bytes = Math.max(this.chunkBytes, room);
			if (this.byteLength + bytes > this.options.maxBytes || this.chunks.length >= MAX_CHUNKS) {
				throw this.options.tooLarge();
			}
			this.chunks.push(new Uint8Array(bytes));
			this.byteLength += bytes;
			this.used = 0;
		}
		const index = this.chunks.length - 1;
		const written = write(this.chunks[index].subarray(this.used));
		this.chunkOf[ordinal] = index + 1;
		this.offsets[ordinal] = this.used;
		this.lengths[ordinal] = written;
		this.used += written;
	}
}

function copyInto(target: Uint8Array, source: Uint8Array): number {
	target.set(source);
	return source.length;
}
