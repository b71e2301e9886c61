/**
 * Hands a stream of bytes to n8n's binary helpers without Node's `stream` module (community nodes may
 * not import it) and without ever holding the whole file.
 *
 * `this.helpers.prepareBinaryData(data)` accepts a Buffer or a Readable and passes it to n8n's binary
 * data service:
 * - filesystem mode (n8n's default for regular mode): `fs.promises.writeFile(path, data)`, which takes
 *   any async iterable and writes each chunk to disk as it comes, pulling the next one only when the
 *   previous one is written. Memory stays at one chunk.
 * - database, S3 and in-memory modes collect the stream into one Buffer first (`streamToBuffer`, which
 *   listens to 'data', 'end' and 'error'). That is n8n's own behaviour for every node in those modes.
 *
 * The object below serves both: an async iterable that also emits those three events when listened to.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

export type BinaryInput = Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0];

type Listener = (...args: unknown[]) => void;

class PullStream implements AsyncIterable<Uint8Array> {
	private readonly listeners = new Map<string, Listener[]>();
	private consumed = false;

	constructor(private readonly source: AsyncIterable<Uint8Array>) {}

	[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
		this.claim();
		return this.source[Symbol.asyncIterator]();
	}

	on(event: string, listener: Listener): this {
		this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
		// Like a Readable, listening to 'data' starts the flow (after the caller added its other listeners).
		if (event === 'data' && !this.consumed) {
			this.claim();
			void Promise.resolve().then(async () => await this.flow());
		}
		return this;
	}

	addListener(event: string, listener: Listener): this {
		return this.on(event, listener);
	}

	once(event: string, listener: Listener): this {
		const wrapped: Listener = (...args) => {
			this.off(event, wrapped);
			listener(...args);
		};
		return this.on(event, wrapped);
	}

	off(event: string, listener: Listener): this {
		this.listeners.set(
			event,
			(this.listeners.get(event) ?? []).filter((entry) => entry !== listener),
		);
		return this;
	}

	removeListener(event: string, listener: Listener): this {
		return this.off(event, listener);
	}

	private emit(event: string, ...args: unknown[]): void {
		for (const listener of this.listeners.get(event) ?? []) listener(...args);
	}

	private claim(): void {
		if (this.consumed) throw new Error('The byte stream can be read only once');
		this.consumed = true;
	}

	private async flow(): Promise<void> {
		try {
			for await (const chunk of this.source) this.emit('data', chunk);
			this.emit('end');
		} catch (error) {
			this.emit('error', error);
		} finally {
			this.emit('close');
		}
	}
}

/**
 * Reads the first chunk of `source` before it returns. n8n's filesystem mode creates the file before it
 * pulls the first chunk, and gives a node no way to delete a file whose writing failed: a source that
 * fails at once (a refused request, an unknown label, a service that is down) fails here instead, before
 * any file exists.
 */
export async function startedBytes(source: AsyncIterable<Uint8Array>): Promise<AsyncIterable<Uint8Array>> {
	const iterator = source[Symbol.asyncIterator]();
	const first = await iterator.next();
	return (async function* () {
		let finished = first.done === true;
		try {
			if (finished) return;
			yield first.value;
			for (;;) {
				const step = await iterator.next();
				if (step.done) {
					finished = true;
					return;
				}
				yield step.value;
			}
		} finally {
			// Stopped early by the reader (or failed): release the source (and its connection).
			if (!finished) await iterator.return?.();
		}
	})();
}

/** Passes `source` through and adds up the bytes that went by in `tally.bytes`. */
export async function* countedBytes(
	source: AsyncIterable<Uint8Array>,
	tally: { bytes: number },
): AsyncGenerator<Uint8Array> {
	for await (const chunk of source) {
		tally.bytes += chunk.byteLength;
		yield chunk;
	}
}

/** Wraps bytes produced on demand so that `prepareBinaryData` stores them chunk by chunk. */
export function toBinaryInput(source: AsyncIterable<Uint8Array>): BinaryInput {
	return new PullStream(source) as unknown as BinaryInput;
}

/**
 * Gzips a byte stream with the global CompressionStream (Web Streams, in Node since 18), keeping
 * backpressure: a chunk is read from `source` only when the compressor has room for it.
 */
export async function* gzipBytes(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
	const compressor = new CompressionStream('gzip');
	const writer = compressor.writable.getWriter();
	const reader = compressor.readable.getReader();
	let sourceFailure: { error: unknown } | undefined;
	const feeding = (async () => {
		try {
			for await (const piece of source) {
				await writer.ready;
				await writer.write(piece as Uint8Array<ArrayBuffer>);
			}
			await writer.close();
		} catch (error) {
			sourceFailure ??= { error };
			await writer.abort(error).catch(() => undefined);
		}
	})();
	try {
		for (;;) {
			let step: ReadableStreamReadResult<Uint8Array>;
			try {
				step = await reader.read();
			} catch (error) {
				// The compressor fails when the source did: report the source's own error.
				await feeding;
				throw sourceFailure ? sourceFailure.error : error;
			}
			if (step.done) break;
			yield step.value;
		}
		await feeding;
		if (sourceFailure) throw sourceFailure.error;
	} finally {
		// Stopped early (the file could not be written): stop reading the source too.
		await reader.cancel().catch(() => undefined);
		await feeding;
	}
}
