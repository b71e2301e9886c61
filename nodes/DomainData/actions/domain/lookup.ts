/**
 * Bulk lookup shared by Bulk Get and Enrich Items: every distinct name once, 100 names a call, a few
 * calls at a time, results matched to the names by name (the service does not keep the request order).
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, NodeApiError, NodeOperationError } from 'n8n-workflow';

import { chunk, runPool } from '../../helpers/concurrency';
import { asNodeError } from '../../helpers/nodeErrors';
import { apiRequest } from '../../transport';
import { unexpectedAnswerError } from '../../transport/errors';
import { concurrencyOf, type DomainOptions } from './options';

/** The most names the service accepts in one bulk call. */
export const BULK_MAX_NAMES = 100;

export interface LookupOutcome {
	/** Domain objects by the (normalised) name that was asked. */
	found: Map<string, IDataObject>;
	/** Names that could not be asked because a call failed, with that call's error. */
	failed?: { error: unknown; names: Set<string> };
}

interface BulkAnswer {
	domains?: unknown;
}

/**
 * Looks up `names` (normalised, distinct). After a failed call no further call starts; the names of the
 * failed call and of the calls never made are reported in `failed`.
 */
export async function lookupDomains(
	this: IExecuteFunctions,
	names: string[],
	options: { concurrency: number; maxAttempts?: number },
): Promise<LookupOutcome> {
	const batches = chunk(names, BULK_MAX_NAMES);
	const found = new Map<string, IDataObject>();
	const outcome = await runPool(batches.length, options.concurrency, async (index) => {
		const answer = (await apiRequest.call(this, {
			method: 'POST',
			path: ['domain', 'bulk'],
			body: { domains: batches[index] },
			maxAttempts: options.maxAttempts,
		})) as BulkAnswer;
		if (!Array.isArray(answer.domains)) {
			throw unexpectedAnswerError(this.getNode(), 'the bulk answer has no "domains" list');
		}
		const asked = new Set(batches[index]);
		for (const domain of answer.domains as unknown[]) {
			if (!domain || typeof domain !== 'object' || typeof (domain as IDataObject).name !== 'string') continue;
			const name = ((domain as IDataObject).name as string).toLowerCase().replace(/\.$/, '');
			if (asked.has(name)) found.set(name, domain as IDataObject);
		}
	});
	if (outcome.error === undefined) return { found };
	const failedNames = new Set<string>();
	for (const index of outcome.notDone) for (const name of batches[index]) failedNames.add(name);
	return { found, failed: { error: outcome.error, names: failedNames } };
}

/** An input item that could not be read: kept in its place when the node continues on fail. */
export interface FailedItem {
	error: NodeApiError | NodeOperationError;
}

/**
 * Reads every input item first (a bad value stops the node before any credit is spent), then looks up
 * the distinct names of all items together. With continue-on-fail a bad item is kept as a `FailedItem`;
 * without it, a failed lookup call stops the node.
 */
export async function readItemsThenLookUp<T>(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	readItem: (itemIndex: number) => T,
	namesOf: (request: T) => string[],
): Promise<{ requests: Array<T | FailedItem>; outcome: LookupOutcome }> {
	const node = context.getNode();
	const continueOnFail = context.continueOnFail();
	const requests: Array<T | FailedItem> = [];
	const distinct = new Set<string>();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const request = readItem(itemIndex);
			namesOf(request).forEach((name) => distinct.add(name));
			requests.push(request);
		} catch (error) {
			if (!continueOnFail) throw asNodeError(node, error, itemIndex);
			requests.push({ error: asNodeError(node, error, itemIndex) });
		}
	}

	const options = context.getNodeParameter('options', 0, {}) as DomainOptions;
	const outcome = await lookupDomains.call(context, [...distinct], {
		concurrency: concurrencyOf(options),
		maxAttempts: options.maxAttempts,
	});
	if (outcome.failed && !continueOnFail) throw asNodeError(node, outcome.failed.error);
	return { requests, outcome };
}
