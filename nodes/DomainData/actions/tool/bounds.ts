/**
 * As a tool, every operation reads its parameters through these bounds, so that no call is made for records the
 * answer cannot show: Return All off, the Limit at most TOOL_MAX_RECORDS, Output "Items", Bulk Get's names cut to
 * TOOL_MAX_RECORDS (one call). The bounds are public: the README and the tool descriptions state them.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { splitDomainList } from '../../helpers/domainName';

/** Records in one tool answer. */
export const TOOL_MAX_RECORDS = 20;
/** Bytes of one tool answer (its JSON, as the model receives it). */
export const TOOL_MAX_BYTES = 48 * 1024;

/** What the bounds left out, for the answer's words: Bulk Get's names past the bound, not looked up. */
export interface BoundedRun {
	namesLeft: unknown[];
}

type Bound = (value: unknown) => unknown;

function withOptions(options: IDataObject): Bound {
	return (value) => ({ ...((value ?? {}) as IDataObject), ...options });
}

/** The bounded value of each parameter that could make an operation fetch more. */
export function boundedParameters(operation: string, run: BoundedRun): Record<string, Bound> {
	// The Limit within the bound, plus a record where only a record more than can be shown tells that there is more
	// (Search learns it from the cursor). A value that is not a whole number is left to the operation to refuse.
	const extra = operation === 'search' ? 0 : 1;
	const bounds: Record<string, Bound> = {
		returnAll: () => false,
		limit: (value) => {
			const limit = Number(value ?? TOOL_MAX_RECORDS);
			return Number.isInteger(limit) && limit >= 1 ? Math.min(limit, TOOL_MAX_RECORDS) + extra : value;
		},
		output: () => 'items',
	};
	if (operation === 'search') bounds.options = withOptions({ includePagingInfo: true });
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

/** The context with bounded parameters; Continue On Fail off, so that a failure reaches the tool layer's words. */
export function withBounds(context: IExecuteFunctions, bounds: Record<string, Bound>): IExecuteFunctions {
	const getNodeParameter = (name: string, ...rest: unknown[]) => {
		const value = (context.getNodeParameter as (...args: unknown[]) => unknown)(name, ...rest);
		return bounds[name] ? bounds[name](value) : value;
	};
	return new Proxy(context, {
		get(target, property) {
			if (property === 'getNodeParameter') return getNodeParameter;
			if (property === 'continueOnFail') return () => false;
			const value: unknown = Reflect.get(target, property, target);
			return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
		},
	});
}
