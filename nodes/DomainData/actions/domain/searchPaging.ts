/** Search's paging for one item: page after page with the service's cursor, and the guards against endless ones. */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { buildApiError, describeValue } from '../../errors';
import { apiRequest, type CallLimits, cursorValue, unexpectedAnswerError } from '../../transport';
import { filtersNamed } from './searchFilters';

/** Where the service gives no total, the number of pages after which paging stops as runaway. */
const MAX_PAGES_WITHOUT_TOTAL = 100_000;
/** Where the search of an item stands: the cursor of the next page (none after the last) and the total announced. */
export type Paging = { cursor?: unknown[]; total?: number };

/** Paging as the `_paging` of an item states it (without `hasMore`). */
export const pagingInfo = ({ total, cursor }: Paging) => ({ total: total ?? null, searchAfter: cursor ?? null });

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

/**
 * One page of a search: its domains, the next cursor as sent, and the total announced. A result that is not a JSON
 * object would become a broken item (a string spreads into "0", "1"…).
 */
async function fetchPage(
	this: IExecuteFunctions,
	plan: SearchPlan,
	size: number,
	cursor: unknown[] | undefined,
	number: number,
) {
	const { itemIndex, filters, limits } = plan;
	const body = { ...filters, pageSize: size, ...(cursor && { searchAfter: cursor.map(cursorValue) as IDataObject[] }) };
	const badRequestDescription =
		`Check Filters (${filtersNamed(filters)}) and the options. If the service speaks of the page size: the largest ` +
		`page depends on the plan, lower Options → Page Size (this call asked for ${size}).`;
	const path = ['domain', 'search'];
	const request = { method: 'POST' as const, path, body, limits, itemIndex, badRequestDescription };
	const page = (await apiRequest.call(this, request)) as { results?: unknown; search_after?: unknown; total?: unknown };
	const { results } = page;
	if (!Array.isArray(results)) {
		throw unexpectedAnswerError(this.getNode(), 'the search answer has no "results" list', itemIndex);
	}
	const notDomain = results.findIndex((result) => !result || typeof result !== 'object' || Array.isArray(result));
	if (notDomain >= 0) {
		const what = `search result ${notDomain + 1} of page ${number} is ${kindOf(results[notDomain])}`;
		throw unexpectedAnswerError(this.getNode(), `${what}, not a domain object`, itemIndex);
	}
	return { results: results as IDataObject[], next: page.search_after, total: page.total };
}

/**
 * Appends one item's domains to `output` page by page (those read before a failure stay); `paging`: where it is. A
 * cursor the service gives twice, or more domains than the announced total by more than a page (a live index
 * shifts), would page without end: the search stops there.
 */
export async function searchForItem(
	this: IExecuteFunctions,
	plan: SearchPlan,
	output: INodeExecutionData[],
	paging: Paging,
): Promise<void> {
	const { itemIndex, limit, pageSize } = plan;
	const node = this.getNode();
	const sentCursors = new Set<string>();
	paging.cursor = plan.startCursor;
	if (paging.cursor) sentCursors.add(JSON.stringify(paging.cursor));
	let [pages, read, received] = [0, 0, 0];
	while (read < limit) {
		const size = Math.min(pageSize, limit - read);
		const { results, next, total } = await fetchPage.call(this, plan, size, paging.cursor, ++pages);
		if (typeof total === 'number') paging.total = Math.max(paging.total ?? 0, total);
		received += results.length;
		const take = Math.min(results.length, limit - read);
		for (let index = 0; index < take; index++) output.push({ json: results[index], pairedItem: { item: itemIndex } });
		read += take;
		// The end: no cursor, or a page without domains (a cursor that brings nothing).
		if (next === undefined || next === null || results.length === 0) {
			paging.cursor = undefined;
			break;
		}
		if (!Array.isArray(next)) {
			throw unexpectedAnswerError(node, `the search cursor ${describeValue(next)} is not a list`, itemIndex);
		}
		const key = JSON.stringify(next);
		if (sentCursors.has(key)) {
			throw buildApiError(node, {
				itemIndex,
				message:
					`The search stopped: the service gave the cursor ${key} a second time, which would repeat pages ` +
					`without end`,
				description:
					`${read} domains were read before. This is a fault of the service; try again later, or go on ` +
					`from the last good cursor with Options → Start Cursor.`,
			});
		}
		sentCursors.add(key);
		paging.cursor = next;
		const runaway = paging.total !== undefined ? received > paging.total + pageSize : pages >= MAX_PAGES_WITHOUT_TOTAL;
		if (!runaway || read >= limit) continue;
		const announced =
			paging.total !== undefined
				? `${paging.total} results in all but sent ${received}`
				: 'no total and kept giving further pages';
		throw buildApiError(node, {
			itemIndex,
			message: `The search stopped after ${pages} pages: the service announced ${announced}`,
			description: `${read} domains were read. This is a fault of the service; try again later.`,
		});
	}
	if (plan.includePagingInfo && read > 0) {
		const last = output[output.length - 1];
		last.json = { ...last.json, _paging: { ...pagingInfo(paging), hasMore: paging.cursor !== undefined } };
	}
}
