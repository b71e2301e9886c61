import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { asNodeError } from '../errors';
import type { UnappliedFilter } from './domain/searchFilters';

/**
 * What a tool call allows an operation (actions/tool/runAsTool.ts); undefined when the node runs in a workflow. The
 * operations read it with their parameters: a Limit within `records`, items as output, the options a tool always
 * wants, and no Continue On Fail (a failure reaches the tool's words).
 */
export interface ToolBounds {
	/** Records an answer shows. */
	records: number;
}

/** What the Domains filter found, as the File and Sub-Workflow items state it (`domainList`). */
export interface DomainListFacts {
	listed: number;
	/** Known once every line was read. */
	notFound?: number;
	notFoundExamples?: string[];
	rejected?: number;
	rejectedExamples?: string[];
}

/** What a run found besides its items: the tool's answer is written from it, as the editor's hints are. */
export interface RunFacts {
	/** Bulk Get: the names past the tool's bound, not looked up. */
	namesLeft?: unknown[];
	/** Search: the filters of the (last) item that the service plainly did not apply. */
	unapplied?: UnappliedFilter[];
	/** Stream, Compare: the snapshots read; what the Domains filter found (names no snapshot held, entries left out). */
	labels?: { label: string; baseLabel?: string };
	domainList?: DomainListFacts;
	/** Enrich Items: where each record holds its domain data, and where it comes from (Options → Source). */
	destinationField?: string;
	enrichSource?: 'lookup' | 'snapshot';
	/** Compare: the fields compared, and when rank is one of them the smallest rank move that counts. */
	compared?: { fields: string[]; minRankMove?: number };
	/** Stream: the lines of the snapshot read, whether the read went to its end, and whether filters chose records. */
	snapshotRead?: { lines: number; toEnd: boolean; filtered: boolean };
	/** List: how many datasets the service lists in all. */
	datasetsInAll?: number;
}

/** An operation's output items and what its run found. */
interface OperationRun {
	items: INodeExecutionData[];
	facts: RunFacts;
}

/** Every operation gets all input items at once: bulk and enrich batch across items, the others loop. */
export type OperationExecute = (
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	tool?: ToolBounds,
) => Promise<OperationRun>;

/** Whether failures become error items: never for a tool, whose failure is an answer of its own. */
export function continuesOnFail(context: IExecuteFunctions, tool: ToolBounds | undefined): boolean {
	return tool === undefined && context.continueOnFail();
}

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

/** The fields of the error item of a failure, given by the code that failed (where to go on, what was done). */
const errorItemFields = new WeakMap<object, IDataObject>();

/** `error`, whose error item (under Continue On Fail) carries `fields` beside the message. */
export function failedWith<E extends object>(error: E, fields: IDataObject): E {
	errorItemFields.set(error, fields);
	return error;
}

/**
 * Runs `run` for each input item in order and honours Continue On Fail for it: a failure becomes that item's error
 * item (errorJson, with the fields the failure carries: failedWith) and the next item goes on. `run` pushes onto
 * `output` one item at a time: spreading 100,000 items as arguments would overflow the call stack.
 */
export async function forEachItem(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	run: (itemIndex: number, output: INodeExecutionData[]) => Promise<void>,
	tool?: ToolBounds,
): Promise<INodeExecutionData[]> {
	const output: INodeExecutionData[] = [];
	const continues = continuesOnFail(this, tool);
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			await run(itemIndex, output);
		} catch (error) {
			const failure = asNodeError(this.getNode(), error, itemIndex);
			if (!continues) throw failure;
			const fields = typeof error === 'object' && error !== null ? errorItemFields.get(error) : undefined;
			const resumeAt = typeof fields?.skipRecords === 'number' ? fields.skipRecords : undefined;
			const json = errorJson(this, failure.message, fields, resumeAt);
			output.push({ json, pairedItem: { item: itemIndex } });
		}
	}
	return output;
}
