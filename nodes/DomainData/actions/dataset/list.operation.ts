/** Dataset → List: one item per dataset `{ label, value }`, newest first as the service lists them. */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { DatasetLabels } from '../../helpers/datasets';
import { maxAttemptsOption, optionsCollection, readCallLimits, readLimit } from '../common';
import { requestDeadlineOption, returnAllOrLimit } from '../common';
import { forEachItem, type OperationExecute, type RunFacts, type ToolBounds } from '../perItem';

const properties: INodeProperties[] = [
	...returnAllOrLimit(),
	optionsCollection([maxAttemptsOption, requestDeadlineOption]),
];

export const description = updateDisplayOptions({ show: { resource: ['dataset'], operation: ['list'] } }, properties);

/** What one item asks: how many datasets, and the limits of the list call. */
function planItem(this: IExecuteFunctions, itemIndex: number, tool?: ToolBounds) {
	const limit = readLimit.call(this, itemIndex, tool);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	return { limit, limits: readCallLimits(this.getNode(), options, itemIndex) };
}

/** One list call per execution, whatever the number of items. */
export const execute: OperationExecute = async function (items, tool) {
	const labels = new DatasetLabels(this);
	const facts: RunFacts = {};
	const run = async (itemIndex: number, output: INodeExecutionData[]) => {
		const { limit, limits } = planItem.call(this, itemIndex, tool);
		const datasets = await labels.list(limits, itemIndex);
		facts.datasetsInAll = datasets.length;
		for (const { label, value } of datasets.slice(0, limit)) {
			output.push({ json: { label, value }, pairedItem: { item: itemIndex } });
		}
	};
	return { items: await forEachItem.call(this, items, run, tool), facts };
};
