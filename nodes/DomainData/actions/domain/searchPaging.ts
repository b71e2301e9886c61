/** Search's paging for one item: page after page with the service's cursor, and the guards against endless ones. */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { buildApiError, describeValue } from '../../errors';
import { apiRequest, type CallLimits, cursorValue, unexpectedAnswerError } from '../../transport';
import { filtersNamed } from './searchFilters';

/** Where the service gives no total, the number of pages after which paging stops as runaway. */
const MAX_PAGES_WITHOUT_TOTAL = 100_000;
/** Where the search of an item stands: the cursor of the next page (none after the last) and the total announced. */
export type Paging = { cursor?: unknown[]; total?: number };

/** What one item's search asks. */
export interface SearchPlan {
	itemIndex: number;
	limit: number;
	filters: IDataObject;
	pageSize: number;
	limits: CallLimits;
	startCursor?: unknown[];
	includePagingInfo: boolean;
}

function kindOf(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** One page of a search: its domains (checked to be objects), the next cursor as sent, and the total announced. */
async function fetchPage(this: IExecuteFunctions, plan: SearchPlan, size: number, cursor: unknown[] | undefined) {
	const { itemIndex, filters, limits } = plan;
	const body = { ...filters, pageSize: size, ...(cursor && { searchAfter: cursor.map(cursorValue) as IDataObject[] }) };
	const badRequestDescription =
		`Check Filters (${filtersNamed(filters)}) and the options. If the service speaks of the page size: the largest ` +
		`page depends on the plan, lower Options → Page Size (this call asked for ${size}).`;
	const path = ['domain', 'search'];
	const request = { method: 'POST' as const, path, body, limits, itemIndex, badRequestDescription };
	const page = (await apiRequest.call(this, request)) as { results?: unknown; search_after?: unknown; total?: unknown };
	if (!Array.isArray(page.results)) {
		throw unexpectedAnswerError(this.getNode(), 'the search answer has no "results" list', itemIndex);
	}
	return { results: page.results as unknown[], next: page.search_after, total: page.total };
}

/** Where one item's search stands: pages and domains read, domains sent (also past the limit), cursors sent. */
class SearchProgress {
	pages = 0;
	read = 0;
	received = 0;
	/** A cursor the service gives twice would page forever. */
	private readonly sentCursors = new Set<string>();

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly plan: SearchPlan,
		readonly paging: Paging,
	) {
		paging.cursor = plan.startCursor;
		if (paging.cursor) this.sentCursors.add(JSON.stringify(paging.cursor));
	}

	/** Anything but a JSON object would become a broken item (a string spreads into "0", "1"…). */
	checkDomains(results: unknown[]): void {
		const notDomain = results.findIndex((result) => !result || typeof result !== 'object' || Array.isArray(result));
		if (notDomain < 0) return;
		const what = `search result ${notDomain + 1} of page ${this.pages} is ${kindOf(results[notDomain])}`;
		throw unexpectedAnswerError(this.context.getNode(), `${what}, not a domain object`, this.plan.itemIndex);
	}

	/** Takes the next cursor; false at the end (none, or after a page without domains: a cursor that brings nothing). */
	advance(next: unknown, pageLength: number): boolean {
		const { itemIndex } = this.plan;
		if (next === undefined || next === null || pageLength === 0) {
			this.paging.cursor = undefined;
			return false;
		}
		const node = this.context.getNode();
		if (!Array.isArray(next)) {
			throw unexpectedAnswerError(node, `the search cursor ${describeValue(next)} is not a list`, itemIndex);
		}
		const key = JSON.stringify(next);
		if (this.sentCursors.has(key)) {
			throw buildApiError(node, {
				itemIndex,
				message:
					`The search stopped: the service gave the cursor ${key} a second time, which would repeat pages ` +
					`without end`,
				description:
					`${this.read} domains were read before. This is a fault of the service; try again later, or go on ` +
					`from the last good cursor with Options → Start Cursor.`,
			});
		}
		this.sentCursors.add(key);
		this.paging.cursor = next;
		return true;
	}

	/** More domains than the announced total, by more than a page (a live index shifts), means endless cursors. */
	checkRunaway(): void {
		const { total } = this.paging;
		const { received, pages, read } = this;
		const runaway = total !== undefined ? received > total + this.plan.pageSize : pages >= MAX_PAGES_WITHOUT_TOTAL;
		if (!runaway || read >= this.plan.limit) return;
		const announced =
			total !== undefined ? `${total} results in all but sent ${received}` : 'no total and kept giving further pages';
		throw buildApiError(this.context.getNode(), {
			itemIndex: this.plan.itemIndex,
			message: `The search stopped after ${pages} pages: the service announced ${announced}`,
			description: `${read} domains were read. This is a fault of the service; try again later.`,
		});
	}
}

/** Appends one item's domains to `output` page by page (those read before a failure stay); `paging`: where it is. */
export async function searchForItem(
	this: IExecuteFunctions,
	plan: SearchPlan,
	output: INodeExecutionData[],
	paging: Paging,
): Promise<void> {
	const { itemIndex, limit, pageSize } = plan;
	const progress = new SearchProgress(this, plan, paging);
	while (progress.read < limit) {
		const size = Math.min(pageSize, limit - progress.read);
		const { results, next, total } = await fetchPage.call(this, plan, size, paging.cursor);
		progress.pages++;
		progress.checkDomains(results);
		if (typeof total === 'number') paging.total = Math.max(paging.total ?? 0, total);
		progress.received += results.length;
		const take = Math.min(results.length, limit - progress.read);
		for (let index = 0; index < take; index++) {
			output.push({ json: results[index] as IDataObject, pairedItem: { item: itemIndex } });
		}
		progress.read += take;
		if (!progress.advance(next, results.length)) break;
		progress.checkRunaway();
	}
	if (plan.includePagingInfo && progress.read > 0) {
		const last = output[output.length - 1];
		const hasMore = paging.cursor !== undefined;
		last.json = { ...last.json, _paging: { total: paging.total ?? null, searchAfter: paging.cursor ?? null, hasMore } };
	}
}
