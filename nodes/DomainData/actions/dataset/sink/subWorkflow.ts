/**
 * The Sub-Workflow output: records handed to a workflow of the instance, one run per batch, through n8n's own API
 * for nodes (`executeWorkflow`). Each run is awaited before the next batch is read, so the reader's stream pauses
 * meanwhile and memory holds one batch; each sub-execution frees its data when it ends. n8n runs the sub-workflow
 * in the process that runs this node (the worker in queue mode).
 *
 * The batches come from the spool (./spool.ts): the whole selection is read at the service's pace into n8n's binary
 * data storage first, then fed at the sub-workflow's pace, so a slow sub-workflow never leaves the stream unread.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { isNodeError, operationError } from '../../../errors';
import type { OutputParameters, SubWorkflowTarget } from '../output';
import { addHints, count, type DatasetSource, factsOfReads } from './source';
import { memoryModeNote, type SpoolFacts, spooledBatches, spoolText } from './spool';

interface Progress {
	/** Records read and left out (Skip Records), then sent and finished by the sub-workflow. */
	skipped: () => number;
	sent: number;
	batches: number;
	/** Batches expected from a Limit, when there is one; exact once the spool holds the whole selection. */
	expected?: number;
	exact?: boolean;
}

/** `batch 3`, `batch 3 of about 10` (from a Limit), `batch 10 of 10` (at the end). */
function progressText(batch: number, total: number | undefined, exact = false): string {
	return total === undefined ? `batch ${batch}` : `batch ${batch} of ${exact ? '' : 'about '}${total}`;
}

function resumeHint(done: number): string {
	return `To go on from there, run it again with the option "Skip Records" set to ${done}.`;
}

/** The sub-workflow failed on a batch: name the batch, its records and where to resume. */
function batchFailedError(
	this: IExecuteFunctions,
	label: string,
	progress: Progress,
	size: number,
	cause: unknown,
	itemIndex: number,
) {
	const done = progress.skipped() + progress.sent;
	const reason = (cause instanceof Error ? cause.message : String(cause)).replace(/[.\s]+$/, '');
	const id = (cause as { executionId?: unknown } | undefined)?.executionId;
	const execution = typeof id === 'string' || typeof id === 'number' ? ` (execution ${id})` : '';
	const records = `records ${count(done + 1)}-${count(done + size)} of the dataset "${label}"`;
	return operationError(
		this.getNode(),
		`The sub-workflow failed at batch ${progress.batches + 1} (${records}); ${count(done)} records were done`,
		{
			itemIndex,
			description:
				`The sub-workflow${execution} said: ${reason}. ${resumeHint(done)} The records of the failed batch may be ` +
				"partly written: make the sub-workflow's writes idempotent, or remove them before resuming.",
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
async function* counted(records: AsyncIterable<IDataObject[]>, tally: { records: number }) {
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
	const toSend = limit === undefined ? 0 : limit - skipRecords;
	const expected = toSend > 0 ? Math.ceil(toSend / output.batchSize) : undefined;
	const progress: Progress = { skipped: () => Math.min(skipRecords, read.records), sent: 0, batches: 0, expected };
	let spool: SpoolFacts | undefined;
	const spooled = (facts: SpoolFacts) => {
		spool = facts;
		if (facts.inMemory) return memoryModeNote.call(this);
		progress.expected = Math.ceil(facts.records / output.batchSize);
		progress.exact = true;
		const feeding = `feeding ${progress.expected} batches to the sub-workflow`;
		if (facts.files > 0) this.logger?.info(`Domain Data: ${spoolText(label, facts)}; ${feeding}`);
	};
	const summary = (failed: boolean): IDataObject => {
		const { sent, batches } = progress;
		const json: IDataObject = { ...source.names, records: sent, batches, skippedRecords: progress.skipped() };
		json.durationMs = Date.now() - started;
		if (spool?.files) Object.assign(json, { spooledBytes: spool.bytes, spoolFiles: spool.files });
		if (failed) json.progress = progressText(batches + 1, progress.expected, progress.exact);
		else if (batches > 0) json.progress = progressText(batches, batches, true);
		return { ...json, ...source.summary(), ...factsOfReads(source, output) };
	};
	// Links each sub-execution to this one in n8n's execution list (and lets a nested run find its callers).
	const parentExecution = { executionId: this.getExecutionId(), workflowId: this.getWorkflow().id ?? '' };
	const links = parentExecution.executionId && parentExecution.workflowId ? { parentExecution } : undefined;
	const cancel = typeof this.getExecutionCancelSignal === 'function' ? this.getExecutionCancelSignal() : undefined;
	try {
		const records = counted(source.records({ batchSize: output.batchSize }), read);
		const options = { batchSize: output.batchSize, skip: skipRecords, itemIndex, spooled };
		const batches = spooledBatches.call(this, records, options);
		for await (const batch of batches) {
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
				const wait =
					'it went into a Wait state, which a batch cannot do (the stream cannot wait); remove the Wait ' + 'node';
				throw batchFailedError.call(this, label, progress, batch.length, new Error(wait), itemIndex);
			}
			progress.sent += batch.length;
			progress.batches++;
			logProgress.call(this, label, progress);
		}
	} catch (error) {
		run.failed.set(itemIndex, { ...summary(true), skipRecords: skipRecords + progress.sent });
		throw withResumeHint(error, skipRecords + progress.sent);
	} finally {
		if (typeof this.setMetadata === 'function') this.setMetadata({ subExecutionsCount: progress.batches });
	}
	const all = `${count(read.records)} ${run.many}`;
	const skippedAll = `Skip Records (${count(skipRecords)}) skipped all ${all} of this selection`;
	const hint = read.records > 0 && progress.sent === 0 ? `${skippedAll}: nothing was sent` : undefined;
	addHints.call(this, source, read.records, hint);
	return { json: summary(false), pairedItem: { item: itemIndex } };
}

/** One item per record (the record parsed for this run: adding keys costs less than a copy). */
function toItems(batch: IDataObject[], label: string, infoField: string, progress: Progress): INodeExecutionData[] {
	const done = progress.skipped() + progress.sent;
	const info = infoField
		? {
				number: progress.batches + 1,
				progress: progressText(progress.batches + 1, progress.expected, progress.exact),
				firstRecord: done + 1,
				lastRecord: done + batch.length,
				records: batch.length,
			}
		: undefined;
	return batch.map((record) => {
		record.label = label;
		if (info) record[infoField] = { ...info };
		return { json: record };
	});
}

/** A log line about every 5% of the batches (every 10th when the total is not known), and at the last one. */
function logProgress(this: IExecuteFunctions, label: string, progress: Progress): void {
	const { batches, expected, exact } = progress;
	const every = exact && expected ? Math.max(1, Math.ceil(expected / 20)) : 10;
	if (batches % every !== 0 && !(exact && batches === expected)) return;
	const sent = count(progress.skipped() + progress.sent);
	const text = progressText(batches, expected, exact);
	this.logger?.info(`Domain Data: dataset "${label}": ${text} done by the sub-workflow (${sent} records)`);
}
