import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { operationError } from '../errors';
import * as dataset from './dataset/Dataset.resource';
import * as domain from './domain/Domain.resource';
import { runAsTool } from './tool/runAsTool';
import type { OperationExecute } from './perItem';

const resources: Record<string, Record<string, { execute: OperationExecute }>> = {
	domain: domain.operations,
	dataset: dataset.operations,
};

/** Each operation owns its item loop and Continue On Fail; as a tool it runs within the tool's bounds. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const handler = resources[resource]?.[operation];
	if (!handler) {
		throw operationError(this.getNode(), `The operation "${operation}" of the resource "${resource}" is not supported`);
	}
	// n8n gives the tool version of a node the type `<package>.<name>Tool`.
	if (this.getNode().type.endsWith('Tool')) return [await runAsTool.call(this, operation, handler.execute)];
	return [(await handler.execute.call(this, this.getInputData())).items];
}
