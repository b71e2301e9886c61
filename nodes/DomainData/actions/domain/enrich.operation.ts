import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { deepCopy, updateDisplayOptions } from 'n8n-workflow';

import { asNodeError, describeValue, operationError } from '../../errors';
import { DatasetLabels, LATEST_LABEL } from '../../helpers/datasets';
import { normalizeDomainName } from '../../helpers/domainName';
import { listedLines, readDomainList } from '../../helpers/domainsFilter';
import { DEFAULT_SNAPSHOT_FIELDS } from '../../helpers/snapshotFields';
import { readSnapshot } from '../../helpers/snapshotReader';
import {
	concurrencyOption,
	type DomainOptions,
	idleTimeoutOption,
	maxAttemptsOption,
	optionsCollection,
	removeWwwOption,
	requestDeadlineOption,
} from '../common';
import { datasetLabelProperty } from '../dataset/sharedParameters';
import type { CallLimits } from '../../transport';
import { continuesOnFail, errorJson, isUnread, type NodeError, type OperationExecute, readItems } from '../perItem';
import { type LookedUp, lookUp, readLookupCalls, spelledAsAsked } from './lookup';

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

type EnrichOptions = DomainOptions & { source?: string; label?: unknown };

/** The name an input item asks for, where its answer goes, and where it is looked up. */
function planItem(this: IExecuteFunctions, item: INodeExecutionData, itemIndex: number) {
	const node = this.getNode();
	const field = String(this.getNodeParameter('domainField', itemIndex, '')).trim();
	const destination = String(this.getNodeParameter('destinationField', itemIndex, '')).trim();
	const options = this.getNodeParameter('options', itemIndex, {}) as EnrichOptions;
	const where = readWhere(node, options, itemIndex);
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
	// Snapshot reads offer Idle Timeout; the calls of a group are those of its first item.
	const calls = readLookupCalls(node, options, itemIndex, where.source === 'snapshot');
	return { name: normalized.name, destination, where, calls };
}

/** Where an item's domain data comes from: bulk lookups, or the snapshot named by Dataset (`latest` when empty). */
type Where = { source: 'lookup' } | { source: 'snapshot'; wantedLabel: string };

function readWhere(node: INode, options: EnrichOptions, itemIndex: number): Where {
	const source = String(options.source ?? 'lookup').trim() || 'lookup';
	if (source === 'lookup') return { source };
	if (source === 'snapshot') return { source, wantedLabel: String(options.label ?? '').trim() || LATEST_LABEL };
	throw operationError(node, `The option "Source" must be lookup or snapshot, got ${describeValue(source)}`, {
		itemIndex,
		description: 'Choose Lookup (bulk calls, current data) or Snapshot (one stream read of a dated snapshot).',
	});
}

/** The snapshot record's names of the facts a lookup names otherwise: Enrich gives the lookup's names either way. */
const LOOKUP_NAMES: ReadonlyMap<string, string> = new Map([['language_code', 'language']]);

/** A snapshot record under the lookup's field names, in its order; its extras (country_code, label) as they are. */
function withLookupNames(record: IDataObject, label: string): IDataObject {
	const renamed = Object.entries(record).map(([field, value]) => [LOOKUP_NAMES.get(field) ?? field, value]);
	return { ...Object.fromEntries(renamed), label };
}

/**
 * Every name from one stream read of the snapshot `label`, which stops once all are found. Records are taken as they
 * arrive, so that a read that fails later leaves only the names not yet found without an answer.
 */
async function lookUpInSnapshot(
	context: IExecuteFunctions,
	names: string[],
	read: { label: string; limits: CallLimits; itemIndex: number; continueOnFail: boolean },
): Promise<LookedUp> {
	const found = new Map<string, IDataObject>();
	const failed = new Map<string, NodeError>();
	// The names as a Domains filter holds them: a snapshot's name spelled otherwise (case, a final dot) still matches.
	const listed = readDomainList(names);
	const { label, limits, itemIndex } = read;
	try {
		const records = readSnapshot.call(context, {
			label,
			fields: DEFAULT_SNAPSHOT_FIELDS,
			filter: { domains: listed },
			wanted: listedLines(listed.names),
			limits,
			itemIndex,
			batchSize: 1,
		});
		for await (const [record] of records) {
			const name = spelledAsAsked(record.name, false) ?? (record.name as string);
			// A name listed twice by the snapshot: its first record counts.
			if (!found.has(name)) found.set(name, withLookupNames(record, label));
			if (found.size === names.length) break;
		}
	} catch (error) {
		const failure = asNodeError(context.getNode(), error, itemIndex);
		if (!read.continueOnFail) throw failure;
		for (const name of names) if (!found.has(name)) failed.set(name, failure);
	}
	return { found, failed };
}

type EnrichRequest = ReturnType<typeof planItem>;

/** The names asked of one source (bulk lookups, or one snapshot), and the first item that asked (its options count). */
type Group = { key: string; label?: string; itemIndex: number; calls: EnrichRequest['calls']; names: Set<string> };

/** The items' names by source: the lookups, each snapshot once (`latest` and its date are one); else `{ error }`. */
async function groupRequests(
	this: IExecuteFunctions,
	requests: Array<EnrichRequest | { error: NodeError }>,
	continueOnFail: boolean,
) {
	const labels = new DatasetLabels(this);
	const resolved = new Map<string, Promise<string>>();
	const groups = new Map<string, Group>();
	const keys: Array<string | undefined> = [];
	for (const [itemIndex, request] of requests.entries()) {
		if (isUnread(request)) continue;
		const { where, calls } = request;
		let label: string | undefined;
		if (where.source === 'snapshot') {
			if (!resolved.has(where.wantedLabel))
				resolved.set(where.wantedLabel, labels.label(where.wantedLabel, calls.limits, itemIndex));
			try {
				label = await resolved.get(where.wantedLabel)!;
			} catch (error) {
				if (!continueOnFail) throw asNodeError(this.getNode(), error, itemIndex);
				requests[itemIndex] = { error: asNodeError(this.getNode(), error, itemIndex) };
				continue;
			}
		}
		const key = label === undefined ? 'lookup' : `snapshot ${label}`;
		const group = groups.get(key) ?? { key, label, itemIndex, calls, names: new Set<string>() };
		groups.set(key, group);
		group.names.add(request.name);
		keys[itemIndex] = key;
	}
	return { groups: [...groups.values()], keys };
}

export const execute: OperationExecute = async function (items, tool) {
	const continueOnFail = continuesOnFail(this, tool);
	const plan = (itemIndex: number) => planItem.call(this, items[itemIndex], itemIndex);
	const requests = readItems(this, items, plan, continueOnFail);
	const { groups, keys } = await groupRequests.call(this, requests, continueOnFail);
	const answers = new Map<string, LookedUp>();
	// One bulk lookup for all lookup items, one stream read per snapshot.
	for (const { key, label, itemIndex, calls, names } of groups) {
		const lookedUp =
			label === undefined
				? lookUp(this, [...names], { ...calls, continueOnFail })
				: lookUpInSnapshot(this, [...names], { label, limits: calls.limits, itemIndex, continueOnFail });
		answers.set(key, await lookedUp);
	}
	const jsonOf = ({ json }: INodeExecutionData, itemIndex: number) => {
		const plan = requests[itemIndex];
		// On the regular output the row keeps its fields beside the error (n8n merges them back on the error output).
		if (isUnread(plan)) return errorJson(this, plan.error.message, json);
		const { found, failed } = answers.get(keys[itemIndex]!)!;
		const failure = failed.get(plan.name);
		if (failure) return errorJson(this, failure.message, json);
		const domain = found.get(plan.name);
		return setFieldValue(json, plan.destination, domain ? deepCopy(domain) : { name: plan.name, found: false });
	};
	const output = items.map((item, itemIndex) => ({
		json: jsonOf(item, itemIndex),
		pairedItem: { item: itemIndex },
		...(item.binary ? { binary: item.binary } : {}),
	}));
	const first = requests.find((request) => !isUnread(request)) as EnrichRequest | undefined;
	return { items: output, facts: { destinationField: first?.destination, enrichSource: first?.where.source } };
};

// Item fields by name or dot path ("company.website", "contacts[0].email"), as n8n's own nodes accept them.

function pathParts(path: string): string[] {
	return path
		.replace(/\[(\d+)\]/g, '.$1')
		.split('.')
		.filter((part) => part.length > 0);
}

/** The value at `path`; a key that holds the dots itself (a CSV column "company.website") wins over the path. */
export function getFieldValue(json: IDataObject, path: string): unknown {
	if (Object.hasOwn(json, path)) return json[path];
	let current: unknown = json;
	for (const part of pathParts(path)) {
		if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) return undefined;
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
