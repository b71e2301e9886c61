import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { LATEST_LABEL, listDatasets } from '../helpers/datasets';

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
