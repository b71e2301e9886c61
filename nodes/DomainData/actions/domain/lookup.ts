/** Bulk Get's and Enrich Items' lookup: each distinct name once, 100 a call, answers matched to the names by name. */
import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';

import { asNodeError } from '../../errors';
import type { NodeError } from '../perItem';
import { chunk, runPool } from '../../helpers/concurrency';
import { normalizeDomainName } from '../../helpers/domainName';
import { apiRequest, type CallLimits, classifyNetworkCode, unexpectedAnswerError } from '../../transport';
import { type DomainOptions, readCallLimits, readConcurrency } from '../common';

const BULK_MAX_NAMES = 100;

/** `name` in normal form, or undefined when it is no domain name. */
export function spelledAsAsked(name: unknown, removeWww: boolean): string | undefined {
	const normalized = normalizeDomainName(name, { removeWww });
	return normalized.ok ? normalized.name : undefined;
}

/**
 * Files the answered domains under the asked names, spelled otherwise (case, a final dot) or not; a name that differs
 * only by "www." when exactly one asked name is left for it (www.example.com and example.com never swap data).
 */
function fileAnswers(asked: readonly string[], domains: unknown[], found: Map<string, IDataObject>): void {
	const askedNames = new Set(asked);
	const withoutWww = new Map<string, string[]>();
	for (const name of asked) {
		const key = spelledAsAsked(name, true) ?? name;
		withoutWww.set(key, [...(withoutWww.get(key) ?? []), name]);
	}
	const unmatched: Array<{ key: string; domain: IDataObject }> = [];
	for (const domain of domains as IDataObject[]) {
		if (!domain || typeof domain !== 'object' || typeof domain.name !== 'string') continue;
		const exact = spelledAsAsked(domain.name, false);
		if (exact === undefined) continue;
		if (!askedNames.has(exact)) unmatched.push({ key: spelledAsAsked(domain.name, true) ?? exact, domain });
		else if (!found.has(exact)) found.set(exact, domain);
	}
	for (const { key, domain } of unmatched) {
		const open = (withoutWww.get(key) ?? []).filter((name) => !found.has(name));
		if (open.length === 1) found.set(open[0], domain);
	}
}

/** Failures every further call would meet (key, credits, plan, no connection): no further call is worth making. */
export function failsEveryCall(error: unknown): boolean {
	const { httpCode, context } = (error ?? {}) as { httpCode?: unknown; context?: { networkCode?: unknown } };
	if (['401', '402', '403'].includes(String(httpCode))) return true;
	const code = context?.networkCode;
	return typeof code === 'string' && classifyNetworkCode(code) !== 'dropped';
}

/** How a lookup calls: a few calls at a time under the limits of the item that set them; Continue On Fail or not. */
type LookupCalls = { concurrency: number; limits: CallLimits; continueOnFail: boolean };

/** The Concurrency and call limits of one item's options (Bulk Get, Enrich Items). */
export function readLookupCalls(node: INode, options: DomainOptions, itemIndex: number, offersIdleTimeout = false) {
	return {
		concurrency: readConcurrency(node, options, itemIndex),
		limits: readCallLimits(node, options, itemIndex, offersIdleTimeout),
	};
}

/**
 * Looks up `names`; no new call starts while one is tried again. A call that fails for good stops the node unless it
 * continues on fail: then the other calls are made (unless every call would fail), and `failed` holds the names left.
 */
export async function lookUp(context: IExecuteFunctions, names: string[], calls: LookupCalls) {
	const node = context.getNode();
	const { continueOnFail, concurrency: limit, limits } = calls;
	const batches = chunk(names, BULK_MAX_NAMES);
	const found = new Map<string, IDataObject>();
	const goOnAfter = continueOnFail ? (error: unknown) => !failsEveryCall(error) : undefined;
	const outcome = await runPool(batches.length, { limit, goOnAfter }, async (index, control) => {
		const body = { domains: batches[index] };
		const request = { method: 'POST' as const, path: ['domain', 'bulk'], body, limits, onRetry: control.holdOthers };
		const answer = (await apiRequest.call(context, request)) as { domains?: unknown };
		if (!Array.isArray(answer.domains)) throw unexpectedAnswerError(node, 'the bulk answer has no "domains" list');
		fileAnswers(batches[index], answer.domains, found);
	});
	if (outcome.error !== undefined && !continueOnFail) throw asNodeError(node, outcome.error);
	const failed = new Map<string, NodeError>();
	for (const index of outcome.notDone) {
		const error = asNodeError(node, outcome.failures.get(index) ?? outcome.stoppedBy);
		for (const name of batches[index]) failed.set(name, error);
	}
	return { found, failed };
}

/** What a look-up gives: each name found, and each name left without an answer by a failure (Continue On Fail). */
export type LookedUp = Awaited<ReturnType<typeof lookUp>>;
