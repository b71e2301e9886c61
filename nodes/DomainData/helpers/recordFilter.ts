/**
 * Filters applied to snapshot records while they stream, so that a million-record snapshot can shrink
 * to the few records a workflow wants in bounded memory. The stream endpoint has no filters of its own:
 * every record still crosses the network, but only matches are kept.
 *
 * A record matches when it passes every criterion that is set; list criteria match any of their values.
 */
import type { IDataObject, INode } from 'n8n-workflow';

import { operationError } from '../errors';
import { readWholeNumber } from '../parameters';
import type { SnapshotField } from './snapshotFields';

export interface RecordFilter {
	/** rank <= maxRank (1 is the highest traffic). */
	maxRank?: number;
	/** country_code is one of these (ISO 3166-1 alpha-2, compared in upper case). */
	countryCodes?: string[];
	/** language_code is one of these (ISO 639-1, compared in lower case). */
	languageCodes?: string[];
	/** technologies holds at least one of these (exact names, case-insensitive). */
	technologies?: string[];
	/** Some entry of categories starts with one of these (case-insensitive), e.g. "/Shopping". */
	categoryPrefixes?: string[];
	/** tld1 is one of these (case-insensitive), e.g. "example.co.uk". */
	tld1?: string[];
}

export type RecordPredicate = (record: IDataObject) => boolean;

/** The record field each criterion reads: it must be in the request even when not in the output. */
const FIELD_OF: Record<keyof RecordFilter, SnapshotField> = {
	maxRank: 'rank',
	countryCodes: 'country_code',
	languageCodes: 'language_code',
	technologies: 'technologies',
	categoryPrefixes: 'categories',
	tld1: 'tld1',
};

/** True when the filter has at least one criterion. */
export function hasCriteria(filter: RecordFilter | undefined): filter is RecordFilter {
	return filter !== undefined && Object.keys(FIELD_OF).some((key) => filter[key as keyof RecordFilter] !== undefined);
}

/** The fields the filter reads, in no particular order. */
export function fieldsReadBy(filter: RecordFilter | undefined): SnapshotField[] {
	if (!filter) return [];
	return (Object.keys(FIELD_OF) as Array<keyof RecordFilter>)
		.filter((key) => filter[key] !== undefined)
		.map((key) => FIELD_OF[key]);
}

const lowerOf = (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : '');

/** Builds the test for one record; undefined when the filter has no criterion (everything matches). */
export function compileRecordFilter(filter: RecordFilter | undefined): RecordPredicate | undefined {
	if (!hasCriteria(filter)) return undefined;
	const tests: RecordPredicate[] = [];
	const { maxRank } = filter;
	if (maxRank !== undefined) {
		tests.push((record) => typeof record.rank === 'number' && record.rank <= maxRank);
	}
	if (filter.countryCodes) {
		const wanted = new Set(filter.countryCodes.map((code) => code.toUpperCase()));
		tests.push((record) => typeof record.country_code === 'string' && wanted.has(record.country_code.toUpperCase()));
	}
	if (filter.languageCodes) {
		const wanted = new Set(filter.languageCodes.map((code) => code.toLowerCase()));
		tests.push((record) => wanted.has(lowerOf(record.language_code)));
	}
	if (filter.technologies) {
		const wanted = new Set(filter.technologies.map((name) => name.toLowerCase()));
		tests.push((record) => {
			const list = record.technologies;
			if (!Array.isArray(list)) return false;
			for (const name of list) if (wanted.has(lowerOf(name))) return true;
			return false;
		});
	}
	if (filter.categoryPrefixes) {
		const prefixes = filter.categoryPrefixes.map((prefix) => prefix.toLowerCase());
		tests.push((record) => {
			const list = record.categories;
			if (!Array.isArray(list)) return false;
			for (const category of list) {
				const lower = lowerOf(category);
				for (const prefix of prefixes) if (lower.startsWith(prefix)) return true;
			}
			return false;
		});
	}
	if (filter.tld1) {
		const wanted = new Set(filter.tld1.map((name) => name.toLowerCase()));
		tests.push((record) => wanted.has(lowerOf(record.tld1)));
	}
	if (tests.length === 1) return tests[0];
	return (record) => {
		for (const test of tests) if (!test(record)) return false;
		return true;
	};
}

/** The node's `filters` collection as the editor stores it (lists as comma-separated text or arrays). */
export interface RecordFilterParameters {
	maxRank?: number;
	countryCodes?: string | string[];
	languageCodes?: string | string[];
	technologies?: string | string[];
	categoryPrefix?: string | string[];
	tld1?: string | string[];
}

function listOf(value: unknown, separator: RegExp): string[] | undefined {
	const raw = Array.isArray(value) ? value : typeof value === 'string' ? value.split(separator) : [];
	const entries = raw
		.filter((entry) => entry !== null && entry !== undefined)
		.map((entry) => String(entry).trim())
		.filter((entry) => entry.length > 0);
	return entries.length > 0 ? [...new Set(entries)] : undefined;
}

/**
 * Reads and checks the `filters` collection; throws a NodeOperationError naming the filter and what to
 * type when a value cannot be right (so that a typo fails at once instead of matching nothing after a
 * whole snapshot was read).
 */
export function parseRecordFilter(
	node: INode,
	parameters: RecordFilterParameters,
	itemIndex: number,
): RecordFilter {
	const filter: RecordFilter = {};
	const fail = (message: string, description: string) =>
		operationError(node, message, { itemIndex, description });

	const { maxRank } = parameters;
	if (maxRank !== undefined && maxRank !== null && String(maxRank) !== '') {
		filter.maxRank = readWholeNumber(node, maxRank, 'filter "Max Rank"', {
			itemIndex,
			description: 'Rank 1 is the site with the most traffic; "Max Rank" 1000 keeps the top 1000.',
		});
	}

	const countries = listOf(parameters.countryCodes, /[\s,;]+/);
	if (countries) {
		const wrong = countries.filter((code) => !/^[a-z]{2}$/i.test(code));
		if (wrong.length > 0) {
			throw fail(`The filter "Country Codes" has values that are not two-letter country codes: ${wrong.map((c) => `"${c}"`).join(', ')}`, 'Use ISO 3166-1 alpha-2 codes separated by commas, for example: DE, AT, CH');
		}
		filter.countryCodes = countries.map((code) => code.toUpperCase());
	}

	const languages = listOf(parameters.languageCodes, /[\s,;]+/);
	if (languages) {
		const wrong = languages.filter((code) => !/^[a-z]{2}$/i.test(code));
		if (wrong.length > 0) {
			throw fail(`The filter "Language Codes" has values that are not two-letter language codes: ${wrong.map((c) => `"${c}"`).join(', ')}`, 'Use ISO 639-1 codes separated by commas, for example: de, en, fr');
		}
		filter.languageCodes = languages.map((code) => code.toLowerCase());
	}

	// Technology names can hold spaces ("Google Analytics"): only commas separate them.
	filter.technologies = listOf(parameters.technologies, /,/);

	const categories = listOf(parameters.categoryPrefix, /\n/);
	if (categories) filter.categoryPrefixes = categories.map((prefix) => (prefix.startsWith('/') ? prefix : `/${prefix}`));

	const tlds = listOf(parameters.tld1, /[\s,;]+/);
	if (tlds) filter.tld1 = tlds.map((name) => name.replace(/^\.+|\.+$/g, '').toLowerCase());

	for (const key of Object.keys(filter) as Array<keyof RecordFilter>) {
		if (filter[key] === undefined) delete filter[key];
	}
	return filter;
}
