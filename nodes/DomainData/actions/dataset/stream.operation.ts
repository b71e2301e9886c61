import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { operationError } from '../../errors';
import { type Dataset, isDateLabel, listDatasets, pickLabel } from '../../helpers/datasets';
import { DEFAULT_BATCH_SIZE } from '../../helpers/batches';
import { DEFAULT_SNAPSHOT_FIELDS } from '../../helpers/snapshotFields';
import {
	createReadStats,
	readSnapshot,
	readSnapshotBytes,
	type ReadSnapshotOptions,
	type SnapshotReadStats,
} from '../../helpers/snapshotReader';
import {
	readSubWorkflowParameters,
	runSubWorkflowPerBatch,
	SUB_WORKFLOW_OUTPUT,
} from '../../helpers/subWorkflow';
import { returnAllOrLimit } from '../common';
import { forEachItem } from '../perItem';
import { fieldOptions } from './fieldOptions';
import { filtersProperty } from './filters';
import {
	addHint,
	alreadyHeld,
	GUARD_DESCRIPTION,
	outputProperties,
	readOptionsCollection,
	readOutputParameters,
	storeNdjsonFile,
	type OutputParameters,
	type OutputWording,
} from './output';
import { datasetLabelProperty, readSelectionParameters, type SelectionParameters } from './sharedParameters';

const WORDS: OutputWording = {
	one: 'record',
	many: 'records',
	batchShape: '{ label, batch, records }',
	fileUse: 'for whole snapshots',
};

const properties: INodeProperties[] = [
	datasetLabelProperty('The snapshot to read.'),
	{
		displayName: 'Fields',
		name: 'fields',
		type: 'multiOptions',
		options: fieldOptions(),
		default: [...DEFAULT_SNAPSHOT_FIELDS],
		description:
			'Fields of each record. From an expression: an array or a comma-separated list; domain, tld, country and language are accepted for name, tld1, country_code and language_code.',
	},
	...returnAllOrLimit(),
	...outputProperties(WORDS),
	filtersProperty(
		'Keep only the records that match every filter set here. The whole snapshot is still read, but only matches are kept, so memory stays small.',
	),
	readOptionsCollection(WORDS, '2025-06-30'),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['dataset'], operation: ['stream'] } },
	properties,
);

type StreamRequest = SelectionParameters & OutputParameters;

/** Reads and checks every parameter of one item before any call is made. */
function readRequest(this: IExecuteFunctions, itemIndex: number): StreamRequest {
	const selection = readSelectionParameters.call(this, itemIndex, DEFAULT_SNAPSHOT_FIELDS);
	return { ...selection, ...readOutputParameters.call(this, itemIndex) };
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

/** The guard, found while streaming: the selection has more records than may be held. */
function tooManyRecordsError(this: IExecuteFunctions, request: StreamRequest, label: string, itemIndex: number, held: number) {
	return operationError(
		this.getNode(),
		`The dataset "${label}" has more records for this selection than "Max Records in Memory" (${request.maxRecords.toLocaleString('en-US')}) allows${alreadyHeld(held)}`,
		{ itemIndex, description: GUARD_DESCRIPTION },
	);
}

/** The guard, known before any call: the Limit asked for is above what may be held. */
function limitTooHighError(this: IExecuteFunctions, request: StreamRequest, itemIndex: number, held: number) {
	const room = Math.max(0, request.maxRecords - held);
	return operationError(
		this.getNode(),
		`The Limit (${(request.limit ?? 0).toLocaleString('en-US')}) is more than "Max Records in Memory" (${request.maxRecords.toLocaleString('en-US')}) allows${alreadyHeld(held)}`,
		{ itemIndex, description: `At most ${room.toLocaleString('en-US')} more records fit. ${GUARD_DESCRIPTION}` },
	);
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

/** What every output asks the snapshot reader for: the label in `stats`, the selection and the read settings. */
function readOptions(request: StreamRequest, stats: SnapshotReadStats, itemIndex: number): ReadSnapshotOptions {
	return {
		label: stats.label,
		fields: request.fields,
		limit: request.limit,
		filter: request.filter,
		maxAttempts: request.maxAttempts,
		idleTimeoutMs: request.idleTimeoutMs,
		onMalformed: request.onMalformed,
		stats,
		itemIndex,
	};
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
	for await (const batch of readSnapshot.call(this, { ...readOptions(request, stats, itemIndex), limit: readLimit, batchSize })) {
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

/** File: the kept lines go to n8n's binary storage as they arrive. */
async function readIntoFile(
	this: IExecuteFunctions,
	request: StreamRequest,
	label: string,
	itemIndex: number,
): Promise<INodeExecutionData> {
	const stats = createReadStats(label);
	const gzip = request.compression === 'gzip';
	const ndjson = readSnapshotBytes.call(this, readOptions(request, stats, itemIndex));
	const { binary, fileName } = await storeNdjsonFile.call(this, ndjson, label, request.compression, itemIndex);
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
	const records = readSnapshot.call(this, { ...readOptions(request, stats, itemIndex), batchSize: request.batchSize });
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
	const labels = new LabelResolver(this);
	let held = 0;
	return await forEachItem.call(this, items, async (itemIndex, output) => {
		const request = readRequest.call(this, itemIndex);
		if (request.output === SUB_WORKFLOW_OUTPUT) {
			output.push(await streamToSubWorkflow.call(this, request, labels, itemIndex));
			return;
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
			for (const item of result.items) output.push(item);
		}
	});
}
