/**
 * Dataset labels: listing the snapshots and turning what a user typed (`latest`, a date label, or a
 * snapshot id from the list's `value`) into the concrete date label that is then read. Reading a
 * concrete label is what makes a retry or a resume land on the same snapshot even when a newer one
 * appears meanwhile.
 */
import type { NodeOperationError } from 'n8n-workflow';

import { operationError } from '../errors';
import { apiRequest, type DomainDataFunctions, unexpectedAnswerError } from '../transport';

export interface Dataset {
	/** Date of the snapshot, YYYY-MM-DD. */
	label: string;
	/** The service's internal snapshot id. */
	value: string;
}

export const LATEST_LABEL = 'latest';

/** How many of the newest labels an "unknown label" error names. */
const LABELS_IN_ERRORS = 5;

const DATE_LABEL = /^(\d{4})-(\d{2})-(\d{2})$/;

export interface DatasetCallOptions {
	maxAttempts?: number;
	itemIndex?: number;
}

/**
 * The one date rule of the package (Stream, Compare, the trigger): a label is a snapshot date when it is
 * a real calendar date written YYYY-MM-DD. `2025-13-45` and `2025-02-29` have the form but are no date.
 * Such labels compare as dates when compared as strings.
 */
export function isCalendarDate(label: unknown): label is string {
	if (typeof label !== 'string') return false;
	const match = DATE_LABEL.exec(label);
	if (!match) return false;
	const [year, month, day] = match.slice(1).map(Number);
	const date = new Date(Date.UTC(year, month - 1, day));
	// Date.UTC rolls 2025-13-45 over into 2026-03-17, and maps years below 100 to 19xx: both differ.
	return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** True for labels that can be streamed without asking the list first: see isCalendarDate. */
export const isDateLabel = isCalendarDate;

/**
 * The datasets with a calendar-date label, newest first as dates (the list's order plays no part), one
 * per label (the first listed wins); the labels left out because they are not dates are named.
 */
export function datedNewestFirst(listed: readonly Dataset[]): { dated: Dataset[]; undatedLabels: string[] } {
	const byLabel = new Map<string, Dataset>();
	const undatedLabels: string[] = [];
	for (const dataset of listed) {
		if (!isCalendarDate(dataset.label) || typeof dataset.value !== 'string') {
			undatedLabels.push(String(dataset.label));
			continue;
		}
		if (!byLabel.has(dataset.label)) byLabel.set(dataset.label, { label: dataset.label, value: dataset.value });
	}
	const dated = [...byLabel.values()].sort((a, b) => (a.label < b.label ? 1 : a.label > b.label ? -1 : 0));
	return { dated, undatedLabels };
}

/** What `latest` means: the newest calendar-date label listed, wherever the list puts it; undefined if none. */
export function newestDateLabel(listed: readonly Dataset[]): string | undefined {
	return datedNewestFirst(listed).dated[0]?.label;
}

/** The snapshots the service offers, in its order (documented as newest first; `newestDateLabel` does not rely on it). */
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
		throw unexpectedAnswerError(this.getNode(), 'the dataset list has no "datasets" array', options.itemIndex);
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
	const { dated } = datedNewestFirst(datasets);
	const newest = (dated.length > 0 ? dated : datasets).slice(0, LABELS_IN_ERRORS).map((dataset) => dataset.label);
	const message =
		datasets.length === 0
			? `The dataset "${label}" does not exist: the service lists no datasets at all`
			: dated.length === 0 && label === LATEST_LABEL
				? `The dataset "latest" does not exist: the service lists no dataset with a date label (YYYY-MM-DD), only ${newest.join(', ')}`
				: `The dataset "${label}" does not exist. The newest datasets are: ${newest.join(', ')}`;
	return operationError(this.getNode(), message, {
		itemIndex,
		description:
			datasets.length === 0
				? 'The account can reach the historical endpoints but no snapshot is published yet.'
				: `Use "latest" or one of the labels above (YYYY-MM-DD); Dataset → List shows all ${datasets.length}.`,
	});
}

/**
 * `latest` → the newest date label (see newestDateLabel); a label or a snapshot id → its date label; anything else → an error
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
		const newest = newestDateLabel(datasets);
		if (newest === undefined) throw unknownLabelError.call(this, LATEST_LABEL, datasets, itemIndex);
		return newest;
	}
	const found = datasets.find((dataset) => dataset.label === wanted || dataset.value === wanted);
	if (!found) throw unknownLabelError.call(this, wanted, datasets, itemIndex);
	return found.label;
}
