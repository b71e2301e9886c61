/** Medians and interleaved rounds: machines here are noisy, so every figure is a median of several runs. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export function median(values: number[]): number {
	if (values.length === 0) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const middle = sorted.length >> 1;
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Full collection between runs, so one run's garbage is not charged to the next. */
export function collectGarbage(): void {
	gc();
	gc();
}

export interface Contender<R> {
	name: string;
	run: () => Promise<R>;
}

/**
 * Runs every contender once, untimed (warm-up: JIT, connection pools, lazy loading), and leaves out those that
 * fail, with the reason. What is left is ready for `interleave`.
 */
export async function warmUp<R>(
	contenders: Array<Contender<R>>,
): Promise<{ ready: Array<Contender<R>>; failed: Array<{ name: string; error: Error }> }> {
	const ready: Array<Contender<R>> = [];
	const failed: Array<{ name: string; error: Error }> = [];
	for (const contender of contenders) {
		collectGarbage();
		try {
			await contender.run();
			ready.push(contender);
		} catch (error) {
			failed.push({ name: contender.name, error: error instanceof Error ? error : new Error(String(error)) });
		}
	}
	return { ready, failed };
}

/**
 * Runs the contenders in rounds, A B C A B C ..., so that drift of the machine (other load, thermal state)
 * spreads over every contender alike. Warm them up first (`warmUp`). Returns every result by name.
 */
export async function interleave<R>(
	contenders: Array<Contender<R>>,
	rounds: number,
	onResult?: (name: string, round: number, result: R) => void,
): Promise<Map<string, R[]>> {
	const results = new Map<string, R[]>(contenders.map((c) => [c.name, []]));
	for (let round = 1; round <= rounds; round++) {
		for (const contender of contenders) {
			collectGarbage();
			const result = await contender.run();
			results.get(contender.name)!.push(result);
			onResult?.(contender.name, round, result);
		}
	}
	return results;
}

export function formatNumber(value: number, digits = 0): string {
	if (!Number.isFinite(value)) return String(value);
	return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function formatSeconds(ms: number): string {
	return ms < 10_000 ? `${(ms / 1000).toFixed(2)} s` : `${(ms / 1000).toFixed(1)} s`;
}
