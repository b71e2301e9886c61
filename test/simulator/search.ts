/**
 * POST /domain/search: body validation, filters, rank-ordered cursor paging.
 *
 * Body keys (all optional): pageSize (default 10, 1..plan maximum), searchAfter ([rank, id] exactly as
 * returned), and the filters language (ISO 639-1, case-insensitive), technology (exact name, case-insensitive),
 * category (prefix of any category entry, case-insensitive, e.g. "/Shopping"), tld1 (exact,
 * case-insensitive) and maxRank (only domains with rank <= maxRank). Any other key is a 400.
 *
 * Cost model: an unfiltered page is O(pageSize); a tld1 filter is O(1) (the name codec finds the one
 * domain with that tld1). Other filters compute their total with one scan of the index (bounded by
 * maxRank), cached per filter; when that scan finds at most 100,000 matches it
 * keeps their positions, so pages are a binary search away. Denser filters page by scanning forward
 * from the cursor, which stays short because matches are frequent.
 */
import type { DomainIndex } from './domain-index';
import { isPlainObject } from './http-utils';
import type { DomainObject } from './types';

export const DEFAULT_PAGE_SIZE = 10;
export const SEARCH_FILTER_KEYS = ['language', 'technology', 'category', 'tld1', 'maxRank'] as const;
type SearchFilterKey = (typeof SEARCH_FILTER_KEYS)[number];

/**
 * Which filters the service knows and what it does with a key it does not know: 'reject' (a 400 naming the key and
 * the allowed ones, the default) or 'ignore' (the key is dropped and the search runs without it, as a service that
 * is lenient about its body would: the records then do not match the filter that was sent).
 */
export interface SearchMode {
	filters: readonly SearchFilterKey[];
	unknownFilters: 'reject' | 'ignore';
}

export const DEFAULT_SEARCH_MODE: SearchMode = { filters: SEARCH_FILTER_KEYS, unknownFilters: 'reject' };
const MAX_KEPT_POSITIONS = 100_000;
const CACHE_ENTRIES = 32;

export interface SearchFilters {
	language?: string;
	technology?: string;
	category?: string;
	tld1?: string;
	maxRank?: number;
}

export interface SearchRequest {
	pageSize: number;
	searchAfter?: [number, number];
	filters: SearchFilters;
}

export interface SearchResponse {
	results: DomainObject[];
	search_after?: [number, number];
	total: number;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string };

/** Validates a search body against the plan's page size maximum and the filters the service knows (`mode`). */
export function parseSearchBody(
	sent: unknown,
	maxPageSize: number,
	planName: string,
	mode: SearchMode = DEFAULT_SEARCH_MODE,
): Outcome<SearchRequest> {
	if (sent === undefined) sent = {};
	if (!isPlainObject(sent)) return { ok: false, message: 'The search body must be a JSON object.' };
	const allowed: readonly string[] = ['pageSize', 'searchAfter', ...mode.filters];
	const body: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(sent)) {
		if (allowed.includes(key)) body[key] = value;
		else if (mode.unknownFilters === 'reject')
			return { ok: false, message: `Unknown field "${key}" in the search body. Allowed: ${allowed.join(', ')}.` };
	}
	let pageSize = DEFAULT_PAGE_SIZE;
	if (body.pageSize !== undefined) {
		if (typeof body.pageSize !== 'number' || !Number.isInteger(body.pageSize) || body.pageSize < 1) {
			return { ok: false, message: 'pageSize must be a positive integer.' };
		}
		if (body.pageSize > maxPageSize) {
			return {
				ok: false,
				message: `pageSize ${body.pageSize} exceeds the maximum of ${maxPageSize} for the ${planName} plan.`,
			};
		}
		pageSize = body.pageSize;
	}
	let searchAfter: [number, number] | undefined;
	if (body.searchAfter !== undefined) {
		const cursor = body.searchAfter;
		if (
			!Array.isArray(cursor) ||
			cursor.length !== 2 ||
			!cursor.every((v) => typeof v === 'number' && Number.isInteger(v))
		) {
			return {
				ok: false,
				message:
					'searchAfter must be the search_after array of an earlier response (two integers), passed back unchanged.',
			};
		}
		searchAfter = [cursor[0], cursor[1]];
	}
	const filters: SearchFilters = {};
	for (const key of ['language', 'technology', 'category', 'tld1'] as const) {
		const value = body[key];
		if (value === undefined) continue;
		if (typeof value !== 'string' || value.length === 0)
			return { ok: false, message: `${key} must be a non-empty string.` };
		filters[key] = value;
	}
	if (filters.category !== undefined && !filters.category.startsWith('/')) {
		return { ok: false, message: 'category must be a category path starting with "/", e.g. "/Shopping".' };
	}
	if (body.maxRank !== undefined) {
		if (typeof body.maxRank !== 'number' || !Number.isInteger(body.maxRank) || body.maxRank < 1) {
			return { ok: false, message: 'maxRank must be a positive integer.' };
		}
		filters.maxRank = body.maxRank;
	}
	return { ok: true, value: { pageSize, searchAfter, filters } };
}

interface FilterSummary {
	total: number;
	/** Matching positions in order, when there are few enough to keep. */
	positions?: Int32Array;
}

export class SearchEngine {
	private readonly cache = new Map<string, FilterSummary>();

	constructor(private readonly index: DomainIndex) {}

	search(request: SearchRequest): Outcome<SearchResponse> {
		const { index } = this;
		let start = 0;
		if (request.searchAfter) {
			const [rank, id] = request.searchAfter;
			if (rank < 1 || rank > index.size || index.generator.id(index.liveKey(rank - 1)) !== id) {
				return {
					ok: false,
					message: `searchAfter [${rank}, ${id}] does not match any result; pass back the search_after array of the previous response unchanged.`,
				};
			}
			start = rank;
		}
		const end = Math.min(index.size, request.filters.maxRank ?? index.size);
		const matcher = this.matcher(request.filters);
		let positions: number[];
		let more: boolean;
		let total: number;
		if (!matcher) {
			total = end;
			positions = [];
			for (let p = start; p < end && positions.length < request.pageSize; p++) positions.push(p);
			more = start + positions.length < end;
		} else {
			const summary = this.summary(request.filters, matcher, end);
			total = summary.total;
			if (summary.positions) {
				const kept = summary.positions;
				const first = lowerBound(kept, start);
				positions = Array.from(kept.subarray(first, first + request.pageSize));
				more = first + request.pageSize < kept.length;
			} else {
				positions = [];
				let p = start;
				for (; p < end && positions.length < request.pageSize; p++) if (matcher(p)) positions.push(p);
				more = false;
				for (; p < end; p++) {
					if (matcher(p)) {
						more = true;
						break;
					}
				}
			}
		}
		const results = positions.map((p) => index.generator.domainObject(index.liveKey(p), p + 1));
		const response: SearchResponse = { results, total };
		const last = results[results.length - 1];
		if (more && last) response.search_after = [last.rank, last.id];
		// Keys in the order the service shows them: results, search_after, total.
		return {
			ok: true,
			value: response.search_after ? { results, search_after: response.search_after, total } : { results, total },
		};
	}

	/** A predicate over live positions, or undefined when no filter other than maxRank is set. */
	private matcher(filters: SearchFilters): ((position: number) => boolean) | undefined {
		const { language, technology, category, tld1 } = filters;
		if (language === undefined && technology === undefined && category === undefined && tld1 === undefined)
			return undefined;
		const generator = this.index.generator;
		const languageLower = language?.toLowerCase();
		const technologyLower = technology?.toLowerCase();
		const categoryLower = category?.toLowerCase();
		const tld1Lower = tld1?.toLowerCase();
		return (position) => {
			const facts = generator.facts(this.index.liveKey(position));
			if (languageLower !== undefined && facts.locale.language !== languageLower) return false;
			if (tld1Lower !== undefined && facts.identity.tld1 !== tld1Lower) return false;
			if (
				technologyLower !== undefined &&
				!generator.technologies(facts).some((t) => t.toLowerCase() === technologyLower)
			)
				return false;
			if (
				categoryLower !== undefined &&
				!generator.categories(facts).list.some((c) => c.toLowerCase().startsWith(categoryLower))
			)
				return false;
			return true;
		};
	}

	private summary(filters: SearchFilters, matcher: (position: number) => boolean, end: number): FilterSummary {
		const cacheKey = JSON.stringify([
			filters.language?.toLowerCase(),
			filters.technology?.toLowerCase(),
			filters.category?.toLowerCase(),
			filters.tld1?.toLowerCase(),
			end,
		]);
		const cached = this.cache.get(cacheKey);
		if (cached) return cached;
		if (filters.tld1 !== undefined) {
			// At most one domain has a given tld1, and the name codec finds it without a scan.
			const position = this.index.positionOfTld1(filters.tld1);
			const found = position !== undefined && position < end && matcher(position) ? [position] : [];
			return { total: found.length, positions: Int32Array.from(found) };
		}
		let kept: number[] | undefined = [];
		let total = 0;
		for (let p = 0; p < end; p++) {
			if (!matcher(p)) continue;
			total++;
			if (kept) {
				kept.push(p);
				if (kept.length > MAX_KEPT_POSITIONS) kept = undefined;
			}
		}
		const summary: FilterSummary = { total, positions: kept ? Int32Array.from(kept) : undefined };
		if (this.cache.size >= CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
		this.cache.set(cacheKey, summary);
		return summary;
	}
}

function lowerBound(sorted: Int32Array, value: number): number {
	let low = 0;
	let high = sorted.length;
	while (low < high) {
		const mid = (low + high) >>> 1;
		if (sorted[mid] < value) low = mid + 1;
		else high = mid;
	}
	return low;
}
