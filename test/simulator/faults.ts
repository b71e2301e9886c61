/**
 * Injected faults for tests: latency, error bursts (429/5xx), connection resets and damaged streams.
 *
 * Request faults are rules checked in order on every API request; the first rule whose scope matches
 * and whose count is not spent applies and counts down by one (a "burst of N"). Spent rules disappear.
 * Stream faults apply to whole stream requests: each stream request takes the first stream fault that
 * still has a count left, and all options of that entry apply to it together.
 *
 * Faults take precedence over everything else: they act as a proxy in front of the service would,
 * before authentication, plan checks and credits (an injected 429/5xx/reset spends no credit).
 */
import type { EndpointName } from './types';

export interface FaultScope {
	/** Only requests of this endpoint (or these endpoints). Default: every API endpoint. */
	endpoint?: EndpointName | EndpointName[];
	/** Only requests whose path (without query) matches this regular expression source. */
	path?: string;
}

export interface RequestFault extends FaultScope {
	/** Answer with this status (429, 500, 502, 503, 504, or any other 4xx/5xx). */
	status?: number;
	/** Destroy the connection without any response (TCP reset); takes precedence over `status`. */
	reset?: boolean;
	/** Delay this many ms before acting (with neither status nor reset: a slow but normal response). */
	delayMs?: number;
	/** Number of matching requests this rule applies to. Default 1. */
	count?: number;
	/** Send a Retry-After header: this many seconds. */
	retryAfter?: number;
	/** Send Retry-After as an HTTP date (now + retryAfter seconds) instead of a number of seconds. */
	retryAfterDate?: boolean;
	/**
	 * Body of the error: 'json' (default) is {"error": "..."} as the service sends it; 'html' is a proxy
	 * page (<html><body><h1>502 Bad Gateway</h1></body></html>, text/html); 'empty' sends no body.
	 */
	body?: 'json' | 'html' | 'empty';
	/** Error message of the JSON body (default: a message for the status). */
	message?: string;
}

export interface StreamFault {
	/** Number of upcoming stream requests this entry applies to. Default 1. */
	count?: number;
	/** Destroy the connection right after this many lines were sent. */
	dropAfterLines?: number;
	/** Replace line N (1-based) by a truncated, invalid JSON text (the record of that line is lost). */
	malformedLineAt?: number;
	/** End lines with \r\n instead of \n. */
	crlf?: boolean;
	/** Do not end the last line with a newline. */
	noFinalNewline?: boolean;
	/** Cut the written chunks in the middle of multi-byte UTF-8 characters (with a short pause between pieces). */
	splitUtf8?: boolean;
	/** Send the body in small pieces with pauses. Defaults: 16 bytes, 10 ms. */
	trickle?: { chunkBytes?: number; delayMs?: number };
}

export interface Faults {
	/** Delay before every API response, in ms. */
	latencyMs: number;
	/** Cap on each stream's bytes per second (a link's speed: link.ts); 0 for none. */
	linkBytesPerSecond: number;
	/** Request rules, checked in order. */
	requests: RequestFault[];
	/** Stream damage, one entry per burst of stream requests. */
	streams: StreamFault[];
}

const STATUS_MESSAGES: Record<number, string> = {
	429: 'Rate limit exceeded. Slow down and retry later.',
	500: 'Internal server error.',
	502: 'Bad gateway.',
	503: 'Service temporarily unavailable.',
	504: 'Gateway timeout.',
};

export function defaultFaultMessage(status: number): string {
	return STATUS_MESSAGES[status] ?? `Injected error ${status}.`;
}

export class FaultState {
	private current: Faults;

	constructor(
		private readonly baseLatencyMs: number,
		private readonly baseLinkBytesPerSecond = 0,
	) {
		this.current = { latencyMs: baseLatencyMs, linkBytesPerSecond: baseLinkBytesPerSecond, requests: [], streams: [] };
	}

	/** Replaces the given parts (a list given replaces the whole list). Throws on an invalid shape. */
	set(partial: Partial<Faults>): void {
		const next: Faults = { ...this.current };
		if (partial.latencyMs !== undefined) next.latencyMs = checkNonNegative(partial.latencyMs, 'latencyMs');
		if (partial.linkBytesPerSecond !== undefined) {
			next.linkBytesPerSecond = checkNonNegative(partial.linkBytesPerSecond, 'linkBytesPerSecond');
		}
		if (partial.requests !== undefined) {
			if (!Array.isArray(partial.requests)) throw new Error('requests must be an array');
			next.requests = partial.requests.map(validateRequestFault);
		}
		if (partial.streams !== undefined) {
			if (!Array.isArray(partial.streams)) throw new Error('streams must be an array');
			next.streams = partial.streams.map(validateStreamFault);
		}
		for (const key of Object.keys(partial)) {
			if (!['latencyMs', 'linkBytesPerSecond', 'requests', 'streams'].includes(key))
				throw new Error(`unknown fault setting "${key}"`);
		}
		this.current = next;
	}

	/** No faults; latency and link speed back to the values the simulator was started with. */
	reset(): void {
		const { baseLatencyMs: latencyMs, baseLinkBytesPerSecond: linkBytesPerSecond } = this;
		this.current = { latencyMs, linkBytesPerSecond, requests: [], streams: [] };
	}

	/** A copy of the current faults (counts are what is left). */
	snapshot(): Faults {
		return JSON.parse(JSON.stringify(this.current)) as Faults;
	}

	get latencyMs(): number {
		return this.current.latencyMs;
	}

	get linkBytesPerSecond(): number {
		return this.current.linkBytesPerSecond;
	}

	/** Takes (counts down) the first request rule that matches. */
	takeRequestFault(endpoint: EndpointName, path: string): RequestFault | undefined {
		const rules = this.current.requests;
		const index = rules.findIndex((rule) => matches(rule, endpoint, path));
		if (index < 0) return undefined;
		return takeOne(rules, index);
	}

	/** Takes (counts down) the first stream fault. */
	takeStreamFault(): StreamFault | undefined {
		return this.current.streams.length > 0 ? takeOne(this.current.streams, 0) : undefined;
	}
}

function takeOne<T extends { count?: number }>(list: T[], index: number): T {
	const rule = list[index];
	const left = (rule.count ?? 1) - 1;
	if (left <= 0) list.splice(index, 1);
	else list[index] = { ...rule, count: left };
	return { ...rule, count: 1 };
}

function matches(rule: RequestFault, endpoint: EndpointName, path: string): boolean {
	if (rule.endpoint !== undefined) {
		const endpoints = Array.isArray(rule.endpoint) ? rule.endpoint : [rule.endpoint];
		if (!endpoints.includes(endpoint)) return false;
	}
	return rule.path === undefined || new RegExp(rule.path).test(path);
}

function checkNonNegative(value: unknown, name: string): number {
	if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
		throw new Error(`${name} must be a non-negative number`);
	return value;
}

function checkCount(value: unknown): number | undefined {
	if (value === undefined) return undefined;
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
		throw new Error('count must be a positive integer');
	return value;
}

const ENDPOINTS: readonly string[] = ['get', 'search', 'bulk', 'datasets', 'stream'];
const REQUEST_FAULT_KEYS = [
	'endpoint',
	'path',
	'status',
	'reset',
	'delayMs',
	'count',
	'retryAfter',
	'retryAfterDate',
	'body',
	'message',
];
const STREAM_FAULT_KEYS = [
	'count',
	'dropAfterLines',
	'malformedLineAt',
	'crlf',
	'noFinalNewline',
	'splitUtf8',
	'trickle',
];

function validateRequestFault(input: RequestFault): RequestFault {
	if (typeof input !== 'object' || input === null) throw new Error('a request fault must be an object');
	for (const key of Object.keys(input))
		if (!REQUEST_FAULT_KEYS.includes(key)) throw new Error(`unknown request fault option "${key}"`);
	const rule: RequestFault = { ...input, count: checkCount(input.count) ?? 1 };
	if (rule.status !== undefined && !(Number.isInteger(rule.status) && rule.status >= 400 && rule.status <= 599)) {
		throw new Error('status must be an integer from 400 to 599');
	}
	if (rule.status === undefined && !rule.reset && rule.delayMs === undefined)
		throw new Error('a request fault needs status, reset or delayMs');
	if (rule.delayMs !== undefined) checkNonNegative(rule.delayMs, 'delayMs');
	if (rule.retryAfter !== undefined) checkNonNegative(rule.retryAfter, 'retryAfter');
	if (rule.body !== undefined && !['json', 'html', 'empty'].includes(rule.body))
		throw new Error('body must be json, html or empty');
	if (rule.endpoint !== undefined) {
		const endpoints = Array.isArray(rule.endpoint) ? rule.endpoint : [rule.endpoint];
		for (const endpoint of endpoints)
			if (!ENDPOINTS.includes(endpoint)) throw new Error(`unknown endpoint "${endpoint}"`);
	}
	if (rule.path !== undefined) new RegExp(rule.path); // throws on an invalid pattern
	return rule;
}

function validateStreamFault(input: StreamFault): StreamFault {
	if (typeof input !== 'object' || input === null) throw new Error('a stream fault must be an object');
	for (const key of Object.keys(input))
		if (!STREAM_FAULT_KEYS.includes(key)) throw new Error(`unknown stream fault option "${key}"`);
	const fault: StreamFault = { ...input, count: checkCount(input.count) ?? 1 };
	for (const key of ['dropAfterLines', 'malformedLineAt'] as const) {
		const value = fault[key];
		if (value !== undefined && !(Number.isInteger(value) && value >= (key === 'dropAfterLines' ? 0 : 1))) {
			throw new Error(`${key} must be a ${key === 'dropAfterLines' ? 'non-negative' : 'positive'} integer`);
		}
	}
	if (fault.trickle !== undefined) {
		if (typeof fault.trickle !== 'object' || fault.trickle === null) throw new Error('trickle must be an object');
		if (
			fault.trickle.chunkBytes !== undefined &&
			!(Number.isInteger(fault.trickle.chunkBytes) && fault.trickle.chunkBytes >= 1)
		) {
			throw new Error('trickle.chunkBytes must be a positive integer');
		}
		if (fault.trickle.delayMs !== undefined) checkNonNegative(fault.trickle.delayMs, 'trickle.delayMs');
	}
	return fault;
}
