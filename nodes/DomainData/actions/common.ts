/** Options shared by operations and the trigger, and by the Domain operations; their readers; Return All / Limit. */
import type { IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';

import { count, operationError } from '../errors';
import { readPositiveNumber, readWholeNumber } from '../parameters';
import { type CallLimits, DEFAULT_CALL_LIMITS, DEFAULT_MAX_ATTEMPTS, MAX_TIMER_MS } from '../transport';
import type { ToolBounds } from './perItem';

export const maxAttemptsOption: INodeProperties = {
	displayName: 'Max Attempts',
	name: 'maxAttempts',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 10 },
	default: DEFAULT_MAX_ATTEMPTS,
	description:
		'The most requests one read makes in a row without progress when the service is rate limiting (429), failing ' +
		'(500, 502, 503, 504), refuses or drops the connection, or stops sending. A stream that has read new lines ' +
		'starts again from this number. Waits grow between requests and follow the Retry-After header when the ' +
		'service sends one.',
};

export const idleTimeoutOption: INodeProperties = {
	displayName: 'Idle Timeout (Seconds)',
	name: 'idleTimeout',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 2147483 },
	default: 60, // DEFAULT_CALL_LIMITS.idleTimeoutMs in seconds (the lint rule wants a literal; a test compares them)
	description:
		'When the service sends no byte for this long (before the answer starts, or in the middle of the stream), the ' +
		'connection counts as dropped and the read resumes under Max Attempts',
};

export const requestDeadlineOption: INodeProperties = {
	displayName: 'Request Deadline (Seconds)',
	name: 'requestDeadline',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 2147483 },
	default: 120, // DEFAULT_CALL_LIMITS.deadlineMs in seconds (the lint rule wants a literal)
	description:
		'When a JSON answer of the service (a lookup, a search page, the dataset list) is not complete this long ' +
		'after the request was sent, for example because it trickles in, the request counts as failed and is tried ' +
		'again under Max Attempts',
};

type CallLimitOptions = { [name in 'maxAttempts' | 'idleTimeout' | 'requestDeadline']?: unknown };

/** The one reader of the call limits; without Idle Timeout (`offersIdleTimeout`) the Request Deadline serves. */
export function readCallLimits(
	node: INode,
	options: CallLimitOptions,
	itemIndex?: number,
	offersIdleTimeout = false,
): CallLimits {
	// Seconds up to what a timer can hold (2,147,483 s, about 24.8 days; longer ones would fire at once).
	const readMs = (value: unknown, name: string, fallbackMs: number) => {
		const seconds = readPositiveNumber(node, value, `option "${name}"`, { itemIndex, fallback: fallbackMs / 1000 });
		const ms = Math.round(seconds * 1000);
		if (ms <= MAX_TIMER_MS) return ms;
		const range = count(Math.floor(MAX_TIMER_MS / 1000));
		throw operationError(node, `The option "${name}" must be at most ${range} seconds, got ${seconds}`, {
			itemIndex,
			description: `Enter a number of seconds from 1 to ${range} (about 24.8 days): longer waits cannot be timed.`,
		});
	};
	const fallback = DEFAULT_CALL_LIMITS.maxAttempts;
	const maxAttempts = readWholeNumber(node, options.maxAttempts, 'option "Max Attempts"', { itemIndex, fallback });
	const idleTimeoutMs = offersIdleTimeout
		? readMs(options.idleTimeout, 'Idle Timeout (Seconds)', DEFAULT_CALL_LIMITS.idleTimeoutMs)
		: undefined;
	const deadlineMs = readMs(options.requestDeadline, 'Request Deadline (Seconds)', DEFAULT_CALL_LIMITS.deadlineMs);
	return { maxAttempts, idleTimeoutMs: idleTimeoutMs ?? deadlineMs, deadlineMs };
}

/** As n8n's own nodes word it. */
export function returnAllOrLimit(): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			displayOptions: { show: { returnAll: [false] } },
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
		},
	];
}

/** Return All / Limit of one item; a tool's within its records, plus one that tells whether there are more. */
export function readLimit(
	this: IExecuteFunctions,
	itemIndex: number,
	tool?: ToolBounds,
	tellsMore = true,
): number | undefined {
	if (!tool && (this.getNodeParameter('returnAll', itemIndex, false) as boolean)) return undefined;
	const value = this.getNodeParameter('limit', itemIndex, 50);
	const limit = readWholeNumber(this.getNode(), value, 'parameter "Limit"', { itemIndex });
	if (!tool) return limit;
	return Math.min(limit, tool.records) + (tellsMore && limit >= tool.records ? 1 : 0);
}

export const optionsCollection = (options: INodeProperties[]): INodeProperties => ({
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add option',
	default: {},
	options,
});

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

export interface DomainOptions extends CallLimitOptions {
	removeWww?: boolean;
	concurrency?: unknown;
}

/** The one reader of "Concurrency" (1 to 10, as the field allows). */
export function readConcurrency(node: INode, options: DomainOptions, itemIndex?: number): number {
	const rule = { itemIndex, max: 10, fallback: DEFAULT_CONCURRENCY };
	return readWholeNumber(node, options.concurrency, 'option "Concurrency"', rule);
}
