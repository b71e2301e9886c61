import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { asNodeError } from '../errors';

/** Every operation gets all input items at once: bulk and enrich batch across items, the others loop. */
export type OperationExecute = (this: IExecuteFunctions, items: INodeExecutionData[]) => Promise<INodeExecutionData[]>;

/**
 * Runs `run` for each input item in order, the one place that honours "Continue On Fail": a failure becomes that
 * item's error item `{ error, ...errorFields }` (read after the failure) and the next item goes on. `run` pushes onto
 * `output` one item at a time: spreading 100,000 items as arguments would overflow the call stack.
 */
export async function forEachItem(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	run: (itemIndex: number, output: INodeExecutionData[]) => Promise<void>,
	options: { errorFields?: (itemIndex: number) => IDataObject | undefined } = {},
): Promise<INodeExecutionData[]> {
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			await run(itemIndex, output);
		} catch (error) {
			if (!this.continueOnFail()) throw asNodeError(this.getNode(), error, itemIndex);
			const message = error instanceof Error ? error.message : String(error);
			output.push({ json: { error: message, ...options.errorFields?.(itemIndex) }, pairedItem: { item: itemIndex } });
		}
	}
	return output;
}
