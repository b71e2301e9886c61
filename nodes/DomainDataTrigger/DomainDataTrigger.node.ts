import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
	NodeOperationError,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes } from 'n8n-workflow';

import { asNodeError, operationError } from '../DomainData/errors';
import { listDatasets } from '../DomainData/helpers/datasets';
import { quoteFew } from '../DomainData/helpers/quoteFew';
import { eventProperties, getTriggerOptions } from './description';
import { datasetEvents } from './events';
import { loadState, newestDataset, planPoll, saveState, stateAfter } from './pollState';

/**
 * A failed call as the trigger reports it: a 403 names the plan feature in the message itself, since when
 * activation fails, n8n shows only the message ("There was a problem activating the workflow: ...").
 */
function triggerError(node: INode, caught: unknown): NodeApiError | NodeOperationError {
	const error = asNodeError(node, caught);
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

	/**
	 * One list call per poll, plus one slice read per new dataset when records are attached. The state moves
	 * past the events that fire and no further: when a read fails, the events before it fire (the error is
	 * reported) and the rest come again at the next poll; when the first read fails, the poll fails as a whole.
	 */
	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const options = getTriggerOptions.call(this);
		const { maxAttempts, deadlineMs } = options;
		const datasets = await listDatasets.call(this, { maxAttempts, deadlineMs }).catch((error: unknown) => {
			throw triggerError(this.getNode(), error);
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
			if (failure !== undefined) throw triggerError(this.getNode(), failure);
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
		if (failure !== undefined && items.length === 0) throw triggerError(this.getNode(), failure);
		saveState(staticData, stateAfter(plan, items.length));
		for (const error of unreadable) report(this, error);
		if (failure !== undefined) report(this, readLater(this.getNode(), failure, plan.newDatasets[items.length].label));
		return [items];
	}
}

/** A read that failed after events fired: they stay fired, and the dataset is read again at the next poll. */
function readLater(node: INode, caught: unknown, label: string): NodeApiError | NodeOperationError {
	const error = triggerError(node, caught);
	const next = `The events before the dataset "${label}" fired; it and the datasets after it come at the next poll.`;
	error.description = error.description ? `${error.description} ${next}` : next;
	return error;
}

/**
 * Reports an error the way n8n reports a failed poll (a failed execution, and the error workflow if one is set)
 * while the poll still emits its events.
 */
function report(context: IPollFunctions, error: Error): void {
	try {
		context.__emitError(error);
	} catch {
		// A context without n8n's error reporting: the log still tells.
		context.logger.error(`Domain Data Trigger: ${error.message}`);
	}
}
