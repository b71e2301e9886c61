import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { asNodeError } from '../errors';

/** Every operation gets all input items at once: bulk and enrich batch across items, the others loop. */
export type OperationExecute = (this: IExecuteFunctions, items: INodeExecutionData[]) => Promise<INodeExecutionData[]>;

/**
 * The json of an item that reports a failure under Continue On Fail: the message and the facts of what failed. n8n's
 * "Continue (using error output)" routes an item there only when its json holds nothing but `error` (n8n 2.41 also
 * allows `message` and `details`, 2.8 only `message`) and merges the input item into it, so on the error output the
 * facts are left out but for where to go on (`resumeAt`, the Skip Records of the File and Sub-Workflow outputs),
 * which the text then says. An item-level `error` would route it too, but n8n then replaces the json by the message
 * on either output.
 */
export function errorJson(
	context: IExecuteFunctions,
	message: string,
	facts?: IDataObject,
	resumeAt?: number,
): IDataObject {
	if (context.getNode().onError !== 'continueErrorOutput') return { ...facts, error: message };
	if (resumeAt === undefined) return { error: message };
	return { error: `${message}. To go on from there, run it again with the option "Skip Records" set to ${resumeAt}.` };
}

/**
 * Runs `run` for each input item in order and honours Continue On Fail for it: a failure becomes that item's error
 * item (errorJson, with `errorFields` read after the failure) and the next item goes on. `run` pushes onto `output`
 * one item at a time: spreading 100,000 items as arguments would overflow the call stack.
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
			const failure = asNodeError(this.getNode(), error, itemIndex);
			if (!this.continueOnFail()) throw failure;
			const fields = options.errorFields?.(itemIndex);
			const resumeAt = typeof fields?.skipRecords === 'number' ? fields.skipRecords : undefined;
			const json = errorJson(this, failure.message, fields, resumeAt);
			output.push({ json, pairedItem: { item: itemIndex } });
		}
	}
	return output;
}
