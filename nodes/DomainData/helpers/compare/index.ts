/**
 * Dataset → Compare: the changes between two snapshots, found in three streamed passes without holding either
 * snapshot, each in its own file:
 *
 * 1. indexNewer.ts: the newer snapshot into a table of hashes (DomainTable, about 41 bytes a domain);
 * 2. readOlder.ts: the older snapshot looked up by name: the domains gone from the index are output at once,
 *    the older records of the others that changed (or crossed the filters) are kept;
 * 3. outputNewer.ts: the newer snapshot again, parsing only the lines of the kept domains and of those new to
 *    the index, checked against pass 1.
 *
 * So the newer snapshot is requested twice and the older once (plus the reader's resumes after dropped
 * connections). Pass 3 is left out when nothing can come of it, and every pass stops at the Limit. Memory: the
 * table, plus the kept older records, which are at most the changes (and at most Limit); both are bounded
 * (limits.ts). Output order (deterministic): first the domains gone from the index, in the older snapshot's
 * order; then every other change in the newer snapshot's order.
 */
import type { DomainDataFunctions } from '../../transport';
import { Comparison } from './comparison';
import { indexNewer } from './indexNewer';
import { outputNewer } from './outputNewer';
import { readOlder } from './readOlder';
import { type CompareSpec, type CompareStats, createCompareStats, type DomainChange } from './types';

export * from './types';

/** Yields the changes one by one, in the documented order. Stop iterating at any time. */
export async function* compareSnapshots(
	this: DomainDataFunctions,
	spec: CompareSpec,
	stats: CompareStats = createCompareStats(),
): AsyncGenerator<DomainChange> {
	const run = new Comparison(this, spec, stats);
	await indexNewer(run);
	yield* readOlder(run);
	if (run.output >= run.limit) return;
	yield* outputNewer(run);
}
