import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { deepCopy, updateDisplayOptions } from 'n8n-workflow';

import { buildApiError, count, describeValue, operationError } from '../../errors';
import { runPool } from '../../helpers/concurrency';
import { normalizeDomainName } from '../../helpers/domainName';
import { apiRequestOrNotFound, unexpectedAnswerError } from '../../transport';
import {
	concurrencyOption,
	type DomainOptions,
	maxAttemptsOption,
	optionsCollection,
	readCallLimits,
	readConcurrency,
	removeWwwOption,
	requestDeadlineOption,
} from '../common';
import { addHint, continuesOnFail, forEachItem, type OperationExecute, type ToolBounds } from '../perItem';
import { failsEveryCall } from './lookup';

/** From this many input items, a hint points at Bulk Get and Enrich Items (100 names a call). */
const MANY_ITEMS = 100;

const properties: INodeProperties[] = [
	{
		displayName: 'Domain',
		name: 'domain',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'example.com',
		description:
			'The domain to look up: a name (example.com), a URL (https://www.example.com/page) or an email address ' +
			'(jane@example.com)',
	},
	optionsCollection([
		{
			...concurrencyOption,
			description:
				'How many lookups (one name each) to have under way at the same time. Higher is faster but meets rate ' +
				'limits sooner. For many names, Bulk Get or Enrich Items asks for 100 names a call.',
		},
		maxAttemptsOption,
		requestDeadlineOption,
		{
			displayName: 'On Not Found',
			name: 'onNotFound',
			type: 'options',
			default: 'error',
			options: [
				{ name: 'Error', value: 'error', description: 'Stop with an error that names the domain' },
				{
					name: 'Return Not-Found Item',
					value: 'returnNotFound',
					description: 'Output { name, found: false } and go on',
				},
			],
			description: 'What to do when the domain is not in the index',
		},
		removeWwwOption,
	]),
];

export const description = updateDisplayOptions({ show: { resource: ['domain'], operation: ['get'] } }, properties);

/** What one item asks: the name (as given and as the index holds it), the options, the limits of its call. */
function planItem(this: IExecuteFunctions, itemIndex: number, tool?: ToolBounds) {
	const node = this.getNode();
	const value = this.getNodeParameter('domain', itemIndex);
	const options = this.getNodeParameter('options', itemIndex, {}) as DomainOptions & { onNotFound?: string };
	const limits = readCallLimits(node, options, itemIndex);
	const normalized = normalizeDomainName(value, { removeWww: options.removeWww });
	if (!normalized.ok) {
		throw operationError(node, `The domain ${describeValue(value)} is not valid: ${normalized.reason}`, {
			itemIndex,
			description:
				'Enter a domain name (example.com), a URL (https://example.com/page) or an email address (jane@example.com).',
		});
	}
	const concurrency = readConcurrency(node, options, itemIndex);
	// A name not in the index is an answer for a model, not a failure.
	const returnNotFound = tool !== undefined || options.onNotFound === 'returnNotFound';
	return { value, name: normalized.name, limits, concurrency, returnNotFound };
}

type GetPlan = ReturnType<typeof planItem>;

/** The lookups of one run: each name asked once; its answer (null: not in the index) or the failure of its call. */
class Lookups {
	readonly answers = new Map<string, IDataObject | null>();
	readonly failures = new Map<string, unknown>();

	/** A failure every further call would meet (key, credits, plan, no connection): names not asked yet fail with it. */
	private everyCallFails?: unknown;

	constructor(private readonly context: IExecuteFunctions) {}

	async lookUp({ name, limits }: GetPlan, itemIndex: number, onRetry?: () => void): Promise<void> {
		if (this.everyCallFails !== undefined) throw this.everyCallFails;
		const request = { method: 'GET' as const, path: ['domain', name], limits, itemIndex, onRetry };
		const answer = (await apiRequestOrNotFound.call(this.context, request).catch((error: unknown) => {
			if (failsEveryCall(error)) this.everyCallFails = error;
			throw error;
		})) as { domain?: unknown } | undefined;
		const found = answer?.domain;
		if (answer && (!found || typeof found !== 'object' || Array.isArray(found))) {
			throw unexpectedAnswerError(this.context.getNode(), 'the lookup answer has no "domain" object', itemIndex);
		}
		this.answers.set(name, (found as IDataObject | undefined) ?? null);
	}

	/**
	 * With Concurrency above 1, the items' distinct names are looked up ahead, a few at a time, until one fails; a name
	 * not in the index fails there too when it will stop the node (`stopsAtNotFound`): no lookup after it is paid for.
	 */
	async ahead(count: number, plan: (itemIndex: number) => GetPlan, stopsAtNotFound: boolean): Promise<GetPlan[]> {
		const read: GetPlan[] = [];
		const firstAsking = new Map<string, number>();
		for (let itemIndex = 0; itemIndex < count; itemIndex++) {
			try {
				read[itemIndex] = plan(itemIndex);
			} catch {
				break;
			}
			if (!firstAsking.has(read[itemIndex].name)) firstAsking.set(read[itemIndex].name, itemIndex);
		}
		const concurrency = read[0]?.concurrency ?? 1;
		if (concurrency <= 1) return read;
		const planned = [...firstAsking.values()];
		const outcome = await runPool(planned.length, concurrency, async (index, control) => {
			const [request, itemIndex] = [read[planned[index]], planned[index]];
			await this.lookUp(request, itemIndex, () => control.holdOthers());
			const stops = stopsAtNotFound && !request.returnNotFound && this.answers.get(request.name) === null;
			if (stops) throw notFoundError(this.context.getNode(), request, itemIndex);
		});
		for (const [index, error] of outcome.failures) this.failures.set(read[planned[index]].name, error);
		return read;
	}
}

/** The domain an item asked for, or the not-found error (a 404 of the lookup) unless it returns not-found items. */
function answerOf(this: IExecuteFunctions, lookups: Lookups, plan: GetPlan, itemIndex: number): IDataObject {
	const domain = lookups.answers.get(plan.name);
	if (domain) return deepCopy(domain);
	if (plan.returnNotFound) return { name: plan.name, found: false };
	throw notFoundError(this.getNode(), plan, itemIndex);
}

function notFoundError(node: INode, { value, name }: GetPlan, itemIndex: number) {
	const asked = typeof value === 'string' && value.trim() !== name ? ` (from ${describeValue(value)})` : '';
	return buildApiError(node, {
		httpCode: '404',
		itemIndex,
		message: `The domain "${name}"${asked} is not in the index`,
		description:
			'The Domain Data index holds ranked websites, and this name is not one of them. Check the spelling, or set ' +
			'Options → On Not Found to "Return Not-Found Item" to go on with { name, found: false }.',
	});
}

export const execute: OperationExecute = async function (items, tool) {
	const lookups = new Lookups(this);
	const plan = (itemIndex: number) => planItem.call(this, itemIndex, tool);
	const read = items.length > 1 ? await lookups.ahead(items.length, plan, !continuesOnFail(this, tool)) : [];
	const run = async (itemIndex: number, output: INodeExecutionData[]) => {
		const request = read[itemIndex] ?? plan(itemIndex);
		if (lookups.failures.has(request.name)) throw lookups.failures.get(request.name);
		if (!lookups.answers.has(request.name)) await lookups.lookUp(request, itemIndex);
		output.push({ json: answerOf.call(this, lookups, request, itemIndex), pairedItem: { item: itemIndex } });
	};
	const output = await forEachItem.call(this, items, run, tool);
	if (items.length >= MANY_ITEMS) {
		addHint(
			this,
			`${count(items.length)} items asked for one domain each (${count(lookups.answers.size)} lookups): Bulk Get, or ` +
				'Enrich Items for names in a field of the items, asks for 100 names a call.',
		);
	}
	return { items: output, facts: {} };
};
