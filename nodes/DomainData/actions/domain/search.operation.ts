import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { buildApiError, describeValue, operationError } from '../../errors';
import { readWholeNumber } from '../../parameters';
import { apiRequest, cursorValue, parseJsonExact, unexpectedAnswerError } from '../../transport';
import {
	maxAttemptsOption,
	readCallLimits,
	readLimit,
	requestDeadlineOption,
	returnAllOrLimit,
	optionsCollection,
} from '../common';
import { addHint } from '../dataset/sink/source';
import { forEachItem } from '../perItem';
import { filtersNamed, filtersObject, filtersProblem, unappliedFilters } from './searchFilters';

/** Page size when the user sets none: few calls, and small enough for most plans. */
const DEFAULT_PAGE_SIZE = 100;
/** Where the service gives no total, the number of pages after which paging stops as runaway. */
const MAX_PAGES_WITHOUT_TOTAL = 100_000;
/** Body keys that the node sets itself from its parameters. */
const PAGING_KEYS = ['pageSize', 'searchAfter'];

const properties: INodeProperties[] = [
	...returnAllOrLimit(),
	{
		displayName: 'Filters (JSON)',
		name: 'filters',
		type: 'json',
		default: '{}',
		description:
			'Filters as a JSON object, sent to the service as they are, for example {"language": "de", "technology": ' +
			'"Shopify"}. Leave {} to page through the whole index in rank order.',
	},
	optionsCollection([
		{
			displayName: 'Include Paging Info',
			name: 'includePagingInfo',
			type: 'boolean',
			default: false,
			description:
				'Whether to add _paging: { total, searchAfter, hasMore } to the last item, so that a later run can go on ' +
				'where this one stopped (put searchAfter into Start Cursor)',
		},
		maxAttemptsOption,
		requestDeadlineOption,
		{
			displayName: 'Page Size',
			name: 'pageSize',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: DEFAULT_PAGE_SIZE,
			description:
				'How many domains to ask for per call. The largest size the service accepts depends on the plan; lower it ' +
				'if the service rejects it.',
		},
		{
			displayName: 'Start Cursor',
			name: 'searchAfter',
			type: 'json',
			default: '',
			placeholder: '[2, 36411284]',
			description:
				'Go on after this cursor: the searchAfter value of the paging info of an earlier run (a JSON array, sent ' +
				'back exactly as the service gave it)',
		},
	]),
];

export const description = updateDisplayOptions({ show: { resource: ['domain'], operation: ['search'] } }, properties);

/** Where the search of an item stands: the cursor of the next page (none after the last) and the total announced. */
type Paging = { cursor?: unknown[]; total?: number };

function readFilters(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const raw = this.getNodeParameter('filters', itemIndex, '{}');
	if (typeof raw === 'string' && raw.trim() === '') return {};
	const filters = filtersObject(raw);
	if (!filters) {
		throw operationError(this.getNode(), `Filters must be a JSON object, but they are ${describeValue(raw)}`, {
			itemIndex,
			description: 'Write the filters as a JSON object, for example {"language": "de"}, or {} for no filter.',
		});
	}
	const problem = filtersProblem(filters);
	if (problem) throw operationError(this.getNode(), problem.message, { itemIndex, description: problem.description });
	const paging = PAGING_KEYS.find((key) => key in filters);
	if (paging) {
		throw operationError(this.getNode(), `Filters must not contain "${paging}"`, {
			itemIndex,
			description:
				'The node pages by itself: set the page size in Options → Page Size and a start cursor in Options ' +
				'→ Start Cursor.',
		});
	}
	return filters;
}

function readStartCursor(node: INode, value: unknown, itemIndex: number): unknown[] | undefined {
	if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return undefined;
	let cursor: unknown = value;
	try {
		// A cursor's integers beyond 2^53 keep their digits (parseJsonExact), so that they go back unchanged.
		if (typeof value === 'string') cursor = parseJsonExact(value);
	} catch {
		cursor = undefined;
	}
	if (Array.isArray(cursor) && cursor.length > 0) return cursor;
	const message = `The Start Cursor must be a JSON array such as [2, 36411284], but it is ${describeValue(value)}`;
	throw operationError(node, message, {
		itemIndex,
		description:
			'Use the searchAfter value of the paging info of an earlier run (Options → Include Paging Info), unchanged.',
	});
}

function kindOf(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Searches for one input item, page by page, and appends its domains to `output` as they come (items read before
 * a failure stay there). Once the parameters are read, hands its `Paging` to `onPaging` when it is to be shown.
 */
async function searchForItem(
	this: IExecuteFunctions,
	itemIndex: number,
	output: INodeExecutionData[],
	onPaging: (paging: Paging) => void,
): Promise<void> {
	const node = this.getNode();
	const limit = readLimit.call(this, itemIndex) ?? Infinity;
	const filters = readFilters.call(this, itemIndex);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const pageSize = readWholeNumber(node, options.pageSize, 'option "Page Size"', {
		itemIndex,
		fallback: DEFAULT_PAGE_SIZE,
	});
	const limits = readCallLimits(node, options, itemIndex);
	const paging: Paging = { cursor: readStartCursor(node, options.searchAfter, itemIndex) };
	if (options.includePagingInfo === true) onPaging(paging);

	// Cursors sent so far: a cursor the service gives twice would page forever.
	const sentCursors = new Set<string>();
	if (paging.cursor) sentCursors.add(JSON.stringify(paging.cursor));
	let pages = 0;
	let read = 0;
	/** Domains the service sent, also those past the limit. */
	let received = 0;

	while (read < limit) {
		const size = Math.min(pageSize, limit - read);
		const { cursor } = paging;
		const page = (await apiRequest.call(this, {
			method: 'POST',
			path: ['domain', 'search'],
			body: { ...filters, pageSize: size, ...(cursor && { searchAfter: cursor.map(cursorValue) as IDataObject[] }) },
			limits,
			itemIndex,
			badRequestDescription:
				`Check Filters (${filtersNamed(filters)}) and the options. If the service speaks of ` +
				`the page size: the largest page depends on the plan, lower Options → Page Size (this call asked for ` +
				`${size}).`,
		})) as { results?: unknown; search_after?: unknown; total?: unknown };
		pages++;

		if (!Array.isArray(page.results)) {
			throw unexpectedAnswerError(node, 'the search answer has no "results" list', itemIndex);
		}
		const results = page.results as unknown[];
		// Anything but a JSON object would become a broken item (a string spreads into "0", "1"…).
		const notDomain = results.findIndex((result) => !result || typeof result !== 'object' || Array.isArray(result));
		if (notDomain >= 0) {
			const what = `search result ${notDomain + 1} of page ${pages} is ${kindOf(results[notDomain])}`;
			throw unexpectedAnswerError(node, `${what}, not a domain object`, itemIndex);
		}
		if (typeof page.total === 'number') paging.total = Math.max(paging.total ?? 0, page.total);
		received += results.length;
		const take = Math.min(results.length, limit - read);
		for (let index = 0; index < take; index++) {
			output.push({ json: results[index] as IDataObject, pairedItem: { item: itemIndex } });
		}
		read += take;

		// The end: no further cursor, or a page without domains (whatever its cursor and `total` say: a cursor that
		// brings nothing would be paid for page after page).
		const next = page.search_after;
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

		// Pages may be shorter than asked (a plan's cap): the guard counts domains. More than the announced total, by
		// more than a page (a live index may shift a domain while it is read), means cursors that never end.
		const { total } = paging;
		const runaway = total !== undefined ? received > total + pageSize : pages >= MAX_PAGES_WITHOUT_TOTAL;
		if (runaway && read < limit) {
			const announced =
				total !== undefined ? `${total} results in all but sent ${received}` : 'no total and kept giving further pages';
			throw buildApiError(node, {
				itemIndex,
				message: `The search stopped after ${pages} pages: the service announced ${announced}`,
				description: `${read} domains were read. This is a fault of the service; try again later.`,
			});
		}
	}

	if (options.includePagingInfo === true && read > 0) {
		const last = output[output.length - 1];
		const hasMore = paging.cursor !== undefined;
		last.json = { ...last.json, _paging: { total: paging.total ?? null, searchAfter: paging.cursor ?? null, hasMore } };
	}
}

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	// The paging of the item under way, when it shows paging info: its error item then tells where to go on.
	let shown: Paging | undefined;
	const errorFields = () => shown && { _paging: { total: shown.total ?? null, searchAfter: shown.cursor ?? null } };
	const run = async (itemIndex: number, output: INodeExecutionData[]) => {
		shown = undefined;
		const first = output.length;
		await searchForItem.call(this, itemIndex, output, (paging) => (shown = paging));
		const domains = output.slice(first).map((item) => item.json);
		for (const { text } of unappliedFilters(this.getNodeParameter('filters', itemIndex, '{}'), domains)) {
			const whose = items.length > 1 ? ` for item ${itemIndex}` : '';
			addHint(
				this,
				`The service did not apply ${text}${whose}: the output holds domains this filter should have left out. ` +
					"Check the filter's name and value against the service's documentation.",
			);
		}
	};
	return await forEachItem.call(this, items, run, { errorFields });
}
