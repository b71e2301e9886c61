/** The options that operations and the trigger share, their one reader each, and Return All / Limit. */
import type { IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';

import { operationError } from '../errors';
import { readPositiveNumber, readWholeNumber } from '../parameters';
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_ATTEMPTS, DEFAULT_REQUEST_DEADLINE_MS, MAX_TIMER_MS } from '../transport';

export const maxAttemptsOption: INodeProperties = {
	displayName: 'Max Attempts',
	name: 'maxAttempts',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 10 },
	default: DEFAULT_MAX_ATTEMPTS,
	description:
		'The most requests one read makes in a row without progress when the service is rate limiting (429), failing ' +
		'(5xx), refuses or drops the connection, or stops sending. A stream that has read new lines starts again from ' +
		'this number. Waits grow between requests and follow the Retry-After header when the service sends one.',
};

export const idleTimeoutOption: INodeProperties = {
	displayName: 'Idle Timeout (Seconds)',
	name: 'idleTimeout',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 2147483 },
	default: 60, // DEFAULT_IDLE_TIMEOUT_MS in seconds (the lint rule wants a literal; a test compares them)
	description:
		'When the service sends no byte for this long (before the answer starts, or in the middle of the stream), the ' +
		'connection counts as dropped and the read resumes under Max Attempts',
};

export const requestDeadlineOption: INodeProperties = {
	displayName: 'Request Deadline (Seconds)',
	name: 'requestDeadline',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 2147483 },
	default: 120, // DEFAULT_REQUEST_DEADLINE_MS in seconds (the lint rule wants a literal)
	description:
		'When a JSON answer of the service (a lookup, a search page, the dataset list) is not complete this long ' +
		'after the request was sent, for example because it trickles in, the request counts as failed and is tried ' +
		'again under Max Attempts',
};

export function readMaxAttempts(node: INode, options: { maxAttempts?: unknown }, itemIndex?: number): number {
	return readWholeNumber(node, options.maxAttempts, 'option "Max Attempts"', {
		itemIndex,
		fallback: DEFAULT_MAX_ATTEMPTS,
	});
}

export function readIdleTimeoutMs(node: INode, options: { idleTimeout?: unknown }, itemIndex?: number): number {
	return readSecondsAsMs(node, options.idleTimeout, 'Idle Timeout (Seconds)', DEFAULT_IDLE_TIMEOUT_MS, itemIndex);
}

export function readRequestDeadlineMs(node: INode, options: { requestDeadline?: unknown }, itemIndex?: number): number {
	const name = 'Request Deadline (Seconds)';
	return readSecondsAsMs(node, options.requestDeadline, name, DEFAULT_REQUEST_DEADLINE_MS, itemIndex);
}

/** Seconds up to what a timer can hold (2,147,483 s, about 24.8 days; longer ones would fire at once). */
function readSecondsAsMs(node: INode, value: unknown, name: string, fallbackMs: number, itemIndex?: number): number {
	const seconds = readPositiveNumber(node, value, `option "${name}"`, { itemIndex, fallback: fallbackMs / 1000 });
	const ms = Math.round(seconds * 1000);
	if (ms <= MAX_TIMER_MS) return ms;
	const range = Math.floor(MAX_TIMER_MS / 1000).toLocaleString('en-US');
	throw operationError(node, `The option "${name}" must be at most ${range} seconds, got ${seconds}`, {
		itemIndex,
		description: `Enter a number of seconds from 1 to ${range} (about 24.8 days): longer waits cannot be timed.`,
	});
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

/** Undefined when Return All is on. */
export function readLimit(this: IExecuteFunctions, itemIndex: number): number | undefined {
	if (this.getNodeParameter('returnAll', itemIndex, false) as boolean) return undefined;
	const limit = this.getNodeParameter('limit', itemIndex, 50);
	return readWholeNumber(this.getNode(), limit, 'parameter "Limit"', { itemIndex });
}

export const optionsCollection = (options: INodeProperties[]): INodeProperties => ({
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add option',
	default: {},
	options,
});
