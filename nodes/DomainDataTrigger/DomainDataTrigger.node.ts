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
import { listDatasets, type Dataset } from '../DomainData/helpers/datasets';
import { eventProperties, getTriggerOptions } from './description';
import { datasetEvents } from './events';
import { loadState, newestDataset, planPoll, saveState } from './pollState';

/**
 * The dataset list, with a 403 that names the plan feature in the message itself: when activation fails,
 * n8n shows only the message ("There was a problem activating the workflow: ...").
 */
async function listForTrigger(this: IPollFunctions, maxAttempts: number): Promise<Dataset[]> {
	try {
		return await listDatasets.call(this, { maxAttempts });
	} catch (error) {
		throw triggerError(this.getNode(), error);
	}
}

function triggerError(node: INode, caught: unknown): NodeApiError | NodeOperationError {
	const error = asNodeError(node, caught);
	if (error instanceof NodeApiError && String(error.httpCode) === '403') {
		error.message =
			'The plan of this Domain Data account does not include historical data, which the trigger needs';
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
	 * One list call per poll, plus one slice read per new dataset when records are attached. Every call
	 * that can fail happens before the state is written, so a failed poll leaves the state as it was
	 * and the next good poll emits what this one missed.
	 */
	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const options = getTriggerOptions.call(this);
		const datasets = await listForTrigger.call(this, options.maxAttempts);

		// "Fetch Test Event": show the newest dataset so that its fields can be mapped; the state stays as it is.
		if (this.getMode() === 'manual') {
			const newest = newestDataset(datasets);
			if (!newest) {
				const message =
					datasets.length === 0
						? 'The service lists no dataset yet'
						: 'The service lists no dataset with a date label (YYYY-MM-DD) yet';
				throw operationError(this.getNode(), message, {
					description:
						'There is nothing to show as a test event. Once the workflow is active, the trigger fires when the first dataset is published.',
				});
			}
			return [await datasetEvents.call(this, [newest], options)];
		}

		const staticData = this.getWorkflowStaticData('node') as IDataObject;
		const now = new Date();
		const plan = planPoll(loadState(staticData, now), datasets, now);
		if (plan.ignoredLabels.length > 0) {
			this.logger.warn(
				`Domain Data Trigger: ignored dataset labels that are not calendar dates (YYYY-MM-DD): ${plan.ignoredLabels.join(', ')}`,
			);
		}
		if (plan.futureLabels.length > 0) {
			this.logger.warn(
				`Domain Data Trigger: ignored dataset labels dated in the future, until their date has come: ${plan.futureLabels.join(', ')}`,
			);
		}
		if (plan.kind === 'none') return null;

		const items = await datasetEvents.call(this, plan.newDatasets, options);
		saveState(staticData, plan.nextState);
		return plan.kind === 'emit' ? [items] : null;
	}
}
