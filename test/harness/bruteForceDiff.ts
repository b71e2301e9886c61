/**
 * An independent brute-force diff of two snapshots for the tests of Dataset → Compare: both snapshots
 * read raw (a plain fetch of the whole NDJSON with every field), held in Maps and compared field by
 * field as docs/dataset.md documents it. It shares no code with the node.
 */
import { isDeepStrictEqual } from 'node:util';

import type { IDataObject } from 'n8n-workflow';

import { KEYS, RECORD_FIELDS } from '../simulator';

export type Record_ = Record<string, unknown> & { name: string };

/** The whole snapshot with every field, read with a plain fetch (not through the node's reader). */
export async function rawSnapshot(baseUrl: string, label: string): Promise<Record_[]> {
	const url = `${baseUrl}/json/api/v1/historical/domain/${label}?fields=${RECORD_FIELDS.join(',')}`;
	const response = await fetch(url, { headers: { authorization: `Bearer ${KEYS.pro}` } });
	if (response.status !== 200) throw new Error(`GET ${label} answered ${response.status}`);
	return (await response.text())
		.split('\n')
		.filter((line) => line.length > 0)
		.map((line) => JSON.parse(line) as Record_);
}

export interface FilterParameters {
	countryCodes?: string;
	languageCodes?: string;
	technologies?: string;
	categoryPrefix?: string;
	maxRank?: number;
	tld1?: string;
}

export interface Question {
	fields: string[];
	changes?: string[];
	filters?: FilterParameters;
	minRankMove?: number;
}

const LISTS = new Set(['technologies', 'categories', 'contact_information']);
const FILTER_FIELD: Record<keyof FilterParameters, string> = {
	countryCodes: 'country_code',
	languageCodes: 'language_code',
	technologies: 'technologies',
	categoryPrefix: 'categories',
	maxRank: 'rank',
	tld1: 'tld1',
};

const words = (text: string | undefined, separator: RegExp) =>
	(text ?? '')
		.split(separator)
		.map((word) => word.trim().toLowerCase())
		.filter(Boolean);

/** The filters as the product documents them, written out by hand. */
function selectedBy(filters: FilterParameters | undefined): (record: Record_) => boolean {
	if (!filters) return () => true;
	return (record) => {
		if (filters.maxRank !== undefined && !((record.rank as number) <= filters.maxRank)) return false;
		if (
			filters.countryCodes &&
			!words(filters.countryCodes, /[\s,]+/).includes(String(record.country_code).toLowerCase())
		)
			return false;
		if (
			filters.languageCodes &&
			!words(filters.languageCodes, /[\s,]+/).includes(String(record.language_code).toLowerCase())
		)
			return false;
		if (filters.tld1 && !words(filters.tld1, /[\s,]+/).includes(String(record.tld1).toLowerCase())) return false;
		if (filters.technologies) {
			const wanted = words(filters.technologies, /,/);
			if (!(record.technologies as string[]).some((name) => wanted.includes(name.toLowerCase()))) return false;
		}
		if (filters.categoryPrefix) {
			const prefixes = words(filters.categoryPrefix, /\n/);
			if (
				!(record.categories as string[]).some((category) =>
					prefixes.some((prefix) => category.toLowerCase().startsWith(prefix)),
				)
			)
				return false;
		}
		return true;
	};
}

function fieldDiff(field: string, before: unknown, after: unknown, minRankMove: number): unknown {
	if (LISTS.has(field)) {
		const had = (before as unknown[]) ?? [];
		const has = (after as unknown[]) ?? [];
		const added = has.filter((entry) => !had.some((old) => isDeepStrictEqual(old, entry)));
		const removed = had.filter((entry) => !has.some((now) => isDeepStrictEqual(now, entry)));
		return added.length || removed.length ? { added, removed } : undefined;
	}
	if (field === 'rank')
		return Math.abs((after as number) - (before as number)) >= minRankMove ? { from: before, to: after } : undefined;
	return isDeepStrictEqual(before ?? null, after ?? null) ? undefined : { from: before ?? null, to: after ?? null };
}

function diffs(
	before: Record_,
	after: Record_,
	fields: string[],
	threshold: (field: string) => number,
): Record<string, unknown> {
	const result: Record<string, unknown> = {};
	for (const field of fields) {
		const change = fieldDiff(field, before[field], after[field], threshold(field));
		if (change !== undefined) result[field] = change;
	}
	return result;
}

/** The brute-force diff, in the documented order: gone domains (older order), then the rest (newer order). */
export function bruteForce(
	newer: Record_[],
	older: Record_[],
	labels: { label: string; baseLabel: string },
	question: Question,
): IDataObject[] {
	const kinds = new Set(question.changes ?? ['added', 'removed', 'changed']);
	const selected = selectedBy(question.filters);
	const minRankMove = question.minRankMove ?? 1;
	const filterFields = Object.keys(question.filters ?? {}).map((key) => FILTER_FIELD[key as keyof FilterParameters]);
	const explainFields = RECORD_FIELDS.filter(
		(field) => question.fields.includes(field) || filterFields.includes(field),
	);
	const explainThreshold = (field: string) => (field === 'rank' && filterFields.includes('rank') ? 1 : minRankMove);
	const compared = RECORD_FIELDS.filter((field) => question.fields.includes(field));
	const pick = (record: Record_) =>
		Object.fromEntries([['name', record.name], ...compared.map((field) => [field, record[field] ?? null])]);
	const item = (change: string, reason: string, record: Record_, changes: Record<string, unknown> = {}) => ({
		change,
		reason,
		name: record.name,
		...labels,
		record: pick(record),
		changes,
	});
	const newerByName = new Map(newer.map((record) => [record.name, record]));
	const olderByName = new Map(older.map((record) => [record.name, record]));
	const result: IDataObject[] = [];
	for (const record of older) {
		if (!newerByName.has(record.name) && selected(record) && kinds.has('removed'))
			result.push(item('removed', 'goneFromIndex', record));
	}
	for (const record of newer) {
		const before = olderByName.get(record.name);
		const inNew = selected(record);
		if (!before) {
			if (inNew && kinds.has('added')) result.push(item('added', 'newToIndex', record));
			continue;
		}
		const inOld = selected(before);
		if (inNew && inOld && kinds.has('changed')) {
			const changes = diffs(before, record, question.fields, () => minRankMove);
			if (Object.keys(changes).length > 0) result.push(item('changed', 'valuesChanged', record, changes));
		} else if (inNew && !inOld && kinds.has('added')) {
			result.push(item('added', 'enteredSelection', record, diffs(before, record, explainFields, explainThreshold)));
		} else if (!inNew && inOld && kinds.has('removed')) {
			result.push(item('removed', 'leftSelection', before, diffs(before, record, explainFields, explainThreshold)));
		}
	}
	return result;
}

/** What the File output's JSON says about these changes (without size and fields). */
export function fileSummaryOf(changes: IDataObject[], labels: { label: string; baseLabel: string }): IDataObject {
	const count = (kind: string) => changes.filter((change) => change.change === kind).length;
	return {
		...labels,
		fileName: `changes-${labels.baseLabel}-${labels.label}.ndjson`,
		recordCount: changes.length,
		added: count('added'),
		removed: count('removed'),
		changed: count('changed'),
	};
}
