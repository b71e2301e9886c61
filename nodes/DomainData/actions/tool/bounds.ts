/**
 * As a tool, every operation reads its parameters through these bounds, so that no call is made for records the
 * answer cannot show: Return All off, the Limit at most TOOL_MAX_RECORDS, Output "Items", Bulk Get's names and
 * Enrich Items' input items cut to TOOL_MAX_RECORDS (one call). Get answers a name that is not in the index with
 * `{ name, found: false }` (an answer for a model, not a failure). Stream's and Compare's Filters → Domains may be
 * filled by the model (`$fromAI('domains', …)`, as examples/ai-agent-tool.json does): left empty, it means every
 * domain rather than a list that holds none. The bounds are public: the README and the tool descriptions state them.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { splitDomainList } from '../../helpers/domainName';

/** Records in one tool answer. */
export const TOOL_MAX_RECORDS = 20;
/** Bytes of one tool answer (its JSON, as the model receives it). */
export const TOOL_MAX_BYTES = 48 * 1024;

/** What the bounds saw or left out, for the answer's words. */
export interface BoundedRun {
	/** Bulk Get's names past the bound, not looked up. */
	namesLeft: unknown[];
	/** Enrich Items' input items past the bound, not enriched. */
	itemsLeft: number;
	/** Search's filters as the operation read them (the answer checks the records against them). */
	filters?: unknown;
	/** The hints the operation left for the editor's output pane (the answer tells the model those about its list). */
	hints: string[];
}

type Bound = (value: unknown) => unknown;

function withOptions(options: IDataObject): Bound {
	return (value) => ({ ...((value ?? {}) as IDataObject), ...options });
}

/** The bounded value of each parameter that could make an operation fetch more. */
export function boundedParameters(operation: string, run: BoundedRun): Record<string, Bound> {
	// The Limit within the bound, plus a record where only a record more than can be shown tells that there is more
	// (Search learns it from the cursor); a Limit below the bound is the user's, and shown whole. A value that is not
	// a whole number is left to the operation to refuse.
	const extra = (limit: number) => (operation === 'search' || limit < TOOL_MAX_RECORDS ? 0 : 1);
	const bounds: Record<string, Bound> = {
		returnAll: () => false,
		limit: (value) => {
			const limit = Number(value ?? TOOL_MAX_RECORDS);
			return Number.isInteger(limit) && limit >= 1 ? Math.min(limit, TOOL_MAX_RECORDS) + extra(limit) : value;
		},
		output: () => 'items',
	};
	if (operation === 'get') bounds.options = withOptions({ onNotFound: 'returnNotFound' });
	if (operation === 'search') {
		bounds.options = withOptions({ includePagingInfo: true });
		bounds.filters = (value) => (run.filters = value);
	}
	if (operation === 'stream' || operation === 'compare') bounds.filters = withoutEmptyDomains;
	if (operation === 'bulk') {
		bounds.options = withOptions({ includeNotFound: true });
		bounds.domains = (value) => {
			const names = splitDomainList(value);
			run.namesLeft = names.slice(TOOL_MAX_RECORDS);
			return names.slice(0, TOOL_MAX_RECORDS);
		};
	}
	return bounds;
}

/** Filters without a Domains filter that names nothing: the model left it empty to mean every domain. */
function withoutEmptyDomains(value: unknown): unknown {
	const filters = value as IDataObject | undefined;
	if (!filters || typeof filters !== 'object' || !('domains' in filters)) return value;
	if (splitDomainList(filters.domains).length > 0) return value;
	const others = { ...filters };
	delete others.domains;
	return others;
}

/** The input items an operation gets: Enrich Items' first TOOL_MAX_RECORDS (one item, one record). */
export function boundedItems(operation: string, items: INodeExecutionData[], run: BoundedRun): INodeExecutionData[] {
	if (operation !== 'enrich' || items.length <= TOOL_MAX_RECORDS) return items;
	run.itemsLeft = items.length - TOOL_MAX_RECORDS;
	return items.slice(0, TOOL_MAX_RECORDS);
}

/**
 * The context with bounded parameters; Continue On Fail off, so that a failure reaches the tool layer's words; the
 * hints the operation leaves are kept in `run` (and still shown in the editor).
 * A Proxy rather than an object listing the context's members: n8n's execute context is a class instance whose
 * members differ between versions (and whose methods need their own `this`), and the bounds change exactly two of
 * them; everything else reaches the real context unchanged.
 */
export function withBounds(
	context: IExecuteFunctions,
	bounds: Record<string, Bound>,
	run: BoundedRun,
): IExecuteFunctions {
	const getNodeParameter = (name: string, ...rest: unknown[]) => {
		const value = (context.getNodeParameter as (...args: unknown[]) => unknown)(name, ...rest);
		return bounds[name] ? bounds[name](value) : value;
	};
	const addExecutionHints = (...hints: Array<{ message: string }>) => {
		run.hints.push(...hints.map((hint) => hint.message));
		if (typeof context.addExecutionHints === 'function') context.addExecutionHints(...hints);
	};
	return new Proxy(context, {
		get(target, property) {
			if (property === 'getNodeParameter') return getNodeParameter;
			if (property === 'continueOnFail') return () => false;
			if (property === 'addExecutionHints') return addExecutionHints;
			const value: unknown = Reflect.get(target, property, target);
			return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
		},
	});
}
