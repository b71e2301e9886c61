/**
 * Dataset → Compare in three streamed passes, holding neither snapshot: 1. indexNewer, the newer snapshot into a
 * table of hashes; 2. readOlder, the older one looked up by name: domains gone from the index are output at once, the
 * older records of changed ones kept (a line byte for byte as in the newer snapshot is not parsed); 3. outputNewer,
 * the newer snapshot again (from the spool when pass 1 kept it there), parsing only the lines of kept and new domains.
 * Every pass stops at the Limit. Output order: the domains gone from the index in the older snapshot's order, then
 * every other change in the newer snapshot's order.
 */
import type { IDataObject } from 'n8n-workflow';

import { asNodeError, count } from '../../errors';
import type { DomainDataFunctions } from '../../transport';
import { type LineSelector, nameEnd, NAME_FIRST, repeatsName } from '../domainName';
import { DomainSet } from '../domainSet';
import { readSnapshotBlocks } from '../snapshotReader';
import {
	type CompareSpec,
	Comparison,
	createCompareStats,
	type DomainChange,
	SEEN_IN_BASE,
	SELECTED,
} from './comparison';
import { type DomainTable, KeptRecords, NOT_FOUND } from './domainTable';
import { diffRecords } from './recordDiff';
import { duplicateError, keptTooLargeError, secondReadError, tooManyDomainsError } from './refusals';

export { CHANGE_KINDS, createCompareStats } from './comparison';
export type { ChangeKind, CompareSpec, CompareStats, DomainChange, MemoryGuard, SnapshotSpool } from './comparison';

/** Yields the changes one by one, in the documented order. Stop iterating at any time. */
export async function* compareSnapshots(this: DomainDataFunctions, spec: CompareSpec, stats = createCompareStats()) {
	const run = new Comparison(this, spec, stats);
	await indexNewer(run);
	yield* readOlder(run);
	if (run.output < run.limit) yield* outputNewer(run);
}

/** Pass 1. A line skipped as malformed leaves its domain unknown: its name is kept, so pass 2 does not call it gone. */
async function indexNewer(run: Comparison): Promise<void> {
	const { spec, table } = run;
	const { maxDomains, maxKeptBytes } = run.bounds;
	const node = run.context.getNode();
	const stage: LineSelector = (text, start, end) => {
		table.stageLine(text, start, end);
		return true;
	};
	const onSkipped = (name: string | undefined) => {
		table.unstageLine();
		if (name === undefined) run.namelessNew++;
		else run.skippedNew.add(name);
		run.leaveOut(name);
	};
	/** An error of the indexing, passed on as it is even if the spool's storage wraps it. */
	let failure: Error | undefined;
	async function* indexed(blocks: ReturnType<typeof readSnapshotBlocks>): AsyncGenerator<Uint8Array> {
		try {
			for await (const { records, bytes } of blocks) {
				for (const record of records) {
					if (table.count >= maxDomains) throw tooManyDomainsError(node, spec.itemIndex, spec.label, maxDomains);
					const name = run.nameOf(record, spec.label, table.count + 1);
					table.add(name, run.hashOf(record), run.rankOf(record), run.selects(record) ? SELECTED : 0);
				}
				yield* bytes;
			}
		} catch (error) {
			failure = asNodeError(node, error, spec.itemIndex);
			throw failure;
		}
	}
	const ndjson = indexed(readSnapshotBlocks.call(run.context, run.readOptions(spec.label, stage, onSkipped)));
	try {
		if (spec.spool) run.spooled = await spec.spool.keep(ndjson);
		else for await (const _piece of ndjson);
	} catch (error) {
		throw failure ?? asNodeError(node, error, spec.itemIndex);
	}
	const repeats = table.index();
	if (repeats > 0) throw duplicateError(node, spec.itemIndex, spec.label, repeats);
	const tooLarge = () => keptTooLargeError(node, spec.itemIndex, spec.label, spec.baseLabel, maxKeptBytes);
	run.kept = new KeptRecords(table.count, { maxBytes: maxKeptBytes, tooLarge });
}

/** Pass 2. A name listed twice is refused, found or not; one skipped as malformed either side is unknown, not gone. */
async function* readOlder(run: Comparison): AsyncGenerator<DomainChange> {
	const { spec, table } = run;
	const { baseLabel, kinds, itemIndex } = spec;
	const { maxDomains } = run.bounds;
	const node = run.context.getNode();
	/** Names of the older snapshot that the newer one lacks: only to refuse a repeat. */
	const olderOnly = new DomainSet();
	const seen = (name: string, ordinal: number) => {
		if (ordinal === NOT_FOUND ? !olderOnly.add(name) : (table.flags[ordinal] & SEEN_IN_BASE) !== 0) {
			throw duplicateError(node, itemIndex, baseLabel, name);
		}
		if (ordinal !== NOT_FOUND) table.flags[ordinal] |= SEEN_IN_BASE;
	};
	const onSkipped = (name: string | undefined) => {
		run.leaveOut(name);
		// Seen: neither added nor changed in pass 3, and a second listing is refused.
		if (name !== undefined) seen(name, table.find(name));
	};
	let records = 0;
	for await (const batch of run.read(baseLabel, sameLineSelector(table), onSkipped)) {
		for (const record of batch) {
			if (++records > maxDomains) throw tooManyDomainsError(node, itemIndex, baseLabel, maxDomains);
			if (record instanceof SameLine) {
				seen(record.name, record.ordinal);
				continue;
			}
			const name = run.nameOf(record, baseLabel, records);
			const inBase = run.selects(record);
			const ordinal = table.find(name);
			seen(name, ordinal);
			if (ordinal === NOT_FOUND) {
				if (!inBase || !kinds.has('removed') || run.skippedNew.has(name)) continue;
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

/**
 * Pass 3. The read must be the first one again (every needed record there; read from the service, with pass 1's
 * values and as many lines), else a clear error, never a wrong diff. It stops after the last needed record.
 */
async function* outputNewer(run: Comparison): AsyncGenerator<DomainChange> {
	const { spec, table, kept } = run;
	const { label, kinds } = spec;
	const addsNew = kinds.has('added');
	/** A domain new to the index, still to be output. */
	const isNew = (ordinal: number) => addsNew && (table.flags[ordinal] & (SELECTED | SEEN_IN_BASE)) === SELECTED;
	/** Kept and new domains not yet met in this read. */
	let pending = kept.size;
	if (addsNew) for (let ordinal = 0; ordinal < table.count; ordinal++) if (isNew(ordinal)) pending++;
	run.checkRoomFor(pending);
	if (pending === 0) return;

	const differs = (detail: string) => secondReadError(run.context.getNode(), spec.itemIndex, label, detail);
	const needed = (ordinal: number) => kept.has(ordinal) || isNew(ordinal);
	/** Done with `ordinal`: output it at most once, even if a resumed read repeated it. */
	const settled = (ordinal: number) => {
		if (needed(ordinal)) pending--;
		kept.delete(ordinal);
		table.flags[ordinal] |= SEEN_IN_BASE;
	};
	let namelessLines = 0;
	const onSkipped = (name: string | undefined) => {
		if (name === undefined) return void namelessLines++;
		const ordinal = table.find(name);
		if (ordinal === NOT_FOUND && !run.skippedNew.has(name)) throw differs(`a line holds "${name}", which it did not`);
		if (ordinal === NOT_FOUND || !needed(ordinal)) return;
		// Readable the first time, malformed now: unknown, as if pass 1 had skipped it.
		run.leaveOut(name);
		settled(ordinal);
	};
	const select = lineSelector(table, needed);
	const firstLines = run.stats.reads[0].lines;
	// Stops a second read that goes on past the first one's end, also through lines nothing needs.
	const wanted: LineSelector = (text, start, end) => {
		if (readStats.lines > firstLines) throw differs(`more than the ${count(firstLines)} lines of the first read`);
		return select(text, start, end);
	};
	// Kept by pass 1: the same records, without a second request (nothing there can differ).
	const batches = run.spooled ? run.replay(needed) : run.read(label, wanted, onSkipped);
	const readStats = run.spooled ? { lines: firstLines } : run.stats.reads[2];
	for await (const batch of batches) {
		for (const record of batch) {
			const ordinal = typeof record.name === 'string' ? table.find(record.name) : NOT_FOUND;
			if (ordinal === NOT_FOUND) {
				if (typeof record.name === 'string' && run.skippedNew.has(record.name)) continue;
				throw differs(`it holds ${JSON.stringify(record.name ?? null)}, which it did not`);
			}
			// The spool holds the very lines pass 1 hashed: only a read from the service can bring other values.
			if (!run.spooled && !sameAsFirst(run, ordinal, record)) throw differs(`"${record.name}" has other values`);
			const change = changeOf(run, ordinal, record, isNew(ordinal));
			settled(ordinal);
			if (!change) continue;
			yield change;
			if (run.output >= run.limit || pending === 0) return;
		}
	}
	// Lines malformed now, without a readable name, that pass 1 read whole may be theirs: then they are unknown.
	const namelessNow = Math.max(0, namelessLines - run.namelessNew);
	if (pending > namelessNow) {
		const records = pending > 1 ? `${count(pending)} records of the first read were` : '1 record of the first read was';
		throw differs(`${records} not in it`);
	}
	if (readStats.lines !== firstLines) throw differs(`${count(readStats.lines)} lines instead of ${count(firstLines)}`);
	run.stats.namelessLines += namelessNow;
	run.stats.unreadableDomains += pending;
}

/** Whether the record carries the values pass 1 stored for `ordinal` (compared fields, rank, selection). */
function sameAsFirst(run: Comparison, ordinal: number, record: IDataObject): boolean {
	const { table } = run;
	if (!Object.is(run.rankOf(record), table.rankAt(ordinal))) return false;
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

/**
 * Pass 3's selector, on the raw line: whether it is one of `needed` (by ordinal). The read is pass 1's again, so the
 * line is first checked against the ordinal after the previous line's; any other is looked up only when its raw name
 * is certain (no later `"name"` key). Undecidable lines are wanted: the caller parses them.
 */
export function lineSelector(table: DomainTable, needed: (ordinal: number) => boolean): LineSelector {
	let nextOrdinal = 0;
	return function selectLine(text, start, end) {
		const close = nameEnd(text, start, end);
		if (close === -1) return true;
		const from = start + NAME_FIRST.length;
		let ordinal = nextOrdinal;
		if (!table.holds(ordinal, text, from, close)) {
			if (repeatsName(text, close, end)) return true;
			ordinal = table.find(text, from, close);
			if (ordinal === NOT_FOUND) return false;
		}
		nextOrdinal = ordinal + 1;
		return needed(ordinal);
	};
}

/** The record that stands for a line of the older snapshot that is, byte for byte, the newer one's of its domain. */
class SameLine implements IDataObject {
	[key: string]: string | number;

	constructor(
		readonly name: string,
		readonly ordinal: number,
	) {}
}

/** Pass 2's selector: a SameLine for such a line, unparsed (pass 1 judged those very bytes: no change). */
function sameLineSelector(table: DomainTable): LineSelector {
	return function selectLine(text, start, end) {
		const close = nameEnd(text, start, end);
		if (close === -1) return true;
		const from = start + NAME_FIRST.length;
		const ordinal = table.find(text, from, close);
		if (ordinal === NOT_FOUND || !table.sameLine(ordinal, text, start, end)) return true;
		return new SameLine(text.slice(from, close), ordinal);
	};
}
