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
import { errorJson } from '../perItem';
import { readItemsThenLookUp } from './lookup';

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

/** What one input item asks for: its distinct names in the order given. */
function readItemRequest(this: IExecuteFunctions, itemIndex: number) {
	const value = this.getNodeParameter('domains', itemIndex);
	const options = this.getNodeParameter('options', itemIndex, {}) as DomainOptions & {
		ignoreInvalid?: boolean;
		includeNotFound?: boolean;
	};
	const names = new Set<string>();
	const invalid: string[] = [];
	for (const entry of splitDomainList(value)) {
		const normalized = normalizeDomainName(entry, { removeWww: options.removeWww });
		if (normalized.ok) names.add(normalized.name);
		else if (!options.ignoreInvalid) invalid.push(`${describeValue(entry)} (${normalized.reason})`);
	}
	if (invalid.length > 0) {
		const shown = quoteFew(invalid, invalid.length, String);
		const values = invalid.length === 1 ? 'A value is' : `${count(invalid.length)} values are`;
		throw operationError(this.getNode(), `${values} not a domain name, URL or email address: ${shown}`, {
			itemIndex,
			description: 'Correct or remove these values, or turn on Options → Ignore Invalid Names to leave them out.',
		});
	}
	return { names: [...names], includeNotFound: options.includeNotFound === true };
}

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const read = readItemRequest.bind(this);
	const { requests, found, failed } = await readItemsThenLookUp(this, items, read, (request) => request.names);
	const output: INodeExecutionData[] = [];
	requests.forEach((request, itemIndex) => {
		const pairedItem = { item: itemIndex };
		if ('error' in request) {
			output.push({ json: { error: request.error.message }, pairedItem });
			return;
		}
		// With continue-on-fail a failed call costs only its own names: each comes out in its place with the error
		// (on the error output when that is chosen, without its name: see errorJson), and every answer paid for is kept.
		for (const name of request.names) {
			const domain = found.get(name);
			const error = failed.get(name);
			if (domain) output.push({ json: deepCopy(domain), pairedItem });
			else if (error) output.push({ json: errorJson(this, error.message, { name }), pairedItem });
			else if (request.includeNotFound) output.push({ json: { name, found: false } as IDataObject, pairedItem });
		}
	});
	return output;
}
