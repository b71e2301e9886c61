/**
 * The outputs that Dataset → Stream and Dataset → Compare share (Items, Batches, File, Sub-Workflow), their
 * parameters and the "Max Records in Memory" guard. Each operation passes the words that describe its own items.
 */
import type { IBinaryData, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { asNodeError, operationError } from '../../errors';
import { readWholeNumber } from '../../parameters';
import { DEFAULT_BATCH_SIZE } from '../../helpers/batches';
import { countedBytes, gzipBytes, startedBytes, toBinaryInput } from '../../helpers/binaryStream';
import type { MalformedLineHandling } from '../../helpers/snapshotReader';
import { SUB_WORKFLOW_OUTPUT, subWorkflowOptions, subWorkflowOutputOption, workflowIdProperty } from '../../helpers/subWorkflow';
import { idleTimeoutOption, maxAttemptsOption } from '../common';

/** Records the Items and Batches outputs may hold in all before the node refuses (n8n keeps outputs in memory). */
export const DEFAULT_MAX_RECORDS_IN_MEMORY = 100_000;
const NDJSON_MIME_TYPE = 'application/x-ndjson';
const GZIP_MIME_TYPE = 'application/gzip';

export type DatasetOutput = 'items' | 'batches' | 'file' | typeof SUB_WORKFLOW_OUTPUT;
export type Compression = 'none' | 'gzip';

/** How an operation names what it outputs, for the parameter descriptions. */
export interface OutputWording {
	/** e.g. "record" / "change". */
	one: string;
	/** e.g. "records" / "changes". */
	many: string;
	/** The JSON of a Batches item, e.g. "{ label, batch, records }". */
	batchShape: string;
	/** What the File output is for, e.g. "for whole snapshots". */
	fileUse: string;
}

export function outputProperties(words: OutputWording): INodeProperties[] {
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
				{
					name: 'Batches',
					value: 'batches',
					description: `One item per group of ${words.many}: ${words.batchShape}`,
				},
				{
					name: 'File',
					value: 'file',
					description: `One item with the ${words.many} as an NDJSON file; ${words.fileUse} (streamed to n8n's binary storage)`,
				},
				subWorkflowOutputOption,
			],
		},
		workflowIdProperty,
		{
			displayName: 'Batch Size',
			name: 'batchSize',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: DEFAULT_BATCH_SIZE,
			description: `${words.many.charAt(0).toUpperCase()}${words.many.slice(1)} per output item (Batches) or per run of the sub-workflow (Sub-Workflow)`,
			displayOptions: { show: { output: ['batches', SUB_WORKFLOW_OUTPUT] } },
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

export function compressionOption(fileExample: string): INodeProperties {
	return {
		displayName: 'Compression',
		name: 'compression',
		type: 'options',
		default: 'none',
		displayOptions: { show: { '/output': ['file'] } },
		options: [
			{ name: 'None', value: 'none', description: `A plain NDJSON file named after the label, e.g. ${fileExample}.ndjson` },
			{ name: 'Gzip', value: 'gzip', description: `A gzip-compressed file, e.g. ${fileExample}.ndjson.gz, several times smaller` },
		],
	};
}

export function maxRecordsOption(words: OutputWording): INodeProperties {
	return {
		displayName: 'Max Records in Memory',
		name: 'maxRecords',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: DEFAULT_MAX_RECORDS_IN_MEMORY,
		displayOptions: { show: { '/output': ['items', 'batches'] } },
		description: `The node stops with an error rather than output more ${words.many} than this in all (n8n keeps every output item in memory; a record takes about 1-3 KB). For whole snapshots use the File output.`,
	};
}

/**
 * The Options collection of an operation that reads snapshots: the output and read options both operations
 * share, with the operation's own options (`own`) after Compression.
 */
export function readOptionsCollection(words: OutputWording, fileExample: string, own: INodeProperties[] = []): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			compressionOption(fileExample),
			...own,
			maxRecordsOption(words),
			idleTimeoutOption,
			maxAttemptsOption,
			...subWorkflowOptions,
			onMalformedLineOption,
		],
	};
}

export const onMalformedLineOption: INodeProperties = {
	displayName: 'On Malformed Line',
	name: 'onMalformedLine',
	type: 'options',
	default: 'error',
	options: [
		{
			name: 'Stop With an Error',
			value: 'error',
			description: 'Fail, naming the line number and its beginning',
		},
		{
			name: 'Skip and Count',
			value: 'skip',
			description: 'Leave the line out and report the number of skipped lines in the output',
		},
	],
	description: 'What to do with a line of the stream that is not a JSON record',
};

export interface OutputParameters {
	output: DatasetOutput;
	batchSize: number;
	binaryPropertyName: string;
	compression: Compression;
	maxRecords: number;
	onMalformed: MalformedLineHandling;
}

/** Reads and checks the output parameters of one item (before any call is made). */
export function readOutputParameters(this: IExecuteFunctions, itemIndex: number): OutputParameters {
	const node = this.getNode();
	const output = this.getNodeParameter('output', itemIndex, 'items') as DatasetOutput;
	if (!['items', 'batches', 'file', SUB_WORKFLOW_OUTPUT].includes(output)) {
		throw operationError(node, `The parameter "Output" must be items, batches, file or subWorkflow, got "${output}"`, { itemIndex });
	}
	const batchSize =
		output === 'batches' || output === SUB_WORKFLOW_OUTPUT
			? readWholeNumber(node, this.getNodeParameter('batchSize', itemIndex, DEFAULT_BATCH_SIZE), 'parameter "Batch Size"', { itemIndex })
			: DEFAULT_BATCH_SIZE;
	const binaryPropertyName = output === 'file' ? String(this.getNodeParameter('binaryPropertyName', itemIndex, 'data')).trim() : 'data';
	if (!binaryPropertyName) {
		throw operationError(node, 'The parameter "Put Output File in Field" is empty', {
			itemIndex,
			description: 'Give the name of the binary field that receives the file, for example "data".',
		});
	}
	const options = this.getNodeParameter('options', itemIndex, {}) as {
		compression?: Compression;
		maxRecords?: number;
		onMalformedLine?: MalformedLineHandling;
	};
	const maxRecords = readWholeNumber(node, options.maxRecords, 'option "Max Records in Memory"', {
		itemIndex,
		fallback: DEFAULT_MAX_RECORDS_IN_MEMORY,
	});
	return {
		output,
		batchSize,
		binaryPropertyName,
		compression: options.compression === 'gzip' ? 'gzip' : 'none',
		maxRecords,
		onMalformed: options.onMalformedLine === 'skip' ? 'skip' : 'error',
	};
}

export const GUARD_DESCRIPTION =
	'n8n keeps every output item in memory, and a whole snapshot (about a million records) would exhaust it. Set Output to "File" to store the records as an NDJSON file on disk, add Filters, or set a Limit. Raise "Max Records in Memory" only if the n8n instance has the memory (about 1-3 KB per record).';

export function alreadyHeld(held: number): string {
	return held > 0 ? ` (with the ${held.toLocaleString('en-US')} records already output for earlier items)` : '';
}

/** A hint under the output in the editor (older n8n versions have no addExecutionHints: then nothing). */
export function addHint(context: IExecuteFunctions, message: string): void {
	if (typeof context.addExecutionHints === 'function') context.addExecutionHints({ message, location: 'outputPane' });
}

/**
 * n8n (up to 2.8 at least) offers a node no way to delete binary data, and a failed `prepareBinaryData`
 * does not even tell the file's id: in filesystem mode the bytes written before a failure stay with the
 * execution's binary data until n8n deletes the execution (the other modes buffer and store nothing on
 * failure). The error says so.
 */
function withPartialFileNote<E extends { description?: string | null }>(error: E, bytes: number): E {
	if (bytes === 0) return error;
	const size =
		bytes < 1024
			? `${bytes} bytes`
			: bytes < 1024 * 1024
				? `${(bytes / 1024).toFixed(1)} KB`
				: `${(bytes / 1024 / 1024).toFixed(1)} MB`;
	const note = `${size} had been written: in n8n's filesystem binary data mode, that partial file stays with this execution's binary data until n8n deletes the execution (by its pruning of old executions, or at once when failed executions are not saved).`;
	error.description = error.description ? `${error.description} ${note}` : note;
	return error;
}

/**
 * Stores NDJSON bytes, produced as they are pulled, in n8n's binary storage (optionally gzipped), named
 * `<baseName>.ndjson[.gz]`. Nothing is stored before the first bytes came, so a failure up to then (key,
 * plan, unknown label, service down) leaves no file behind.
 */
export async function storeNdjsonFile(
	this: IExecuteFunctions,
	ndjson: AsyncIterable<Uint8Array>,
	baseName: string,
	compression: Compression,
	itemIndex: number,
): Promise<{ binary: IBinaryData; fileName: string }> {
	const gzip = compression === 'gzip';
	const fileName = `${baseName}.ndjson${gzip ? '.gz' : ''}`;
	const started = await startedBytes(ndjson);
	const written = { bytes: 0 };
	let binary: IBinaryData;
	try {
		binary = await this.helpers.prepareBinaryData(
			toBinaryInput(countedBytes(gzip ? gzipBytes(started) : started, written)),
			fileName,
			gzip ? GZIP_MIME_TYPE : NDJSON_MIME_TYPE,
		);
	} catch (error) {
		throw withPartialFileNote(asNodeError(this.getNode(), error, itemIndex), written.bytes);
	}
	return { binary, fileName };
}
