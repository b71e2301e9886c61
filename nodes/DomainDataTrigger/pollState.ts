/**
 * What the trigger remembers between polls, and the decision of one poll, as pure functions of
 * (saved state, listed datasets, today). No HTTP here: the node fetches, asks `planPoll` what to do, does
 * every call that can fail, and only then writes `plan.nextState` with `saveState`.
 *
 * Saved shape, in the workflow's static data of the node (`getWorkflowStaticData('node')`):
 *   { version: 1, lastLabel: '2025-07-07' | null, seen: ['2025-07-07', '2025-06-30', ...] }
 * - lastLabel: the newest label seen (emitted, or recorded by the baseline): the watermark. It never
 *   moves back, so a label older than it (a backfill) never fires, in whatever order labels are
 *   withdrawn, backfilled or listed again. null after a baseline on an empty list.
 * - seen: the SEEN_LIMIT newest date labels that were listed when the state was last written.
 *
 * Only labels that are real calendar dates (`isCalendarDate`, the package's one date rule) and not dated
 * after tomorrow (UTC) count: anything else is ignored, never emitted and never saved, so that neither
 * `2025-13-45` nor a snapshot published with a wrong, far-future date can become the watermark and
 * silence the trigger. A future-dated label counts once its date has come.
 *
 * The state is written only on the baseline and when a poll emits. n8n saves static data to its database
 * only at activation and when a poll emits, so a rule that needed a write on a quiet poll would be lost on
 * a restart; with these rules a quiet poll has nothing to write.
 */
import type { IDataObject } from 'n8n-workflow';

import { datedNewestFirst, isCalendarDate, type Dataset } from '../DomainData/helpers/datasets';

export const STATE_VERSION = 1;

/** How many labels `seen` keeps: with weekly snapshots, about a year of history. */
export const SEEN_LIMIT = 50;

/** A label may be dated at most this many days after the poll's UTC date (a service in another time zone). */
export const MAX_DAYS_AHEAD = 1;

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
	/** Date labels after tomorrow (UTC): not emitted and not saved before their date has come. */
	futureLabels: string[];
}

/** The newest label that counts as published on `now`: tomorrow's UTC date. */
export function latestPublishableLabel(now: Date): string {
	return new Date(now.getTime() + MAX_DAYS_AHEAD * 86_400_000).toISOString().slice(0, 10);
}

/** A label the trigger takes as a published snapshot date on `now`. */
function counts(label: unknown, now: Date): label is string {
	return isCalendarDate(label) && label <= latestPublishableLabel(now);
}

/**
 * The saved state, or undefined when there is none or it is not one this version wrote (then the next
 * poll records a new baseline rather than guessing). Labels that do not count (an impossible or a
 * future date, saved by an earlier version) are dropped; a lastLabel among them gives way to the newest
 * seen label that counts, so that the next real snapshot fires.
 */
export function loadState(staticData: IDataObject, now: Date = new Date()): TriggerState | undefined {
	const { version, lastLabel, seen } = staticData;
	if (version !== STATE_VERSION) return undefined;
	if (!Array.isArray(seen) || !seen.every((label) => typeof label === 'string')) return undefined;
	const kept = newest((seen as string[]).filter((label) => counts(label, now)));
	if (lastLabel === null) return { version: STATE_VERSION, lastLabel, seen: kept };
	if (counts(lastLabel, now)) return { version: STATE_VERSION, lastLabel, seen: kept };
	if (typeof lastLabel !== 'string' || kept.length === 0) return undefined;
	return { version: STATE_VERSION, lastLabel: kept[0], seen: kept };
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

/** Datasets whose label counts on `now`, newest first, one per label; the others sorted out by reason. */
export function datedDatasets(
	listed: readonly Dataset[],
	now: Date = new Date(),
): { dated: Dataset[]; ignoredLabels: string[]; futureLabels: string[] } {
	const { dated, undatedLabels } = datedNewestFirst(listed);
	const published = dated.filter((dataset) => counts(dataset.label, now));
	const futureLabels = dated.filter((dataset) => !counts(dataset.label, now)).map((dataset) => dataset.label);
	return { dated: published, ignoredLabels: undatedLabels, futureLabels };
}

/** The newest dataset with the label listed before it, for a manual test run; undefined when none is listed. */
export function newestDataset(listed: readonly Dataset[], now: Date = new Date()): NewDataset | undefined {
	const { dated } = datedDatasets(listed, now);
	if (dated.length === 0) return undefined;
	return { ...dated[0], previousLabel: dated[1]?.label ?? null };
}

export function planPoll(
	state: TriggerState | undefined,
	listed: readonly Dataset[],
	now: Date = new Date(),
): PollPlan {
	const { dated, ignoredLabels, futureLabels } = datedDatasets(listed, now);
	const labels = dated.map((dataset) => dataset.label);

	if (!state) {
		return {
			kind: 'baseline',
			newDatasets: [],
			nextState: { version: STATE_VERSION, lastLabel: labels[0] ?? null, seen: newest(labels) },
			ignoredLabels,
			futureLabels,
		};
	}

	const watermark = state.lastLabel;
	const seen = new Set(state.seen);
	const newDatasets: NewDataset[] = [];
	// Oldest first; `dated` is newest first, so the label listed before dated[i] is dated[i + 1].
	for (let i = dated.length - 1; i >= 0; i--) {
		const { label } = dated[i];
		if (seen.has(label)) continue;
		if (watermark !== null && label <= watermark) continue;
		newDatasets.push({ ...dated[i], previousLabel: dated[i + 1]?.label ?? null });
	}

	if (newDatasets.length === 0) {
		return { kind: 'none', newDatasets, nextState: state, ignoredLabels, futureLabels };
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
		futureLabels,
	};
}

/**
 * The state once the first `fired` events of an `emit` plan fired: the watermark at the last of them, and none
 * of the labels after it seen, so that the others come again at the next poll. All of them: `plan.nextState`.
 */
export function stateAfter(plan: PollPlan, fired: number): TriggerState {
	if (fired >= plan.newDatasets.length) return plan.nextState;
	const lastLabel = plan.newDatasets[fired - 1].label;
	return { ...plan.nextState, lastLabel, seen: plan.nextState.seen.filter((label) => label <= lastLabel) };
}

/** The SEEN_LIMIT newest distinct labels, newest first (date labels order as dates when compared as strings). */
function newest(labels: readonly string[]): string[] {
	return [...new Set(labels)].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)).slice(0, SEEN_LIMIT);
}
