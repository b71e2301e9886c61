/**
 * The trigger's memory between polls and the plan of one poll, as pure functions (rules: docs/trigger.md). lastLabel,
 * the newest label seen, never moves back (a backfill never fires); seen, the newest labels listed (one listed again
 * does not fire again). Written only on the baseline and when a poll emits: n8n saves static data only then.
 */
import type { IDataObject } from 'n8n-workflow';

import { datedNewestFirst, isCalendarDate, type Dataset } from '../DomainData/helpers/datasets';

export const STATE_VERSION = 1;

/** With weekly snapshots, about a year of history. */
export const SEEN_LIMIT = 50;

export type TriggerState = { version: typeof STATE_VERSION; lastLabel: string | null; seen: string[] };

/** One event: the dataset and the date label listed just before it. */
export type NewDataset = Dataset & { previousLabel: string | null };

/**
 * baseline: the first poll, which emits nothing; `newDatasets` oldest first; `nextState`, saved once every call of the
 * poll has succeeded; labels not calendar dates, and those dated after tomorrow (UTC): neither emitted nor saved.
 */
interface PollPlan {
	kind: 'baseline' | 'emit' | 'none';
	newDatasets: NewDataset[];
	nextState: TriggerState;
	ignoredLabels: string[];
	futureLabels: string[];
}

/** A calendar date up to tomorrow (UTC: a service in another time zone); no wrong date may become lastLabel. */
function isPublished(label: unknown, now: Date): label is string {
	const latest = new Date(now.getTime() + 86_400_000).toISOString().slice(0, 10);
	return isCalendarDate(label) && label <= latest;
}

/**
 * The saved state, or undefined when there is none this version wrote (the next poll then records a baseline).
 * Labels that do not count are dropped; a lastLabel among them gives way to the newest seen label that counts.
 */
export function loadState(staticData: IDataObject, now: Date = new Date()): TriggerState | undefined {
	const { version, lastLabel, seen } = staticData;
	if (version !== STATE_VERSION) return undefined;
	if (!Array.isArray(seen) || !seen.every((label) => typeof label === 'string')) return undefined;
	const kept = newest(seen.filter((label) => isPublished(label, now)));
	if (lastLabel === null || isPublished(lastLabel, now)) return { version: STATE_VERSION, lastLabel, seen: kept };
	if (typeof lastLabel !== 'string' || kept.length === 0) return undefined;
	return { version: STATE_VERSION, lastLabel: kept[0], seen: kept };
}

/**
 * Where the state is kept: the node's own static data (keyed by the node's name, or its id under durable poll
 * cursors), and a copy under the node's id in the workflow's global static data, which a rename keeps and which names
 * the node name it was written under. `service`: the credential's Base URL as the transport resolves it.
 */
export type StateStore = { node: IDataObject; global: IDataObject; nodeId: string; nodeName: string; service: string };

const copyKey = (nodeId: string) => `domainDataTrigger:${nodeId}`;

/**
 * A state counts when this node wrote it for this service (an earlier version's names neither, and counts). Under the
 * copy's node name, or without a copy: the node's own state, even none (under durable poll cursors n8n commits it with
 * the execution; a test poll's it does not). After a rename: the later of the two (the node's own is missing or older).
 */
export function loadStoredState(store: StateStore, now: Date = new Date()): TriggerState | undefined {
	const owned = (data: IDataObject) =>
		(data.nodeId === undefined || data.nodeId === store.nodeId) &&
		(data.service === undefined || data.service === store.service)
			? loadState(data, now)
			: undefined;
	const own = owned(store.node);
	const copyData = store.global[copyKey(store.nodeId)] as IDataObject | undefined;
	if (!copyData || copyData.nodeName === store.nodeName) return own;
	const copy = owned(copyData);
	if (!copy) return own;
	return own && (own.lastLabel ?? '') >= (copy.lastLabel ?? '') ? own : copy;
}

/** Fresh top-level values: n8n notices a change of static data only through assignments to the node's object. */
export function storeState(store: StateStore, state: TriggerState): void {
	const saved = { ...state, seen: [...state.seen], nodeId: store.nodeId, service: store.service };
	Object.assign(store.node, saved);
	store.global[copyKey(store.nodeId)] = { ...saved, seen: [...state.seen], nodeName: store.nodeName };
}

/** The datasets whose label counts on `now`, newest first, each with the label listed before it. */
function publishedDatasets(listed: readonly Dataset[], now: Date) {
	const { dated, undatedLabels } = datedNewestFirst(listed);
	const published = dated.filter((dataset) => isPublished(dataset.label, now));
	return {
		published: published.map((dataset, i) => ({ ...dataset, previousLabel: published[i + 1]?.label ?? null })),
		ignoredLabels: undatedLabels,
		futureLabels: dated.filter((dataset) => !isPublished(dataset.label, now)).map((dataset) => dataset.label),
	};
}

/** The newest dataset, for a manual test run. */
export function newestDataset(listed: readonly Dataset[], now: Date = new Date()): NewDataset | undefined {
	return publishedDatasets(listed, now).published[0];
}

export function planPoll(state: TriggerState | undefined, listed: readonly Dataset[], now = new Date()): PollPlan {
	const { published, ...setAside } = publishedDatasets(listed, now);
	const labels = published.map((dataset) => dataset.label);
	if (!state) {
		const nextState: TriggerState = { version: STATE_VERSION, lastLabel: labels[0] ?? null, seen: newest(labels) };
		return { kind: 'baseline', newDatasets: [], nextState, ...setAside };
	}

	const { lastLabel } = state;
	const seen = new Set(state.seen);
	const newDatasets = published
		.filter(({ label }) => !seen.has(label) && (lastLabel === null || label > lastLabel))
		.reverse();
	if (newDatasets.length === 0) return { kind: 'none', newDatasets, nextState: state, ...setAside };
	const nextState: TriggerState = {
		version: STATE_VERSION,
		lastLabel: newDatasets[newDatasets.length - 1].label,
		seen: newest([...state.seen, ...labels]),
	};
	return { kind: 'emit', newDatasets, nextState, ...setAside };
}

/** The state once the first `fired` events of an `emit` plan fired: the others come again at the next poll. */
export function stateAfter(plan: PollPlan, fired: number): TriggerState {
	if (fired >= plan.newDatasets.length) return plan.nextState;
	const lastLabel = plan.newDatasets[fired - 1].label;
	return { ...plan.nextState, lastLabel, seen: plan.nextState.seen.filter((label) => label <= lastLabel) };
}

/** The SEEN_LIMIT newest distinct labels, newest first (date labels order as dates when compared as strings). */
function newest(labels: readonly string[]): string[] {
	return [...new Set(labels)].sort().reverse().slice(0, SEEN_LIMIT);
}
