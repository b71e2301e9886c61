import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
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
import { addHint } from '../dataset/sink/source';
import { forEachItem } from '../perItem';

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
				{
					name: 'Error',
					value: 'error',
					description: 'Stop with an error that names the domain',
				},
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

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	// Items that ask for the same name share one call: null = not in the index.
	const answers = new Map<string, IDataObject | null>();
	/** Names whose lookup ahead failed: their items fail with that error, without a second call. */
	const failures = new Map<string, unknown>();
	const readItem = (itemIndex: number) => {
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
		return { value, options, name: normalized.name, limits };
	};
	const lookUp = async ({ name, limits }: ReturnType<typeof readItem>, itemIndex: number, onRetry?: () => void) => {
		const answer = (await apiRequestOrNotFound.call(this, {
			method: 'GET',
			path: ['domain', name],
			limits,
			itemIndex,
			onRetry,
		})) as { domain?: unknown } | undefined;
		const found = answer?.domain;
		if (answer && (!found || typeof found !== 'object' || Array.isArray(found))) {
			throw unexpectedAnswerError(node, 'the lookup answer has no "domain" object', itemIndex);
		}
		answers.set(name, (found as IDataObject | undefined) ?? null);
	};

	// With Concurrency above 1, the distinct names of readable items are looked up ahead, a few at a time (the
	// first failure stops that; the item loop below then meets it in order, or asks again after Continue On Fail).
	const concurrency = items.length > 1 ? readConcurrency(node, this.getNodeParameter('options', 0, {}), 0) : 1;
	/** The items read ahead (each item's parameters are read once). */
	const read: Array<ReturnType<typeof readItem>> = [];
	if (concurrency > 1) {
		/** The first item that asks for each name, up to the first item that cannot be read. */
		const firstAsking = new Map<string, number>();
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				read[itemIndex] = readItem(itemIndex);
			} catch {
				break;
			}
			if (!firstAsking.has(read[itemIndex].name)) firstAsking.set(read[itemIndex].name, itemIndex);
		}
		const planned = [...firstAsking.values()];
		const outcome = await runPool(planned.length, concurrency, (index, control) =>
			lookUp(read[planned[index]], planned[index], () => control.holdOthers()),
		);
		for (const [index, error] of outcome.failures) failures.set(read[planned[index]].name, error);
	}

	const output = await forEachItem.call(this, items, async (itemIndex, output) => {
		const request = read[itemIndex] ?? readItem(itemIndex);
		const { value, options, name } = request;
		if (failures.has(name)) throw failures.get(name);
		if (!answers.has(name)) await lookUp(request, itemIndex);
		const domain = answers.get(name);

		if (!domain && options.onNotFound !== 'returnNotFound') {
			const asked = typeof value === 'string' && value.trim() !== name ? ` (from ${describeValue(value)})` : '';
			throw buildApiError(node, {
				httpCode: '404',
				itemIndex,
				message: `The domain "${name}"${asked} is not in the index`,
				description:
					'The Domain Data index holds ranked websites, and this name is not one of them. Check the spelling, or set ' +
					'Options → On Not Found to "Return Not-Found Item" to go on with { name, found: false }.',
			});
		}
		output.push({ json: domain ? deepCopy(domain) : { name, found: false }, pairedItem: { item: itemIndex } });
	});
	if (items.length >= MANY_ITEMS) {
		addHint(
			this,
			`${count(items.length)} items asked for one domain each (${count(answers.size)} lookups): Bulk Get, or ` +
				'Enrich Items for names in a field of the items, asks for 100 names a call.',
		);
	}
	return output;
}
