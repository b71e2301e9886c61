/**
 * Splits an NDJSON body that arrives as byte chunks into lines.
 *
 * The split happens on bytes, before decoding: '\n' (0x0A) never occurs inside a multi-byte UTF-8
 * character, so each run of complete lines can be decoded in one TextDecoder call and a character cut
 * in two by a chunk boundary is simply carried over with the rest of its line. Per chunk the work is:
 * two native byte searches, one decode, one `indexOf` walk over the text. A line longer than a chunk is
 * kept as a list of pieces and joined once, when its end arrives, so very long lines cost O(length).
 *
 * Besides the text of each line, the splitter hands back the raw bytes of exactly those lines, so that
 * the file output can store what the service sent without encoding it again.
 */

/** A line longer than this is refused instead of growing memory without bound (records are ~1 KB). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;
const NEWLINE = new Uint8Array([LF]);

export interface LineBlock {
	/** Complete lines, in order, without their line ending (a '\r' before the '\n' is removed too). */
	lines: string[];
	/**
	 * The bytes of exactly these lines as the service sent them, as consecutive pieces, except for line
	 * endings: every line ends with a single '\n' ('\r\n' loses its '\r', a last line that came
	 * without one gets it), so the pieces concatenate into a uniform NDJSON file.
	 */
	bytes: Uint8Array[];
}

export class LineTooLongError extends Error {
	constructor(readonly limit: number) {
		super(`A line is longer than ${Math.round(limit / (1024 * 1024))} MB`);
	}
}

export class NdjsonLineSplitter {
	private readonly decoder = new TextDecoder('utf-8');
	/** Bytes of the line that is not complete yet, as the pieces they arrived in. */
	private carry: Uint8Array[] = [];
	private carryLength = 0;

	constructor(private readonly maxLineBytes = MAX_LINE_BYTES) {}

	/** Bytes held for a line that has not ended yet. */
	get pendingBytes(): number {
		return this.carryLength;
	}

	/** Takes the next chunk of the body; returns the lines it completed (often many, possibly none). */
	push(chunk: Uint8Array): LineBlock {
		const block: LineBlock = { lines: [], bytes: [] };
		const first = chunk.indexOf(LF);
		if (first === -1) {
			this.hold(chunk);
			return block;
		}
		const last = chunk.lastIndexOf(LF);
		let blockStart = 0;
		if (this.carryLength > 0) {
			// The line that was waiting ends in this chunk: join its pieces once.
			const line = this.takeCarry(chunk.subarray(0, first + 1));
			block.bytes.push(withoutCarriageReturns(line));
			block.lines.push(this.decodeLine(line, 0, line.length - 1));
			blockStart = first + 1;
		}
		if (blockStart <= last) {
			const complete = chunk.subarray(blockStart, last + 1);
			block.bytes.push(withoutCarriageReturns(complete));
			// `complete` ends with '\n', so the streaming decoder never holds bytes back between calls; Node 20
			// decodes about twice as fast in streaming mode (docs/benchmarks.md, "Decoding").
			splitText(this.decoder.decode(complete, { stream: true }), block.lines);
		}
		if (last + 1 < chunk.length) this.hold(chunk.subarray(last + 1));
		return block;
	}

	/** The end of the body: a last line without line ending, if there is one. */
	end(): LineBlock {
		if (this.carryLength === 0) return { lines: [], bytes: [] };
		const line = this.takeCarry(NEWLINE);
		return { lines: [this.decodeLine(line, 0, line.length - 1)], bytes: [withoutCarriageReturns(line)] };
	}

	/** Forgets a line that was not complete (the connection dropped in its middle). */
	discardPending(): void {
		this.carry = [];
		this.carryLength = 0;
	}

	private hold(piece: Uint8Array): void {
		this.carryLength += piece.length;
		if (this.carryLength > this.maxLineBytes) {
			this.discardPending();
			throw new LineTooLongError(this.maxLineBytes);
		}
		this.carry.push(piece);
	}

	private takeCarry(tail?: Uint8Array): Uint8Array {
		const pieces = tail ? [...this.carry, tail] : this.carry;
		const length = this.carryLength + (tail?.length ?? 0);
		const joined = pieces.length === 1 ? pieces[0] : new Uint8Array(length);
		if (pieces.length > 1) {
			let offset = 0;
			for (const piece of pieces) {
				joined.set(piece, offset);
				offset += piece.length;
			}
		}
		this.discardPending();
		return joined;
	}

	/** Text of bytes [start, end) without a trailing '\r'. */
	private decodeLine(bytes: Uint8Array, start: number, end: number): string {
		const stop = end > start && bytes[end - 1] === CR ? end - 1 : end;
		return this.decoder.decode(bytes.subarray(start, stop));
	}
}

/**
 * `bytes` with every '\r' that ends a line removed. JSON text cannot hold a raw '\r' (it must be
 * escaped), so one native search tells whether there is anything to do; usually there is not.
 */
function withoutCarriageReturns(bytes: Uint8Array): Uint8Array {
	let cr = bytes.indexOf(CR);
	if (cr === -1) return bytes;
	const out = new Uint8Array(bytes.length);
	let length = 0;
	let from = 0;
	for (; cr !== -1; cr = bytes.indexOf(CR, cr + 1)) {
		if (bytes[cr + 1] !== LF) continue;
		out.set(bytes.subarray(from, cr), length);
		length += cr - from;
		from = cr + 1;
	}
	out.set(bytes.subarray(from), length);
	length += bytes.length - from;
	return out.subarray(0, length);
}

/** Appends the lines of `text` (which ends with '\n') to `lines`, without line endings. */
function splitText(text: string, lines: string[]): void {
	let start = 0;
	for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
		const end = newline > start && text.charCodeAt(newline - 1) === CR ? newline - 1 : newline;
		lines.push(text.slice(start, end));
		start = newline + 1;
	}
}

/** The raw bytes of each line in `pieces` (as a LineBlock's `bytes`: every piece ends with '\n'). */
export function bytesPerLine(pieces: readonly Uint8Array[]): Uint8Array[] {
	const lines: Uint8Array[] = [];
	for (const piece of pieces) {
		let start = 0;
		for (let newline = piece.indexOf(LF); newline !== -1; newline = piece.indexOf(LF, start)) {
			lines.push(piece.subarray(start, newline + 1));
			start = newline + 1;
		}
	}
	return lines;
}

/** A short, single-line excerpt of a line for error messages. */
export function excerpt(line: string, length = 80): string {
	const flat = line.replace(/\s+/g, ' ');
	return flat.length > length ? `${flat.slice(0, length)}…` : flat;
}
