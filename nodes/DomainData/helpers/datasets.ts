/**
 * Dataset labels: listing the snapshots and turning what a user typed (`latest`, a date label, or a
 * snapshot id from the list's `value`) into the concrete date label that is then read. Reading a
 * concrete label is what makes a retry or a resume land on the same snapshot even when a newer one
 * appears meanwhile.
 */
import type { JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { apiRequest, type DomainDataFunctions } from '../transport';

export interface Dataset {
	/** Date of the snapshot, YYYY-MM-DD. */
	label: string;
	/** The service's internal snapshot id. */
	value: string;
}

export const LATEST_LABEL = 'latest';

/** How many of the newest labels an "unknown label" error names. */
const LABELS_IN_ERRORS = 5;

const DATE_LABEL = /^\d{4}-\d{2}-\d{2}$/;

export interface DatasetCallOptions {
	maxAttempts?: number;
	itemIndex?: number;
}

/** True for labels that can be streamed without asking the list first (a YYYY-MM-DD date). */
export function isDateLabel(label: string): boolean {
	return DATE_LABEL.test(label);
}

/** The snapshots the service offers, newest first (the service's order, kept as is). */
export async function listDatasets(
	this: DomainDataFunctions,
	options: DatasetCallOptions = {},
): Promise<Dataset[]> {
	const response: unknown = await apiRequest.call(this, {
		method: 'GET',
		path: ['historical', 'domain'],
		maxAttempts: options.maxAttempts,
		itemIndex: options.itemIndex,
	});
	const datasets = (response as { datasets?: unknown } | undefined)?.datasets;
	if (!Array.isArray(datasets)) {
		throw new NodeApiError(this.getNode(), (response ?? {}) as JsonObject, {
			message: 'The Domain Data Service answered the dataset list without a "datasets" array',
			description: 'This is unexpected; try again later or contact the service with the time of the call.',
			itemIndex: options.itemIndex,
		});
	}
	return datasets
		.filter((entry): entry is Dataset => typeof entry?.label === 'string')
		.map((entry) => ({ label: entry.label, value: String(entry.value ?? '') }));
}

/** The error for a label the service does not know, naming the newest labels that exist. */
export function unknownLabelError(
	this: DomainDataFunctions,
	label: string,
	datasets: Dataset[],
	itemIndex?: number,
): NodeOperationError {
	const newest = datasets.slice(0, LABELS_IN_ERRORS).map((dataset) => dataset.label);
	const message =
		datasets.length === 0
			? `The dataset "${label}" does not exist: the service lists no datasets at all`
			: `The dataset "${label}" does not exist. The newest datasets are: ${newest.join(', ')}`;
	return new NodeOperationError(this.getNode(), message, {
		itemIndex,
		description:
			datasets.length === 0
				? 'The account can reach the historical endpoints but no snapshot is published yet.'
				: `Use "latest" or one of the labels above (YYYY-MM-DD); Dataset → List shows all ${datasets.length}.`,
	});
}

/**
 * `latest` → the newest label; a label or a snapshot id → its date label; anything else → an error
 * that names it and the newest labels that exist. Always one list call.
 */
export async function resolveLabel(
	this: DomainDataFunctions,
	label: string,
	options: DatasetCallOptions = {},
): Promise<string> {
	const wanted = String(label ?? '').trim();
	const datasets = await listDatasets.call(this, options);
	return pickLabel.call(this, wanted, datasets, options.itemIndex);
}

/** resolveLabel on a list already fetched. */
export function pickLabel(
	this: DomainDataFunctions,
	label: string,
	datasets: Dataset[],
	itemIndex?: number,
): string {
	const wanted = label.trim();
	if (wanted.toLowerCase() === LATEST_LABEL) {
		if (datasets.length === 0) throw unknownLabelError.call(this, LATEST_LABEL, datasets, itemIndex);
		return datasets[0].label;
	}
	const found = datasets.find((dataset) => dataset.label === wanted || dataset.value === wanted);
	if (!found) throw unknownLabelError.call(this, wanted, datasets, itemIndex);
	return found.label;
}
