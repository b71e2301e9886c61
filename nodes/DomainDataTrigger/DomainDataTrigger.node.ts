import type { IDataObject, INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes } from 'n8n-workflow';

import { asNodeError, buildApiError, operationError, quoteFew, withNote } from '../DomainData/errors';
import { listDatasets } from '../DomainData/helpers/datasets';
import { createReadStats, readSnapshot } from '../DomainData/helpers/snapshotReader';
import { resolveTarget } from '../DomainData/transport';
import { eventProperties, getTriggerOptions, type TriggerOptions } from './description';
import { loadStoredState, newestDataset, planPoll, stateAfter, storeState } from './pollState';
import type { NewDataset, StateStore } from './pollState';

/** A 403 names the plan feature in the message: a failed activation shows only the message. */
function triggerError(context: IPollFunctions, caught: unknown) {
	const error = asNodeError(context.getNode(), caught);
	if (error instanceof NodeApiError && String(error.httpCode) === '403') {
		error.message = 'The plan of this Domain Data account does not include historical data, which the trigger needs';
	}
	return error;
}

export class DomainDataTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Domain Data Trigger',
		name: 'domainDataTrigger',
		icon: { light: 'file:domainDataTrigger.svg', dark: 'file:domainDataTrigger.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: 'New Dataset',
		description: 'Starts the workflow when the Domain Data Service publishes a new dataset snapshot',
		defaults: { name: 'Domain Data Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'domainDataApi', required: true }],
		properties: eventProperties,
	};

	/** One list call, and a slice read per new dataset with records attached; the state moves past what fired. */
	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const options = getTriggerOptions.call(this);
		const manual = this.getMode() === 'manual';
		// Read before the list call, so that a poll without new datasets ends as soon as the list is answered.
		const service = manual ? '' : (await resolveTarget.call(this)).shown;
		const datasets = await listDatasets.call(this, options.limits).catch((error: unknown) => {
			throw triggerError(this, error);
		});

		// "Fetch Test Event": the event the newest dataset gives, so that its fields can be mapped; no state change.
		if (manual) {
			const newest = newestDataset(datasets);
			if (!newest) {
				const what = datasets.length === 0 ? 'dataset' : 'dataset with a date label (YYYY-MM-DD)';
				throw operationError(this.getNode(), `The service lists no ${what} yet`, {
					description:
						'There is nothing to show as a test event. Once the workflow is active, the trigger fires when the ' +
						'first dataset is published.',
				});
			}
			const { items, failure } = await datasetEvents.call(this, [newest], options);
			if (failure !== undefined) throw triggerError(this, failure);
			return [items];
		}

		const { id: nodeId, name: nodeName } = this.getNode();
		const [node, global] = [this.getWorkflowStaticData('node'), this.getWorkflowStaticData('global')];
		const store: StateStore = { node, global, nodeId, nodeName, service };
		const now = new Date();
		const plan = planPoll(loadStoredState(store, now), datasets, now);
		const ignore = (labels: string[], why: string) =>
			labels.length > 0 && this.logger.warn(`Domain Data Trigger: ignored dataset labels ${why}: ${quoteFew(labels)}`);
		ignore(plan.ignoredLabels, 'that are not calendar dates (YYYY-MM-DD)');
		ignore(plan.futureLabels, 'dated in the future, until their date has come');
		if (plan.kind === 'baseline') storeState(store, plan.nextState);
		if (plan.kind !== 'emit') return null;

		const { items, unreadable, failure } = await datasetEvents.call(this, plan.newDatasets, options);
		if (failure !== undefined && items.length === 0) throw triggerError(this, failure);
		storeState(store, stateAfter(plan, items.length));
		for (const error of unreadable) report(this, error);
		if (failure === undefined) return [items];
		// A read that failed after events fired: they stay fired, and the dataset is read again at the next poll.
		const { label } = plan.newDatasets[items.length];
		const next = `The events before the dataset "${label}" fired; it and the datasets after it come at the next poll.`;
		report(this, withNote(triggerError(this, failure), next));
		return [items];
	}
}

/** Reports an error as n8n reports a failed poll (a failed execution, the error workflow) while the poll emits. */
function report(context: IPollFunctions, error: Error): void {
	try {
		context.__emitError(error);
	} catch {
		// A context without n8n's error reporting.
		context.logger.error(`Domain Data Trigger: ${error.message}`);
	}
}

/**
 * One item per dataset, oldest first. A dataset whose lines are malformed fires without records but with an `error`
 * (reported once: `unreadable`), holding back no later dataset; any other failed read stops here (`failure`).
 */
async function datasetEvents(
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
 * `{ records }` (with `skippedLines` under "Skip and Count"), or `{ records: [], error }` when the lines are malformed,
 * judged once the whole slice is read (malformed lines are always read past).
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
	const request = { label, fields, limit: count, limits: options.limits, stats, onMalformed: 'skip' as const };
	try {
		for await (const batch of readSnapshot.call(this, request)) records.push(...batch);
	} catch (error) {
		// After malformed lines only (the reader refuses an answer without records), the judgement below says more.
		if (!isUnreadable()) throw asNodeError(this.getNode(), error);
	}
	if (!isUnreadable()) return onMalformed === 'skip' ? { records, skippedLines: stats.skippedLines } : { records };
	const lines = quoteFew(stats.skippedLineNumbers, stats.skippedLines);
	const which = stats.skippedLines > 1 ? `lines ${lines} are not JSON records` : `line ${lines} is not a JSON record`;
	const skip =
		onMalformed === 'error'
			? 'Set "On Malformed Line" to "Skip and Count" to attach the records without such lines. '
			: '';
	const error = buildApiError(this.getNode(), {
		message: `The records of the dataset "${label}" were not attached: ${which}`,
		description:
			`The event of the dataset fired without records, with this message in its "error" field, once. ${skip}` +
			'A Domain Data node (Dataset → Stream) reads the dataset and shows the beginning of each such line.',
	});
	unreadable.push(error);
	return { records: [], error: error.message };
}
