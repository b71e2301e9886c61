/**
 * Search's filters as the node knows them (the interface document does not list them; the simulator takes these), and
 * the check of the domains a search returned against the filters sent.
 */
import type { IDataObject, INode } from 'n8n-workflow';

import { count, describeValue, operationError, quoteFew } from '../../errors';

type FilterCheck = (domain: IDataObject, wanted: unknown) => boolean | undefined;

/** Per filter: how a model is told it, and how it reads on a domain (true: matches; undefined: cannot tell). */
const FILTERS: Record<string, { taught: string; check: FilterCheck }> = {
	language: { taught: 'language (ISO 639-1, e.g. "de")', check: (domain, wanted) => sameText(domain.language, wanted) },
	technology: {
		taught: 'technology (e.g. "Shopify")',
		// A domain without technologies has none (the interface: "can be missing from a domain object that has none").
		check: (domain, wanted) =>
			typeof wanted === 'string' && wanted !== ''
				? Array.isArray(domain.technologies) && domain.technologies.some((entry) => sameText(entry, wanted))
				: undefined,
	},
	category: {
		taught: 'category (a path such as "/Shopping")',
		check: (domain, wanted) =>
			typeof wanted === 'string' && wanted !== '' && Array.isArray(domain.categories)
				? domain.categories.some((entry) => String(entry).toLowerCase().startsWith(wanted.toLowerCase()))
				: undefined,
	},
	tld1: { taught: 'tld1 (e.g. "example.co.uk")', check: (domain, wanted) => sameText(domain.tld1, wanted) },
	maxRank: {
		taught: 'maxRank (e.g. 1000)',
		check: (domain, wanted) =>
			typeof wanted === 'number' && typeof domain.rank === 'number' ? domain.rank <= wanted : undefined,
	},
};

export const SEARCH_FILTERS = Object.keys(FILTERS);
/** The filters as a model is taught them: `language (ISO 639-1, e.g. "de"), technology (…), …`. */
export const SEARCH_FILTERS_TAUGHT = Object.values(FILTERS)
	.map((filter) => filter.taught)
	.join(', ');
/** The search filter that `key` names in another case ("Language"), which a service refuses or ignores. */
export function filterInOtherCase(key: string): string | undefined {
	return SEARCH_FILTERS.find((name) => name !== key && name.toLowerCase() === key.toLowerCase());
}

/** Filters nest no deeper than this: a JSON body of a service's filters is flat or nearly so. */
const MAX_FILTER_DEPTH = 32;
/** Body keys that the node sets itself from its parameters. */
const PAGING_KEYS = ['pageSize', 'searchAfter'];

/** The Filters parameter (JSON text or an object) as sent: refused when not an object, too deep, or not sendable. */
export function readSearchFilters(node: INode, raw: unknown, itemIndex: number): IDataObject {
	if (typeof raw === 'string' && raw.trim() === '') return {};
	let filters = raw;
	try {
		if (typeof raw === 'string') filters = JSON.parse(raw);
	} catch {
		filters = undefined;
	}
	if (!filters || typeof filters !== 'object' || Array.isArray(filters)) {
		throw operationError(node, `Filters must be a JSON object, but they are ${describeValue(raw)}`, {
			itemIndex,
			description: 'Write the filters as a JSON object, for example {"language": "de"}, or {} for no filter.',
		});
	}
	const stack: Array<{ value: unknown; depth: number }> = [{ value: filters, depth: 1 }];
	while (stack.length > 0) {
		const { value, depth } = stack.pop()!;
		if (!value || typeof value !== 'object') continue;
		if (depth > MAX_FILTER_DEPTH) {
			throw operationError(node, `Filters are nested more than ${MAX_FILTER_DEPTH} levels deep`, {
				itemIndex,
				description:
					'Write the filters as a flat JSON object, for example {"language": "de", "technology": "Shopify"}.',
			});
		}
		if (!Array.isArray(value) && Object.prototype.hasOwnProperty.call(value, '__proto__')) {
			throw operationError(node, 'Filters hold the key "__proto__", which cannot be sent', {
				itemIndex,
				description:
					'"__proto__" is a reserved name in JavaScript: n8n and the node cannot send it as a key. Remove it from ' +
					'Filters.',
			});
		}
		for (const entry of Object.values(value)) stack.push({ value: entry, depth: depth + 1 });
	}
	const paging = PAGING_KEYS.find((key) => key in filters);
	if (paging) {
		throw operationError(node, `Filters must not contain "${paging}"`, {
			itemIndex,
			description:
				'The node pages by itself: set the page size in Options → Page Size and a start cursor in Options ' +
				'→ Start Cursor.',
		});
	}
	return filters as IDataObject;
}

/** The filters' names for a message: a filter's value may be a megabyte. */
export function filtersNamed(filters: IDataObject): string {
	const keys = Object.keys(filters);
	return keys.length === 0 ? 'none set' : `${keys.length === 1 ? 'the key' : 'the keys'} ${quoteFew(keys)}`;
}

function sameText(value: unknown, wanted: unknown): boolean | undefined {
	if (typeof value !== 'string' || typeof wanted !== 'string' || wanted === '') return undefined;
	return value.toLowerCase() === wanted.toLowerCase();
}

/** A filter the service did not apply: its key, the words for it, and the filter it means when in another case. */
export interface UnappliedFilter {
	name: string;
	text: string;
	meant?: string;
}

/**
 * The filters the service plainly did not apply: more than half of the domains it returned that can be checked fail
 * it (a service may match more loosely); one named in another case, unless every domain that can be checked matches it.
 */
export function unappliedFilters(filters: IDataObject, domains: IDataObject[]): UnappliedFilter[] {
	const unapplied: UnappliedFilter[] = [];
	for (const [name, wanted] of Object.entries(filters)) {
		const meant = filterInOtherCase(name);
		const checked = meant ?? name;
		if (!Object.hasOwn(FILTERS, checked)) continue;
		const verdicts = domains
			.map((domain) => FILTERS[checked].check(domain, wanted))
			.filter((verdict) => verdict !== undefined);
		const misses = verdicts.filter((verdict) => !verdict).length;
		const misfits = `${count(misses)} of ${count(verdicts.length)} domains returned do not match it`;
		if (meant !== undefined) {
			if (verdicts.length > 0 && misses === 0) continue;
			const found = verdicts.length > 0 ? `; ${misfits}` : '';
			const filter = `the filter ${describeValue(name)} ${describeValue(wanted)}`;
			unapplied.push({ name, text: `${filter} (the filter is named "${meant}"${found})`, meant });
			continue;
		}
		if (verdicts.length === 0 || misses * 2 <= verdicts.length) continue;
		unapplied.push({ name, text: `the filter ${name} ${describeValue(wanted)} (${misfits})` });
	}
	return unapplied;
}
