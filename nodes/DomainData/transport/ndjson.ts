/**
 * Splits an NDJSON body into lines on its bytes: '\n' never occurs inside a multi-byte UTF-8 character, so a chunk's
 * complete lines decode in one call. A line longer than a chunk is joined once; no string is made per line.
 */
import { clip } from '../errors';

/** A line longer than this is refused instead of growing memory without bound (records are ~1 KB). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;
const NEWLINE = new Uint8Array([LF]);
const NO_BYTES = new Uint8Array(0);
/** Bytes that are not valid UTF-8 become U+FFFD (as TextDecoder makes them), in items and files alike. */
const REPLACEMENT_CHARACTER = '\uFFFD';
const utf8 = new TextEncoder();

/** The complete lines one chunk (or the end of the body) completed. */
export class LineBlock {
	private pieces?: Uint8Array[];

	constructor(
		/** The first line when it began in an earlier chunk, decoded on its own so the chunk is never copied. */
		readonly head: string | undefined,
		/** The decoded text of the other lines, line endings included. */
		readonly text: string,
		/** Line `i` is `textOf(i).slice(starts[i], ends[i])`, without its '\n' or '\r\n'. */
		readonly starts: readonly number[],
		readonly ends: readonly number[],
		/** The bytes of the lines as they came (the head line's, then the others'), each ending with '\n'. */
		private readonly raw: readonly Uint8Array[],
	) {}

	get count(): number {
		return this.starts.length;
	}

	textOf(index: number): string {
		return index === 0 && this.head !== undefined ? this.head : this.text;
	}

	line(index: number): string {
		return this.textOf(index).slice(this.starts[index], this.ends[index]);
	}

	/** Whether `test` holds for the text of some line (asked once per text, not once per line). */
	anyText(test: (text: string) => boolean): boolean {
		return test(this.text) || (this.head !== undefined && test(this.head));
	}

	/** The bytes of these lines as sent, each line ending with a single '\n'; made on first use. */
	get bytes(): Uint8Array[] {
		return (this.pieces ??= this.raw.filter((piece) => piece.length > 0).map(withoutCarriageReturns));
	}

	/** The bytes of the first `taken` lines but those in `leftOut`; a line the decoder repaired, encoded as it reads. */
	keptBytes(taken: number, leftOut?: Uint8Array): Uint8Array[] {
		// The decoder replaced invalid bytes (or the service sent U+FFFD itself: then the bytes are the same).
		const repairs = this.anyText((text) => text.includes(REPLACEMENT_CHARACTER));
		if (leftOut === undefined && !repairs && taken === this.count) return this.bytes;
		const perLine = bytesPerLine(this.bytes);
		const bytes: Uint8Array[] = [];
		for (let index = 0; index < taken; index++) {
			if (leftOut?.[index]) continue;
			const line = repairs ? this.line(index) : undefined;
			bytes.push(line?.includes(REPLACEMENT_CHARACTER) ? utf8.encode(line + '\n') : perLine[index]);
		}
		return bytes;
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
	/** The line that is not complete yet, as the pieces it arrived in. */
	private carry: Uint8Array[] = [];
	private carryLength = 0;

	constructor(private readonly maxLineBytes = MAX_LINE_BYTES) {}

	/** Takes the next chunk of the body; returns the lines it completed (often many, possibly none). */
	push(chunk: Uint8Array): LineBlock {
		const first = chunk.indexOf(LF);
		if (first === -1) {
			this.hold(chunk);
			return emptyBlock();
		}
		const last = chunk.lastIndexOf(LF);
		const head = this.carryLength > 0 ? this.takeCarry(chunk.subarray(0, first + 1)) : undefined;
		if (last + 1 < chunk.length) this.hold(chunk.subarray(last + 1));
		return this.block(head, chunk.subarray(head ? first + 1 : 0, last + 1));
	}

	/** The end of the body: a last line without line ending, if there is one. */
	end(): LineBlock {
		if (this.carryLength === 0) return emptyBlock();
		return this.block(this.takeCarry(NEWLINE), NO_BYTES);
	}

	/** The block of a joined first line (if any) and the lines after it; both end with '\n' (or are empty). */
	private block(head: Uint8Array | undefined, rest: Uint8Array): LineBlock {
		const starts: number[] = [];
		const ends: number[] = [];
		// Every piece decoded ends with '\n', so the streaming decoder (twice as fast) never holds bytes back.
		const headText = head && this.decoder.decode(head, { stream: true });
		if (headText !== undefined) lineRanges(headText, starts, ends);
		const text = rest.length > 0 ? this.decoder.decode(rest, { stream: true }) : '';
		lineRanges(text, starts, ends);
		return new LineBlock(headText, text, starts, ends, head ? [head, rest] : [rest]);
	}

	private hold(piece: Uint8Array): void {
		this.carryLength += piece.length;
		if (this.carryLength > this.maxLineBytes) {
			this.dropCarry();
			throw new LineTooLongError(this.maxLineBytes);
		}
		this.carry.push(piece);
	}

	private takeCarry(tail: Uint8Array): Uint8Array {
		const joined = joinBytes([...this.carry, tail], this.carryLength + tail.length);
		this.dropCarry();
		return joined;
	}

	private dropCarry(): void {
		this.carry = [];
		this.carryLength = 0;
	}
}

/** `pieces` (of `length` bytes together) copied into one array; a single piece is handed back as it is. */
export function joinBytes(pieces: readonly Uint8Array[], length: number): Uint8Array {
	if (pieces.length === 1) return pieces[0];
	const joined = new Uint8Array(length);
	let offset = 0;
	for (const piece of pieces) {
		joined.set(piece, offset);
		offset += piece.byteLength;
	}
	return joined;
}

/** `bytes` without the '\r' of each '\r\n'. JSON cannot hold a raw '\r', so one native search usually ends it. */
function withoutCarriageReturns(bytes: Uint8Array): Uint8Array {
	if (bytes.indexOf(CR) === -1) return bytes;
	return bytes.filter((byte, at) => byte !== CR || bytes[at + 1] !== LF);
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
	return clip(line.replace(/\s+/g, ' '), length + 1);
}
