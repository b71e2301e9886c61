import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { deepCopy, updateDisplayOptions } from 'n8n-workflow';

import { count, describeValue, operationError, quoteFew } from '../../errors';
import { normalizeDomainName, splitDomainList } from '../../helpers/domainName';
import {
	concurrencyOption,
	type DomainOptions,
	maxAttemptsOption,
	optionsCollection,
	removeWwwOption,
	requestDeadlineOption,
} from '../common';
import { continuesOnFail, errorJson, isUnread, type OperationExecute, readItems, type ToolBounds } from '../perItem';
import { DEFAULT_CALL_LIMITS } from '../../transport';
import { lookUp, readLookupCalls } from './lookup';

const properties: INodeProperties[] = [
	{
		displayName: 'Domains',
		name: 'domains',
		type: 'string',
		typeOptions: { rows: 4 },
		required: true,
		default: '',
		placeholder: 'example.com, example.org',
		description:
			'Domain names, URLs or email addresses, separated by commas, spaces or new lines, or a list from an ' +
			'expression. Each distinct domain is asked once, 100 per call.',
	},
	optionsCollection([
		concurrencyOption,
		{
			displayName: 'Ignore Invalid Names',
			name: 'ignoreInvalid',
			type: 'boolean',
			default: false,
			description:
				'Whether to leave out values that are not domain names, URLs or email addresses instead of stopping with an ' +
				'error that lists them',
		},
		{
			displayName: 'Include Not Found',
			name: 'includeNotFound',
			type: 'boolean',
			default: false,
			description:
				'Whether to output { name, found: false } for each domain that is not in the index, in its place in the order',
		},
		maxAttemptsOption,
		requestDeadlineOption,
		removeWwwOption,
	]),
];

export const description = updateDisplayOptions({ show: { resource: ['domain'], operation: ['bulk'] } }, properties);

type BulkOptions = DomainOptions & { ignoreInvalid?: boolean; includeNotFound?: boolean };

/** One item's distinct names in the order given, and how to call; a tool's first within its bound (`namesLeft`). */
function planItem(this: IExecuteFunctions, itemIndex: number, tool?: ToolBounds) {
	const node = this.getNode();
	const entries = splitDomainList(this.getNodeParameter('domains', itemIndex));
	const options = this.getNodeParameter('options', itemIndex, {}) as BulkOptions;
	const asked = tool ? entries.slice(0, tool.records) : entries;
	const names = new Set<string>();
	const invalid: string[] = [];
	for (const entry of asked) {
		const normalized = normalizeDomainName(entry, { removeWww: options.removeWww });
		if (normalized.ok) names.add(normalized.name);
		else if (!options.ignoreInvalid) invalid.push(`${describeValue(entry)} (${normalized.reason})`);
	}
	if (invalid.length > 0) {
		const shown = quoteFew(invalid, invalid.length, String);
		const values = invalid.length === 1 ? 'A value is' : `${count(invalid.length)} values are`;
		throw operationError(node, `${values} not a domain name, URL or email address: ${shown}`, {
			itemIndex,
			description: 'Correct or remove these values, or turn on Options → Ignore Invalid Names to leave them out.',
		});
	}
	return {
		names: [...names],
		namesLeft: entries.slice(asked.length),
		includeNotFound: tool !== undefined || options.includeNotFound === true,
		calls: readLookupCalls(node, options, itemIndex),
	};
}

export const execute: OperationExecute = async function (items, tool) {
	const continueOnFail = continuesOnFail(this, tool);
	const requests = readItems(this, items, (itemIndex) => planItem.call(this, itemIndex, tool), continueOnFail);
	const read = requests.filter((request) => !isUnread(request)) as Array<ReturnType<typeof planItem>>;
	const names = new Set(read.flatMap((request) => request.names));
	// One lookup for all items: the calls of the first item that could be read (with none, no name and no call).
	const calls = read[0]?.calls ?? { concurrency: 1, limits: DEFAULT_CALL_LIMITS };
	const { found, failed } = await lookUp(this, [...names], { ...calls, continueOnFail });
	const output: INodeExecutionData[] = [];
	requests.forEach((request, itemIndex) => {
		const pairedItem = { item: itemIndex };
		if (isUnread(request)) {
			output.push({ json: errorJson(this, request.error.message), pairedItem });
			return;
		}
		// With continue-on-fail a failed call costs only its own names, each in its place with the error.
		for (const name of request.names) {
			const domain = found.get(name);
			const error = failed.get(name);
			if (domain) output.push({ json: deepCopy(domain), pairedItem });
			else if (error) output.push({ json: errorJson(this, error.message, { name }), pairedItem });
			else if (request.includeNotFound) output.push({ json: { name, found: false } as IDataObject, pairedItem });
		}
	});
	return { items: output, facts: { namesLeft: read.flatMap((request) => request.namesLeft) } };
};
