/** NDJSON pieces cut at line ends into files under a size: the File output's parts and the spools' files. */
const NEWLINE = 0x0a;

function lineCount(piece: Uint8Array): number {
	let lines = 0;
	for (let at = piece.indexOf(NEWLINE); at !== -1; at = piece.indexOf(NEWLINE, at + 1)) lines++;
	return lines;
}

/** Where the whole lines of `piece` from `start` that fit in `room` bytes end: `start` when not one fits. */
export function fittingEnd(piece: Uint8Array, start: number, room: number): number {
	if (piece.byteLength - start <= room) return piece.byteLength;
	return room > 0 ? Math.max(start, piece.lastIndexOf(NEWLINE, start + room - 1) + 1) : start;
}

/** One part as it is written: its records, plain bytes, first and last line, and its pieces when `kept` is given. */
export interface PartTally {
	records: number;
	plainBytes: number;
	firstLine?: Uint8Array;
	lastLine?: Uint8Array;
	kept?: Uint8Array[];
}

/**
 * Cuts NDJSON pieces (each ending a line) into parts of whole lines, after skipping `skip` lines. A piece that does
 * not fit in a part is split at its last line that fits; a line that does not fit even in an empty part is handed to
 * `tooLarge`, which throws: no part is ever over its size.
 */
export class LineParts {
	private readonly iterator: AsyncIterator<Uint8Array>;
	private carried?: Uint8Array;
	private ended = false;
	/** Lines skipped so far: fewer than asked once the source ended before them. */
	skipped = 0;

	constructor(
		source: AsyncIterable<Uint8Array>,
		private readonly skip: number,
		private readonly tooLarge: (line: Uint8Array) => never,
	) {
		this.iterator = source[Symbol.asyncIterator]();
	}

	/** The next piece past the skipped lines, or undefined at the end. */
	async piece(): Promise<Uint8Array | undefined> {
		while (true) {
			let piece = this.carried;
			this.carried = undefined;
			if (!piece && !this.ended) {
				const step = await this.iterator.next();
				if (step.done) this.ended = true;
				else piece = step.value;
			}
			if (!piece) return undefined;
			let start = 0;
			while (this.skipped < this.skip && start < piece.byteLength) {
				const end = piece.indexOf(NEWLINE, start);
				start = end === -1 ? piece.byteLength : end + 1;
				this.skipped++;
			}
			if (start < piece.byteLength) return start === 0 ? piece : piece.subarray(start);
		}
	}

	/** The pieces of one part, starting with `first`, while `room()` (bytes) lets them in; none read past a full one. */
	async *part(first: Uint8Array | undefined, room: () => number, tally: PartTally): AsyncGenerator<Uint8Array> {
		for (let piece: Uint8Array | undefined = first; piece; piece = await this.piece()) {
			const end = fittingEnd(piece, 0, room());
			if (end === 0 && tally.records === 0) this.tooLarge(piece.subarray(0, piece.indexOf(NEWLINE)));
			if (end < piece.byteLength) this.carried = piece.subarray(end);
			if (end === 0) return;
			const taken = end < piece.byteLength ? piece.subarray(0, end) : piece;
			if (tally.records === 0) tally.firstLine = taken.subarray(0, taken.indexOf(NEWLINE));
			tally.records += lineCount(taken);
			tally.plainBytes += taken.byteLength;
			tally.lastLine = taken.subarray(taken.lastIndexOf(NEWLINE, taken.byteLength - 2) + 1, taken.byteLength - 1);
			tally.kept?.push(taken);
			yield taken;
			if (this.carried || room() <= 0) return;
		}
	}

	async close(): Promise<void> {
		if (!this.ended) await this.iterator.return?.();
	}
}
