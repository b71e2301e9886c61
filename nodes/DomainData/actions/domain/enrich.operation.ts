import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { deepCopy, updateDisplayOptions } from 'n8n-workflow';

import { describeValue, operationError } from '../../errors';
import { normalizeDomainName } from '../../helpers/domainName';
import { getFieldValue, setFieldValue } from '../../helpers/fieldPath';
import { maxAttemptsOption, optionsCollection, requestDeadlineOption } from '../common';
import { readItemsThenLookUp } from './lookup';
import { concurrencyOption, removeWwwOption, type DomainOptions } from './options';

const properties: INodeProperties[] = [
	{
		displayName: 'Domain Field',
		name: 'domainField',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'website',
		description:
			'Name of the input field that holds a domain name, URL or email address. Dot paths such as company.website work.',
	},
	{
		displayName: 'Destination Field',
		name: 'destinationField',
		type: 'string',
		required: true,
		default: 'domainData',
		description:
			'Name of the field to put the domain data in; a domain not in the index gets { name, found: false }. Dot paths ' +
			'work.',
	},
	optionsCollection([concurrencyOption, maxAttemptsOption, requestDeadlineOption, removeWwwOption]),
];

export const description = updateDisplayOptions({ show: { resource: ['domain'], operation: ['enrich'] } }, properties);

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** The name an input item asks for and where its answer goes. */
function planItem(this: IExecuteFunctions, item: INodeExecutionData, itemIndex: number) {
	const node = this.getNode();
	const field = String(this.getNodeParameter('domainField', itemIndex, '')).trim();
	const destination = String(this.getNodeParameter('destinationField', itemIndex, '')).trim();
	const options = this.getNodeParameter('options', itemIndex, {}) as DomainOptions;
	if (!field) {
		throw operationError(node, 'Domain Field is empty', {
			itemIndex,
			description: 'Enter the name of the input field that holds the domain, URL or email address, e.g. website.',
		});
	}
	if (!destination || destination.split(/[.[\]]/).some((part) => UNSAFE_KEYS.has(part))) {
		throw operationError(node, `Destination Field ${describeValue(destination)} cannot be used`, {
			itemIndex,
			description: 'Enter a field name such as domainData.',
		});
	}
	const value = getFieldValue(item.json, field);
	if (value === undefined) {
		throw operationError(node, `Item ${itemIndex} has no field "${field}"`, {
			itemIndex,
			description:
				'Domain Field is the name of the field (e.g. website), not its value. Check the name, or turn on "Continue" ' +
				'in the node settings to let such items through with an error.',
		});
	}
	const normalized = normalizeDomainName(value, { removeWww: options.removeWww });
	if (!normalized.ok) {
		const holds = `the field "${field}" holds ${describeValue(value)}`;
		throw operationError(node, `Item ${itemIndex}: ${holds}, which cannot be looked up: ${normalized.reason}`, {
			itemIndex,
			description:
				'The field must hold a domain name, URL or email address. Turn on "Continue" in the node settings to let ' +
				'such items through with an error.',
		});
	}
	return { name: normalized.name, destination };
}

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const read = (itemIndex: number) => planItem.call(this, items[itemIndex], itemIndex);
	const { requests, found, failed } = await readItemsThenLookUp(this, items, read, (plan) => [plan.name]);
	// n8n's "Continue (using error output)" routes an item whose json is only `{ error }` and merges the input row
	// back into it; with "Continue (regular output)" nothing merges it, so the row keeps its fields.
	const toErrorOutput = this.getNode().onError === 'continueErrorOutput';
	const failedItem = (item: INodeExecutionData, message: string): IDataObject =>
		toErrorOutput ? { error: message } : { ...item.json, error: message };

	return requests.map((plan, itemIndex) => {
		const item = items[itemIndex];
		const pairedItem = { item: itemIndex };
		const passThrough = item.binary ? { binary: item.binary } : {};
		if ('error' in plan) return { json: failedItem(item, plan.error.message), pairedItem, ...passThrough };
		const failure = failed.get(plan.name);
		if (failure) return { json: failedItem(item, failure.message), pairedItem, ...passThrough };
		const domain = found.get(plan.name);
		const value: IDataObject = domain ? deepCopy(domain) : { name: plan.name, found: false };
		return { json: setFieldValue(item.json, plan.destination, value), pairedItem, ...passThrough };
	});
}
