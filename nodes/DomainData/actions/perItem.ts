import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { asNodeError } from '../errors';
import type { UnappliedFilter } from './domain/searchFilters';

/**
 * What a tool call allows an operation (undefined in a workflow), read with its parameters: a Limit within `records`
 * (the records an answer shows), items as output, and no Continue On Fail (a failure reaches the tool's words).
 */
export interface ToolBounds {
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

/** What a run found besides its items: the tool's answer is written from it. */
export interface RunFacts {
	/** Bulk Get: the names past the tool's bound, not looked up. */
	namesLeft?: unknown[];
	/** Search: the filters of the (last) item that the service plainly did not apply. */
	unapplied?: UnappliedFilter[];
	/** Search as a tool: the most domains a call shows (its Limit, within the tool's bound). */
	shownAtMost?: number;
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

/** Every operation gets all input items at once (bulk and enrich batch across items) and gives its items and facts. */
export type OperationExecute = (
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	tool?: ToolBounds,
) => Promise<{ items: INodeExecutionData[]; facts: RunFacts }>;

/** Whether failures become error items: never for a tool, whose failure is an answer of its own. */
export function continuesOnFail(context: IExecuteFunctions, tool: ToolBounds | undefined): boolean {
	return tool === undefined && context.continueOnFail();
}

/**
 * The json of a failure's item under Continue On Fail: the message and the facts of what failed. n8n routes an item to
 * the error output only when its json holds nothing but `error`, so there the facts give way to the sentence naming
 * where to go on (`resume`: the Skip Records of the File and Sub-Workflow outputs, a search's cursor).
 */
export function errorJson(context: IExecuteFunctions, message: string, facts?: IDataObject, resume?: string) {
	if (context.getNode().onError !== 'continueErrorOutput') return { ...facts, error: message };
	return { error: resume === undefined ? message : `${message}. ${resume}` };
}

const errorItems = new WeakMap<object, { fields: IDataObject; resume?: string }>();

/**
 * `error`, whose error item (Continue On Fail) carries `fields` beside the message (what was done, where to go on), and
 * on the error output the `resume` sentence instead of them.
 */
export function failedWith<E extends object>(error: E, fields: IDataObject, resume?: string): E {
	errorItems.set(error, { fields, resume });
	return error;
}

/**
 * Runs `run` for each input item in order, a failure becoming that item's error item under Continue On Fail. `run`
 * pushes onto `output` one item at a time: spreading 100,000 items as arguments would overflow the call stack.
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
			const facts = typeof error === 'object' && error !== null ? errorItems.get(error) : undefined;
			const json = errorJson(this, failure.message, facts?.fields, facts?.resume);
			output.push({ json, pairedItem: { item: itemIndex } });
		}
	}
	return output;
}

export type NodeError = ReturnType<typeof asNodeError>;

/**
 * For operations that send the names of all items together (Bulk Get, Enrich Items): reads every item before any call;
 * an item that could not be read keeps its place as `{ error }` under Continue On Fail, for its error item.
 */
export function readItems<T>(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	readItem: (itemIndex: number) => T,
	continueOnFail: boolean,
): Array<T | { error: NodeError }> {
	const node = context.getNode();
	return items.map((_, itemIndex) => {
		try {
			return readItem(itemIndex);
		} catch (error) {
			const failure = asNodeError(node, error, itemIndex);
			if (!continueOnFail) throw failure;
			return { error: failure };
		}
	});
}

export function isUnread<T>(request: T | { error: NodeError }): request is { error: NodeError } {
	return typeof request === 'object' && request !== null && 'error' in request;
}

/** A hint under the output in the editor (older n8n versions have no addExecutionHints: then nothing). */
export function addHint(context: IExecuteFunctions, message: string): void {
	if (typeof context.addExecutionHints === 'function') context.addExecutionHints({ message, location: 'outputPane' });
}
