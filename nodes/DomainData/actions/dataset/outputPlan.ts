/** How one item of Stream or Compare reads its output parameters (fields: ./output.ts), checked before any call. */
import type { IDataObject, IExecuteFunctions, INodeParameterResourceLocator } from 'n8n-workflow';

import { operationError } from '../../errors';
import type { MalformedLineHandling } from '../../helpers/snapshotReader';
import { DEFAULT_BATCH_SIZE } from '../../helpers/streams';
import { readWholeNumber } from '../../parameters';
import type { ToolBounds } from '../perItem';
import {
	DEFAULT_MAX_FILE_MB,
	DEFAULT_MAX_RECORDS_IN_MEMORY,
	MIN_MAX_FILE_MB,
	OUTPUTS,
	type OutputWording,
} from './output';

export interface OutputParameters {
	output: (typeof OUTPUTS)[number];
	batchSize: number;
	binaryPropertyName: string;
	compression: 'none' | 'gzip';
	maxRecords: number;
	onMalformed: MalformedLineHandling;
	subWorkflow?: SubWorkflowTarget;
	file?: FileTarget;
}

/** How the File output cuts and resumes: parts of at most `maxBytes`, after the first `skipRecords` records. */
type FileTarget = { maxBytes: number; skipRecords: number };

/** Where the Sub-Workflow output sends the records of one item (`batchInfoField`: '' for none). */
export type SubWorkflowTarget = { workflowId: string; skipRecords: number; batchInfoField: string };

/** Outputs a tool cannot answer with: it answers with data. */
const REFUSED_BY_TOOLS: Partial<Record<OutputParameters['output'], string>> = {
	file: 'an NDJSON file',
	subWorkflow: 'a sub-workflow',
};

/**
 * One item's output parameters, checked before any call; `recordKeys`: keys the batch information must not take. A
 * tool (`tool`) always gets Items, and refuses the outputs it cannot answer with.
 */
export function readOutputParameters(
	this: IExecuteFunctions,
	itemIndex: number,
	recordKeys: readonly string[],
	words: OutputWording,
	options: IDataObject,
	tool?: ToolBounds,
): OutputParameters {
	const node = this.getNode();
	const asSet = this.getNodeParameter('output', itemIndex, 'items') as OutputParameters['output'];
	if (!OUTPUTS.includes(asSet)) {
		const message = `The parameter "Output" must be items, batches, file or subWorkflow, got "${asSet}"`;
		throw operationError(node, message, { itemIndex });
	}
	const refused = tool && REFUSED_BY_TOOLS[asSet];
	if (refused) {
		throw operationError(node, `This tool is set to send its data to ${refused}, which a tool cannot answer with`, {
			itemIndex,
			toolHelp: 'description',
			description:
				'Tell the user to set Output to "Items" in the tool\'s parameters; the tool then answers with at most ' +
				`${tool.records} ${words.many}.`,
		});
	}
	const output = tool ? 'items' : asSet;
	const batched = output === 'batches' || output === 'subWorkflow';
	const size = batched ? this.getNodeParameter('batchSize', itemIndex, DEFAULT_BATCH_SIZE) : DEFAULT_BATCH_SIZE;
	const batchSize = readWholeNumber(node, size, 'parameter "Batch Size"', { itemIndex });
	const binaryField = output === 'file' ? this.getNodeParameter('binaryPropertyName', itemIndex, 'data') : 'data';
	const binaryPropertyName = String(binaryField).trim();
	if (!binaryPropertyName) {
		throw operationError(node, 'The parameter "Put Output File in Field" is empty', {
			itemIndex,
			description: 'Give the name of the binary field that receives the file, for example "data".',
		});
	}
	return {
		output,
		batchSize,
		binaryPropertyName,
		compression: options.compression === 'gzip' ? 'gzip' : 'none',
		maxRecords: readWholeNumber(node, options.maxRecords, 'option "Max Records in Memory"', {
			itemIndex,
			fallback: DEFAULT_MAX_RECORDS_IN_MEMORY,
		}),
		onMalformed: options.onMalformedLine === 'skip' ? 'skip' : 'error',
		subWorkflow:
			output === 'subWorkflow' ? readSubWorkflowTarget.call(this, itemIndex, options, recordKeys) : undefined,
		file: output === 'file' ? readFileTarget.call(this, itemIndex, options) : undefined,
	};
}

function readSkipRecords(this: IExecuteFunctions, itemIndex: number, options: IDataObject): number {
	return readWholeNumber(this.getNode(), options.skipRecords, 'option "Skip Records"', {
		itemIndex,
		min: 0,
		fallback: 0,
		description: 'Use the number that the error of the stopped run names, or 0 to send everything.',
	});
}

function readFileTarget(this: IExecuteFunctions, itemIndex: number, options: IDataObject): FileTarget {
	const size = this.getNodeParameter('maxFileSize', itemIndex, DEFAULT_MAX_FILE_MB);
	const megabytes = readWholeNumber(this.getNode(), size, 'parameter "Max File Size (MB)"', {
		itemIndex,
		min: MIN_MAX_FILE_MB,
		fallback: DEFAULT_MAX_FILE_MB,
		description:
			`Enter a whole number of MB, ${MIN_MAX_FILE_MB} or more: under the limit per file of n8n's binary data ` +
			'mode (database mode: 512 MB by default), or a large one for a single file.',
	});
	// MB as n8n counts its limit (its "512 MB" is 512 MiB).
	return { maxBytes: megabytes * 1024 * 1024, skipRecords: readSkipRecords.call(this, itemIndex, options) };
}

function readSubWorkflowTarget(
	this: IExecuteFunctions,
	itemIndex: number,
	options: IDataObject,
	recordKeys: readonly string[],
): SubWorkflowTarget {
	const node = this.getNode();
	const chosen = this.getNodeParameter('workflowId', itemIndex, '') as INodeParameterResourceLocator | string;
	const workflowId = String((typeof chosen === 'object' && chosen !== null ? chosen.value : chosen) ?? '').trim();
	if (!workflowId) {
		throw operationError(node, 'The parameter "Workflow" is empty', {
			itemIndex,
			description:
				"Choose the workflow to run for each batch from the list, or give its ID (it is in the workflow's URL).",
		});
	}
	const skipRecords = readSkipRecords.call(this, itemIndex, options);
	const batchInfoField = String(options.batchInfoField ?? '').trim();
	// A key of the record would be overwritten, and one of Object.prototype is dropped or turns into the prototype.
	if (batchInfoField && (recordKeys.includes(batchInfoField) || batchInfoField in Object.prototype)) {
		const message = `The option "Put Batch Info in Field" names a field the records already use: "${batchInfoField}"`;
		throw operationError(node, message, {
			itemIndex,
			description: `Choose another name, for example "batch". The records hold: ${recordKeys.join(', ')}.`,
		});
	}
	return { workflowId, skipRecords, batchInfoField };
}
