/**
 * The answer of a tool call: the operation's records within TOOL_MAX_RECORDS and TOOL_MAX_BYTES (compact ones when
 * whole ones do not fit) and a summary in words (how many are shown, how many exist when the service says, how to
 * narrow). Get and Enrich answer with their one record itself; the others with `{ summary, <records>: [...] }`.
 */
import type { IDataObject } from 'n8n-workflow';

import { count } from '../../errors';
import { type BoundedRun, TOOL_MAX_BYTES, TOOL_MAX_RECORDS } from './bounds';

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

/** What a compact record keeps: the domain fields people ask about, then the fields of the other answer shapes. */
const KEPT = (
	'name rank title meta_description language language_code country_code categories technologies ' +
	'found label value change reason record changes error'
).split(' ');
const MAX_TEXT = 160;
const MAX_LIST = 10;

export const COMPACT_FIELDS_TEXT =
	'name, rank, title, description, language, country, categories and technologies; ' +
	`texts cut at ${MAX_TEXT} characters, lists at ${MAX_LIST} entries`;

function clip(value: unknown): unknown {
	if (typeof value === 'string') return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT - 1)}…` : value;
	if (Array.isArray(value)) {
		const kept = value.slice(0, MAX_LIST).map(clip);
		return value.length > MAX_LIST ? [...kept, `… ${value.length - MAX_LIST} more`] : kept;
	}
	if (value && typeof value === 'object') {
		return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, clip(entry)]));
	}
	return value;
}

function compactRecord(record: IDataObject): IDataObject {
	const compact: IDataObject = {};
	for (const field of KEPT) {
		const value = record[field];
		if (value === undefined) continue;
		const nested = field === 'record' && value && typeof value === 'object' && !Array.isArray(value);
		compact[field] = (nested ? compactRecord(value as IDataObject) : clip(value)) as IDataObject[keyof IDataObject];
	}
	return compact;
}

export type RecordsMode = 'full' | 'compact';

const encoder = new TextEncoder();
export const answerBytes = (answer: IDataObject): number => encoder.encode(JSON.stringify([answer])).length;

/** The search's paging info (on its last record, Options → Include Paging Info): the total and whether more exist. */
function takePaging(records: IDataObject[]): { total?: number; more: boolean } | undefined {
	const paging = records.at(-1)?._paging as IDataObject | undefined;
	if (!paging) return undefined;
	delete records[records.length - 1]._paging;
	return { total: typeof paging.total === 'number' ? paging.total : undefined, more: paging.hasMore === true };
}

/** Takes out of the records the fields that all of them hold with the same value, to be said once. */
function hoistShared(records: IDataObject[]): IDataObject {
	const shared: IDataObject = {};
	for (const field of SHARED_FIELDS) {
		const value = records[0]?.[field];
		if (value === undefined || !records.every((record) => record[field] === value)) continue;
		shared[field] = value;
		for (const record of records) delete record[field];
	}
	return shared;
}

function changeCounts(records: IDataObject[]): string {
	const counts = new Map<string, number>();
	for (const record of records) counts.set(String(record.change), (counts.get(String(record.change)) ?? 0) + 1);
	return ` (${[...counts].map(([change, n]) => `${n} ${change}`).join(', ')})`;
}

function summarize(
	operation: string,
	shown: IDataObject[],
	facts: { total?: number; more: boolean; left: number; compact: boolean; namesLeft: unknown[] },
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
	const { namesLeft } = facts;
	if (namesLeft.length > 0) {
		const listed = namesLeft.slice(0, 10).map(String).join(', ') + (namesLeft.length > 10 ? ', …' : '');
		parts.push(
			`Only the first ${TOOL_MAX_RECORDS} names were looked up; not looked up (${count(namesLeft.length)}): ${listed}.`,
		);
	}
	if (facts.compact) parts.push(`Records are compact: ${COMPACT_FIELDS_TEXT}.`);
	return parts.join(' ');
}

/** Full records while they fit TOOL_MAX_BYTES, else (or in compact mode) compact ones; then as many as fit. */
function fit(
	records: IDataObject[],
	mode: RecordsMode,
	build: (shown: IDataObject[], compact: boolean) => IDataObject,
): IDataObject {
	const compact = mode === 'compact' || answerBytes(build(records, false)) > TOOL_MAX_BYTES;
	let shown = compact ? records.map(compactRecord) : records;
	while (shown.length > 1 && answerBytes(build(shown, compact)) > TOOL_MAX_BYTES) shown = shown.slice(0, -1);
	return build(shown, compact);
}

export function toolAnswer(operation: string, records: IDataObject[], mode: RecordsMode, run: BoundedRun): IDataObject {
	if (!LISTINGS[operation]) {
		// Get and Enrich: the record itself (one input item, one record).
		return fit(records, mode, (shown) => (records.length === 1 ? shown[0] : { records: shown }));
	}
	const paging = takePaging(records);
	const more = paging?.more ?? records.length > TOOL_MAX_RECORDS;
	const within = records.slice(0, TOOL_MAX_RECORDS);
	const shared = hoistShared(within);
	const facts = { total: paging?.total, more, namesLeft: run.namesLeft };
	return fit(within, mode, (shown, compact) => ({
		summary: summarize(operation, shown, { ...facts, left: within.length - shown.length, compact }),
		...shared,
		[LISTINGS[operation].key]: shown,
	}));
}
