/** Turns new datasets into the trigger's output items, with their first records when asked for. */
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { asNodeError, buildApiError } from '../DomainData/errors';
import { quoteFew } from '../DomainData/helpers/quoteFew';
import { createReadStats, readSnapshot, type SnapshotReadStats } from '../DomainData/helpers/snapshotReader';
import type { TriggerOptions } from './description';
import type { NewDataset } from './pollState';

export interface DatasetEvents {
	/** One item per dataset that fired: the datasets given, oldest first, up to the one whose read failed. */
	items: INodeExecutionData[];
	/** Datasets whose records could not be attached: each fired without them, and each is reported once. */
	unreadable: Error[];
	/** Why the read of the dataset after the last item failed (it and those after it come at the next poll). */
	failure?: unknown;
}

/**
 * One item per dataset, in the order given (oldest first). With records attached, each dataset's slice is
 * read one after the other. A dataset whose lines are malformed (with "On Malformed Line" at "Stop With an
 * Error", or all of them) stays so: its event fires without records but with an `error`, so that neither it
 * nor a later dataset is held back. Any other failed read stops here: the caller decides what of it to keep.
 */
export async function datasetEvents(
	this: IPollFunctions,
	datasets: readonly NewDataset[],
	options: TriggerOptions,
): Promise<DatasetEvents> {
	const events: DatasetEvents = { items: [], unreadable: [] };
	for (const { label, value, previousLabel } of datasets) {
		const json: IDataObject = { label, value, previousLabel };
		if (options.records) {
			try {
				Object.assign(json, await firstRecords.call(this, label, options, events.unreadable));
			} catch (error) {
				events.failure = error;
				break;
			}
		}
		events.items.push({ json });
	}
	return events;
}

/**
 * `{ records }` of the dataset (with `skippedLines` under "Skip and Count"), or `{ records: [], error }` when
 * its lines are malformed; that error also goes to `unreadable`. Malformed lines are always read past, so
 * that the choice is taken here, once, with the whole slice known.
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
	const request = { label, fields, limit: count, maxAttempts, idleTimeoutMs, stats };
	const read = readSnapshot.call(this, { ...request, onMalformed: 'skip' });
	try {
		for await (const batch of read) records.push(...batch);
	} catch (error) {
		// After malformed lines only (the reader refuses an answer without records), the judgement below says more.
		if (!isUnreadable()) throw asNodeError(this.getNode(), error);
	}
	if (!isUnreadable()) return onMalformed === 'skip' ? { records, skippedLines: stats.skippedLines } : { records };
	const error = unreadableError(this, stats, onMalformed === 'error');
	unreadable.push(error);
	return { records: [], error: error.message };
}

/** The error of a dataset whose lines are malformed: its event's `error`, and what n8n reports once. */
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
