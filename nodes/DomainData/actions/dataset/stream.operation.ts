import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { countedBytes, gzipBytes, startedBytes, toBinaryInput } from '../../helpers/binaryStream';
import { asNodeError } from '../../helpers/nodeErrors';
import { type Dataset, isDateLabel, listDatasets, pickLabel } from '../../helpers/datasets';
import {
	hasCriteria,
	parseRecordFilter,
	type RecordFilter,
	type RecordFilterParameters,
} from '../../helpers/recordFilter';
import { DEFAULT_SNAPSHOT_FIELDS, SNAPSHOT_FIELDS, toCanonicalFields, type SnapshotField } from '../../helpers/snapshotFields';
import {
	createReadStats,
	type MalformedLineHandling,
	readSnapshot,
	readSnapshotBytes,
	type SnapshotReadStats,
} from '../../helpers/snapshotReader';
import {
	readSubWorkflowParameters,
	runSubWorkflowPerBatch,
	SUB_WORKFLOW_OUTPUT,
	subWorkflowOptions,
	subWorkflowOutputOption,
	workflowIdProperty,
} from '../../helpers/subWorkflow';
import { idleTimeoutMs } from '../../transport';
import { DEFAULT_MAX_ATTEMPTS, idleTimeoutOption, maxAttemptsOption, returnAllOrLimit } from '../common';

/** Records the Items and Batches outputs may hold in all before the node refuses (n8n keeps outputs in memory). */
export const DEFAULT_MAX_RECORDS_IN_MEMORY = 100_000;
const DEFAULT_BATCH_SIZE = 1000;
const NDJSON_MIME_TYPE = 'application/x-ndjson';
const GZIP_MIME_TYPE = 'application/gzip';

type StreamOutput = 'items' | 'batches' | 'file' | typeof SUB_WORKFLOW_OUTPUT;

const FIELD_OPTIONS: Record<SnapshotField, string> = {
	name: 'Domain name',
	rank: 'Traffic rank; 1 is the highest traffic',
	title: 'Page title of the website',
	meta_description: 'Meta description, or null',
	country_code: 'Country, ISO 3166-1 alpha-2 (e.g. DE)',
	language_code: 'Primary language, ISO 639-1 (e.g. de)',
	categories: 'Content categories as paths, e.g. /Shopping/Apparel',
	technologies: 'Technologies detected on the site (empty when none)',
	tld1: 'Registrable domain of the name',
	meta_keywords: 'Meta keywords',
	canonical: 'Canonical URL',
	icon: 'Icon URL',
	status: 'HTTP status of the home page',
	dns: 'DNS records',
	first_published_at: 'When the site was first seen',
	redirects_to: 'Where the home page redirects',
	contact_information: 'Emails, phones and social profiles found on the site',
};

const properties: INodeProperties[] = [
	{
		displayName: 'Dataset Name or ID',
		name: 'label',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getDatasetLabels' },
		default: '',
		required: true,
		description:
			'The snapshot to read. "Latest" is resolved to the newest date label when the node runs, and that exact snapshot is read. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
	{
		displayName: 'Fields',
		name: 'fields',
		type: 'multiOptions',
		options: SNAPSHOT_FIELDS.map((field) => ({ name: field, value: field, description: FIELD_OPTIONS[field] })),
		default: [...DEFAULT_SNAPSHOT_FIELDS],
		description:
			'Fields of each record. From an expression: an array or a comma-separated list; domain, tld, country and language are accepted for name, tld1, country_code and language_code.',
	},
	...returnAllOrLimit(),
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		default: 'items',
		options: [
			{
				name: 'Items',
				value: 'items',
				description: 'One item per record; for slices (at most "Max Records in Memory" records)',
			},
			{
				name: 'Batches',
				value: 'batches',
				description: 'One item per group of records: { label, batch, records }',
			},
			{
				name: 'File',
				value: 'file',
				description: 'One item with the records as an NDJSON file; for whole snapshots (streamed to n8n\'s binary storage)',
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
		description: 'Records per output item (Batches) or per run of the sub-workflow (Sub-Workflow)',
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
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		description:
			'Keep only the records that match every filter set here. The whole snapshot is still read, but only matches are kept, so memory stays small.',
		options: [
			{
				displayName: 'Category Prefix',
				name: 'categoryPrefix',
				type: 'string',
				default: '',
				placeholder: '/Shopping',
				description:
					'Keep records with a category that starts with this text (case-insensitive), e.g. /Shopping matches /Shopping/Apparel. Several prefixes: one per line.',
			},
			{
				displayName: 'Country Codes',
				name: 'countryCodes',
				type: 'string',
				default: '',
				placeholder: 'DE, AT, CH',
				description: 'Keep records whose country_code is one of these ISO 3166-1 alpha-2 codes',
			},
			{
				displayName: 'Language Codes',
				name: 'languageCodes',
				type: 'string',
				default: '',
				placeholder: 'de, en',
				description: 'Keep records whose language_code is one of these ISO 639-1 codes',
			},
			{
				displayName: 'Max Rank',
				name: 'maxRank',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 1000,
				description: 'Keep records with a rank up to this number (1 is the highest traffic)',
			},
			{
				displayName: 'Registrable Domains (Tld1)',
				name: 'tld1',
				type: 'string',
				default: '',
				placeholder: 'example.com, example.co.uk',
				description: 'Keep records whose tld1 is one of these (a domain and all its subdomains)',
			},
			{
				displayName: 'Technologies',
				name: 'technologies',
				type: 'string',
				default: '',
				placeholder: 'Shopify, WooCommerce',
				description: 'Keep records that use at least one of these technologies (comma-separated, case-insensitive)',
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Compression',
				name: 'compression',
				type: 'options',
				default: 'none',
				displayOptions: { show: { '/output': ['file'] } },
				options: [
					{ name: 'None', value: 'none', description: 'A plain NDJSON file named after the label, e.g. 2025-06-30.ndjson' },
					{ name: 'Gzip', value: 'gzip', description: 'A gzip-compressed file, e.g. 2025-06-30.ndjson.gz, several times smaller' },
				],
			},
			{
				displayName: 'Max Records in Memory',
				name: 'maxRecords',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: DEFAULT_MAX_RECORDS_IN_MEMORY,
				displayOptions: { show: { '/output': ['items', 'batches'] } },
				description:
					'The node stops with an error rather than output more records than this in all (n8n keeps every output item in memory; a record takes about 1-3 KB). For whole snapshots use the File output.',
			},
			idleTimeoutOption,
			maxAttemptsOption,
			...subWorkflowOptions,
			{
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
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['dataset'], operation: ['stream'] } },
	properties,
);

interface StreamOptions {
	compression?: 'none' | 'gzip';
	maxRecords?: number;
	maxAttempts?: number;
	idleTimeout?: number;
	onMalformedLine?: MalformedLineHandling;
}

interface StreamRequest {
	label: string;
	fields: SnapshotField[];
	limit?: number;
	filter?: RecordFilter;
	output: StreamOutput;
	batchSize: number;
	binaryPropertyName: string;
	compression: 'none' | 'gzip';
	maxRecords: number;
	maxAttempts: number;
	idleTimeoutMs: number;
	onMalformed: MalformedLineHandling;
}

/** Reads and checks every parameter of one item before any call is made. */
function readRequest(this: IExecuteFunctions, itemIndex: number): StreamRequest {
	const node = this.getNode();
	const label = String(this.getNodeParameter('label', itemIndex, '') ?? '').trim();
	if (!label) {
		throw new NodeOperationError(node, 'The parameter "Dataset Name or ID" is empty', {
			itemIndex,
			description: 'Choose "Latest" or a date label (YYYY-MM-DD) from the list, or give one with an expression.',
		});
	}
	const fields = toCanonicalFields(this.getNodeParameter('fields', itemIndex, DEFAULT_SNAPSHOT_FIELDS));
	if (!fields.ok) {
		throw new NodeOperationError(node, `The parameter "Fields" is not valid: ${fields.message}`, { itemIndex });
	}
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? undefined : Number(this.getNodeParameter('limit', itemIndex, 50));
	if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
		throw new NodeOperationError(node, `The parameter "Limit" must be a whole number of 1 or more, got ${limit}`, { itemIndex });
	}
	const output = this.getNodeParameter('output', itemIndex, 'items') as StreamOutput;
	if (!['items', 'batches', 'file', SUB_WORKFLOW_OUTPUT].includes(output)) {
		throw new NodeOperationError(node, `The parameter "Output" must be items, batches, file or subWorkflow, got "${output}"`, { itemIndex });
	}
	const batchSize = output === 'batches' || output === SUB_WORKFLOW_OUTPUT ? Number(this.getNodeParameter('batchSize', itemIndex, DEFAULT_BATCH_SIZE)) : DEFAULT_BATCH_SIZE;
	if (!Number.isInteger(batchSize) || batchSize < 1) {
		throw new NodeOperationError(node, `The parameter "Batch Size" must be a whole number of 1 or more, got ${batchSize}`, { itemIndex });
	}
	const binaryPropertyName = output === 'file' ? String(this.getNodeParameter('binaryPropertyName', itemIndex, 'data')).trim() : 'data';
	if (!binaryPropertyName) {
		throw new NodeOperationError(node, 'The parameter "Put Output File in Field" is empty', {
			itemIndex,
			description: 'Give the name of the binary field that receives the file, for example "data".',
		});
	}
	const filterParameters = this.getNodeParameter('filters', itemIndex, {}) as RecordFilterParameters;
	const filter = parseRecordFilter(node, filterParameters, itemIndex);
	const options = this.getNodeParameter('options', itemIndex, {}) as StreamOptions;
	const maxRecords = Number(options.maxRecords ?? DEFAULT_MAX_RECORDS_IN_MEMORY);
	if (!Number.isInteger(maxRecords) || maxRecords < 1) {
		throw new NodeOperationError(node, `The option "Max Records in Memory" must be a whole number of 1 or more, got ${options.maxRecords}`, { itemIndex });
	}
	return {
		label,
		fields: fields.fields,
		limit,
		filter: hasCriteria(filter) ? filter : undefined,
		output,
		batchSize,
		binaryPropertyName,
		compression: options.compression === 'gzip' ? 'gzip' : 'none',
		maxRecords,
		maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
		idleTimeoutMs: idleTimeoutMs(options.idleTimeout),
		onMalformed: options.onMalformedLine === 'skip' ? 'skip' : 'error',
	};
}

/**
 * Turns what the user asked for into the concrete label to read. A date label is read directly (a 404
 * then lists the labels that exist); `latest` and snapshot ids need the list, fetched once per run.
 */
class LabelResolver {
	private datasets?: Promise<Dataset[]>;

	constructor(private readonly context: IExecuteFunctions) {}

	async resolve(label: string, maxAttempts: number, itemIndex: number): Promise<string> {
		if (isDateLabel(label)) return label;
		this.datasets ??= listDatasets.call(this.context, { maxAttempts, itemIndex }).catch((error: unknown) => {
			this.datasets = undefined; // the next item may try again
			throw error;
		});
		return pickLabel.call(this.context, label, await this.datasets, itemIndex);
	}
}

const GUARD_DESCRIPTION =
	'n8n keeps every output item in memory, and a whole snapshot (about a million records) would exhaust it. Set Output to "File" to store the records as an NDJSON file on disk, add Filters, or set a Limit. Raise "Max Records in Memory" only if the n8n instance has the memory (about 1-3 KB per record).';

function alreadyHeld(held: number): string {
	return held > 0 ? ` (with the ${held.toLocaleString('en-US')} records already output for earlier items)` : '';
}

/** The guard, found while streaming: the selection has more records than may be held. */
function tooManyRecordsError(this: IExecuteFunctions, request: StreamRequest, label: string, itemIndex: number, held: number) {
	return new NodeOperationError(
		this.getNode(),
		`The dataset "${label}" has more records for this selection than "Max Records in Memory" (${request.maxRecords.toLocaleString('en-US')}) allows${alreadyHeld(held)}`,
		{ itemIndex, description: GUARD_DESCRIPTION },
	);
}

/** The guard, known before any call: the Limit asked for is above what may be held. */
function limitTooHighError(this: IExecuteFunctions, request: StreamRequest, itemIndex: number, held: number) {
	const room = Math.max(0, request.maxRecords - held);
	return new NodeOperationError(
		this.getNode(),
		`The Limit (${(request.limit ?? 0).toLocaleString('en-US')}) is more than "Max Records in Memory" (${request.maxRecords.toLocaleString('en-US')}) allows${alreadyHeld(held)}`,
		{ itemIndex, description: `At most ${room.toLocaleString('en-US')} more records fit. ${GUARD_DESCRIPTION}` },
	);
}

/** A hint under the output in the editor (older n8n versions have no addExecutionHints: then nothing). */
function addHint(context: IExecuteFunctions, message: string): void {
	if (typeof context.addExecutionHints === 'function') context.addExecutionHints({ message, location: 'outputPane' });
}

function addSkippedLinesHint(this: IExecuteFunctions, stats: SnapshotReadStats): void {
	if (stats.skippedLines === 0) return;
	const numbers = stats.skippedLineNumbers.join(', ');
	const more = stats.skippedLines > stats.skippedLineNumbers.length ? ', …' : '';
	addHint(this, `Skipped ${stats.skippedLines} malformed line${stats.skippedLines > 1 ? 's' : ''} of the dataset "${stats.label}" (line ${numbers}${more})`);
}

function addNoMatchHint(this: IExecuteFunctions, request: StreamRequest, stats: SnapshotReadStats): void {
	if (stats.records > 0) return;
	addHint(
		this,
		request.filter
			? `No record of the dataset "${stats.label}" matched the filters (${stats.lines.toLocaleString('en-US')} lines read)`
			: `The dataset "${stats.label}" returned no records`,
	);
}

/** A Limit without filters is the number of records that will come: compare it before streaming. */
function cannotFit(request: StreamRequest, held: number): boolean {
	return request.limit !== undefined && !request.filter && request.limit > request.maxRecords - held;
}

/** Items or batches: records held in memory, at most `room` of them. */
async function readIntoMemory(
	this: IExecuteFunctions,
	request: StreamRequest,
	label: string,
	itemIndex: number,
	held: number,
): Promise<{ items: INodeExecutionData[]; records: number }> {
	const room = request.maxRecords - held;
	const stats = createReadStats(label);
	// One record more than fits tells "too many" without reading further (and caps the request itself).
	const readLimit = request.limit !== undefined && request.limit <= room ? request.limit : Math.max(1, room + 1);
	const batchSize = request.output === 'batches' ? request.batchSize : Math.min(DEFAULT_BATCH_SIZE, readLimit);
	const pairedItem = { item: itemIndex };
	const items: INodeExecutionData[] = [];
	const skippedAtBatch: number[] = [];
	let records = 0;
	for await (const batch of readSnapshot.call(this, {
		label,
		fields: request.fields,
		limit: readLimit,
		filter: request.filter,
		maxAttempts: request.maxAttempts,
		idleTimeoutMs: request.idleTimeoutMs,
		onMalformed: request.onMalformed,
		batchSize,
		stats,
		itemIndex,
	})) {
		records += batch.length;
		if (records > room) throw tooManyRecordsError.call(this, request, label, itemIndex, held);
		if (request.output === 'batches') {
			skippedAtBatch.push(stats.skippedLines);
			items.push({ json: { label, batch: items.length + 1, records: batch }, pairedItem });
		} else {
			for (const record of batch) {
				record.label = label; // the record parsed for this item: adding the key costs less than a copy
				items.push({ json: record, pairedItem });
			}
		}
	}
	if (request.output === 'batches' && request.onMalformed === 'skip') {
		// Each batch tells the malformed lines skipped since the previous one; the last takes the rest.
		let before = 0;
		items.forEach((item, index) => {
			const upTo = index === items.length - 1 ? stats.skippedLines : skippedAtBatch[index];
			(item.json as IDataObject).skippedLines = upTo - before;
			before = upTo;
		});
	}
	addSkippedLinesHint.call(this, stats);
	addNoMatchHint.call(this, request, stats);
	return { items, records };
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

/** File: the kept lines go to n8n's binary storage as they arrive. */
async function readIntoFile(
	this: IExecuteFunctions,
	request: StreamRequest,
	label: string,
	itemIndex: number,
): Promise<INodeExecutionData> {
	const stats = createReadStats(label);
	const gzip = request.compression === 'gzip';
	const fileName = `${label}.ndjson${gzip ? '.gz' : ''}`;
	// Nothing is stored before the first record came: a failure to that point leaves no file behind.
	const ndjson = await startedBytes(
		readSnapshotBytes.call(this, {
			label,
			fields: request.fields,
			limit: request.limit,
			filter: request.filter,
			maxAttempts: request.maxAttempts,
			idleTimeoutMs: request.idleTimeoutMs,
			onMalformed: request.onMalformed,
			stats,
			itemIndex,
		}),
	);
	const written = { bytes: 0 };
	let binary: IBinaryData;
	try {
		binary = await this.helpers.prepareBinaryData(
			toBinaryInput(countedBytes(gzip ? gzipBytes(ndjson) : ndjson, written)),
			fileName,
			gzip ? GZIP_MIME_TYPE : NDJSON_MIME_TYPE,
		);
	} catch (error) {
		throw withPartialFileNote(asNodeError(this.getNode(), error, itemIndex), written.bytes);
	}
	const json: IDataObject = {
		label,
		fileName,
		recordCount: stats.records,
		sizeBytes: typeof binary.bytes === 'number' ? binary.bytes : stats.bytes,
		fields: stats.requestedFields.filter((field) => request.fields.includes(field)),
	};
	if (gzip) json.uncompressedBytes = stats.bytes;
	if (request.onMalformed === 'skip') json.skippedLines = stats.skippedLines;
	if (stats.reconnects > 0) json.reconnects = stats.reconnects;
	addSkippedLinesHint.call(this, stats);
	addNoMatchHint.call(this, request, stats);
	return { json, binary: { [request.binaryPropertyName]: binary }, pairedItem: { item: itemIndex } };
}

/** Sub-Workflow: the records go to the chosen workflow batch by batch; the node outputs a summary. */
async function streamToSubWorkflow(
	this: IExecuteFunctions,
	request: StreamRequest,
	labels: LabelResolver,
	itemIndex: number,
): Promise<INodeExecutionData> {
	const target = readSubWorkflowParameters.call(this, itemIndex);
	const label = await labels.resolve(request.label, request.maxAttempts, itemIndex);
	const stats = createReadStats(label);
	const records = readSnapshot.call(this, {
		label,
		fields: request.fields,
		limit: request.limit,
		filter: request.filter,
		maxAttempts: request.maxAttempts,
		onMalformed: request.onMalformed,
		batchSize: request.batchSize,
		stats,
		itemIndex,
	});
	const summary = await runSubWorkflowPerBatch.call(this, target.workflow, records, {
		label,
		itemIndex,
		batchSize: request.batchSize,
		skipRecords: target.skipRecords,
		batchInfoField: target.batchInfoField,
	});
	if (request.onMalformed === 'skip') summary.json.skippedLines = stats.skippedLines;
	addSkippedLinesHint.call(this, stats);
	addNoMatchHint.call(this, request, stats);
	return summary;
}

/**
 * Runs once per input item. Items and Batches count their records across all input items against
 * "Max Records in Memory", because n8n holds the whole output of the node at once.
 */
export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const output: INodeExecutionData[] = [];
	const labels = new LabelResolver(this);
	let held = 0;
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const request = readRequest.call(this, itemIndex);
			if (request.output === SUB_WORKFLOW_OUTPUT) {
				output.push(await streamToSubWorkflow.call(this, request, labels, itemIndex));
				continue;
			}
			if (request.output !== 'file' && cannotFit(request, held)) {
				// Known before any call: the slice asked for cannot fit.
				throw limitTooHighError.call(this, request, itemIndex, held);
			}
			const label = await labels.resolve(request.label, request.maxAttempts, itemIndex);
			if (request.output === 'file') {
				output.push(await readIntoFile.call(this, request, label, itemIndex));
			} else {
				const result = await readIntoMemory.call(this, request, label, itemIndex, held);
				held += result.records;
				// One push per item: spreading 100,000 items as arguments would overflow the call stack.
				for (const item of result.items) output.push(item);
			}
		} catch (error) {
			if (!this.continueOnFail()) throw asNodeError(this.getNode(), error, itemIndex);
			output.push({ json: { error: (error as Error).message }, pairedItem: { item: itemIndex } });
		}
	}
	return output;
}
