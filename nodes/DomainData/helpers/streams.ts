/**
 * Records into batches; bytes to n8n's binary helpers chunk by chunk, without Node's `stream` (community nodes may not
 * import it): n8n's filesystem mode pulls an async iterable, its other modes listen to 'data', 'end', 'error', 'close'.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { joinBytes } from '../transport';

/** Records per batch wherever the user does not choose: reads, Batches items, sub-workflow runs. */
export const DEFAULT_BATCH_SIZE = 1000;

/** Arrays of any size into arrays of `size` (the last may be shorter), without the first `skip` elements. */
export async function* rebatch<T>(source: AsyncIterable<T[]>, size: number, skip = 0): AsyncGenerator<T[]> {
	let toSkip = skip;
	let pending: T[] = [];
	for await (const incoming of source) {
		let elements = incoming;
		if (toSkip > 0) {
			const dropped = Math.min(toSkip, elements.length);
			toSkip -= dropped;
			elements = dropped === elements.length ? [] : elements.slice(dropped);
		}
		// An array of the right size is handed on as it is: a source that already batches costs nothing.
		if (pending.length === 0 && elements.length === size) {
			yield elements;
			continue;
		}
		for (const element of elements) {
			pending.push(element);
			if (pending.length === size) {
				yield pending;
				pending = [];
			}
		}
	}
	if (pending.length > 0) yield pending;
}

type BinaryInput = Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0];

type Listener = (...args: unknown[]) => void;

class PullStream implements AsyncIterable<Uint8Array> {
	private readonly listeners: Record<string, Set<Listener>> = {};
	private consumed = false;
	private destroyed = false;

	constructor(private readonly source: AsyncIterable<Uint8Array>) {}

	/** n8n's filesystem mode: `fs.promises.writeFile` awaits one write per chunk, so chunks of a megabyte or more. */
	[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
		this.claim();
		return coalesced(this.source)[Symbol.asyncIterator]();
	}

	on(event: string, listener: Listener): this {
		(this.listeners[event] ??= new Set()).add(listener);
		// Like a Readable, listening to 'data' starts the flow (after the caller added its other listeners).
		if (event === 'data' && !this.consumed) {
			this.claim();
			void Promise.resolve().then(async () => await this.flow());
		}
		return this;
	}

	once(event: string, listener: Listener): this {
		const once: Listener = (...args) => {
			this.off(event, once);
			listener(...args);
		};
		return this.on(event, once);
	}

	off(event: string, listener: Listener): this {
		this.listeners[event]?.delete(listener);
		return this;
	}

	/** Stops reading the source at its next chunk (closing its connection); nothing more is emitted. */
	destroy(): this {
		this.destroyed = true;
		return this;
	}

	private emit(event: string, ...args: unknown[]): void {
		for (const listener of [...(this.listeners[event] ?? [])]) listener(...args);
	}

	private claim(): void {
		if (this.consumed) throw new Error('The byte stream can be read only once');
		this.consumed = true;
	}

	private async flow(): Promise<void> {
		try {
			for await (const chunk of this.source) {
				if (this.destroyed) return;
				this.emit('data', chunk);
			}
			this.emit('end');
		} catch (error) {
			this.emit('error', error);
		} finally {
			this.emit('close');
		}
	}
}

export async function* countedBytes(source: AsyncIterable<Uint8Array>, tally: { bytes: number }) {
	for await (const chunk of source) {
		tally.bytes += chunk.byteLength;
		yield chunk;
	}
}

/** What the filesystem mode gets in one write: a body's pieces (16 to 64 KB) made each a round trip to the disk. */
const WRITE_BYTES = 1024 * 1024;

/** The pieces of `source` joined into chunks of at least WRITE_BYTES (the last one may be shorter). */
async function* coalesced(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
	let pending: Uint8Array[] = [];
	let bytes = 0;
	for await (const piece of source) {
		pending.push(piece);
		bytes += piece.byteLength;
		if (bytes < WRITE_BYTES) continue;
		yield joinBytes(pending, bytes);
		[pending, bytes] = [[], 0];
	}
	if (bytes > 0) yield joinBytes(pending, bytes);
}

/** Wraps bytes produced on demand so that `prepareBinaryData` stores them chunk by chunk. */
export function toBinaryInput(source: AsyncIterable<Uint8Array>): BinaryInput {
	return new PullStream(source) as unknown as BinaryInput;
}

/**
 * Gzips with the global CompressionStream, keeping the source's error and an early stop. Fed a chunk at a time (piped,
 * Node 20's compressor takes the whole source before it gives out a byte); `produced` counts bytes as they are made,
 * so that a caller that stops feeding at a size knows what was made, give or take a chunk.
 */
export async function* gzipBytes(source: AsyncIterable<Uint8Array>, produced: { bytes: number } = { bytes: 0 }) {
	const compressor = new CompressionStream('gzip');
	const writer = compressor.writable.getWriter();
	const feeding = (async () => {
		try {
			for await (const chunk of source) await writer.write(chunk as Uint8Array<ArrayBuffer>);
			await writer.close();
		} catch (error) {
			// The compressed stream fails with the source's own error (or was cancelled: then nothing is left to tell).
			await writer.abort(error).catch(() => undefined);
		}
	})();
	// Counted as made, not as taken: a slow consumer would otherwise let the count fall behind the source.
	const counting = new TransformStream<Uint8Array, Uint8Array>(
		{
			transform: (chunk, controller) => {
				produced.bytes += chunk.byteLength;
				controller.enqueue(chunk);
			},
		},
		undefined,
		{ highWaterMark: Infinity },
	);
	const reader = compressor.readable.pipeThrough(counting).getReader();
	try {
		for (let step = await reader.read(); !step.done; step = await reader.read()) yield step.value;
	} finally {
		// An early stop cancels the compressor, which stops the feeding and so the source.
		await reader.cancel().catch(() => undefined);
		await feeding;
	}
}
