/**
 * Pass 3: the newer snapshot again, for what pass 2 kept and for the domains new to the index. Only those
 * lines are parsed (lineSelector.ts); a line that is not needed is not parsed, so a malformed one is not
 * noticed here (pass 1 judged it), and a needed one that turns out malformed follows On Malformed Line.
 *
 * The second read must be the first one again: every record parsed must carry pass 1's values, every needed
 * record must come, and it must not have more lines (a read to the end: as many). Else a clear error, never a
 * wrong diff. Once the last needed record is output the read stops: what follows cannot change the diff.
 */
import type { IDataObject } from 'n8n-workflow';

import type { LineSelector } from '../snapshotReader';
import { type Comparison, SEEN_IN_BASE, SELECTED } from './comparison';
import { NOT_FOUND } from './domainTable';
import { lineSelector } from './lineSelector';
import { diffRecords } from './recordDiff';
import { secondReadError } from './refusals';
import type { DomainChange } from './types';

const count = (value: number) => value.toLocaleString('en-US');

export async function* outputNewer(run: Comparison): AsyncGenerator<DomainChange> {
	const { spec, table, kept } = run;
	const { label, kinds } = spec;
	const addsNew = kinds.has('added');
	/** A domain new to the index, still to be output. */
	const isNew = (ordinal: number) => addsNew && (table.flags[ordinal] & (SELECTED | SEEN_IN_BASE)) === SELECTED;
	let newToIndex = 0;
	if (addsNew) for (let ordinal = 0; ordinal < table.count; ordinal++) if (isNew(ordinal)) newToIndex++;
	run.checkRoomFor(kept.size + newToIndex);
	if (kept.size + newToIndex === 0) return;

	const differs = (detail: string) => secondReadError(run.context.getNode(), spec.itemIndex, label, detail);
	/** Done with `ordinal`: output it at most once, even if a resumed read repeated it. */
	const settled = (ordinal: number) => {
		if (kept.has(ordinal)) kept.delete(ordinal);
		else if (isNew(ordinal)) newToIndex--;
		table.flags[ordinal] |= SEEN_IN_BASE;
	};
	let namelessLines = 0;
	const onSkipped = (name: string | undefined) => {
		if (name === undefined) return void namelessLines++;
		const ordinal = table.find(name);
		if (ordinal === NOT_FOUND && !run.skippedNew.has(name)) throw differs(`a line holds "${name}", which it did not`);
		if (ordinal === NOT_FOUND || !(kept.has(ordinal) || isNew(ordinal))) return;
		// Readable the first time, malformed now: unknown, as if pass 1 had skipped it.
		run.leaveOut(name);
		settled(ordinal);
	};
	const select = lineSelector(table, (ordinal) => kept.has(ordinal) || isNew(ordinal));
	const firstLines = run.stats.reads[0].lines;
	// Stops a second read that goes on past the first one's end, also through lines nothing needs.
	const wanted: LineSelector = (text, start, end) => {
		if (readStats.lines > firstLines) throw differs(`more than the ${count(firstLines)} lines of the first read`);
		return select(text, start, end);
	};
	const { readStats, batches } = run.read(label, wanted, onSkipped);
	for await (const batch of batches) {
		for (const record of batch) {
			const ordinal = typeof record.name === 'string' ? table.find(record.name) : NOT_FOUND;
			if (ordinal === NOT_FOUND) {
				if (typeof record.name === 'string' && run.skippedNew.has(record.name)) continue;
				throw differs(`it holds ${JSON.stringify(record.name ?? null)}, which it did not`);
			}
			if (!sameAsFirst(run, ordinal, record)) throw differs(`"${record.name}" has other values`);
			const change = changeOf(run, ordinal, record, isNew(ordinal));
			settled(ordinal);
			if (!change) continue;
			run.countChange();
			yield change;
			if (run.output >= run.limit || kept.size + newToIndex === 0) return;
		}
	}
	const missing = kept.size + newToIndex;
	// Lines malformed now, without a readable name, that pass 1 read whole may be theirs: then they are unknown.
	const namelessNow = Math.max(0, namelessLines - run.namelessNew);
	if (missing > namelessNow) {
		const records = missing > 1 ? `${count(missing)} records of the first read were` : '1 record of the first read was';
		throw differs(`${records} not in it`);
	}
	if (readStats.lines !== firstLines) throw differs(`${count(readStats.lines)} lines instead of ${count(firstLines)}`);
	run.stats.namelessLines += namelessNow;
	run.stats.unreadableDomains += missing;
}

/** Whether the record carries the values pass 1 stored for `ordinal` (compared fields, rank, selection). */
function sameAsFirst(run: Comparison, ordinal: number, record: IDataObject): boolean {
	const { table } = run;
	const rank = run.rankOf(record);
	const stored = table.rank[ordinal];
	if (rank !== stored && !(Number.isNaN(rank) && Number.isNaN(stored))) return false;
	if (((table.flags[ordinal] & SELECTED) !== 0) !== run.selects(record)) return false;
	return table.sameValues(ordinal, run.hashOf(record));
}

/** The change of a needed domain: its kept older record against this one, or new to the index. */
function changeOf(run: Comparison, ordinal: number, record: IDataObject, isNew: boolean): DomainChange | undefined {
	const name = record.name as string;
	const older = run.kept.get(ordinal);
	if (older === undefined) return isNew ? run.change('added', 'newToIndex', name, record) : undefined;
	const before = JSON.parse(older) as IDataObject;
	const inBase = run.selects(before);
	if (inBase && (run.table.flags[ordinal] & SELECTED) !== 0) {
		const changes = diffRecords(before, record, run.spec.fields, run.spec.minRankMove);
		return run.change('changed', 'valuesChanged', name, record, changes);
	}
	if (inBase) return run.change('removed', 'leftSelection', name, before, run.explain(before, record));
	return run.change('added', 'enteredSelection', name, record, run.explain(before, record));
}
