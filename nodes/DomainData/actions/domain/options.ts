/** The options several Domain operations share. */
import type { INode, INodeProperties } from 'n8n-workflow';

import { readWholeNumber } from '../../parameters';

/** Two bulk calls at a time stay within rate limits of about 5 requests per second. */
const DEFAULT_CONCURRENCY = 2;

export const concurrencyOption: INodeProperties = {
	displayName: 'Concurrency',
	name: 'concurrency',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 10 },
	default: DEFAULT_CONCURRENCY,
	description:
		'How many bulk calls (of up to 100 names each) to have under way at the same time. Higher is faster but meets ' +
		'rate limits sooner.',
};

export const removeWwwOption: INodeProperties = {
	displayName: 'Remove "www."',
	name: 'removeWww',
	type: 'boolean',
	default: true,
	description: 'Whether to look up www.example.com as example.com (websites are indexed under their name without www)',
};

export interface DomainOptions {
	removeWww?: boolean;
	concurrency?: unknown;
	maxAttempts?: unknown;
	requestDeadline?: unknown;
}

/** The one reader of "Concurrency" (1 to 10, as the field allows). */
export function readConcurrency(node: INode, options: DomainOptions, itemIndex?: number): number {
	return readWholeNumber(node, options.concurrency, 'option "Concurrency"', {
		itemIndex,
		max: 10,
		fallback: DEFAULT_CONCURRENCY,
	});
}
