/** The Sub-Workflow output: one run of the chosen workflow per batch (`executeWorkflow`), fed from ./spool.ts. */
import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';

import { count, isNodeError, operationError, withNote, withoutFinalStops } from '../../../errors';
import { cancelSignal } from '../../../transport';
import type { OutputParameters, SubWorkflowTarget } from '../outputPlan';
import { addHints, type DatasetSource, factsOfReads, resumeHint, selectionName } from './source';
import { failedWith } from '../../perItem';
import { type SpoolFacts, spooledBatches } from './spool';

/** Sub-workflow calls nested deeper than this are not followed (n8n itself sets no bound). */
const MAX_CALL_DEPTH = 20;

/** Of `source`: records read (skipped ones too), sent, done; batches `expected` about, `exact` once spooled. */
function startProgress(source: DatasetSource, many: string, skipRecords: number, expected: number | undefined) {
	const of = selectionName(source.labels);
	return { source, of, many, skipRecords, read: 0, sent: 0, batches: 0, expected, exact: false };
}
type Progress = ReturnType<typeof startProgress>;

/** Records left out by Skip Records, then those the sub-workflow finished. */
const done = (progress: Progress) => Math.min(progress.skipRecords, progress.read) + progress.sent;

/**
 * Refuses, before any call, a target this node cannot run: on an n8n without sub-workflow calls, and a workflow
 * that is running this node (itself, or one that called it), which each batch would start again without end.
 */
export async function assertCallable(
	this: IExecuteFunctions,
	workflowId: string,
	itemIndex: number,
	callers: () => Promise<ReadonlySet<string>>,
): Promise<void> {
	const node = this.getNode();
	if (typeof this.executeWorkflow !== 'function') {
		throw operationError(node, 'The Sub-Workflow output cannot run here', {
			itemIndex,
			description: 'This version of n8n does not let nodes run other workflows. Use the File output, or a newer n8n.',
		});
	}
	if (!(await callers()).has(workflowId)) return;
	const message =
		workflowId === this.getWorkflow().id
			? `The workflow chosen in "Workflow" is this workflow itself (ID ${workflowId})`
			: `The workflow chosen in "Workflow" (ID ${workflowId}) is running this one: it called it as a sub-workflow`;
	throw operationError(node, message, {
		itemIndex,
		description:
			'Each batch would start this node again, which would read the dataset again and run the workflow again, ' +
			'without end (and each read costs requests). Choose a workflow that does not run this node, for ' +
			'example one that only writes the records where they belong.',
	});
}

/** This workflow and those that called it, as far as n8n stored the chain (its database is read in a sub-execution). */
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

/** `batch 3`, `batch 3 of about 10` (from a Limit), `batch 10 of 10` (once spooled, or at the end). */
function progressText(batch: number, total: number | undefined, exact = false): string {
	return total === undefined ? `batch ${batch}` : `batch ${batch} of ${exact ? '' : 'about '}${total}`;
}

/** The sub-workflow failed on a batch: name the batch, its records and where to resume. */
function batchFailedError(node: INode, progress: Progress, size: number, cause: unknown, itemIndex: number) {
	const records = done(progress);
	const reason = withoutFinalStops(cause instanceof Error ? cause.message : String(cause));
	const id = (cause as { executionId?: unknown } | undefined)?.executionId;
	const execution = typeof id === 'string' || typeof id === 'number' ? ` (execution ${id})` : '';
	const { many, of } = progress;
	const range = `${many} ${count(records + 1)}-${count(records + size)} of the ${of}`;
	const failed = `The sub-workflow failed at batch ${progress.batches + 1} (${range})`;
	return operationError(node, `${failed}; ${count(records)} ${many} were done`, {
		itemIndex,
		description:
			`The sub-workflow${execution} said: ${reason}. ${resumeHint(progress.source, records)} The ${many} of the ` +
			"failed batch may be partly written: make the sub-workflow's writes idempotent, or remove them before resuming.",
	});
}

/**
 * Runs the chosen workflow once per batch and returns the summary item (`records`: sent in this run). On a failure
 * the failure carries the summary fields, with `skipRecords` (where to resume), for its error item (failedWith).
 */
export async function runSubWorkflow(
	this: IExecuteFunctions,
	source: DatasetSource,
	output: OutputParameters,
	run: { target: SubWorkflowTarget; itemIndex: number; limit?: number; many: string },
): Promise<INodeExecutionData> {
	const { itemIndex, limit } = run;
	const { workflowId, skipRecords, batchInfoField } = run.target;
	const { batchSize } = output;
	const started = Date.now();
	const toSend = limit === undefined ? 0 : limit - skipRecords;
	const expected = toSend > 0 ? Math.ceil(toSend / batchSize) : undefined;
	const progress = startProgress(source, run.many, skipRecords, expected);
	let spool: SpoolFacts | undefined;
	const spooled = (facts: SpoolFacts) => {
		spool = facts;
		progress.expected = Math.ceil(facts.records / batchSize);
		progress.exact = true;
		logSpooled.call(this, progress, facts);
	};
	const summary = (failed: boolean): IDataObject => {
		const { sent, batches } = progress;
		const skippedRecords = Math.min(skipRecords, progress.read);
		const json: IDataObject = { ...source.labels, records: sent, batches, skippedRecords };
		json.durationMs = Date.now() - started;
		if (spool?.files) Object.assign(json, { spooledBytes: spool.bytes, spoolFiles: spool.files });
		if (failed) json.progress = progressText(batches + 1, progress.expected, progress.exact);
		else if (batches > 0) json.progress = progressText(batches, batches, true);
		return { ...json, ...source.summary(), ...factsOfReads(source, output) };
	};
	// Links each sub-execution to this one in n8n's execution list (and lets a nested run find its callers).
	const parentExecution = { executionId: this.getExecutionId(), workflowId: this.getWorkflow().id ?? '' };
	const links = parentExecution.executionId && parentExecution.workflowId ? { parentExecution } : undefined;
	const cancel = cancelSignal(this);
	let batchFailure: unknown;
	try {
		const records = counted(source.records({ batchSize }), progress);
		const batches = spooledBatches.call(this, records, { batchSize, skip: skipRecords, itemIndex, spooled });
		for await (const batch of batches) {
			if (cancel?.aborted) throw operationError(this.getNode(), 'The execution was cancelled', { itemIndex });
			const items = toItems(batch, batchInfoField, progress);
			try {
				// Only whether it waits matters: the sub-workflow's output items are dropped here.
				const { waitTill } = await this.executeWorkflow({ id: workflowId }, items, undefined, links);
				if (waitTill) {
					throw new Error(
						'it went into a Wait state, which a batch cannot do (the stream cannot wait); remove the Wait node',
					);
				}
			} catch (error) {
				batchFailure = batchFailedError(this.getNode(), progress, batch.length, error, itemIndex);
				throw batchFailure;
			}
			progress.sent += batch.length;
			progress.batches++;
			logProgress.call(this, progress);
		}
	} catch (error) {
		const resumeAt = skipRecords + progress.sent;
		const resume = resumeHint(source, resumeAt);
		// Reading stopped (the service, the network): the sent batches are done, say where to resume.
		const sent = `${count(resumeAt)} ${run.many} were sent to the sub-workflow before this. ${resume}`;
		const noted = isNodeError(error) && resumeAt > 0 && error !== batchFailure;
		const failure = noted ? withNote(error, sent) : (error as object);
		throw failedWith(failure, { ...summary(true), skipRecords: resumeAt }, resume);
	} finally {
		if (typeof this.setMetadata === 'function') this.setMetadata({ subExecutionsCount: progress.batches });
	}
	const all = `${count(progress.read)} ${run.many}`;
	const skippedAll = `Skip Records (${count(skipRecords)}) skipped all ${all} of this selection`;
	const hint = progress.read > 0 && progress.sent === 0 ? `${skippedAll}: nothing was sent` : undefined;
	addHints.call(this, source, progress.read, hint);
	return { json: summary(false), pairedItem: { item: itemIndex } };
}

/** Counts what passes (skipped records included), to tell a Skip Records beyond the end. */
async function* counted(records: AsyncIterable<IDataObject[]>, progress: Progress) {
	for await (const batch of records) {
		progress.read += batch.length;
		yield batch;
	}
}

/** One item per record (the record parsed for this run: adding keys costs less than a copy). */
function toItems(batch: IDataObject[], infoField: string, progress: Progress): INodeExecutionData[] {
	const first = done(progress) + 1;
	const info = infoField
		? {
				number: progress.batches + 1,
				progress: progressText(progress.batches + 1, progress.expected, progress.exact),
				firstRecord: first,
				lastRecord: first + batch.length - 1,
				records: batch.length,
			}
		: undefined;
	return batch.map((record) => {
		record.label = progress.source.labels.label;
		if (info) record[infoField] = { ...info };
		return { json: record };
	});
}

/** A log line once the selection is spooled (not when nothing was: binary data in memory, or no record). */
function logSpooled(this: IExecuteFunctions, progress: Progress, facts: SpoolFacts): void {
	if (facts.files === 0) return;
	const { of, many } = progress;
	const megabytes = (facts.bytes / 1024 / 1024).toFixed(1);
	const files = `${facts.files} file${facts.files === 1 ? '' : 's'}`;
	const spooledInto = `${of}: ${count(facts.records)} ${many} (${megabytes} MB) spooled into ${files}`;
	this.logger?.info(`Domain Data: ${spooledInto}; feeding ${progress.expected} batches to the sub-workflow`);
}

/** A log line about every 5% of the batches (every 10th when the total is not known), and at the last one. */
function logProgress(this: IExecuteFunctions, progress: Progress): void {
	const { of, many, batches, expected, exact } = progress;
	const every = exact && expected ? Math.max(1, Math.ceil(expected / 20)) : 10;
	if (batches % every !== 0 && !(exact && batches === expected)) return;
	const text = progressText(batches, expected, exact);
	this.logger?.info(`Domain Data: ${of}: ${text} done by the sub-workflow (${count(done(progress))} ${many})`);
}
