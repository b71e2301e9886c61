/** Bounded concurrency for batches of calls. Pure: no timers, no I/O of its own. */

export function chunk<T>(items: readonly T[], size: number): T[][] {
	const pieces: T[][] = [];
	for (let start = 0; start < items.length; start += size) pieces.push(items.slice(start, start + size));
	return pieces;
}

/**
 * `holdOthers`: the task is in trouble (a call is retried): no new task starts until it settles, so that a service
 * that rate limits gets no more load, and a task that finally fails stops the pool before more calls are paid for.
 */
type TaskControl = { holdOthers: () => void };

type PoolOptions = { limit: number; goOnAfter?: (error: unknown) => boolean };

/**
 * Runs `task` over `count` indexes, `limit` at a time. After a failure no new task starts unless `goOnAfter` allows it
 * (calls cost credits, and what failed one, e.g. used-up credits, fails the next); those under way finish. Outcome:
 * `failures`, `error` (the first), `stoppedBy` (what stopped the pool), `notDone` (failed or never ran).
 */
export async function runPool(
	count: number,
	options: PoolOptions | number,
	task: (index: number, control: TaskControl) => Promise<unknown>,
) {
	const { limit, goOnAfter } = typeof options === 'number' ? { limit: options, goOnAfter: undefined } : options;
	const done: boolean[] = new Array(count).fill(false);
	const failures = new Map<number, unknown>();
	/** Tasks in trouble, with the promise that settles when they do. */
	const holding = new Map<number, Promise<void>>();
	let next = 0;
	let stoppedBy: unknown;
	let stopped = false;

	const run = async (index: number): Promise<void> => {
		let settle!: () => void;
		const settled = new Promise<void>((resolve) => (settle = resolve));
		const control: TaskControl = { holdOthers: () => void holding.set(index, settled) };
		try {
			await task(index, control);
			done[index] = true;
		} catch (caught) {
			failures.set(index, caught);
			if (!stopped && !(goOnAfter?.(caught) ?? false)) {
				stopped = true;
				stoppedBy = caught;
			}
		} finally {
			holding.delete(index);
			settle();
		}
	};

	const worker = async () => {
		for (;;) {
			while (holding.size > 0 && !stopped) await Promise.race(holding.values());
			if (stopped || next >= count) return;
			await run(next++);
		}
	};
	const workers = Math.max(1, Math.min(Math.floor(limit) || 1, count));
	await Promise.all(Array.from({ length: workers }, worker));
	const notDone = [...done.keys()].filter((index) => !done[index]);
	return { failures, error: failures.values().next().value as unknown, stoppedBy, notDone };
}
