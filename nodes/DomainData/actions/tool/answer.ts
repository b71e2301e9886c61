/**
 * The answer of a tool call: the operation's records within TOOL_MAX_RECORDS and TOOL_MAX_BYTES, and a summary
 * in words (how many are shown, how many exist when the service says, how to narrow). Get and Enrich answer
 * with their one record itself; the others with `{ summary, <records>: [...] }`.
 */
import type { IDataObject } from 'n8n-workflow';

import { type BoundedRun, TOOL_MAX_BYTES, TOOL_MAX_RECORDS } from './bounds';
import { compactRecord, COMPACT_FIELDS_TEXT } from './compact';

/** Per listing operation: the key of its records in the answer (also the summary's noun), and how to narrow. */
const LISTINGS: Record<string, { key: string; narrow: string }> = {
	search: { key: 'domains', narrow: 'search with more filters (a language, technology, category or maxRank)' },
	bulk: { key: 'domains', narrow: 'ask for the other names in another call' },
	list: { key: 'datasets', narrow: 'the newest come first' },
	stream: { key: 'records', narrow: 'read with filters (countries, languages, technologies, a category, a rank)' },
	compare: { key: 'changes', narrow: 'compare with filters, or fewer kinds of change' },
};

/** Fields every record of a listing shares (the snapshot labels): said once, in the answer, not per record. */
const SHARED_FIELDS = ['label', 'baseLabel'];

export type RecordsMode = 'full' | 'compact';

const encoder = new TextEncoder();
export const answerBytes = (answer: IDataObject): number => encoder.encode(JSON.stringify([answer])).length;

const count = (n: number) => n.toLocaleString('en-US');

/** The search's paging info (on its last record, Options → Include Paging Info): the total and whether more exist. */
function takePaging(records: IDataObject[]): { total?: number; more: boolean } | undefined {
	const paging = records.at(-1)?._paging as IDataObject | undefined;
	if (!paging) return undefined;
	delete records[records.length - 1]._paging;
	return { total: typeof paging.total === 'number' ? paging.total : undefined, more: paging.hasMore === true };
}

/** Moves fields that every record holds with the same value into `answer`. */
function hoistShared(records: IDataObject[], answer: IDataObject): void {
	for (const field of SHARED_FIELDS) {
		const value = records[0]?.[field];
		if (value === undefined || !records.every((record) => record[field] === value)) continue;
		answer[field] = value;
		for (const record of records) delete record[field];
	}
}

function changeCounts(records: IDataObject[]): string {
	const counts = new Map<string, number>();
	for (const record of records) counts.set(String(record.change), (counts.get(String(record.change)) ?? 0) + 1);
	return ` (${[...counts].map(([change, n]) => `${n} ${change}`).join(', ')})`;
}

function summarize(
	operation: string,
	shown: IDataObject[],
	facts: { total?: number; more: boolean; left: number; compact: boolean; run: BoundedRun },
): string {
	const { key, narrow } = LISTINGS[operation];
	const of = facts.total !== undefined ? ` of ${count(facts.total)}` : '';
	const parts = [
		`${count(shown.length)}${of} ${key} shown${operation === 'compare' && shown.length ? changeCounts(shown) : ''}.`,
	];
	if (facts.more)
		parts.push(`There are more: this tool shows at most ${TOOL_MAX_RECORDS} per call. To narrow, ${narrow}.`);
	if (facts.left > 0)
		parts.push(`${count(facts.left)} more were left out to keep the answer under ${TOOL_MAX_BYTES / 1024} KB.`);
	const namesLeft = facts.run.namesLeft;
	if (namesLeft.length > 0) {
		const listed = namesLeft.slice(0, 10).map(String).join(', ') + (namesLeft.length > 10 ? ', …' : '');
		parts.push(
			`Only the first ${TOOL_MAX_RECORDS} names were looked up; not looked up (${count(namesLeft.length)}): ${listed}.`,
		);
	}
	if (facts.compact) parts.push(`Records are compact: ${COMPACT_FIELDS_TEXT}.`);
	return parts.join(' ');
}

/**
 * Full records while they fit TOOL_MAX_BYTES; else compact ones (or always, in compact mode); then as many as
 * fit. `build` makes the answer from the records and whether they are compact.
 */
function fit(
	records: IDataObject[],
	mode: RecordsMode,
	build: (shown: IDataObject[], compact: boolean) => IDataObject,
): IDataObject {
	let compact = mode === 'compact';
	let shown = compact ? records.map(compactRecord) : records;
	if (!compact && answerBytes(build(shown, false)) > TOOL_MAX_BYTES) {
		compact = true;
		shown = records.map(compactRecord);
	}
	while (shown.length > 1 && answerBytes(build(shown, compact)) > TOOL_MAX_BYTES) shown = shown.slice(0, -1);
	return build(shown, compact);
}

/** The answer to a tool call of `operation`, from the records the bounded operation output. */
export function toolAnswer(operation: string, records: IDataObject[], mode: RecordsMode, run: BoundedRun): IDataObject {
	if (!LISTINGS[operation]) {
		// Get and Enrich: the record itself (one input item, one record).
		if (records.length === 1) return fit(records, mode, ([record]) => record);
		return fit(records, mode, (shown) => ({ records: shown }));
	}
	const paging = takePaging(records);
	const more = paging?.more ?? records.length > TOOL_MAX_RECORDS;
	const within = records.slice(0, TOOL_MAX_RECORDS);
	const shared: IDataObject = {};
	hoistShared(within, shared);
	return fit(within, mode, (shown, compact) => ({
		summary: summarize(operation, shown, {
			total: paging?.total,
			more,
			left: within.length - shown.length,
			compact,
			run,
		}),
		...shared,
		[LISTINGS[operation].key]: shown,
	}));
}
