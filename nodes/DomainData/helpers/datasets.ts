/** The snapshot list, and a typed label (`latest`, a date, an id) as a date label, so that a retry reads the same. */
import { operationError } from '../errors';
import { apiRequest, type CallLimits, type DomainDataFunctions, unexpectedAnswerError } from '../transport';

/** A snapshot: its date label (YYYY-MM-DD) and the service's snapshot id. */
export type Dataset = { label: string; value: string };

export const LATEST_LABEL = 'latest';
export const PREVIOUS_LABEL = 'previous';

const DATE_LABEL = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A label's date: a real calendar date written YYYY-MM-DD (not `2025-02-29`); as strings they sort as dates. */
export function isCalendarDate(label: unknown): label is string {
	const match = typeof label === 'string' && DATE_LABEL.exec(label);
	if (!match) return false;
	const [year, month, day] = match.slice(1).map(Number);
	const date = new Date(Date.UTC(year, month - 1, day));
	// Date.UTC rolls 2025-13-45 over into 2026-03-17, and maps years below 100 to 19xx: both differ.
	return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** The datasets with a date label, newest first whatever the list's order, one per label (the first listed wins). */
export function datedNewestFirst(listed: readonly Dataset[]): { dated: Dataset[]; undatedLabels: string[] } {
	const byLabel = new Map<string, Dataset>();
	const undatedLabels: string[] = [];
	for (const dataset of listed) {
		if (!isCalendarDate(dataset.label) || typeof dataset.value !== 'string') undatedLabels.push(String(dataset.label));
		else if (!byLabel.has(dataset.label)) byLabel.set(dataset.label, { label: dataset.label, value: dataset.value });
	}
	const dated = [...byLabel.values()].sort((a, b) => (a.label < b.label ? 1 : a.label > b.label ? -1 : 0));
	return { dated, undatedLabels };
}

/** The snapshots the service offers, in its order (documented as newest first; nothing here relies on it). */
export async function listDatasets(this: DomainDataFunctions, limits?: CallLimits, itemIndex?: number) {
	const request = { method: 'GET' as const, path: ['historical', 'domain'], limits, itemIndex };
	const response: unknown = await apiRequest.call(this, request);
	const datasets = (response as { datasets?: unknown } | undefined)?.datasets;
	if (!Array.isArray(datasets)) {
		throw unexpectedAnswerError(this.getNode(), 'the dataset list has no "datasets" array', itemIndex);
	}
	return datasets
		.filter((entry): entry is Dataset => typeof entry?.label === 'string')
		.map((entry) => ({ label: entry.label, value: String(entry.value ?? '') }));
}

/** The newest labels an error names. */
function firstLabels(datasets: readonly Dataset[]): string {
	return datasets
		.slice(0, 5)
		.map((dataset) => dataset.label)
		.join(', ');
}

/** The error for a label the service does not know, naming the newest labels that exist (dated ones if any). */
export function unknownLabelError(this: DomainDataFunctions, label: string, datasets: Dataset[], itemIndex?: number) {
	const { dated } = datedNewestFirst(datasets);
	const newest = firstLabels(dated.length > 0 ? dated : datasets);
	const undated = `the service lists no dataset with a date label (YYYY-MM-DD), only ${newest}`;
	const message =
		datasets.length === 0
			? `The dataset "${label}" does not exist: the service lists no datasets at all`
			: label === LATEST_LABEL && dated.length === 0
				? `The dataset "latest" does not exist: ${undated}`
				: `The dataset "${label}" does not exist. The newest datasets are: ${newest}`;
	return operationError(this.getNode(), message, {
		itemIndex,
		description:
			datasets.length === 0
				? 'The account can reach the historical endpoints but no snapshot is published yet.'
				: `Use "latest" or one of the labels above (YYYY-MM-DD); Dataset → List shows all ${datasets.length}.`,
	});
}

/** `latest` → the newest date label; a label or a snapshot id → its label; anything else → unknownLabelError. */
function pickLabel(this: DomainDataFunctions, label: string, datasets: Dataset[], itemIndex?: number): string {
	const wanted = label.trim();
	if (wanted.toLowerCase() === LATEST_LABEL) {
		// The newest date label listed, wherever the list puts it.
		const newest = datedNewestFirst(datasets).dated[0]?.label;
		if (newest === undefined) throw unknownLabelError.call(this, LATEST_LABEL, datasets, itemIndex);
		return newest;
	}
	const found = datasets.find((dataset) => dataset.label === wanted || dataset.value === wanted);
	if (!found) throw unknownLabelError.call(this, wanted, datasets, itemIndex);
	return found.label;
}

/** Dataset → Compare's two snapshots: the newer `label` and the older `baseLabel`. */
export type SnapshotPair = { label: string; baseLabel: string };

/**
 * Resolves labels on one dataset list per execution, fetched when an item first needs it, so that `latest` and
 * `previous` mean the same snapshots for every item. A failed list call is not kept: the next item tries again.
 */
export class DatasetLabels {
	private listed?: Promise<Dataset[]>;

	constructor(private readonly context: DomainDataFunctions) {}

	async list(limits: CallLimits, itemIndex?: number): Promise<Dataset[]> {
		this.listed ??= listDatasets.call(this.context, limits, itemIndex).catch((error: unknown) => {
			this.listed = undefined;
			throw error;
		});
		return await this.listed;
	}

	/** A date label is read as it is, without the list (a 404 then names the labels that exist). */
	async label(wanted: string, limits: CallLimits, itemIndex?: number): Promise<string> {
		if (isCalendarDate(wanted)) return wanted;
		return pickLabel.call(this.context, wanted, await this.list(limits, itemIndex), itemIndex);
	}

	/** `previous` (or empty) is the newest date label older than `label`; both must be dated, the base older. */
	async pair(wanted: SnapshotPair, limits: CallLimits, itemIndex?: number): Promise<SnapshotPair> {
		const datasets = await this.list(limits, itemIndex);
		const { dated } = datedNewestFirst(datasets);
		const node = this.context.getNode();
		// Compare orders its two snapshots by date: a label that is no date cannot take part.
		const pick = (text: string, parameter: string) => {
			const picked = pickLabel.call(this.context, text, datasets, itemIndex);
			if (isCalendarDate(picked)) return picked;
			const choices =
				dated.length > 0 ? `The newest dated ones are: ${firstLabels(dated)}.` : 'The service lists none.';
			throw operationError(node, `The dataset "${picked}" chosen in ${parameter} has no date label (YYYY-MM-DD)`, {
				itemIndex,
				description: `Compare tells the newer snapshot from the older by their dates, so both need one. ${choices}`,
			});
		};
		const label = pick(wanted.label, '"Dataset"');
		const base = wanted.baseLabel.trim();
		if (base === '' || base.toLowerCase() === PREVIOUS_LABEL) {
			const previous = dated.find((dataset) => dataset.label < label)?.label;
			if (previous !== undefined) return { label, baseLabel: previous };
			throw operationError(node, `There is no dataset older than "${label}" to compare it with`, {
				itemIndex,
				description:
					`"Previous" is the newest dataset before "${label}", and the service lists none. Choose a newer ` +
					'"Dataset" or wait for the next snapshot.',
			});
		}
		const baseLabel = pick(base, '"Compare With"');
		if (baseLabel === label) {
			throw operationError(node, `"Dataset" and "Compare With" are the same dataset ("${label}")`, {
				itemIndex,
				description: 'Choose an older dataset in "Compare With", or "Previous" for the one right before.',
			});
		}
		if (baseLabel > label) {
			throw operationError(node, `"Compare With" ("${baseLabel}") is newer than "Dataset" ("${label}")`, {
				itemIndex,
				description:
					'"Dataset" is the newer snapshot and "Compare With" the older one: swap them, so that added and ' +
					'removed mean what they say.',
			});
		}
		return { label, baseLabel };
	}
}
