import type { INodeProperties } from 'n8n-workflow';

import * as compare from './compare.operation';
import * as list from './list.operation';
import * as stream from './stream.operation';

export const operations = { list, stream, compare };

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
	...list.description,
	...stream.description,
	...compare.description,
];
