/**
 * The older records that Dataset → Compare keeps between its second and third pass, by the newer
 * snapshot's ordinal: their JSON as UTF-8 in 1 MB byte chunks, found through two typed arrays. That is
 * about the JSON's size each: a JavaScript string with one character past U+00FF (an en dash in a title)
 * takes two bytes per character, and a Map entry and a string header cost more than two offsets. Chunks
 * are never copied to grow, so memory never briefly doubles.
 */
const CHUNK_BITS = 20;
const CHUNK_BYTES = 1 << CHUNK_BITS;

export class KeptRecords {
	private chunks: Uint8Array[] = [];
	/** Bytes used in the last chunk. */
	private used = CHUNK_BYTES;
	/** chunk index << CHUNK_BITS | offset of each ordinal's JSON, or -1. */
	private readonly starts: Int32Array;
	private readonly lengths: Uint32Array;
	private readonly encoder = new TextEncoder();
	private readonly decoder = new TextDecoder();
	size = 0;

	constructor(ordinals: number) {
		this.starts = new Int32Array(ordinals).fill(-1);
		this.lengths = new Uint32Array(ordinals);
	}

	/** Bytes of the chunks (what the kept records cost). */
	byteLength = 0;

	set(ordinal: number, json: string): void {
		if (this.starts[ordinal] < 0) this.size++;
		this.place(ordinal, (target) => this.encoder.encodeInto(json, target).written, json.length * 3);
	}

	/** Whether a record is kept for `ordinal`. */
	has(ordinal: number): boolean {
		return this.starts[ordinal] >= 0;
	}

	/** The JSON kept for `ordinal`, or undefined. */
	get(ordinal: number): string | undefined {
		const bytes = this.bytesOf(ordinal);
		return bytes && this.decoder.decode(bytes);
	}

	delete(ordinal: number): void {
		if (this.starts[ordinal] < 0) return;
		this.starts[ordinal] = -1;
		this.size--;
	}

	/** Ordinals held, ascending. */
	ordinals(): number[] {
		const result: number[] = [];
		for (let ordinal = 0; ordinal < this.starts.length; ordinal++) if (this.starts[ordinal] >= 0) result.push(ordinal);
		return result;
	}

	/** Copies what is still held into fresh chunks, so that deleted records free their memory. */
	compact(): void {
		const old = { chunks: this.chunks, starts: Int32Array.from(this.starts) };
		this.chunks = [];
		this.byteLength = 0;
		this.used = CHUNK_BYTES;
		for (let ordinal = 0; ordinal < this.starts.length; ordinal++) {
			const start = old.starts[ordinal];
			if (start < 0) continue;
			const length = this.lengths[ordinal];
			const source = old.chunks[start >>> CHUNK_BITS];
			const offset = start & (CHUNK_BYTES - 1);
			this.place(ordinal, (target) => {
				target.set(source.subarray(offset, offset + length));
				return length;
			}, length);
		}
	}

	private bytesOf(ordinal: number): Uint8Array | undefined {
		const start = this.starts[ordinal];
		if (start < 0) return undefined;
		const offset = start & (CHUNK_BYTES - 1);
		return this.chunks[start >>> CHUNK_BITS].subarray(offset, offset + this.lengths[ordinal]);
	}

	/** Writes at most `room` bytes through `write` (which returns how many it wrote) and records where. */
	private place(ordinal: number, write: (target: Uint8Array) => number, room: number): void {
		if (this.used + room > CHUNK_BYTES) {
			// A record larger than a chunk gets a chunk of its own (its offset is 0, so the encoding still fits).
			const chunk = new Uint8Array(Math.max(CHUNK_BYTES, room));
			this.chunks.push(chunk);
			this.byteLength += chunk.length;
			this.used = 0;
		}
		const index = this.chunks.length - 1;
		const written = write(this.chunks[index].subarray(this.used));
		this.starts[ordinal] = (index << CHUNK_BITS) | this.used;
		this.lengths[ordinal] = written;
		this.used += written;
	}
}
