import type { INodeProperties } from 'n8n-workflow';

import * as list from './list.operation';
import * as stream from './stream.operation';

export const operations = { list, stream };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['dataset'] } },
		options: [
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
	...list.description,
	...stream.description,
];
