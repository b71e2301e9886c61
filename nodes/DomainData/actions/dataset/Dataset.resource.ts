import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { DatasetLabels } from '../../helpers/datasets';
import { maxAttemptsOption, optionsCollection, readCallLimits, readLimit, requestDeadlineOption } from '../common';
import { returnAllOrLimit } from '../common';
import { forEachItem, type OperationExecute, type RunFacts, type ToolBounds } from '../perItem';
import * as compare from './compare.operation';
import * as stream from './stream.operation';

/** Dataset → List's plan of one item: how many datasets, and the limits of the list call. */
function planList(this: IExecuteFunctions, itemIndex: number, tool?: ToolBounds) {
	const limit = readLimit.call(this, itemIndex, tool);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	return { limit, limits: readCallLimits(this.getNode(), options, itemIndex) };
}

/** Dataset → List: one item per dataset `{ label, value }`, newest first; one list call per execution. */
const executeList: OperationExecute = async function (items, tool) {
	const labels = new DatasetLabels(this);
	const facts: RunFacts = {};
	const run = async (itemIndex: number, output: INodeExecutionData[]) => {
		const { limit, limits } = planList.call(this, itemIndex, tool);
		const datasets = await labels.list(limits, itemIndex);
		facts.datasetsInAll = datasets.length;
		for (const { label, value } of datasets.slice(0, limit)) {
			output.push({ json: { label, value }, pairedItem: { item: itemIndex } });
		}
	};
	return { items: await forEachItem.call(this, items, run, tool), facts };
};

export const operations = { list: { execute: executeList }, stream, compare };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['dataset'] } },
		options: [
			{
				name: 'Compare',
				value: 'compare',
				description: 'What changed between two snapshots: added, removed and changed domains',
				action: 'Compare two datasets',
			},
			{
				name: 'List',
				value: 'list',
				description: 'List the dated snapshots of the index, newest first',
				action: 'List datasets',
			},
			{
				name: 'Stream',
				value: 'stream',
				description: 'Read a snapshot as records, batches of records, or an NDJSON file',
				action: 'Stream a dataset',
			},
		],
		default: 'list',
	},
	...updateDisplayOptions({ show: { resource: ['dataset'], operation: ['list'] } }, [
		...returnAllOrLimit(),
		optionsCollection([maxAttemptsOption, requestDeadlineOption]),
	]),
	...stream.description,
	...compare.description,
];
