/**
 * Pass 2: the older snapshot, each record looked up by name. Not found: the domain is gone from the index
 * (`removed`, output at once). Found: the hashes tell whether it changed, entered or left the selection; the
 * older record of those (the compared and filter fields only) is kept for pass 3. A name listed twice is
 * refused, found or not; a domain whose line either side skipped as malformed is left out (unknown, not gone).
 */
import { type Comparison, SEEN_IN_BASE, SELECTED } from './comparison';
import { NOT_FOUND } from './domainTable';
import { COMPARE_LIMITS } from './limits';
import { NameSet } from './nameSet';
import { duplicateError, tooManyDomainsError } from './refusals';
import type { DomainChange } from './types';

export async function* readOlder(run: Comparison): AsyncGenerator<DomainChange> {
	const { spec, table } = run;
	const { baseLabel, kinds, itemIndex } = spec;
	const node = run.context.getNode();
	/** Names of the older snapshot that the newer one lacks: only to refuse a repeat. */
	const olderOnly = new NameSet();
	const seen = (name: string, ordinal: number) => {
		if (ordinal === NOT_FOUND ? !olderOnly.add(name) : (table.flags[ordinal] & SEEN_IN_BASE) !== 0) {
			throw duplicateError(node, itemIndex, baseLabel, name);
		}
		if (ordinal !== NOT_FOUND) table.flags[ordinal] |= SEEN_IN_BASE;
	};
	const onSkipped = (name: string | undefined) => {
		run.leaveOut(name);
		// Marked as seen: neither added nor changed in pass 3, and a second listing is refused.
		if (name !== undefined) seen(name, table.find(name));
	};
	const { batches } = run.read(baseLabel, undefined, onSkipped);
	let records = 0;
	for await (const batch of batches) {
		for (const record of batch) {
			if (++records > COMPARE_LIMITS.maxDomains) throw tooManyDomainsError(node, itemIndex, baseLabel);
			const name = run.nameOf(record, baseLabel, records);
			const inBase = run.selects(record);
			const ordinal = table.find(name);
			seen(name, ordinal);
			if (ordinal === NOT_FOUND) {
				if (!inBase || !kinds.has('removed') || run.skippedNew.has(name)) continue;
				run.countChange();
				yield run.change('removed', 'goneFromIndex', name, record);
				if (run.output >= run.limit) return;
				continue;
			}
			const inNew = (table.flags[ordinal] & SELECTED) !== 0;
			if (inNew && inBase) {
				if (!kinds.has('changed')) continue;
				if (run.rankMoved(ordinal, record) || !table.sameValues(ordinal, run.hashOf(record))) run.keep(ordinal, record);
			} else if (inNew ? kinds.has('added') : inBase && kinds.has('removed')) {
				run.keep(ordinal, record);
			}
		}
	}
}
