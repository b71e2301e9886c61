import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { deepCopy, updateDisplayOptions } from 'n8n-workflow';

import { asNodeError, describeValue, operationError } from '../../errors';
import { DatasetLabels, LATEST_LABEL } from '../../helpers/datasets';
import { normalizeDomainName } from '../../helpers/domainName';
import { DomainSet, listedLines } from '../../helpers/domainSet';
import { DEFAULT_SNAPSHOT_FIELDS } from '../../helpers/snapshotFields';
import { readSnapshot } from '../../helpers/snapshotReader';
import {
	concurrencyOption,
	type DomainOptions,
	idleTimeoutOption,
	maxAttemptsOption,
	optionsCollection,
	readCallLimits,
	removeWwwOption,
	requestDeadlineOption,
} from '../common';
import { datasetLabelProperty } from '../dataset/sharedParameters';
import { type LookUp, type NodeError, readItemsThenLookUp } from './lookup';

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
	optionsCollection([
		{
			displayName: 'Source',
			name: 'source',
			type: 'options',
			default: 'lookup',
			options: [
				{
					name: 'Lookup',
					value: 'lookup',
					description:
						'Bulk calls of 100 distinct names each, current data: cheaper for up to a few hundred names (a ' +
						'few calls, seconds)',
				},
				{
					name: 'Snapshot',
					value: 'snapshot',
					description:
						'One stream read of a dated snapshot for all names, no bulk call: cheaper from a few thousand ' +
						"names on (10,000 names are 100 calls by lookup). The data is as of the snapshot's date, and the " +
						'read takes as long as streaming the whole snapshot (about a million lines).',
				},
			],
			description: 'Where the domain data comes from',
		},
		{
			...datasetLabelProperty('The snapshot to read the domains from (empty: "Latest").'),
			required: false,
			displayOptions: { show: { source: ['snapshot'] } },
		},
		concurrencyOption,
		{ ...idleTimeoutOption, displayOptions: { show: { source: ['snapshot'] } } },
		maxAttemptsOption,
		requestDeadlineOption,
		removeWwwOption,
	]),
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

type EnrichOptions = DomainOptions & { source?: string; label?: unknown };

/**
 * Source Snapshot: every name from one stream read of the chosen snapshot (only the listed names' lines are parsed;
 * it stops once all are found), each record with the snapshot's `label`. Memory: the names and their records.
 */
const lookUpInSnapshot: LookUp = async (context, names, continueOnFail) => {
	const node = context.getNode();
	const options = context.getNodeParameter('options', 0, {}) as EnrichOptions;
	const limits = readCallLimits(node, options, 0, true);
	const found = new Map<string, IDataObject>();
	const failed = new Map<string, NodeError>();
	if (names.length === 0) return { found, failed };
	const listed = new DomainSet(names.length);
	for (const name of names) listed.add(name);
	try {
		const wanted = String(options.label ?? '').trim() || LATEST_LABEL;
		const label = await new DatasetLabels(context).label(wanted, limits, 0);
		const records = readSnapshot.call(context, {
			label,
			fields: DEFAULT_SNAPSHOT_FIELDS,
			filter: { domains: { names: listed, rejected: { count: 0, examples: [] } } },
			wanted: listedLines(listed),
			limits,
			itemIndex: 0,
		});
		for await (const batch of records) {
			for (const record of batch) {
				// A name listed twice by the snapshot: its first record counts.
				if (!found.has(record.name as string)) found.set(record.name as string, { ...record, label });
			}
			if (found.size === names.length) break;
		}
	} catch (error) {
		const failure = asNodeError(node, error);
		if (!continueOnFail) throw failure;
		for (const name of names) if (!found.has(name)) failed.set(name, failure);
	}
	return { found, failed };
};

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const read = (itemIndex: number) => planItem.call(this, items[itemIndex], itemIndex);
	const options = this.getNodeParameter('options', 0, {}) as EnrichOptions;
	const source = String(options.source ?? 'lookup').trim() || 'lookup';
	if (source !== 'lookup' && source !== 'snapshot') {
		const message = `The option "Source" must be lookup or snapshot, got ${describeValue(source)}`;
		throw operationError(this.getNode(), message, {
			description: 'Choose Lookup (bulk calls, current data) or Snapshot (one stream read of a dated snapshot).',
		});
	}
	const lookUp = source === 'snapshot' ? lookUpInSnapshot : undefined;
	const { requests, found, failed } = await readItemsThenLookUp(this, items, read, (plan) => [plan.name], lookUp);
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

// Item fields by name or dot path ("company.website", "contacts[0].email"), as n8n's own nodes accept them.

function pathParts(path: string): string[] {
	return path
		.replace(/\[(\d+)\]/g, '.$1')
		.split('.')
		.filter((part) => part.length > 0);
}

/** The value at `path`; a key that holds the dots itself (a CSV column "company.website") wins over the path. */
export function getFieldValue(json: IDataObject, path: string): unknown {
	if (Object.prototype.hasOwnProperty.call(json, path)) return json[path];
	let current: unknown = json;
	for (const part of pathParts(path)) {
		if (current === null || typeof current !== 'object') return undefined;
		if (!Object.prototype.hasOwnProperty.call(current, part)) return undefined;
		current = (current as Record<string, unknown>)[part];
	}
	return current;
}

/** A copy of `json` with `value` at `path`; objects along the path are copied, never changed. */
export function setFieldValue(json: IDataObject, path: string, value: unknown): IDataObject {
	const parts = pathParts(path);
	if (parts.length <= 1) return { ...json, [parts[0] ?? path]: value } as IDataObject;
	const [head, ...rest] = parts;
	const child = json[head];
	const base = child !== null && typeof child === 'object' && !Array.isArray(child) ? (child as IDataObject) : {};
	return { ...json, [head]: setFieldValue(base, rest.join('.'), value) } as IDataObject;
}
