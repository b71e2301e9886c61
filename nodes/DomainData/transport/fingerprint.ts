import type { LineBlock } from './ndjson';

/** Code units of a line's start and end that go into the fingerprint: enough to tell records apart. */
const HEAD = 24;
const TAIL = 8;
const CLOSING_BRACE = 0x7d;

/** Lines read cut short (no closing brace) may come whole next time: up to this many stay out of both fingerprints. */
const DAMAGED_POSITIONS_KEPT = 4096;

/**
 * The fingerprint of the lines a stream handed out, to check that a stream sent again after a drop starts with the
 * same lines: 12 bytes, 33 code units hashed per line. An FNV-1a lane over each line's length, head and tail, a
 * second lane that chains the first one's state line by line (so a swap of two lines changes it too), the count.
 */
export class Fingerprint {
	private a = 0x811c9dc5 | 0;
	private b = 0x6a09e667 | 0;
	private lines = 0;

	/**
	 * Adds lines `from` to `to` of `block`, the first at stream position `position`. The first read of a line notes
	 * a damaged one in `damaged` (shared by the read's fingerprints); a re-read (`resumed`) leaves those out.
	 */
	add(block: LineBlock, from: number, to: number, position: number, damaged: Set<number>, resumed: boolean) {
		let { a, b } = this;
		for (let index = from; index < to; index++, position++) {
			const text = block.textOf(index);
			const start = block.starts[index];
			const end = block.ends[index];
			if (resumed ? damaged.has(position) : isDamaged(text, start, end, damaged, position)) continue;
			a = Math.imul(a ^ (end - start), 0x01000193);
			const headEnd = Math.min(end, start + HEAD);
			for (let at = start; at < headEnd; at++) a = Math.imul(a ^ text.charCodeAt(at), 0x01000193);
			for (let at = Math.max(headEnd, end - TAIL); at < end; at++) a = Math.imul(a ^ text.charCodeAt(at), 0x01000193);
			b = Math.imul(b ^ a, 0x5bd1e995) ^ (b >>> 13);
		}
		this.a = a;
		this.b = b;
		this.lines += to - from;
	}

	equals(other: Fingerprint): boolean {
		return this.a === other.a && this.b === other.b && this.lines === other.lines;
	}
}

/** A line that is not blank and does not end like a record: noted (while there is room) and left out. */
function isDamaged(text: string, start: number, end: number, damaged: Set<number>, position: number): boolean {
	if (start === end || text.charCodeAt(end - 1) === CLOSING_BRACE) return false;
	if (damaged.size >= DAMAGED_POSITIONS_KEPT) return false;
	damaged.add(position);
	return true;
}
