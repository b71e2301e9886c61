/**
 * Splits an NDJSON body that arrives as byte chunks into lines.
 *
 * The split happens on bytes, before decoding: '\n' (0x0A) never occurs inside a multi-byte UTF-8
 * character, so the run of complete lines of a chunk is decoded in one TextDecoder call, and a character
 * cut in two by a chunk boundary is simply carried over with the rest of its line. Per chunk the work is:
 * two native byte searches, one decode (two when a line was carried over), one `indexOf` walk over the
 * text. A line longer than a chunk is kept as a list of pieces and joined once, when its end arrives, so
 * very long lines cost O(length); nothing else is copied.
 *
 * A block hands out its lines as ranges of the decoded text (no string is made per line: a caller that
 * needs only some lines slices only those), and the raw bytes of exactly those lines, so that the file
 * output can store what the service sent without encoding it again.
 */

/** A line longer than this is refused instead of growing memory without bound (records are ~1 KB). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;
const NEWLINE = new Uint8Array([LF]);
const NO_BYTES = new Uint8Array(0);

/** The complete lines one chunk (or the end of the body) completed. */
export class LineBlock {
	private pieces?: Uint8Array[];

	constructor(
		/**
		 * The first line, with its line ending, when it began in an earlier chunk: it is decoded on its own
		 * (from its joined pieces), so that the rest of the chunk is never copied.
		 */
		readonly head: string | undefined,
		/** The decoded text of the other lines, line endings included. */
		readonly text: string,
		/**
		 * Line `i` is `textOf(i).slice(starts[i], ends[i])`: without its line ending (a '\r' before the '\n'
		 * is left out too).
		 */
		readonly starts: readonly number[],
		readonly ends: readonly number[],
		/** The bytes of the lines as they came (the head line's, then the others'), each line ending with '\n'. */
		private readonly raw: readonly Uint8Array[],
	) {}

	/** Number of lines. */
	get count(): number {
		return this.starts.length;
	}

	/** The text that holds line `index`. */
	textOf(index: number): string {
		return index === 0 && this.head !== undefined ? this.head : this.text;
	}

	/** The text of line `index`. */
	line(index: number): string {
		return this.textOf(index).slice(this.starts[index], this.ends[index]);
	}

	/** Every line as a string, in order. */
	get lines(): string[] {
		const lines: string[] = [];
		for (let index = 0; index < this.starts.length; index++) lines.push(this.line(index));
		return lines;
	}

	/** Whether `test` holds for the text of some line (asked once per text, not once per line). */
	anyText(test: (text: string) => boolean): boolean {
		return test(this.text) || (this.head !== undefined && test(this.head));
	}

	/**
	 * The bytes of exactly these lines as the service sent them, as consecutive pieces, except for line
	 * endings: every line ends with a single '\n' ('\r\n' loses its '\r', a last line that came without
	 * one gets it), so the pieces concatenate into a uniform NDJSON file. Made on first use: a reader
	 * that wants only records never looks at them.
	 */
	get bytes(): Uint8Array[] {
		return (this.pieces ??= this.raw.filter((piece) => piece.length > 0).map(withoutCarriageReturns));
	}
}

const emptyBlock = () => new LineBlock(undefined, '', [], [], []);

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
		const first = chunk.indexOf(LF);
		if (first === -1) {
			this.hold(chunk);
			return emptyBlock();
		}
		const last = chunk.lastIndexOf(LF);
		// The line that was waiting ends in this chunk: its pieces are joined once.
		const head = this.carryLength > 0 ? this.takeCarry(chunk.subarray(0, first + 1)) : undefined;
		const rest = chunk.subarray(head ? first + 1 : 0, last + 1);
		if (last + 1 < chunk.length) this.hold(chunk.subarray(last + 1));
		return this.block(head, rest);
	}

	/** The end of the body: a last line without line ending, if there is one. */
	end(): LineBlock {
		if (this.carryLength === 0) return emptyBlock();
		return this.block(this.takeCarry(NEWLINE), NO_BYTES);
	}

	/** Forgets a line that was not complete (the connection dropped in its middle). */
	discardPending(): void {
		this.carry = [];
		this.carryLength = 0;
	}

	/** The block of a joined first line (if any) and the lines after it; both end with '\n' (or are empty). */
	private block(head: Uint8Array | undefined, rest: Uint8Array): LineBlock {
		const starts: number[] = [];
		const ends: number[] = [];
		// Every piece decoded ends with '\n', so the streaming decoder never holds bytes back between calls;
		// Node 20 decodes about twice as fast in streaming mode (docs/benchmarks.md, "Decoding").
		const headText = head && this.decoder.decode(head, { stream: true });
		if (headText !== undefined) lineRanges(headText, starts, ends);
		const text = rest.length > 0 ? this.decoder.decode(rest, { stream: true }) : '';
		lineRanges(text, starts, ends);
		return new LineBlock(headText, text, starts, ends, head ? [head, rest] : [rest]);
	}

	private hold(piece: Uint8Array): void {
		this.carryLength += piece.length;
		if (this.carryLength > this.maxLineBytes) {
			this.discardPending();
			throw new LineTooLongError(this.maxLineBytes);
		}
		this.carry.push(piece);
	}

	private takeCarry(tail: Uint8Array): Uint8Array {
		const joined = new Uint8Array(this.carryLength + tail.length);
		let offset = 0;
		for (const piece of this.carry) {
			joined.set(piece, offset);
			offset += piece.length;
		}
		joined.set(tail, offset);
		this.discardPending();
		return joined;
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

/** Appends the range of each line of `text` (which ends with '\n'), without its line ending. */
function lineRanges(text: string, starts: number[], ends: number[]): void {
	let start = 0;
	for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
		starts.push(start);
		ends.push(newline > start && text.charCodeAt(newline - 1) === CR ? newline - 1 : newline);
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
