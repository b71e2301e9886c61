/** Turns new datasets into the trigger's output items, with their first records when asked for. */
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { asNodeError, buildApiError } from '../DomainData/errors';
import { quoteFew } from '../DomainData/helpers/quoteFew';
import { createReadStats, readSnapshot, type SnapshotReadStats } from '../DomainData/helpers/snapshotReader';
import type { TriggerOptions } from './description';
import type { NewDataset } from './pollState';

/**
 * One item per dataset, oldest first, records read one dataset after the other. A dataset whose lines are malformed
 * fires without records but with an `error`, and is listed in `unreadable` to be reported once, so that it holds
 * back no later dataset. Any other failed read stops here: `failure`, with the items of the datasets before it.
 */
export async function datasetEvents(
	this: IPollFunctions,
	datasets: readonly NewDataset[],
	options: TriggerOptions,
): Promise<{ items: INodeExecutionData[]; unreadable: Error[]; failure?: unknown }> {
	const items: INodeExecutionData[] = [];
	const unreadable: Error[] = [];
	for (const { label, value, previousLabel } of datasets) {
		const json: IDataObject = { label, value, previousLabel };
		if (options.records) {
			try {
				Object.assign(json, await firstRecords.call(this, label, options, unreadable));
			} catch (failure) {
				return { items, unreadable, failure };
			}
		}
		items.push({ json });
	}
	return { items, unreadable };
}

/**
 * `{ records }` (with `skippedLines` under "Skip and Count"), or `{ records: [], error }` when the lines are
 * malformed. Malformed lines are always read past, so that this is judged once, with the whole slice known.
 */
async function firstRecords(
	this: IPollFunctions,
	label: string,
	options: TriggerOptions,
	unreadable: Error[],
): Promise<IDataObject> {
	const { count, fields, onMalformed } = options.records!;
	const stats = createReadStats(label);
	const records: IDataObject[] = [];
	const isUnreadable = () => stats.skippedLines > 0 && (onMalformed === 'error' || stats.records === 0);
	const { maxAttempts, idleTimeoutMs } = options;
	const request = { label, fields, limit: count, maxAttempts, idleTimeoutMs, stats, onMalformed: 'skip' as const };
	try {
		for await (const batch of readSnapshot.call(this, request)) records.push(...batch);
	} catch (error) {
		// After malformed lines only (the reader refuses an answer without records), the judgement below says more.
		if (!isUnreadable()) throw asNodeError(this.getNode(), error);
	}
	if (!isUnreadable()) return onMalformed === 'skip' ? { records, skippedLines: stats.skippedLines } : { records };
	const error = unreadableError(this, stats, onMalformed === 'error');
	unreadable.push(error);
	return { records: [], error: error.message };
}

function unreadableError(context: IPollFunctions, stats: SnapshotReadStats, canSkip: boolean) {
	const lines = quoteFew(stats.skippedLineNumbers, stats.skippedLines);
	const which = stats.skippedLines > 1 ? `lines ${lines} are not JSON records` : `line ${lines} is not a JSON record`;
	const skip = canSkip ? 'Set "On Malformed Line" to "Skip and Count" to attach the records without such lines. ' : '';
	return buildApiError(context.getNode(), {
		message: `The records of the dataset "${stats.label}" were not attached: ${which}`,
		description:
			`The event of the dataset fired without records, with this message in its "error" field, once. ${skip}` +
			'A Domain Data node (Dataset → Stream) reads the dataset and shows the beginning of each such line.',
	});
}
