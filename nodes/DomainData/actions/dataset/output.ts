/** The output of Stream and Compare (Items, Batches, File, Sub-Workflow): its fields in the editor. */
import type { INodeProperties } from 'n8n-workflow';

import { DEFAULT_BATCH_SIZE } from '../../helpers/streams';
import { idleTimeoutOption, maxAttemptsOption, optionsCollection, requestDeadlineOption } from '../common';

export const DEFAULT_MAX_RECORDS_IN_MEMORY = 100_000;
/** Half of n8n's database binary data mode's default cap per file (512 MiB), which collects each file in memory. */
export const DEFAULT_MAX_FILE_MB = 64;
/** A gzip part keeps 1 MB for what its compressor holds back (../sink/file.ts): 2 MB leaves room for records. */
export const MIN_MAX_FILE_MB = 2;
export const OUTPUTS = ['items', 'batches', 'file', 'subWorkflow'] as const;

/** How an operation names its items ("record(s)", "change(s)"), a Batches item's JSON and the File's use. */
export type OutputWording = { one: string; many: string; batchShape: string; fileUse: string };

export const subWorkflowOutputOption = {
	name: 'Sub-Workflow',
	value: 'subWorkflow',
	description:
		'Run a workflow once per batch of records, one item per record; for whole snapshots, in any binary data mode ' +
		'and in queue mode',
};

export function outputProperties(words: OutputWording): INodeProperties[] {
	const many = words.many.charAt(0).toUpperCase() + words.many.slice(1);
	return [
		{
			displayName: 'Output',
			name: 'output',
			type: 'options',
			default: 'items',
			options: [
				{
					name: 'Items',
					value: 'items',
					description: `One item per ${words.one}; for slices (at most "Max Records in Memory" ${words.many})`,
				},
				{ name: 'Batches', value: 'batches', description: `One item per group of ${words.many}: ${words.batchShape}` },
				{
					name: 'File',
					value: 'file',
					description:
						`One item with the ${words.many} as an NDJSON file; ${words.fileUse} ` +
						"(streamed to n8n's binary storage)",
				},
				subWorkflowOutputOption,
			],
		},
		{
			// Chosen as n8n's Execute Workflow node chooses one (list, ID or expression).
			displayName: 'Workflow',
			name: 'workflowId',
			type: 'workflowSelector',
			default: '',
			required: true,
			hint:
				'A workflow that starts with "When Executed by Another Workflow" (Input data mode: Accept all data). ' +
				'It receives each record as one item.',
			displayOptions: { show: { output: ['subWorkflow'] } },
		},
		{
			displayName: 'Batch Size',
			name: 'batchSize',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: DEFAULT_BATCH_SIZE,
			description: `${many} per output item (Batches) or per run of the sub-workflow (Sub-Workflow)`,
			displayOptions: { show: { output: ['batches', 'subWorkflow'] } },
		},
		{
			displayName: 'Max File Size (MB)',
			name: 'maxFileSize',
			type: 'number',
			typeOptions: { minValue: MIN_MAX_FILE_MB },
			default: DEFAULT_MAX_FILE_MB,
			description:
				`A larger selection comes as several files (parts, one item each), each ${words.many} whole and once. ` +
				"Keep it under the binary data mode's limit per file: n8n's database mode refuses files over " +
				'N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE (512 MB by default), and it and the S3 mode hold each file in ' +
				'memory, several times over, while they write it. A large value gives one file in filesystem mode. With ' +
				'gzip a part stops about 1 MB short of the size (what the compressor may hold back).',
			displayOptions: { show: { output: ['file'] } },
		},
		{
			displayName: 'Put Output File in Field',
			name: 'binaryPropertyName',
			type: 'string',
			default: 'data',
			required: true,
			hint: 'The name of the output binary field to put the file in',
			displayOptions: { show: { output: ['file'] } },
		},
	];
}

/** Also the trigger's, for the records it attaches. */
export const onMalformedLineOption: INodeProperties = {
	displayName: 'On Malformed Line',
	name: 'onMalformedLine',
	type: 'options',
	default: 'error',
	options: [
		{ name: 'Stop With an Error', value: 'error', description: 'Fail, naming the line number and its beginning' },
		{
			name: 'Skip and Count',
			value: 'skip',
			description: 'Leave the line out and report the number of skipped lines in the output',
		},
	],
	description: 'What to do with a line of the stream that is not a JSON record',
};

/** The Options collection of an operation that reads snapshots, with the operation's own options after Compression. */
export function readOptionsCollection(words: OutputWording, fileExample: string, own: INodeProperties[] = []) {
	return optionsCollection([
		{
			displayName: 'Compression',
			name: 'compression',
			type: 'options',
			default: 'none',
			displayOptions: { show: { '/output': ['file'] } },
			options: [
				{
					name: 'None',
					value: 'none',
					description: `A plain NDJSON file named after the label, e.g. ${fileExample}.ndjson`,
				},
				{
					name: 'Gzip',
					value: 'gzip',
					description: `A gzip-compressed file, e.g. ${fileExample}.ndjson.gz, several times smaller`,
				},
			],
		},
		...own,
		{
			displayName: 'Max Records in Memory',
			name: 'maxRecords',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: DEFAULT_MAX_RECORDS_IN_MEMORY,
			displayOptions: { show: { '/output': ['items', 'batches'] } },
			description:
				`The node stops with an error rather than output more ${words.many} than this in all (n8n keeps every ` +
				'output item in memory; a record takes about 1-3 KB). For whole snapshots use the File output.',
		},
		idleTimeoutOption,
		requestDeadlineOption,
		maxAttemptsOption,
		{
			displayName: 'Skip Records',
			name: 'skipRecords',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 0,
			displayOptions: { show: { '/output': ['subWorkflow', 'file'] } },
			description:
				'Read this many records first without sending or writing them, then go on. To resume a run that ' +
				'stopped, use the number its error (or its summary item) gives.',
		},
		{
			displayName: 'Put Batch Info in Field',
			name: 'batchInfoField',
			type: 'string',
			default: '',
			placeholder: 'e.g. batch',
			displayOptions: { show: { '/output': ['subWorkflow'] } },
			description:
				'Adds { number, progress, firstRecord, lastRecord, records } of the batch to every record under this ' +
				'field. Empty: the records go as they are, so that a database node maps them onto columns directly.',
		},
		onMalformedLineOption,
	]);
}
