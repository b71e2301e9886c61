/**
 * Pass 1: the newer snapshot into the table (per domain a name hash, a hash of the compared values, the rank
 * and whether the filters select it). A line skipped as malformed leaves its domain unknown: its name is
 * remembered, so that pass 2 does not call it gone.
 */
import { type Comparison, SELECTED } from './comparison';
import { COMPARE_LIMITS } from './limits';
import { duplicateError, tooManyDomainsError } from './refusals';

export async function indexNewer(run: Comparison): Promise<void> {
	const { spec, table } = run;
	const node = run.context.getNode();
	const onSkipped = (name: string | undefined) => {
		if (name === undefined) run.namelessNew++;
		else run.skippedNew.add(name);
		run.leaveOut(name);
	};
	const { batches } = run.read(spec.label, undefined, onSkipped);
	for await (const batch of batches) {
		for (const record of batch) {
			if (table.count >= COMPARE_LIMITS.maxDomains) throw tooManyDomainsError(node, spec.itemIndex, spec.label);
			const name = run.nameOf(record, spec.label, table.count + 1);
			table.add(name, run.hashOf(record), run.rankOf(record), run.selects(record) ? SELECTED : 0);
		}
	}
	const repeats = table.index();
	if (repeats > 0) throw duplicateError(node, spec.itemIndex, spec.label, repeats);
	run.startKeeping();
}
