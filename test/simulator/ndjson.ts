/**
 * Writes a snapshot as NDJSON with backpressure, in constant memory whatever its size: lines are built
 * in batches, each batch is one write, and when write() reports a full buffer the loop waits for
 * 'drain' (or for the client to go away, which ends the loop). Stream faults (dropped connection,
 * malformed line, CRLF, missing final newline, UTF-8 split across chunks, trickle) are applied here.
 */
import type { ServerResponse } from 'node:http';
import type { StreamFault } from './faults';
import { ByteChunk } from './chunk-writer';
import { delay } from './http-utils';
import type { LinkPacer } from './link';

/** Lines per write: large enough to amortise write() overhead, small enough to keep memory flat (~100 KB). */
const BATCH_LINES = 256;
/** Initial size of a batch buffer (it grows when lines are long, e.g. with every field selected). */
const CHUNK_BYTES = 256 * 1024;
/** With splitUtf8, at most this many cuts per batch (each cut costs a short pause). */
const SPLITS_PER_BATCH = 4;

export interface StreamSource {
	/** Number of lines to write. */
	total: number;
	/** Appends the bytes of 0-based line `index` (without line ending). */
	appendLine(index: number, out: ByteChunk): void;
	/** Text of line `index` (used to build a malformed line). */
	lineText(index: number): string;
}

export type StreamOutcome = 'complete' | 'dropped' | 'client-gone';

export interface StreamResult {
	lines: number;
	outcome: StreamOutcome;
}

/** `link`: the link's pace (link.ts), taken for each batch before it is written. */
export async function writeNdjson(
	res: ServerResponse,
	source: StreamSource,
	fault?: StreamFault,
	link?: LinkPacer,
): Promise<StreamResult> {
	let gone = false;
	res.on('close', () => {
		gone = true;
	});
	res.writeHead(200, { 'content-type': 'application/x-ndjson' });
	const eol = Buffer.from(fault?.crlf ? '\r\n' : '\n');
	const dropAfter = fault?.dropAfterLines;
	const { total } = source;
	let written = 0;
	let lastWrite: Promise<void> = Promise.resolve();

	const send = async (chunk: Buffer): Promise<boolean> => {
		await link?.take(chunk.length);
		if (fault?.trickle) return sendTrickle(chunk, fault.trickle.chunkBytes ?? 16, fault.trickle.delayMs ?? 10);
		if (fault?.splitUtf8) return sendSplit(chunk);
		return sendWhole(chunk);
	};
	const sendWhole = async (piece: Buffer): Promise<boolean> => {
		if (gone || res.destroyed) return false;
		let flushed: () => void = () => undefined;
		lastWrite = new Promise((resolve) => {
			flushed = resolve;
		});
		if (!res.write(piece, () => flushed())) await drainOrClose(res);
		return !gone && !res.destroyed;
	};
	const sendTrickle = async (buffer: Buffer, bytes: number, pause: number): Promise<boolean> => {
		for (let offset = 0; offset < buffer.length; offset += bytes) {
			if (!(await sendWhole(buffer.subarray(offset, offset + bytes)))) return false;
			await delay(pause);
		}
		return true;
	};
	const sendSplit = async (buffer: Buffer): Promise<boolean> => {
		for (const piece of splitInsideCharacters(buffer, SPLITS_PER_BATCH)) {
			if (!(await sendWhole(piece))) return false;
			// A pause so that the pieces leave as separate TCP segments and reach the client as separate reads.
			await delay(2);
		}
		return true;
	};

	if (dropAfter === 0) return drop(res, 0);
	const chunk = new ByteChunk(CHUNK_BYTES);
	for (let index = 0; index < total;) {
		const batchEnd = Math.min(total, index + BATCH_LINES, dropAfter ?? Infinity);
		for (; index < batchEnd; index++) {
			if (index + 1 === fault?.malformedLineAt) chunk.utf8(truncate(source.lineText(index)));
			else source.appendLine(index, chunk);
			if (index + 1 < total || !fault?.noFinalNewline) chunk.bytes(eol);
		}
		if (!(await send(chunk.take()))) return { lines: written, outcome: 'client-gone' };
		written = index;
		if (dropAfter !== undefined && written >= dropAfter) {
			await lastWrite;
			return drop(res, written);
		}
	}
	res.end();
	return { lines: written, outcome: 'complete' };
}

/** Closes the connection in the middle of the body (the client sees an incomplete chunked response). */
async function drop(res: ServerResponse, lines: number): Promise<StreamResult> {
	res.flushHeaders(); // writeHead only queues the headers: make sure the client got them
	await delay(5); // let what was written leave before the socket goes
	res.socket?.destroy();
	res.destroy();
	return { lines, outcome: 'dropped' };
}

function drainOrClose(res: ServerResponse): Promise<void> {
	return new Promise((resolve) => {
		const done = () => {
			res.off('drain', done);
			res.off('close', done);
			resolve();
		};
		res.on('drain', done);
		res.on('close', done);
	});
}

/** A broken line: the first half of a real one (never valid JSON: the closing brace is missing). */
function truncate(line: string): string {
	let cut = Math.max(1, Math.floor(line.length / 2));
	const code = line.charCodeAt(cut - 1);
	if (code >= 0xd800 && code <= 0xdbff) cut -= 1; // do not leave half a surrogate pair
	return line.slice(0, cut);
}

/**
 * Splits a buffer into pieces whose boundaries fall inside multi-byte UTF-8 characters (right after
 * a character's first byte), spread over the buffer. A buffer without multi-byte characters is cut
 * in the middle instead.
 */
export function splitInsideCharacters(buffer: Buffer, maxCuts: number): Buffer[] {
	const cuts: number[] = [];
	const spacing = Math.max(1, Math.floor(buffer.length / maxCuts));
	let from = 0;
	for (let i = 1; i < buffer.length && cuts.length < maxCuts; i++) {
		// A continuation byte (10xxxxxx) preceded by a lead byte (11xxxxxx): cutting here splits the character.
		if (i >= from && (buffer[i] & 0xc0) === 0x80 && (buffer[i - 1] & 0xc0) === 0xc0) {
			cuts.push(i);
			from = i + spacing;
		}
	}
	if (cuts.length === 0 && buffer.length > 1) cuts.push(Math.floor(buffer.length / 2));
	const pieces: Buffer[] = [];
	let start = 0;
	for (const cut of cuts) {
		pieces.push(buffer.subarray(start, cut));
		start = cut;
	}
	pieces.push(buffer.subarray(start));
	return pieces;
}
