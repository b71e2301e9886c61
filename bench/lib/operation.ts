/** Running our node's operations through the in-process harness (n8n-core's real ExecuteContext). */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

export type StreamOutput = 'items' | 'batches' | 'file';

/**
 * Parameters of Dataset → Stream for the whole `latest` snapshot with the default fields. `maxRecords` raises
 * the node's guard on records held in memory (items and batches outputs), which is 100,000 by default.
 */
export function streamParameters(
	output: StreamOutput,
	extra: INodeParameters = {},
	maxRecords?: number,
): INodeParameters {
	return {
		resource: 'dataset',
		operation: 'stream',
		label: 'latest',
		returnAll: true,
		output,
		...(maxRecords ? { options: { maxRecords } } : {}),
		...extra,
	};
}

/** How many records the Stream operation put out, whatever the output mode. */
export function countStreamRecords(items: INodeExecutionData[], output: StreamOutput): number {
	if (output === 'items') return items.length;
	if (output === 'batches') {
		return items.reduce((sum, item) => sum + ((item.json.records as unknown[] | undefined)?.length ?? 0), 0);
	}
	// file: one item whose JSON tells the record count (parts: each tells the whole run's, totalRecords).
	const json = items[0]?.json ?? {};
	for (const key of ['totalRecords', 'records', 'recordCount', 'count', 'lines']) {
		if (typeof json[key] === 'number') return json[key] as number;
	}
	throw new Error(`The file output tells no record count: ${JSON.stringify(json).slice(0, 300)}`);
}

/** True when the operation is still the placeholder that throws "Not implemented yet". */
export function isStub(error: unknown): boolean {
	return error instanceof Error && /not implemented/i.test(error.message);
}

export class StubError extends Error {
	constructor(readonly operation: string) {
		super(`${operation} is still a stub ("Not implemented yet")`);
	}
}
