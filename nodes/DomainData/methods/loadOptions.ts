/** The dataset dropdowns of Stream and Compare: a label resolved when the node runs, then the dated labels. */
import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { datedNewestFirst, LATEST_LABEL, listDatasets, PREVIOUS_LABEL } from '../helpers/datasets';

/** Newest first as dates (the list's order plays no part). */
async function datedOptions(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return datedNewestFirst(await listDatasets.call(this)).dated.map(({ label }) => ({ name: label, value: label }));
}

export async function getDatasetLabels(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const dated = await datedOptions.call(this);
	const now = dated.length > 0 ? ` (now ${dated[0].name})` : '';
	const description = `The newest snapshot when the node runs${now}`;
	return [{ name: 'Latest', value: LATEST_LABEL, description }, ...dated];
}

export async function getBaseDatasetLabels(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const description = 'The newest snapshot older than "Dataset", found when the node runs';
	return [{ name: 'Previous', value: PREVIOUS_LABEL, description }, ...(await datedOptions.call(this))];
}
