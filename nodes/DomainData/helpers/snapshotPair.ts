/**
 * The two snapshots of Dataset → Compare as concrete date labels: `label` (the newer one; `latest`, a
 * date label or a snapshot id) and `baseLabel` (the older one; `previous` = the newest valid date label
 * strictly older than `label`, or a date label or snapshot id). Resolved on one dataset list, once per
 * execution, so that every output names the two snapshots that were really read.
 */
import { operationError } from '../errors';
import type { DomainDataFunctions } from '../transport';
import { type Dataset, isDateLabel, pickLabel } from './datasets';

export const PREVIOUS_LABEL = 'previous';

function isCalendarDate(label: string): boolean {
	if (!isDateLabel(label)) return false;
	const time = Date.parse(`${label}T00:00:00Z`);
	return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === label;
}

/** The newest valid date label strictly older than `label` (date labels sort as text), or undefined. */
export function previousLabel(label: string, datasets: readonly Dataset[]): string | undefined {
	let found: string | undefined;
	for (const { label: candidate } of datasets) {
		if (isCalendarDate(candidate) && candidate < label && (found === undefined || candidate > found)) found = candidate;
	}
	return found;
}

export interface SnapshotPair {
	label: string;
	baseLabel: string;
}

/** Resolves both labels on a list already fetched; throws a NodeOperationError naming the input at fault. */
export function pickSnapshotPair(
	this: DomainDataFunctions,
	wanted: SnapshotPair,
	datasets: Dataset[],
	itemIndex?: number,
): SnapshotPair {
	const node = this.getNode();
	const label = pickLabel.call(this, wanted.label, datasets, itemIndex);
	const base = wanted.baseLabel.trim();
	if (base === '' || base.toLowerCase() === PREVIOUS_LABEL) {
		const previous = previousLabel(label, datasets);
		if (previous === undefined) {
			throw operationError(node, `There is no dataset older than "${label}" to compare it with`, {
				itemIndex,
				description: `"Previous" is the newest dataset before "${label}", and the service lists none. Choose a newer "Dataset" or wait for the next snapshot.`,
			});
		}
		return { label, baseLabel: previous };
	}
	const baseLabel = pickLabel.call(this, base, datasets, itemIndex);
	if (baseLabel === label) {
		throw operationError(node, `"Dataset" and "Compare With" are the same dataset ("${label}")`, {
			itemIndex,
			description: 'Choose an older dataset in "Compare With", or "Previous" for the one right before.',
		});
	}
	if (baseLabel > label) {
		throw operationError(node, `"Compare With" ("${baseLabel}") is newer than "Dataset" ("${label}")`, {
			itemIndex,
			description: '"Dataset" is the newer snapshot and "Compare With" the older one: swap them, so that added and removed mean what they say.',
		});
	}
	return { label, baseLabel };
}
