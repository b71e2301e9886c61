import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { DatasetLabels } from '../../helpers/datasets';
import { maxAttemptsOption, readLimit, readMaxAttempts, returnAllOrLimit } from '../common';
import { readRequestDeadlineMs, requestDeadlineOption } from '../common';
import { forEachItem } from '../perItem';

const properties: INodeProperties[] = [
	...returnAllOrLimit(),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [maxAttemptsOption, requestDeadlineOption],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['dataset'], operation: ['list'] } }, properties);

/** One item per dataset `{ label, value }`, newest first, as the service lists them; one list call per execution. */
interface ListOptions {
	maxAttempts?: unknown;
	requestDeadline?: unknown;
}

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const labels = new DatasetLabels(this);
	return await forEachItem.call(this, items, async (itemIndex, output) => {
		const limit = readLimit.call(this, itemIndex);
		const options = this.getNodeParameter('options', itemIndex, {}) as ListOptions;
		const node = this.getNode();
		const maxAttempts = readMaxAttempts(node, options, itemIndex);
		const deadlineMs = readRequestDeadlineMs(node, options, itemIndex);
		const datasets = await labels.list({ maxAttempts, deadlineMs, itemIndex });
		for (const { label, value } of limit === undefined ? datasets : datasets.slice(0, limit)) {
			output.push({ json: { label, value }, pairedItem: { item: itemIndex } });
		}
	});
}
