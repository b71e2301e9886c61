import type { INodeProperties } from 'n8n-workflow';

import * as bulk from './bulk.operation';
import * as enrich from './enrich.operation';
import * as get from './get.operation';
import * as search from './search.operation';

export const operations = { get, search, bulk, enrich };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['domain'] } },
		options: [
			{
				name: 'Bulk Get',
				value: 'bulk',
				description: 'Look up many domains, 100 per call',
				action: 'Get many domains by name',
			},
			{
				name: 'Enrich Items',
				value: 'enrich',
				description: 'Add domain data to every input item, with one call per 100 distinct domains',
				action: 'Enrich items with domain data',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Look up one domain by name, URL or email address',
				action: 'Get a domain',
			},
			{
				name: 'Search',
				value: 'search',
				description: 'Search the index page by page, in rank order',
				action: 'Search domains',
			},
		],
		default: 'get',
	},
	...get.description,
	...search.description,
	...bulk.description,
	...enrich.description,
];
