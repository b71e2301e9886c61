import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { listDatasets } from '../../helpers/datasets';
import { asNodeError } from '../../helpers/nodeErrors';
import { getMaxAttempts, maxAttemptsOption, returnAllOrLimit } from '../common';

const properties: INodeProperties[] = [
	...returnAllOrLimit(),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [maxAttemptsOption],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['dataset'], operation: ['list'] } },
	properties,
);

/** One item per dataset `{ label, value }`, newest first, as the service lists them. */
export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
			const limit = returnAll ? undefined : (this.getNodeParameter('limit', itemIndex, 50) as number);
			const datasets = await listDatasets.call(this, {
				maxAttempts: getMaxAttempts.call(this, itemIndex),
				itemIndex,
			});
			for (const { label, value } of limit === undefined ? datasets : datasets.slice(0, limit)) {
				output.push({ json: { label, value }, pairedItem: { item: itemIndex } });
			}
		} catch (error) {
			if (!this.continueOnFail()) throw asNodeError(this.getNode(), error, itemIndex);
			output.push({ json: { error: (error as Error).message }, pairedItem: { item: itemIndex } });
		}
	}
	return output;
}
