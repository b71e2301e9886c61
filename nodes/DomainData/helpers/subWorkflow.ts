/**
 * The Sub-Workflow output: records handed to a workflow of the instance, one run per batch, through
 * n8n's own API for nodes (`executeWorkflow`). Each run is awaited before the next batch is read, so
 * the reader's stream pauses meanwhile and memory holds one batch; each sub-execution frees its data
 * when it ends. n8n runs the sub-workflow in the process that runs this node (the worker in queue mode).
 *
 * Shared by Dataset → Stream and Dataset → Compare: give `runSubWorkflowPerBatch` an async iterable of
 * record arrays (of any size; they are cut into `batchSize` here) and spread the properties below into
 * the operation's description.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	IExecuteWorkflowInfo,
	INodeExecutionData,
	INodeParameterResourceLocator,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { isNodeError, operationError } from '../errors';
import { readWholeNumber } from '../parameters';
import { rebatch } from './batches';

export const SUB_WORKFLOW_OUTPUT = 'subWorkflow';

/** The choice for an operation's Output parameter. */
export const subWorkflowOutputOption: INodePropertyOptions = {
	name: 'Sub-Workflow',
	value: SUB_WORKFLOW_OUTPUT,
	description:
		'Run a workflow once per batch of records, one item per record; for whole snapshots, in any binary data mode and in queue mode',
};

/** The workflow to run; chosen as n8n's Execute Workflow node chooses one (list, ID or expression). */
export const workflowIdProperty: INodeProperties = {
	displayName: 'Workflow',
	name: 'workflowId',
	type: 'workflowSelector',
	default: '',
	required: true,
	hint: 'A workflow that starts with "When Executed by Another Workflow" (Input data mode: Accept all data). It receives each record as one item.',
	displayOptions: { show: { output: [SUB_WORKFLOW_OUTPUT] } },
};

/** Goes into the operation's `options` collection. */
export const subWorkflowOptions: INodeProperties[] = [
	{
		displayName: 'Skip Records',
		name: 'skipRecords',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 0,
		displayOptions: { show: { '/output': [SUB_WORKFLOW_OUTPUT] } },
		description:
			'Read this many records first without sending them, then go on. To resume a run that stopped, use the number its error (or its summary item) gives.',
	},
	{
		displayName: 'Put Batch Info in Field',
		name: 'batchInfoField',
		type: 'string',
		default: '',
		placeholder: 'e.g. batch',
		displayOptions: { show: { '/output': [SUB_WORKFLOW_OUTPUT] } },
		description:
			'Adds { number, firstRecord, lastRecord, records } of the batch to every record under this field. Empty: the records go as they are, so that a database node maps them onto columns directly.',
	},
];

export interface SubWorkflowRun {
	/** The concrete snapshot label: added to every record and named in the summary. */
	label: string;
	/** Compare: the older snapshot's concrete label, named in the summary. */
	baseLabel?: string;
	batchSize: number;
	skipRecords: number;
	/** Field for the batch information, or '' for none. */
	batchInfoField: string;
	itemIndex: number;
}

/** Parameters of the Sub-Workflow output for one item, checked before any call is made. */
export function readSubWorkflowParameters(
	this: IExecuteFunctions,
	itemIndex: number,
): { workflow: IExecuteWorkflowInfo; skipRecords: number; batchInfoField: string } {
	assertSubWorkflowsCanRun.call(this, itemIndex);
	const node = this.getNode();
	const chosen = this.getNodeParameter('workflowId', itemIndex, '') as INodeParameterResourceLocator | string;
	const id = String((typeof chosen === 'object' && chosen !== null ? chosen.value : chosen) ?? '').trim();
	if (!id) {
		throw operationError(node, 'The parameter "Workflow" is empty', {
			itemIndex,
			description: 'Choose the workflow to run for each batch from the list, or give its ID (it is in the workflow\'s URL).',
		});
	}
	const options = this.getNodeParameter('options', itemIndex, {}) as { skipRecords?: number; batchInfoField?: string };
	const skipRecords = readWholeNumber(node, options.skipRecords, 'option "Skip Records"', {
		itemIndex,
		min: 0,
		fallback: 0,
		description: 'Use the number that the error of the stopped run names, or 0 to send everything.',
	});
	return { workflow: { id }, skipRecords, batchInfoField: String(options.batchInfoField ?? '').trim() };
}

/** As an AI tool the node runs in a context that cannot (or must not) start sub-executions. */
function assertSubWorkflowsCanRun(this: IExecuteFunctions, itemIndex: number): void {
	const asTool = this.getNode().type.endsWith('Tool');
	if (asTool || typeof this.executeWorkflow !== 'function') {
		throw operationError(this.getNode(), 'The Sub-Workflow output cannot run here', {
			itemIndex,
			description: asTool
				? 'An AI agent cannot start sub-workflows through this node. Use the Items output with a Limit for the agent, and the Sub-Workflow output in a regular workflow.'
				: 'This version of n8n does not let nodes run other workflows. Use the File output, or a newer n8n.',
		});
	}
}

function count(value: number): string {
	return value.toLocaleString('en-US');
}

interface Progress {
	/** Records sent and finished by the sub-workflow, skipped ones included: the number to resume with. */
	done: number;
	batches: number;
}

function resumeHint(done: number): string {
	return `To go on from there, run it again with the option "Skip Records" set to ${done}.`;
}

/** The sub-workflow failed on a batch: name the batch, its records and where to resume. */
function batchFailedError(this: IExecuteFunctions, run: SubWorkflowRun, progress: Progress, size: number, cause: unknown) {
	const first = progress.done + 1;
	const last = progress.done + size;
	const reason = (cause instanceof Error ? cause.message : String(cause)).replace(/[.\s]+$/, '');
	const executionId = (cause as { executionId?: unknown } | undefined)?.executionId;
	const execution = typeof executionId === 'string' || typeof executionId === 'number' ? ` (execution ${executionId})` : '';
	return operationError(
		this.getNode(),
		`The sub-workflow failed at batch ${progress.batches + 1} (records ${count(first)}-${count(last)} of the dataset "${run.label}"); ${count(progress.done)} records were done`,
		{
			itemIndex: run.itemIndex,
			description: `The sub-workflow${execution} said: ${reason}. ${resumeHint(progress.done)} The records of the failed batch may be partly written: make the sub-workflow's writes idempotent, or remove them before resuming.`,
		},
	);
}

/** Reading stopped (the service, the network): the sent batches are done, say where to resume. */
function withResumeHint(error: unknown, progress: Progress): unknown {
	if (isNodeError(error) && progress.done > 0) {
		const note = `${count(progress.done)} records were sent to the sub-workflow before this. ${resumeHint(progress.done)}`;
		error.description = error.description ? `${error.description} ${note}` : note;
	}
	return error;
}

/**
 * Runs the chosen workflow once per batch of records and returns the summary item
 * `{ label, records, batches, skippedRecords, durationMs }` (records: sent in this run).
 * With continue-on-fail a failure ends in the summary item too, with `error` and `skipRecords` (where to resume).
 */
export async function runSubWorkflowPerBatch(
	this: IExecuteFunctions,
	workflow: IExecuteWorkflowInfo,
	records: AsyncIterable<IDataObject[]>,
	run: SubWorkflowRun,
): Promise<INodeExecutionData> {
	const started = Date.now();
	const progress: Progress = { done: run.skipRecords, batches: 0 };
	const parentExecution = parentExecutionOf(this);
	const cancel = typeof this.getExecutionCancelSignal === 'function' ? this.getExecutionCancelSignal() : undefined;
	const summary = (): IDataObject => ({
		label: run.label,
		...(run.baseLabel !== undefined ? { baseLabel: run.baseLabel } : {}),
		records: progress.done - run.skipRecords,
		batches: progress.batches,
		skippedRecords: run.skipRecords,
		durationMs: Date.now() - started,
	});
	let failure: unknown;
	try {
		for await (const batch of rebatch(records, run.batchSize, run.skipRecords)) {
			if (cancel?.aborted) throw operationError(this.getNode(), 'The execution was cancelled', { itemIndex: run.itemIndex });
			const items = toItems(batch, run, progress);
			// Only whether it waits matters: the sub-workflow's output items are dropped here.
			let waitTill: unknown;
			try {
				({ waitTill } = await this.executeWorkflow(workflow, items, undefined, parentExecution ? { parentExecution } : undefined));
			} catch (error) {
				throw batchFailedError.call(this, run, progress, batch.length, error);
			}
			if (waitTill) {
				throw batchFailedError.call(this, run, progress, batch.length, new Error('it went into a Wait state, which a batch cannot do (the stream cannot wait); remove the Wait node'));
			}
			progress.done += batch.length;
			progress.batches++;
		}
	} catch (error) {
		failure = withResumeHint(error, progress);
	}
	if (typeof this.setMetadata === 'function') this.setMetadata({ subExecutionsCount: progress.batches });
	if (failure === undefined) return { json: summary(), pairedItem: { item: run.itemIndex } };
	if (!this.continueOnFail()) throw failure;
	return {
		json: { ...summary(), error: (failure as Error).message, skipRecords: progress.done },
		pairedItem: { item: run.itemIndex },
	};
}

/** Links each sub-execution to this execution in n8n's execution list. */
function parentExecutionOf(context: IExecuteFunctions): { executionId: string; workflowId: string } | undefined {
	const executionId = context.getExecutionId();
	const workflowId = context.getWorkflow().id;
	return executionId && workflowId ? { executionId, workflowId } : undefined;
}

/** One item per record (the record parsed for this run: adding keys costs less than a copy). */
function toItems(batch: IDataObject[], run: SubWorkflowRun, progress: Progress): INodeExecutionData[] {
	const info = run.batchInfoField
		? { number: progress.batches + 1, firstRecord: progress.done + 1, lastRecord: progress.done + batch.length, records: batch.length }
		: undefined;
	return batch.map((record) => {
		record.label = run.label;
		if (info) record[run.batchInfoField] = { ...info };
		return { json: record };
	});
}
