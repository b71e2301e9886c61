import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { deepCopy, updateDisplayOptions } from 'n8n-workflow';

import { buildApiError, describeValue, operationError } from '../../errors';
import { normalizeDomainName } from '../../helpers/domainName';
import { apiRequestOrNotFound, unexpectedAnswerError } from '../../transport';
import { maxAttemptsOption, optionsCollection, readCallLimits, requestDeadlineOption } from '../common';
import { forEachItem } from '../perItem';
import { removeWwwOption, type DomainOptions } from './options';

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

	return await forEachItem.call(this, items, async (itemIndex, output) => {
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
		const { name } = normalized;

		if (!answers.has(name)) {
			const answer = (await apiRequestOrNotFound.call(this, {
				method: 'GET',
				path: ['domain', name],
				limits,
				itemIndex,
			})) as { domain?: unknown } | undefined;
			const found = answer?.domain;
			if (answer && (!found || typeof found !== 'object' || Array.isArray(found))) {
				throw unexpectedAnswerError(node, 'the lookup answer has no "domain" object', itemIndex);
			}
			answers.set(name, (found as IDataObject | undefined) ?? null);
		}
		const domain = answers.get(name);

		if (domain) {
			output.push({ json: deepCopy(domain), pairedItem: { item: itemIndex } });
		} else if (options.onNotFound === 'returnNotFound') {
			output.push({ json: { name, found: false }, pairedItem: { item: itemIndex } });
		} else {
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
	});
}
