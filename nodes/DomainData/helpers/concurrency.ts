/** Bounded concurrency for batches of calls. Pure: no timers, no I/O of its own. */

/** `items` cut into pieces of at most `size`, in order. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
	const pieces: T[][] = [];
	for (let start = 0; start < items.length; start += size) pieces.push(items.slice(start, start + size));
	return pieces;
}

export interface PoolOutcome<R> {
	/** Result per task index; undefined for tasks that failed or never started. */
	results: Array<R | undefined>;
	/** The first error; once one task failed, no further task is started. */
	error?: unknown;
	/** Indexes of the tasks that did not complete (failed or never started). */
	notDone: number[];
}

/**
 * Runs `task` over `count` indexes with at most `limit` at a time. After the first failure no new task
 * starts (each call costs credits, and what failed one call, such as used-up credits, fails the next);
 * the tasks under way finish, and the outcome tells which ones did not complete.
 */
export async function runPool<R>(
	count: number,
	limit: number,
	task: (index: number) => Promise<R>,
): Promise<PoolOutcome<R>> {
	const results: Array<R | undefined> = new Array(count).fill(undefined);
	const done: boolean[] = new Array(count).fill(false);
	let next = 0;
	let error: unknown;
	let failed = false;

	const worker = async () => {
		while (!failed && next < count) {
			const index = next++;
			try {
				results[index] = await task(index);
				done[index] = true;
			} catch (caught) {
				if (!failed) {
					failed = true;
					error = caught;
				}
			}
		}
	};
	const workers = Math.max(1, Math.min(Math.floor(limit) || 1, count));
	await Promise.all(Array.from({ length: workers }, worker));
	const notDone: number[] = [];
	for (let index = 0; index < count; index++) if (!done[index]) notDone.push(index);
	return { results, error, notDone };
}
