import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeApiError, updateDisplayOptions } from 'n8n-workflow';

import { asNodeError, describeValue, operationError, withToolHelp } from '../../errors';
import { readWholeNumber } from '../../parameters';
import { parseJsonExact } from '../../transport';
import {
	maxAttemptsOption,
	readCallLimits,
	readLimit,
	requestDeadlineOption,
	returnAllOrLimit,
	optionsCollection,
} from '../common';
import { addHint, failedWith, forEachItem, type OperationExecute, type RunFacts, type ToolBounds } from '../perItem';
import { readSearchFilters, unappliedFilters } from './searchFilters';
import { type Paging, pagingInfo, type SearchPlan, searchForItem } from './searchPaging';

/** Page size when the user sets none: few calls, and small enough for most plans. */
const DEFAULT_PAGE_SIZE = 100;

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
	const description =
		'Use the searchAfter value of the paging info of an earlier run (Options → Include Paging Info), unchanged.';
	throw operationError(node, message, { itemIndex, description });
}

/** What one item asks: its filters, the Limit, pages, cursor and paging info. */
function planItem(this: IExecuteFunctions, itemIndex: number, tool?: ToolBounds): SearchPlan {
	const node = this.getNode();
	const limit = readLimit.call(this, itemIndex, tool, false) ?? Infinity;
	const filters = readSearchFilters(node, this.getNodeParameter('filters', itemIndex, '{}'), itemIndex);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const rule = { itemIndex, fallback: DEFAULT_PAGE_SIZE };
	const pageSize = readWholeNumber(node, options.pageSize, 'option "Page Size"', rule);
	const limits = readCallLimits(node, options, itemIndex);
	const startCursor = readStartCursor(node, options.searchAfter, itemIndex);
	// A tool's answer tells the total and whether there are more.
	const includePagingInfo = tool !== undefined || options.includePagingInfo === true;
	return { itemIndex, limit, filters, pageSize, limits, startCursor, includePagingInfo };
}

export const execute: OperationExecute = async function (items, tool) {
	const facts: RunFacts = {};
	const run = async (itemIndex: number, output: INodeExecutionData[]) => {
		const plan = planItem.call(this, itemIndex, tool);
		if (tool) facts.shownAtMost = plan.limit;
		const paging: Paging = {};
		const first = output.length;
		try {
			await searchForItem.call(this, plan, output, paging);
		} catch (error) {
			const failure = asNodeError(this.getNode(), error, itemIndex);
			// A refused search (400): the tool's words name the filter keys sent.
			if (failure instanceof NodeApiError && failure.httpCode === '400') {
				withToolHelp(failure, 'searchFilters', Object.keys(plan.filters));
			}
			// With paging info shown, the error item tells where to go on.
			if (!plan.includePagingInfo) throw failure;
			const info = pagingInfo(paging);
			const resume =
				paging.cursor && `To go on from there, set the option "Start Cursor" to ${JSON.stringify(info.searchAfter)}.`;
			throw failedWith(failure, { _paging: info }, resume);
		}
		const domains = output.slice(first).map((item) => item.json);
		facts.unapplied = unappliedFilters(plan.filters, domains);
		for (const { text } of facts.unapplied) {
			const whose = items.length > 1 ? ` for item ${itemIndex}` : '';
			addHint(
				this,
				`The service did not apply ${text}${whose}: the output holds domains this filter should have left out. ` +
					"Check the filter's name and value against the service's documentation.",
			);
		}
	};
	return { items: await forEachItem.call(this, items, run, tool), facts };
};
