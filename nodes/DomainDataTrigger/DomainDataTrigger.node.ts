import type { IDataObject, INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes } from 'n8n-workflow';

import { asNodeError, operationError } from '../DomainData/errors';
import { listDatasets } from '../DomainData/helpers/datasets';
import { quoteFew } from '../DomainData/helpers/quoteFew';
import { eventProperties, getTriggerOptions } from './description';
import { datasetEvents } from './events';
import { loadState, newestDataset, planPoll, saveState, stateAfter } from './pollState';

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
		const { maxAttempts, deadlineMs } = options;
		const datasets = await listDatasets.call(this, { maxAttempts, deadlineMs }).catch((error: unknown) => {
			throw triggerError(this, error);
		});

		// "Fetch Test Event": the event the newest dataset gives, so that its fields can be mapped; no state change.
		if (this.getMode() === 'manual') {
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

		const staticData = this.getWorkflowStaticData('node') as IDataObject;
		const now = new Date();
		const plan = planPoll(loadState(staticData, now), datasets, now);
		const ignored: Array<[string[], string]> = [
			[plan.ignoredLabels, 'that are not calendar dates (YYYY-MM-DD)'],
			[plan.futureLabels, 'dated in the future, until their date has come'],
		];
		for (const [labels, why] of ignored) {
			if (labels.length === 0) continue;
			this.logger.warn(`Domain Data Trigger: ignored dataset labels ${why}: ${quoteFew(labels)}`);
		}
		if (plan.kind === 'baseline') saveState(staticData, plan.nextState);
		if (plan.kind !== 'emit') return null;

		const { items, unreadable, failure } = await datasetEvents.call(this, plan.newDatasets, options);
		if (failure !== undefined && items.length === 0) throw triggerError(this, failure);
		saveState(staticData, stateAfter(plan, items.length));
		for (const error of unreadable) report(this, error);
		if (failure !== undefined) report(this, readLater(this, failure, plan.newDatasets[items.length].label));
		return [items];
	}
}

/** A read that failed after events fired: they stay fired, and the dataset is read again at the next poll. */
function readLater(context: IPollFunctions, caught: unknown, label: string) {
	const error = triggerError(context, caught);
	const next = `The events before the dataset "${label}" fired; it and the datasets after it come at the next poll.`;
	error.description = error.description ? `${error.description} ${next}` : next;
	return error;
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
