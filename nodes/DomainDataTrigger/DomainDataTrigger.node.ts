import type { INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

export class DomainDataTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Domain Data Trigger',
		name: 'domainDataTrigger',
		icon: { light: 'file:domainDataTrigger.svg', dark: 'file:domainDataTrigger.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: 'New Dataset',
		description: 'Starts the workflow when the Domain Data Service publishes a new dataset snapshot',
		defaults: { name: 'Domain Data Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'domainDataApi', required: true }],
		properties: [],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return null;
	}
}
