/** The two JSON parameters of Domain → Search: Filters and Options → Start Cursor. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { describeValue, operationError } from '../../errors';
import { parseJsonExact } from '../../transport';

/** Body keys that the node sets itself from its parameters. */
const PAGING_KEYS = ['pageSize', 'searchAfter'];

function parseJsonParameter(
	value: unknown,
	parse: (text: string) => unknown = JSON.parse,
): { ok: true; value: unknown } | { ok: false } {
	if (typeof value !== 'string') return { ok: true, value };
	try {
		return { ok: true, value: parse(value) };
	} catch {
		return { ok: false };
	}
}

export function readFilters(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const raw = this.getNodeParameter('filters', itemIndex, '{}');
	if (typeof raw === 'string' && raw.trim() === '') return {};
	const parsed = parseJsonParameter(raw);
	if (!parsed.ok || !parsed.value || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
		throw operationError(this.getNode(), `Filters must be a JSON object, but they are ${describeValue(raw)}`, {
			itemIndex,
			description: 'Write the filters as a JSON object, for example {"language": "de"}, or {} for no filter.',
		});
	}
	const filters = parsed.value as IDataObject;
	const paging = PAGING_KEYS.find((key) => key in filters);
	if (paging) {
		throw operationError(this.getNode(), `Filters must not contain "${paging}"`, {
			itemIndex,
			description:
				'The node pages by itself: set the page size in Options → Page Size and a start cursor in Options ' +
				'→ Start Cursor.',
		});
	}
	return filters;
}

export function readStartCursor(this: IExecuteFunctions, value: unknown, itemIndex: number): unknown[] | undefined {
	if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return undefined;
	// A cursor's integers beyond 2^53 keep their digits (parseJsonExact), so that they go back unchanged.
	const parsed = parseJsonParameter(value, parseJsonExact);
	if (!parsed.ok || !Array.isArray(parsed.value) || parsed.value.length === 0) {
		throw operationError(
			this.getNode(),
			`The Start Cursor must be a JSON array such as [2, 36411284], but it is ${describeValue(value)}`,
			{
				itemIndex,
				description:
					'Use the searchAfter value of the paging info of an earlier run (Options → Include Paging Info), unchanged.',
			},
		);
	}
	return parsed.value;
}
