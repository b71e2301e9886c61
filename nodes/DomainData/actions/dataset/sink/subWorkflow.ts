/**
 * The Sub-Workflow output: records handed to a workflow of the instance, one run per batch, through n8n's own API
 * for nodes (`executeWorkflow`). Each run is awaited before the next batch is read, so the reader's stream pauses
 * meanwhile and memory holds one batch; each sub-execution frees its data when it ends. n8n runs the sub-workflow
 * in the process that runs this node (the worker in queue mode).
 *
 * `runSubWorkflow` takes the records from `source.records()`: a spool (records read ahead at the service's pace)
 * goes between the two as another DatasetSource wrapping the first, without a change here.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { isNodeError, operationError } from '../../../errors';
import { rebatch } from '../../../helpers/batches';
import type { OutputParameters, SubWorkflowTarget } from '../outputParameters';
import { addHints, count, type DatasetSource, factsOfReads } from './source';

/**
 * Refuses, before any call, a target this node cannot run: as an AI tool, on an n8n without sub-workflow calls,
 * and a workflow that is running this node (itself, or one that called it): each batch would start this node
 * again, which would read the dataset and call the workflow again, without end.
 */
export async function assertCallable(
	this: IExecuteFunctions,
	workflowId: string,
	itemIndex: number,
	callers: () => Promise<ReadonlySet<string>>,
): Promise<void> {
	const node = this.getNode();
	const asTool = node.type.endsWith('Tool');
	if (asTool || typeof this.executeWorkflow !== 'function') {
		throw operationError(node, 'The Sub-Workflow output cannot run here', {
			itemIndex,
			description: asTool
				? 'An AI agent cannot start sub-workflows through this node. Use the Items output with a Limit for the ' +
					'agent, and the Sub-Workflow output in a regular workflow.'
				: 'This version of n8n does not let nodes run other workflows. Use the File output, or a newer n8n.',
		});
	}
	if (!(await callers()).has(workflowId)) return;
	const itself = workflowId === this.getWorkflow().id;
	throw operationError(
		node,
		itself
			? `The workflow chosen in "Workflow" is this workflow itself (ID ${workflowId})`
			: `The workflow chosen in "Workflow" (ID ${workflowId}) is running this one: it called it as a sub-workflow`,
		{
			itemIndex,
			description:
				'Each batch would start this node again, which would read the dataset again and run the workflow again, ' +
				'without end (and each read costs requests). Choose a workflow that does not run this node, for ' +
				'example one that only writes the records where they belong.',
		},
	);
}

/** Sub-workflow calls nested deeper than this are not followed (n8n itself sets no bound). */
const MAX_CALL_DEPTH = 20;

/**
 * This workflow and those that called it through sub-workflow calls, as far as n8n stored the chain: each
 * execution records the one that called it. n8n's database is read only in a sub-execution.
 */
export async function runningWorkflows(this: IExecuteFunctions): Promise<ReadonlySet<string>> {
	const ids = new Set<string>();
	const own = this.getWorkflow().id;
	if (own) ids.add(own);
	const runtime = this.getExecutionContext?.();
	let executionId: string | undefined = runtime && !runtime.parentExecutionId ? undefined : this.getExecutionId();
	for (let depth = 0; executionId && depth < MAX_CALL_DEPTH; depth++) {
		const parent = (await this.getExecutionDataById(executionId).catch(() => undefined))?.parentExecution;
		if (!parent?.workflowId) break;
		ids.add(parent.workflowId);
		executionId = parent.executionId;
	}
	return ids;
}

interface Progress {
	/** Records read and left out (Skip Records), then sent and finished by the sub-workflow. */
	skipped: () => number;
	sent: number;
	batches: number;
	/** Batches expected from a Limit, when there is one. */
	expected?: number;
}

/** `batch 3`, `batch 3 of about 10` (from a Limit), `batch 10 of 10` (at the end). */
function progressText(batch: number, total: number | undefined, exact = false): string {
	return total === undefined ? `batch ${batch}` : `batch ${batch} of ${exact ? '' : 'about '}${total}`;
}

function resumeHint(done: number): string {
	return `To go on from there, run it again with the option "Skip Records" set to ${done}.`;
}

/** The sub-workflow failed on a batch: name the batch, its records and where to resume. */
function batchFailedError(this: IExecuteFunctions, label: string, progress: Progress, size: number, cause: unknown, itemIndex: number) {
	const done = progress.skipped() + progress.sent;
	const reason = (cause instanceof Error ? cause.message : String(cause)).replace(/[.\s]+$/, '');
	const executionId = (cause as { executionId?: unknown } | undefined)?.executionId;
	const execution = typeof executionId === 'string' || typeof executionId === 'number' ? ` (execution ${executionId})` : '';
	return operationError(
		this.getNode(),
		`The sub-workflow failed at batch ${progress.batches + 1} (records ${count(done + 1)}-${count(done + size)} of the dataset "${label}"); ${count(done)} records were done`,
		{
			itemIndex,
			description:
				`The sub-workflow${execution} said: ${reason}. ${resumeHint(done)} The records of the failed batch may be ` +
				'partly written: make the sub-workflow\'s writes idempotent, or remove them before resuming.',
		},
	);
}

/** Reading stopped (the service, the network): the sent batches are done, say where to resume. */
function withResumeHint(error: unknown, done: number): unknown {
	if (isNodeError(error) && done > 0) {
		const note = `${count(done)} records were sent to the sub-workflow before this. ${resumeHint(done)}`;
		error.description = error.description ? `${error.description} ${note}` : note;
	}
	return error;
}

/** Counts what passes (skipped records included), to tell a Skip Records beyond the end. */
async function* counted(records: AsyncIterable<IDataObject[]>, tally: { records: number }): AsyncGenerator<IDataObject[]> {
	for await (const batch of records) {
		tally.records += batch.length;
		yield batch;
	}
}

/**
 * Runs the chosen workflow once per batch of the source's records and returns the summary item
 * `{ label, records, batches, skippedRecords, durationMs, progress, ... }` (records: sent in this run). On a failure
 * the summary fields go into `run.failed` for the error item under Continue On Fail, with `skipRecords` (where to
 * resume).
 */
export async function runSubWorkflow(
	this: IExecuteFunctions,
	source: DatasetSource,
	output: OutputParameters,
	run: { target: SubWorkflowTarget; itemIndex: number; limit?: number; many: string; failed: Map<number, IDataObject> },
): Promise<INodeExecutionData> {
	const { itemIndex, limit } = run;
	const { workflowId, skipRecords, batchInfoField } = run.target;
	const { label } = source.names;
	const started = Date.now();
	const read = { records: 0 };
	const progress: Progress = {
		skipped: () => Math.min(skipRecords, read.records),
		sent: 0,
		batches: 0,
		expected: limit === undefined || limit <= skipRecords ? undefined : Math.ceil((limit - skipRecords) / output.batchSize),
	};
	const summary = (failed: boolean): IDataObject => {
		const { sent, batches } = progress;
		const json: IDataObject = { ...source.names, records: sent, batches, skippedRecords: progress.skipped() };
		json.durationMs = Date.now() - started;
		if (failed) json.progress = progressText(batches + 1, progress.expected);
		else if (batches > 0) json.progress = progressText(batches, batches, true);
		return { ...json, ...source.summary(), ...factsOfReads(source, output) };
	};
	// Links each sub-execution to this one in n8n's execution list (and lets a nested run find its callers).
	const [executionId, parentWorkflowId] = [this.getExecutionId(), this.getWorkflow().id];
	const links = executionId && parentWorkflowId ? { parentExecution: { executionId, workflowId: parentWorkflowId } } : undefined;
	const cancel = typeof this.getExecutionCancelSignal === 'function' ? this.getExecutionCancelSignal() : undefined;
	try {
		const records = counted(source.records({ batchSize: output.batchSize }), read);
		for await (const batch of rebatch(records, output.batchSize, skipRecords)) {
			if (cancel?.aborted) throw operationError(this.getNode(), 'The execution was cancelled', { itemIndex });
			const items = toItems(batch, label, batchInfoField, progress);
			// Only whether it waits matters: the sub-workflow's output items are dropped here.
			let waitTill: unknown;
			try {
				({ waitTill } = await this.executeWorkflow({ id: workflowId }, items, undefined, links));
			} catch (error) {
				throw batchFailedError.call(this, label, progress, batch.length, error, itemIndex);
			}
			if (waitTill) {
				const cause = new Error('it went into a Wait state, which a batch cannot do (the stream cannot wait); remove the Wait node');
				throw batchFailedError.call(this, label, progress, batch.length, cause, itemIndex);
			}
			progress.sent += batch.length;
			progress.batches++;
		}
	} catch (error) {
		run.failed.set(itemIndex, { ...summary(true), skipRecords: skipRecords + progress.sent });
		throw withResumeHint(error, skipRecords + progress.sent);
	} finally {
		if (typeof this.setMetadata === 'function') this.setMetadata({ subExecutionsCount: progress.batches });
	}
	const all = `all ${count(read.records)} ${run.many} of this selection`;
	const skippedAll = read.records > 0 && progress.sent === 0;
	const hint = skippedAll ? `Skip Records (${count(skipRecords)}) skipped ${all}: nothing was sent to the sub-workflow` : undefined;
	addHints.call(this, source, read.records, hint);
	return { json: summary(false), pairedItem: { item: itemIndex } };
}

/** One item per record (the record parsed for this run: adding keys costs less than a copy). */
function toItems(batch: IDataObject[], label: string, batchInfoField: string, progress: Progress): INodeExecutionData[] {
	const done = progress.skipped() + progress.sent;
	const info = batchInfoField
		? {
				number: progress.batches + 1,
				progress: progressText(progress.batches + 1, progress.expected),
				firstRecord: done + 1,
				lastRecord: done + batch.length,
				records: batch.length,
			}
		: undefined;
	return batch.map((record) => {
		record.label = label;
		if (info) record[batchInfoField] = { ...info };
		return { json: record };
	});
}
