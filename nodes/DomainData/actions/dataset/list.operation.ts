/** Dataset → List: one item per dataset `{ label, value }`, newest first as the service lists them. */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { DatasetLabels } from '../../helpers/datasets';
import { maxAttemptsOption, optionsCollection, readCallLimits, readLimit } from '../common';
import { requestDeadlineOption, returnAllOrLimit } from '../common';
import { forEachItem } from '../perItem';

const properties: INodeProperties[] = [
	...returnAllOrLimit(),
	optionsCollection([maxAttemptsOption, requestDeadlineOption]),
];

export const description = updateDisplayOptions({ show: { resource: ['dataset'], operation: ['list'] } }, properties);

/** One list call per execution, whatever the number of items. */
export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const labels = new DatasetLabels(this);
	const node = this.getNode();
	return await forEachItem.call(this, items, async (itemIndex, output) => {
		const limit = readLimit.call(this, itemIndex);
		const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
		const datasets = await labels.list(readCallLimits(node, options, itemIndex), itemIndex);
		for (const { label, value } of datasets.slice(0, limit)) {
			output.push({ json: { label, value }, pairedItem: { item: itemIndex } });
		}
	});
}
