import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { datedNewestFirst, LATEST_LABEL, listDatasets, PREVIOUS_LABEL } from '../helpers/datasets';

/** The dated labels, newest first as dates (the list's order plays no part), as dropdown entries. */
async function datedOptions(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return datedNewestFirst(await listDatasets.call(this)).dated.map(({ label }) => ({ name: label, value: label }));
}

/** The label dropdown of Stream and Compare: `latest` first, then the dated labels, newest first. */
export async function getDatasetLabels(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const dated = await datedOptions.call(this);
	const now = dated.length > 0 ? ` (now ${dated[0].name})` : '';
	const description = `The newest snapshot when the node runs${now}`;
	return [{ name: 'Latest', value: LATEST_LABEL, description }, ...dated];
}

/** The "Compare With" dropdown of Compare: `previous` first, then the dated labels, newest first. */
export async function getBaseDatasetLabels(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const description = 'The newest snapshot older than "Dataset", found when the node runs';
	return [{ name: 'Previous', value: PREVIOUS_LABEL, description }, ...(await datedOptions.call(this))];
}
