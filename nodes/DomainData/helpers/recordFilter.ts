/** Filters on snapshot records while they stream: a record passes every criterion set, each list by any value. */
import type { IDataObject, INode } from 'n8n-workflow';

import { operationError, quoteFew } from '../errors';
import { readWholeNumber } from '../parameters';
import { normalizeDomainName } from './domainName';
import { NOT_LISTED } from './domainSet';
import { type DomainList, readDomainList } from './domainsFilter';
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
	/** name is one of these (normalised as Domain → Get normalises a name); readers also decline other lines unparsed. */
	domains?: DomainList;
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
	domains: 'name',
};

/** The fields the filter reads, in no particular order. */
export function fieldsReadBy(filter: RecordFilter | undefined): SnapshotField[] {
	if (!filter) return [];
	return (Object.keys(FIELD_OF) as Array<keyof RecordFilter>)
		.filter((key) => filter[key] !== undefined)
		.map((key) => FIELD_OF[key]);
}

export function hasCriteria(filter: RecordFilter | undefined): filter is RecordFilter {
	return fieldsReadBy(filter).length > 0;
}

const lowerOf = (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : '');

/** The test of one record; undefined when the filter has no criterion. */
export function compileRecordFilter(filter: RecordFilter | undefined): RecordPredicate | undefined {
	if (!hasCriteria(filter)) return undefined;
	const tests: RecordPredicate[] = [];
	const anyEntry = (field: SnapshotField, matches: (lower: string) => boolean) =>
		tests.push((record) => {
			const list = record[field];
			return Array.isArray(list) && list.some((entry) => matches(lowerOf(entry)));
		});
	const { maxRank, technologies } = filter;
	if (maxRank !== undefined) tests.push((record) => typeof record.rank === 'number' && record.rank <= maxRank);
	// No value is empty: '' (what lowerOf makes of a missing field) never matches.
	for (const key of ['countryCodes', 'languageCodes', 'tld1'] as const) {
		const wanted = filter[key] && new Set(filter[key].map((value) => value.toLowerCase()));
		if (wanted) tests.push((record) => wanted.has(lowerOf(record[FIELD_OF[key]])));
	}
	const wantedTechnologies = technologies && new Set(technologies.map((name) => name.toLowerCase()));
	if (wantedTechnologies) anyEntry('technologies', (name) => wantedTechnologies.has(name));
	if (filter.categoryPrefixes) {
		const prefixes = filter.categoryPrefixes.map((prefix) => prefix.toLowerCase());
		anyEntry('categories', (category) => prefixes.some((prefix) => category.startsWith(prefix)));
	}
	const listed = filter.domains?.names;
	if (listed) {
		tests.push((record) => {
			const index = typeof record.name === 'string' ? listed.indexOf(record.name) : NOT_LISTED;
			if (index !== NOT_LISTED) listed.markSeen(index);
			return index !== NOT_LISTED;
		});
	}
	if (tests.length === 1) return tests[0];
	return (record) => tests.every((test) => test(record));
}

/** The node's `filters` collection as the editor stores it (lists as text or, from an expression, arrays). */
export type RecordFilterParameters = Partial<
	Record<'maxRank' | 'countryCodes' | 'languageCodes' | 'technologies' | 'categoryPrefix' | 'tld1' | 'domains', unknown>
>;

function listOf(value: unknown, separator: RegExp): string[] | undefined {
	const raw = Array.isArray(value) ? value : typeof value === 'string' ? value.split(separator) : [];
	const entries = raw
		.filter((entry) => entry !== null && entry !== undefined)
		.map((entry) => String(entry).trim())
		.filter((entry) => entry.length > 0);
	return entries.length > 0 ? [...new Set(entries)] : undefined;
}

const TWO_LETTERS = /^[a-z]{2}$/i;

/** A list filter; `normalize` gives an entry as the records hold it, or undefined when it cannot match. */
type ListRule = { filter: string; what: string; normalize: (entry: string) => string | undefined; example: string };

const LIST_RULES: Record<'countryCodes' | 'languageCodes' | 'tld1', ListRule> = {
	countryCodes: {
		filter: 'Country Codes',
		what: 'two-letter country codes',
		normalize: (entry) => (TWO_LETTERS.test(entry) ? entry.toUpperCase() : undefined),
		example: 'Use ISO 3166-1 alpha-2 codes separated by commas, for example: DE, AT, CH',
	},
	languageCodes: {
		filter: 'Language Codes',
		what: 'two-letter language codes',
		normalize: (entry) => (TWO_LETTERS.test(entry) ? entry.toLowerCase() : undefined),
		example: 'Use ISO 639-1 codes separated by commas, for example: de, en, fr',
	},
	// As the service writes tld1 and Domain → Get reads a name: lower-case ASCII with IDN labels in punycode, so
	// that münchen.de, MÜNCHEN.DE and https://www.münchen.de/x all find xn--mnchen-3ya.de.
	tld1: {
		filter: 'Registrable Domains (Tld1)',
		what: 'domain names',
		normalize: (entry) => {
			const name = normalizeDomainName(entry.replace(/^\.+/, ''));
			return name.ok ? name.name : undefined;
		},
		example: 'Use registrable domains separated by commas, for example: example.com, münchen.de (URLs work too)',
	},
};

/** The entries of a list filter as `rule` normalises them; any wrong entry refuses the list, naming a few. */
function normalizedList(node: INode, itemIndex: number, value: unknown, rule: ListRule): string[] | undefined {
	const list = listOf(value, /[\s,;]+/);
	if (!list) return undefined;
	const entries = list.map((entry) => rule.normalize(entry));
	const wrong = list.filter((_, index) => entries[index] === undefined);
	if (wrong.length > 0) {
		throw operationError(node, `The filter "${rule.filter}" has values that are not ${rule.what}: ${quoteFew(wrong)}`, {
			itemIndex,
			description: rule.example,
		});
	}
	return [...new Set(entries as string[])];
}

/** Reads the `filters` collection: a wrong value fails at once, not after a whole snapshot matched nothing. */
export function parseRecordFilter(node: INode, parameters: RecordFilterParameters, itemIndex: number): RecordFilter {
	const filter: RecordFilter = {};
	const { maxRank } = parameters;
	if (maxRank !== undefined && maxRank !== null && String(maxRank) !== '') {
		filter.maxRank = readWholeNumber(node, maxRank, 'filter "Max Rank"', {
			itemIndex,
			description: 'Rank 1 is the site with the most traffic; "Max Rank" 1000 keeps the top 1000.',
		});
	}
	for (const key of ['countryCodes', 'languageCodes', 'tld1'] as const) {
		filter[key] = normalizedList(node, itemIndex, parameters[key], LIST_RULES[key]);
	}
	// Technology names can hold spaces ("Google Analytics"): only commas separate them.
	filter.technologies = listOf(parameters.technologies, /,/);
	const categories = listOf(parameters.categoryPrefix, /\n/);
	filter.categoryPrefixes = categories?.map((prefix) => (prefix.startsWith('/') ? prefix : `/${prefix}`));

	if (parameters.domains !== undefined) filter.domains = readDomainsFilter(node, parameters.domains, itemIndex);

	return Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined));
}

/** The Domains filter: entries that are no domain are left out and reported; a list of none is refused. */
function readDomainsFilter(node: INode, value: unknown, itemIndex: number): DomainList {
	const list = readDomainList(value);
	if (list.names.size > 0) return list;
	const { count: wrong, examples } = list.rejected;
	const holds = wrong > 0 ? `only entries that are not domain names: ${quoteFew(examples, wrong)}` : 'no entry';
	throw operationError(node, `The filter "Domains" holds ${holds}`, {
		itemIndex,
		toolHelp: 'domainList',
		description:
			'Give domain names, URLs or email addresses separated by commas, spaces or new lines, or an array from an ' +
			"expression, for example {{ $('Accounts').all().map(item => item.json.website) }}. Remove the filter to " +
			'read every record.',
	});
}
