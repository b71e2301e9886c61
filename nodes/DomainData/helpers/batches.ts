/** Records per batch wherever the user does not choose: reads, Batches items, sub-workflow runs. */
export const DEFAULT_BATCH_SIZE = 1000;

/** The memory guard of the Items and Batches outputs: `error()` as soon as more than `max` records are certain. */
export interface MemoryGuard {
	max: number;
	error: () => Error;
}

/**
 * The one batching loop: arrays of any size into arrays of `size` (the last may be shorter), without the first `skip`
 * elements. An incoming array of the right size is handed on as it is: a source that already batches costs nothing.
 */
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
