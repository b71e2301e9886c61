import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { LATEST_LABEL, listDatasets } from '../helpers/datasets';
import { PREVIOUS_LABEL } from '../helpers/snapshotPair';

/** The label dropdown of Dataset → Stream: `latest` first, then the dated labels, newest first. */
export async function getDatasetLabels(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const datasets = await listDatasets.call(this);
	return [
		{
			name: 'Latest',
			value: LATEST_LABEL,
			description: datasets.length > 0 ? `The newest snapshot when the node runs (now ${datasets[0].label})` : 'The newest snapshot when the node runs',
		},
		...datasets.map(({ label }) => ({ name: label, value: label })),
	];
}

/** The "Compare With" dropdown of Dataset → Compare: `previous` first, then the dated labels, newest first. */
export async function getBaseDatasetLabels(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const datasets = await listDatasets.call(this);
	return [
		{
			name: 'Previous',
			value: PREVIOUS_LABEL,
			description: 'The newest snapshot older than "Dataset", found when the node runs',
		},
		...datasets.map(({ label }) => ({ name: label, value: label })),
	];
}
