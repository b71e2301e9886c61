/**
 * What the trigger remembers between polls, and the decision of one poll, as pure functions of
 * (saved state, listed datasets). No HTTP here: the node fetches, asks `planPoll` what to do, does every
 * call that can fail, and only then writes `plan.nextState` with `saveState`.
 *
 * Saved shape, in the workflow's static data of the node (`getWorkflowStaticData('node')`):
 *   { version: 1, lastLabel: '2025-07-07' | null, seen: ['2025-07-07', '2025-06-30', ...] }
 * - lastLabel: the newest label emitted (or recorded by the baseline). null after a baseline on an empty list.
 * - seen: the SEEN_LIMIT newest date labels that were listed when the state was last written. It keeps a
 *   label that is removed and listed again from firing twice, and it lets the watermark step back to the
 *   newest seen label still listed when lastLabel itself is withdrawn (see `effectiveWatermark`).
 *
 * The state is written only on the baseline and when a poll emits. n8n saves static data to its database
 * only at activation and when a poll emits, so a rule that needed a write on a quiet poll would be lost on
 * a restart; with these rules a quiet poll has nothing to write.
 */
import type { IDataObject } from 'n8n-workflow';

import { isDateLabel, type Dataset } from '../DomainData/helpers/datasets';

export const STATE_VERSION = 1;

/** How many labels `seen` keeps: with weekly snapshots, about a year of history. */
export const SEEN_LIMIT = 50;

export interface TriggerState {
	version: typeof STATE_VERSION;
	lastLabel: string | null;
	seen: string[];
}

/** One event: the dataset and the date label listed just before it (null when it is the oldest listed). */
export interface NewDataset extends Dataset {
	previousLabel: string | null;
}

export interface PollPlan {
	/** baseline: first poll, record and emit nothing; emit: newDatasets is not empty; none: nothing new. */
	kind: 'baseline' | 'emit' | 'none';
	/** Oldest first. */
	newDatasets: NewDataset[];
	/** What to save once every call of this poll has succeeded (for `none`, the state as it was). */
	nextState: TriggerState;
	/** Labels that are not calendar dates (YYYY-MM-DD); never emitted and never saved. */
	ignoredLabels: string[];
}

/**
 * The saved state, or undefined when there is none or it is not one this version wrote (then the next
 * poll records a new baseline rather than guessing).
 */
export function loadState(staticData: IDataObject): TriggerState | undefined {
	const { version, lastLabel, seen } = staticData;
	if (version !== STATE_VERSION) return undefined;
	if (lastLabel !== null && !isLabel(lastLabel)) return undefined;
	if (!Array.isArray(seen) || !seen.every(isLabel)) return undefined;
	return { version: STATE_VERSION, lastLabel, seen: [...seen] };
}

/**
 * Writes the state with fresh top-level values: n8n notices a change of static data only through
 * assignments to the node's object, not through mutation of an array kept in it.
 */
export function saveState(staticData: IDataObject, state: TriggerState): void {
	staticData.version = state.version;
	staticData.lastLabel = state.lastLabel;
	staticData.seen = [...state.seen];
}

/** Date-labelled datasets, newest first, one per label; everything else is reported as ignored. */
export function datedDatasets(listed: readonly Dataset[]): { dated: Dataset[]; ignoredLabels: string[] } {
	const byLabel = new Map<string, Dataset>();
	const ignoredLabels: string[] = [];
	for (const dataset of listed) {
		if (!isLabel(dataset.label) || typeof dataset.value !== 'string') {
			ignoredLabels.push(String(dataset.label));
			continue;
		}
		// The list is newest first; should a label be listed twice, the first entry wins.
		if (!byLabel.has(dataset.label)) {
			byLabel.set(dataset.label, { label: dataset.label, value: dataset.value });
		}
	}
	const dated = [...byLabel.values()].sort((a, b) => compareLabels(b.label, a.label));
	return { dated, ignoredLabels };
}

/** The newest dataset with the label listed before it, for a manual test run; undefined when none is listed. */
export function newestDataset(listed: readonly Dataset[]): NewDataset | undefined {
	const { dated } = datedDatasets(listed);
	if (dated.length === 0) return undefined;
	return { ...dated[0], previousLabel: dated[1]?.label ?? null };
}

export function planPoll(state: TriggerState | undefined, listed: readonly Dataset[]): PollPlan {
	const { dated, ignoredLabels } = datedDatasets(listed);
	const labels = dated.map((dataset) => dataset.label);

	if (!state) {
		return {
			kind: 'baseline',
			newDatasets: [],
			nextState: { version: STATE_VERSION, lastLabel: labels[0] ?? null, seen: newest(labels) },
			ignoredLabels,
		};
	}

	const watermark = effectiveWatermark(state, labels);
	const seen = new Set(state.seen);
	const newDatasets: NewDataset[] = [];
	// Oldest first; `dated` is newest first, so the label listed before dated[i] is dated[i + 1].
	for (let i = dated.length - 1; i >= 0; i--) {
		const { label } = dated[i];
		if (seen.has(label)) continue;
		if (watermark !== null && compareLabels(label, watermark) <= 0) continue;
		newDatasets.push({ ...dated[i], previousLabel: dated[i + 1]?.label ?? null });
	}

	if (newDatasets.length === 0) {
		return { kind: 'none', newDatasets, nextState: state, ignoredLabels };
	}
	return {
		kind: 'emit',
		newDatasets,
		nextState: {
			version: STATE_VERSION,
			lastLabel: newDatasets[newDatasets.length - 1].label,
			seen: newest([...state.seen, ...labels]),
		},
		ignoredLabels,
	};
}

/**
 * Labels newer than this are new. Normally the saved lastLabel. When that label is no longer listed
 * (withdrawn), the newest seen label that is still listed and older than it takes its place: a snapshot
 * published with a wrong, far-future date and then withdrawn must not silence the trigger for good.
 * Labels that were seen never fire again, whatever the watermark. When no seen label is listed at all
 * (an empty or replaced list), the saved lastLabel stays, so nothing old floods out.
 */
function effectiveWatermark(state: TriggerState, listedLabels: readonly string[]): string | null {
	const { lastLabel } = state;
	if (lastLabel === null || listedLabels.includes(lastLabel)) return lastLabel;
	const seen = new Set(state.seen);
	const stillListed = listedLabels.find(
		(label) => seen.has(label) && compareLabels(label, lastLabel) < 0,
	);
	return stillListed ?? lastLabel;
}

function isLabel(label: unknown): label is string {
	return typeof label === 'string' && isDateLabel(label);
}

/** YYYY-MM-DD labels order as dates when compared as strings. */
function compareLabels(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}

/** The SEEN_LIMIT newest distinct labels, newest first. */
function newest(labels: readonly string[]): string[] {
	return [...new Set(labels)].sort((a, b) => compareLabels(b, a)).slice(0, SEEN_LIMIT);
}
