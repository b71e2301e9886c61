/**
 * Dataset → Compare: what changed between two snapshots (added, removed and changed domains), streamed
 * in bounded memory. The passes and the output order are in helpers/snapshotDiff.ts.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { type Dataset, listDatasets } from '../../helpers/datasets';
import { operationError } from '../../errors';
import { readWholeNumber } from '../../parameters';
import {
	CHANGE_KINDS,
	compareSnapshots,
	createCompareStats,
	type ChangeKind,
	type CompareSpec,
	type CompareStats,
	type DomainChange,
} from '../../helpers/snapshotDiff';
import type { SnapshotField } from '../../helpers/snapshotFields';
import { PREVIOUS_LABEL, pickSnapshotPair, type SnapshotPair } from '../../helpers/snapshotPair';
import {
	readSubWorkflowParameters,
	runSubWorkflowPerBatch,
	SUB_WORKFLOW_OUTPUT,
} from '../../helpers/subWorkflow';
import { returnAllOrLimit } from '../common';
import { forEachItem } from '../perItem';
import { fieldOptions } from './fieldOptions';
import { filtersProperty } from './filters';
import * as output from './output';
import { datasetLabelProperty, readSelectionParameters, type SelectionParameters } from './sharedParameters';

const WORDS: output.OutputWording = {
	one: 'change',
	many: 'changes',
	batchShape: '{ label, baseLabel, batch, records }',
	fileUse: 'for many changes',
};

const DEFAULT_COMPARED_FIELDS: SnapshotField[] = ['title', 'country_code', 'language_code', 'categories', 'technologies'];
/** Changes per piece of the file output (one encode per piece instead of one per change). */
const FILE_PIECE_CHARS = 64 * 1024;

const properties: INodeProperties[] = [
	datasetLabelProperty('The newer snapshot.'),
	{
		displayName: 'Compare With Name or ID',
		name: 'baseLabel',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getBaseDatasetLabels' },
		default: '',
		description:
			'The older snapshot. "Previous" (or empty) is the newest one older than the snapshot above. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
	{
		displayName: 'Fields',
		name: 'fields',
		type: 'multiOptions',
		options: fieldOptions(['name']),
		default: [...DEFAULT_COMPARED_FIELDS],
		description:
			'The fields compared (the domain name is the key). Lists (technologies, categories, contact_information) are compared as sets. Rank is compared only when chosen here. The output record holds the name and these fields.',
	},
	{
		displayName: 'Changes',
		name: 'changes',
		type: 'multiOptions',
		options: [
			{ name: 'Added', value: 'added', description: 'Domains in the newer snapshot (and its filtered selection) that the older one lacks' },
			{ name: 'Removed', value: 'removed', description: 'Domains in the older snapshot (and its filtered selection) that the newer one lacks' },
			{ name: 'Changed', value: 'changed', description: 'Domains in both whose compared fields differ' },
		],
		default: [...CHANGE_KINDS],
		description: 'Which kinds of change to output',
	},
	...returnAllOrLimit(),
	...output.outputProperties(WORDS),
	filtersProperty(
		'Compare only the records that match every filter set here, on each side: a domain that matches only in the newer snapshot is added, only in the older one removed. Both snapshots are still read whole.',
	),
	output.readOptionsCollection(WORDS, 'changes-2025-06-23-2025-06-30', [
		{
				displayName: 'Ignore Rank Moves Smaller Than',
				name: 'minRankMove',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 1,
				description: 'When rank is compared: a rank that moved by less than this is not a change (rank moves a little every week for almost every domain)',
			},
	]),
];

export const description = updateDisplayOptions({ show: { resource: ['dataset'], operation: ['compare'] } }, properties);

interface CompareRequest extends SelectionParameters, output.OutputParameters, SnapshotPair {
	kinds: Set<ChangeKind>;
	minRankMove: number;
}

/** Reads and checks every parameter of one item before any call is made. */
function readRequest(this: IExecuteFunctions, itemIndex: number): CompareRequest {
	const node = this.getNode();
	const selection = readSelectionParameters.call(this, itemIndex, DEFAULT_COMPARED_FIELDS);
	const baseLabel = String(this.getNodeParameter('baseLabel', itemIndex, PREVIOUS_LABEL) ?? '').trim();
	const compared = selection.fields.filter((field) => field !== 'name');
	if (compared.length === 0) {
		throw operationError(node, 'The parameter "Fields" names no field to compare', {
			itemIndex,
			description: 'The domain name is the key of the comparison; choose at least one other field, for example technologies.',
		});
	}
	const rawKinds = this.getNodeParameter('changes', itemIndex, [...CHANGE_KINDS]) as unknown;
	const kindList = (Array.isArray(rawKinds) ? rawKinds : String(rawKinds ?? '').split(','))
		.map((kind) => String(kind).trim().toLowerCase())
		.filter((kind) => kind.length > 0);
	const unknown = kindList.filter((kind) => !(CHANGE_KINDS as readonly string[]).includes(kind));
	if (unknown.length > 0 || kindList.length === 0) {
		throw operationError(
			node,
			kindList.length === 0 ? 'The parameter "Changes" is empty' : `The parameter "Changes" has unknown values: ${unknown.map((kind) => `"${kind}"`).join(', ')}`,
			{ itemIndex, description: 'Choose one or more of: added, removed, changed.' },
		);
	}
	const outputParameters = output.readOutputParameters.call(this, itemIndex);
	const options = this.getNodeParameter('options', itemIndex, {}) as { minRankMove?: number };
	const minRankMove = readWholeNumber(node, options.minRankMove, 'option "Ignore Rank Moves Smaller Than"', { itemIndex, fallback: 1 });
	return {
		...selection,
		...outputParameters,
		baseLabel,
		fields: compared,
		kinds: new Set(kindList as ChangeKind[]),
		minRankMove,
	};
}

function tooManyChangesError(this: IExecuteFunctions, request: CompareRequest, pair: SnapshotPair, itemIndex: number, held: number) {
	return operationError(
		this.getNode(),
		`The comparison of "${pair.label}" with "${pair.baseLabel}" finds more changes for this selection than "Max Records in Memory" (${request.maxRecords.toLocaleString('en-US')}) allows${output.alreadyHeld(held)}`,
		{ itemIndex, description: output.GUARD_DESCRIPTION },
	);
}

function specOf(request: CompareRequest, pair: SnapshotPair, itemIndex: number): CompareSpec {
	return {
		...pair,
		fields: request.fields,
		kinds: request.kinds,
		filter: request.filter,
		minRankMove: request.minRankMove,
		limit: request.limit,
		maxAttempts: request.maxAttempts,
		idleTimeoutMs: request.idleTimeoutMs,
		onMalformed: request.onMalformed,
		itemIndex,
	};
}

function addReadHints(this: IExecuteFunctions, stats: CompareStats, changes: number, pair: SnapshotPair): void {
	for (const read of stats.reads) {
		if (read.skippedLines === 0) continue;
		output.addHint(this, `Skipped ${read.skippedLines} malformed line${read.skippedLines > 1 ? 's' : ''} of the dataset "${read.label}" (line ${read.skippedLineNumbers.join(', ')}${read.skippedLines > read.skippedLineNumbers.length ? ', …' : ''})`);
	}
	if (changes === 0) output.addHint(this, `No change between "${pair.baseLabel}" and "${pair.label}" for these fields, changes and filters`);
}

/** Items or batches: the changes held in memory, at most `room` of them. */
async function compareIntoMemory(
	this: IExecuteFunctions,
	request: CompareRequest,
	pair: SnapshotPair,
	itemIndex: number,
	held: number,
): Promise<INodeExecutionData[]> {
	const room = request.maxRecords - held;
	const stats = createCompareStats();
	const spec = specOf(request, pair, itemIndex);
	if (request.limit === undefined || request.limit > room) {
		spec.maxChanges = room;
		spec.tooMany = () => tooManyChangesError.call(this, request, pair, itemIndex, held);
	}
	const pairedItem = { item: itemIndex };
	const items: INodeExecutionData[] = [];
	let batch: DomainChange[] = [];
	let count = 0;
	const flush = () => {
		items.push({ json: { label: pair.label, baseLabel: pair.baseLabel, batch: items.length + 1, records: batch }, pairedItem });
		batch = [];
	};
	for await (const change of compareSnapshots.call(this, spec, stats)) {
		count++;
		if (request.output === 'items') {
			items.push({ json: change, pairedItem });
		} else {
			batch.push(change);
			if (batch.length === request.batchSize) flush();
		}
	}
	if (batch.length > 0) flush();
	addReadHints.call(this, stats, count, pair);
	return items;
}

interface FileTally {
	counts: Record<ChangeKind, number>;
	bytes: number;
}

/** The changes as NDJSON bytes, in pieces of about 64 KB, counted in `tally` as they pass. */
async function* changesAsNdjson(this: IExecuteFunctions, spec: CompareSpec, stats: CompareStats, tally: FileTally): AsyncGenerator<Uint8Array> {
	const encoder = new TextEncoder();
	let piece = '';
	const take = () => {
		const encoded = encoder.encode(piece);
		tally.bytes += encoded.length;
		piece = '';
		return encoded;
	};
	for await (const change of compareSnapshots.call(this, spec, stats)) {
		tally.counts[change.change]++;
		piece += JSON.stringify(change) + '\n';
		if (piece.length >= FILE_PIECE_CHARS) yield take();
	}
	if (piece.length > 0) yield take();
}

/** File: the changes as NDJSON, stored as they are found (memory: the kept older records, see snapshotDiff.ts). */
async function compareIntoFile(this: IExecuteFunctions, request: CompareRequest, pair: SnapshotPair, itemIndex: number): Promise<INodeExecutionData> {
	const stats = createCompareStats();
	const tally: FileTally = { counts: { added: 0, removed: 0, changed: 0 }, bytes: 0 };
	const ndjson = changesAsNdjson.call(this, specOf(request, pair, itemIndex), stats, tally);
	const { binary, fileName } = await output.storeNdjsonFile.call(this, ndjson, `changes-${pair.baseLabel}-${pair.label}`, request.compression, itemIndex);
	const { counts, bytes } = tally;
	const recordCount = counts.added + counts.removed + counts.changed;
	const json: IDataObject = {
		label: pair.label,
		baseLabel: pair.baseLabel,
		fileName,
		recordCount,
		...counts,
		sizeBytes: typeof binary.bytes === 'number' ? binary.bytes : bytes,
		fields: request.fields,
	};
	if (request.compression === 'gzip') json.uncompressedBytes = bytes;
	addReadHints.call(this, stats, recordCount, pair);
	return { json, binary: { [request.binaryPropertyName]: binary }, pairedItem: { item: itemIndex } };
}

/** The changes in arrays of `size` (the last may be shorter), as the sub-workflow runner takes them. */
async function* changesInBatches(
	this: IExecuteFunctions,
	spec: CompareSpec,
	stats: CompareStats,
	size: number,
	counts: Record<ChangeKind, number>,
): AsyncGenerator<DomainChange[]> {
	let batch: DomainChange[] = [];
	for await (const change of compareSnapshots.call(this, spec, stats)) {
		counts[change.change]++;
		batch.push(change);
		if (batch.length === size) {
			yield batch;
			batch = [];
		}
	}
	if (batch.length > 0) yield batch;
}

/** Sub-Workflow: the changes go to the chosen workflow batch by batch; the node outputs a summary. */
async function compareToSubWorkflow(
	this: IExecuteFunctions,
	request: CompareRequest,
	pair: SnapshotPair,
	itemIndex: number,
): Promise<INodeExecutionData> {
	const target = readSubWorkflowParameters.call(this, itemIndex);
	const stats = createCompareStats();
	const counts: Record<ChangeKind, number> = { added: 0, removed: 0, changed: 0 };
	const batches = changesInBatches.call(this, specOf(request, pair, itemIndex), stats, request.batchSize, counts);
	const summary = await runSubWorkflowPerBatch.call(this, target.workflow, batches, {
		label: pair.label,
		baseLabel: pair.baseLabel,
		itemIndex,
		batchSize: request.batchSize,
		skipRecords: target.skipRecords,
		batchInfoField: target.batchInfoField,
	});
	Object.assign(summary.json, counts);
	addReadHints.call(this, stats, counts.added + counts.removed + counts.changed, pair);
	return summary;
}

/**
 * Runs once per input item. The dataset list is fetched once per execution (when the first item needs
 * it), so `latest` and `previous` mean the same snapshots for every item. Items and Batches count their
 * changes across all input items against "Max Records in Memory", as Stream does.
 */
export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	let datasets: Promise<Dataset[]> | undefined;
	let held = 0;
	return await forEachItem.call(this, items, async (itemIndex, returnItems) => {
		const request = readRequest.call(this, itemIndex);
		datasets ??= listDatasets.call(this, { maxAttempts: request.maxAttempts, itemIndex }).catch((error: unknown) => {
			datasets = undefined; // the next item may try again
			throw error;
		});
		const pair = pickSnapshotPair.call(this, request, await datasets, itemIndex);
		if (request.output === SUB_WORKFLOW_OUTPUT) {
			returnItems.push(await compareToSubWorkflow.call(this, request, pair, itemIndex));
		} else if (request.output === 'file') {
			returnItems.push(await compareIntoFile.call(this, request, pair, itemIndex));
		} else {
			const result = await compareIntoMemory.call(this, request, pair, itemIndex, held);
			const changes = request.output === 'items' ? result.length : result.reduce((sum, item) => sum + (item.json.records as unknown[]).length, 0);
			held += changes;
			for (const item of result) returnItems.push(item);
		}
	});
}
