import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

const properties: INodeProperties[] = [];

export const description = updateDisplayOptions(
	{ show: { resource: ['domain'], operation: ['enrich'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	_items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	throw new NodeOperationError(this.getNode(), 'Not implemented yet');
}
