import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

/** The label dropdown of Dataset → Stream: `latest` first, then the dated labels, newest first. */
export async function getDatasetLabels(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return [{ name: 'Latest', value: 'latest' }];
}
