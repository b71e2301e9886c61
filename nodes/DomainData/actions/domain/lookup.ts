/**
 * Bulk lookup shared by Bulk Get and Enrich Items: every distinct name once, 100 names a call, a few
 * calls at a time, results matched to the names by name (the service does not keep the request order,
 * and may spell a name otherwise: in Unicode, with "www.").
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';

import { chunk, runPool } from '../../helpers/concurrency';
import { normalizeDomainName } from '../../helpers/domainName';
import { asNodeError } from '../../errors';
import { apiRequest, classifyNetworkCode, unexpectedAnswerError } from '../../transport';
import { readMaxAttempts, readRequestDeadlineMs } from '../common';
import { readConcurrency, type DomainOptions } from './options';

/** The most names the service accepts in one bulk call. */
export const BULK_MAX_NAMES = 100;

export interface LookupOutcome {
	/** Domain objects by the (normalised) name that was asked. */
	found: Map<string, IDataObject>;
	/**
	 * Names that were not looked up, with the error of their call, or, for calls never made because a
	 * failure stopped the lookup, with that failure. Empty when every call succeeded.
	 */
	failed: Map<string, NodeApiError | NodeOperationError>;
	/** The first failure, if any. */
	error?: NodeApiError | NodeOperationError;
}

interface BulkAnswer {
	domains?: unknown;
}

/** The name of an answered domain as the node would ask for it; `removeWww` as in the options. */
function spelledAsAsked(name: string, removeWww: boolean): string | undefined {
	const normalized = normalizeDomainName(name, { removeWww });
	return normalized.ok ? normalized.name : undefined;
}

/**
 * Files the answered domains under the asked names they belong to. A name the service spells otherwise
 * (Unicode for punycode, upper case, a trailing dot) matches after normalisation; a name that differs
 * only by a leading "www." matches when exactly one asked name is left for it, so that a domain asked as
 * both www.example.com and example.com never gets the other one's data.
 */
function fileAnswers(asked: readonly string[], domains: unknown[], found: Map<string, IDataObject>): void {
	const askedNames = new Set(asked);
	const withoutWww = new Map<string, string[]>();
	for (const name of asked) {
		const key = spelledAsAsked(name, true) ?? name;
		withoutWww.set(key, [...(withoutWww.get(key) ?? []), name]);
	}
	const unmatched: Array<{ key: string; domain: IDataObject }> = [];
	for (const domain of domains) {
		if (!domain || typeof domain !== 'object' || typeof (domain as IDataObject).name !== 'string') continue;
		const answered = (domain as IDataObject).name as string;
		const exact = spelledAsAsked(answered, false);
		if (exact === undefined) continue;
		if (askedNames.has(exact)) {
			if (!found.has(exact)) found.set(exact, domain as IDataObject);
		} else {
			unmatched.push({ key: spelledAsAsked(answered, true) ?? exact, domain: domain as IDataObject });
		}
	}
	for (const { key, domain } of unmatched) {
		const open = (withoutWww.get(key) ?? []).filter((name) => !found.has(name));
		if (open.length === 1) found.set(open[0], domain);
	}
}

/**
 * Failures that every further call would meet as well: the key (401), the credits (402), the plan
 * (403), or a service that cannot be reached at all. After these no further call is worth making.
 */
function failsEveryCall(error: unknown): boolean {
	const { httpCode, context } = (error ?? {}) as { httpCode?: unknown; context?: { networkCode?: unknown } };
	if (['401', '402', '403'].includes(String(httpCode))) return true;
	const code = context?.networkCode;
	return typeof code === 'string' && classifyNetworkCode(code) !== 'dropped';
}

/**
 * Looks up `names` (normalised, distinct). While a call is being tried again no new call starts. A call
 * that finally fails stops the lookup (no further call starts), unless `goOnAfterFailure` is set: then
 * the other calls are still made, except after a failure that every call would meet (key, credits, plan,
 * no connection). What did not get an answer is reported in `failed`.
 */
export async function lookupDomains(
	this: IExecuteFunctions,
	names: string[],
	options: { concurrency: number; maxAttempts?: number; deadlineMs?: number; goOnAfterFailure?: boolean },
): Promise<LookupOutcome> {
	const node = this.getNode();
	const batches = chunk(names, BULK_MAX_NAMES);
	const found = new Map<string, IDataObject>();
	const outcome = await runPool(
		batches.length,
		{
			limit: options.concurrency,
			goOnAfter: options.goOnAfterFailure ? (error) => !failsEveryCall(error) : undefined,
		},
		async (index, control) => {
			const answer = (await apiRequest.call(this, {
				method: 'POST',
				path: ['domain', 'bulk'],
				body: { domains: batches[index] },
				maxAttempts: options.maxAttempts,
				deadlineMs: options.deadlineMs,
				onRetry: () => control.holdOthers(),
			})) as BulkAnswer;
			if (!Array.isArray(answer.domains)) {
				throw unexpectedAnswerError(node, 'the bulk answer has no "domains" list');
			}
			fileAnswers(batches[index], answer.domains as unknown[], found);
		},
	);
	const failed = new Map<string, NodeApiError | NodeOperationError>();
	for (const index of outcome.notDone) {
		const error = asNodeError(node, outcome.failures.get(index) ?? outcome.stoppedBy);
		for (const name of batches[index]) failed.set(name, error);
	}
	return { found, failed, error: outcome.error === undefined ? undefined : asNodeError(node, outcome.error) };
}

/** An input item that could not be read: kept in its place when the node continues on fail. */
export interface FailedItem {
	error: NodeApiError | NodeOperationError;
}

/**
 * Reads every input item first (a bad value stops the node before any credit is spent), then looks up
 * the distinct names of all items together. With continue-on-fail a bad item is kept as a `FailedItem`
 * and the names of a failed call are reported in the outcome; without it, a failed lookup call stops the
 * node, and no call starts after the failure.
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
		concurrency: readConcurrency(node, options, 0),
		maxAttempts: readMaxAttempts(node, options, 0),
		deadlineMs: readRequestDeadlineMs(node, options, 0),
		goOnAfterFailure: continueOnFail,
	});
	if (outcome.error && !continueOnFail) throw outcome.error;
	return { requests, outcome };
}
