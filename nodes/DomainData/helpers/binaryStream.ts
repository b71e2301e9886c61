/**
 * Hands a byte stream to n8n's binary helpers without Node's `stream` module (community nodes may not import it) and
 * without holding the whole file. n8n's filesystem mode writes it with `fs.promises.writeFile`, which pulls an async
 * iterable chunk by chunk; its other modes collect it with `streamToBuffer`, which listens to 'data', 'end', 'error'
 * and 'close' (and destroys a stream silent for 5 minutes). PullStream serves both.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

type BinaryInput = Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0];

type Listener = (...args: unknown[]) => void;

class PullStream implements AsyncIterable<Uint8Array> {
	private readonly listeners: Record<string, Set<Listener>> = {};
	private consumed = false;
	private destroyed = false;

	constructor(private readonly source: AsyncIterable<Uint8Array>) {}

	[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
		this.claim();
		return this.source[Symbol.asyncIterator]();
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

/**
 * Reads the first chunk of `source` before it returns: n8n creates the file before it pulls the first chunk and gives
 * a node no way to delete it, so a source that fails at once (refused, unknown label) fails before any file exists.
 */
export async function startedBytes(source: AsyncIterable<Uint8Array>): Promise<AsyncIterable<Uint8Array>> {
	const iterator = source[Symbol.asyncIterator]();
	const first = await iterator.next();
	return (async function* () {
		if (first.done) return;
		let handedOn = false;
		try {
			yield first.value;
			handedOn = true;
			// From here on, stopping early or failing releases the source (and its connection) through yield*.
			yield* { [Symbol.asyncIterator]: () => iterator };
		} finally {
			if (!handedOn) await iterator.return?.();
		}
	})();
}

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

/** Gzips with the global CompressionStream (Node 18+), keeping backpressure, the source's error and an early stop. */
export function gzipBytes(source: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
	const iterator = source[Symbol.asyncIterator]();
	const bytes = new ReadableStream<Uint8Array<ArrayBuffer>>({
		async pull(controller) {
			const step = await iterator.next();
			if (step.done) controller.close();
			else controller.enqueue(step.value as Uint8Array<ArrayBuffer>);
		},
		async cancel() {
			await iterator.return?.();
		},
	});
	// Node's web streams are async iterable; TypeScript's DOM types do not say so.
	return bytes.pipeThrough(new CompressionStream('gzip')) as unknown as AsyncIterable<Uint8Array>;
}
