import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { buildApiError, describeValue } from '../../errors';
import { apiRequest, cursorValue, unexpectedAnswerError } from '../../transport';
import { readWholeNumber } from '../../parameters';
import {
	maxAttemptsOption,
	readLimit,
	readMaxAttempts,
	readRequestDeadlineMs,
	requestDeadlineOption,
	returnAllOrLimit,
} from '../common';
import { forEachItem } from '../perItem';
import { readFilters, readStartCursor } from './searchParameters';

/** Page size when the user sets none: few calls, and small enough for most plans. */
export const DEFAULT_PAGE_SIZE = 100;
/** Where the service gives no total, the number of pages after which paging stops as runaway. */
const MAX_PAGES_WITHOUT_TOTAL = 100_000;
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
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
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
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['domain'], operation: ['search'] } }, properties);

interface SearchOptions {
	includePagingInfo?: boolean;
	maxAttempts?: number;
	requestDeadline?: number;
	pageSize?: number;
	searchAfter?: unknown;
}

interface SearchPage {
	results?: unknown;
	search_after?: unknown;
	total?: unknown;
}

/** Where a search stands: what a later run needs to go on from here. */
interface PagingState {
	includePagingInfo: boolean;
	/** The cursor of the next page; undefined before the first page and after the last. */
	cursor?: unknown[];
	total?: number;
	/** Whether the parameters were read and paging began (only then is the cursor meaningful). */
	started: boolean;
}

/** A domain object is a JSON object; anything else would become a broken item (a string spreads into "0", "1"…). */
function isDomainObject(value: unknown): boolean {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function pagingInfo(state: PagingState): IDataObject {
	return { total: state.total ?? null, searchAfter: state.cursor ?? null, hasMore: state.cursor !== undefined };
}

/**
 * Searches for one input item, page by page, and appends its domains to `output` as they come (items
 * read before a failure stay there).
 */
async function searchForItem(
	this: IExecuteFunctions,
	itemIndex: number,
	output: INodeExecutionData[],
	state: PagingState,
): Promise<void> {
	const node = this.getNode();
	const limit = readLimit.call(this, itemIndex) ?? Infinity;
	const filters = readFilters.call(this, itemIndex);
	const options = this.getNodeParameter('options', itemIndex, {}) as SearchOptions;
	state.includePagingInfo = options.includePagingInfo === true;
	const pageSize = readWholeNumber(node, options.pageSize, 'option "Page Size"', {
		itemIndex,
		fallback: DEFAULT_PAGE_SIZE,
	});
	const maxAttempts = readMaxAttempts(node, options, itemIndex);
	const deadlineMs = readRequestDeadlineMs(node, options, itemIndex);
	let cursor = readStartCursor.call(this, options.searchAfter, itemIndex);
	state.cursor = cursor;
	state.started = true;

	// Cursors sent so far: a cursor the service gives twice would page forever.
	const sentCursors = new Set<string>();
	if (cursor) sentCursors.add(JSON.stringify(cursor));
	let total: number | undefined;
	let pages = 0;
	/** Domains output. */
	let read = 0;
	/** Domains the service sent, also those past the limit. */
	let received = 0;

	while (read < limit) {
		const size = Math.min(pageSize, limit - read);
		const page = (await apiRequest.call(this, {
			method: 'POST',
			path: ['domain', 'search'],
			// Integers beyond 2^53 (strings of digits after parsing) go back as the numbers the service wrote.
			body: {
				...filters,
				pageSize: size,
				...(cursor ? { searchAfter: cursor.map(cursorValue) as IDataObject[] } : {}),
			},
			maxAttempts,
			deadlineMs,
			itemIndex,
			badRequestDescription:
				`Check Filters (${JSON.stringify(filters)}) and the options. If the service speaks of ` +
				`the page size: the largest page depends on the plan, lower Options → Page Size (this call asked for ` +
				`${size}).`,
		})) as SearchPage;
		pages++;

		if (!Array.isArray(page.results)) {
			throw unexpectedAnswerError(node, 'the search answer has no "results" list', itemIndex);
		}
		const results = page.results as unknown[];
		const notDomain = results.findIndex((result) => !isDomainObject(result));
		if (notDomain >= 0) {
			throw unexpectedAnswerError(
				node,
				`search result ${notDomain + 1} of page ${pages} is ${kindOf(results[notDomain])}, not a domain object`,
				itemIndex,
			);
		}
		if (typeof page.total === 'number') total = Math.max(total ?? 0, page.total);
		state.total = total;
		received += results.length;
		const take = Math.min(results.length, limit - read);
		for (let index = 0; index < take; index++) {
			output.push({ json: results[index] as IDataObject, pairedItem: { item: itemIndex } });
		}
		read += take;

		// The end: no further cursor, or a page without domains (whatever its cursor and `total` say: a
		// cursor that brings nothing would be paid for page after page and never bring anything).
		const next = page.search_after;
		if (next === undefined || next === null || results.length === 0) {
			cursor = undefined;
			state.cursor = undefined;
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
		cursor = next;
		state.cursor = next;

		// Pages may be shorter than asked (a plan's cap): the guard counts domains, not pages. More domains
		// than the announced total, by more than one page (a live index may shift a domain while it is read),
		// means cursors that move but never end.
		const runaway = total !== undefined ? received > total + pageSize : pages >= MAX_PAGES_WITHOUT_TOTAL;
		if (runaway && read < limit) {
			throw buildApiError(node, {
				itemIndex,
				message:
					total !== undefined
						? `The search stopped after ${pages} pages: the service announced ${total} results in all but sent ` +
							`${received}`
						: `The search stopped after ${pages} pages: the service announced no total and kept giving further pages`,
				description: `${read} domains were read. This is a fault of the service; try again later.`,
			});
		}
	}

	if (state.includePagingInfo && read > 0) {
		const last = output[output.length - 1];
		last.json = { ...last.json, _paging: pagingInfo(state) };
	}
}

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	let state: PagingState;
	return await forEachItem.call(
		this,
		items,
		async (itemIndex, output) => {
			state = { includePagingInfo: false, started: false };
			await searchForItem.call(this, itemIndex, output, state);
		},
		{
			// The domains read before a failure stay in the output; with paging info the error item tells where to go on.
			errorFields: () =>
				state.includePagingInfo && state.started
					? { _paging: { total: state.total ?? null, searchAfter: state.cursor ?? null } }
					: undefined,
		},
	);
}
