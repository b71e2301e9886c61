/** Turns new datasets into the trigger's output items, with their first records when asked for. */
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { DEFAULT_SNAPSHOT_FIELDS } from '../DomainData/helpers/snapshotFields';
import { readSnapshot } from '../DomainData/helpers/snapshotReader';
import type { TriggerOptions } from './description';
import type { NewDataset } from './pollState';

/**
 * One item per dataset, in the order given (oldest first). With records attached, each dataset's slice is
 * read one after the other; a failed read throws, so that the caller writes no state and the event comes
 * again on the next poll.
 */
export async function datasetEvents(
	this: IPollFunctions,
	datasets: readonly NewDataset[],
	options: TriggerOptions,
): Promise<INodeExecutionData[]> {
	const items: INodeExecutionData[] = [];
	for (const { label, value, previousLabel } of datasets) {
		const json: IDataObject = { label, value, previousLabel };
		if (options.records) {
			json.records = await firstRecords.call(this, label, options);
		}
		items.push({ json });
	}
	return items;
}

async function firstRecords(
	this: IPollFunctions,
	label: string,
	options: TriggerOptions,
): Promise<IDataObject[]> {
	const { count, fields } = options.records!;
	const records: IDataObject[] = [];
	for await (const batch of readSnapshot.call(this, {
		label,
		fields: fields ?? DEFAULT_SNAPSHOT_FIELDS,
		limit: count,
		maxAttempts: options.maxAttempts,
		idleTimeoutMs: options.idleTimeoutMs,
	})) {
		records.push(...batch);
	}
	return records;
}
