import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as dataset from './actions/dataset/Dataset.resource';
import * as domain from './actions/domain/Domain.resource';
import { router } from './actions/router';
import { toolRecordsProperty, withModelInputs } from './actions/tool/description';
import * as loadOptions from './methods/loadOptions';

export class DomainData implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Domain Data',
		name: 'domainData',
		icon: { light: 'file:domainData.svg', dark: 'file:domainData.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Look up, search, enrich and stream website metadata from the Domain Data Service',
		defaults: { name: 'Domain Data' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'domainDataApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Domain', value: 'domain' },
					{ name: 'Dataset', value: 'dataset' },
				],
				default: 'domain',
			},
			...withModelInputs([...domain.description, ...dataset.description]),
			toolRecordsProperty,
		],
	};

	methods = { loadOptions };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
