/**
 * The one retry policy of the package: which failures are tried again, how long to wait first, how to
 * wait, and how many requests one read may make. Every call of the service is a read, so a retry never
 * changes anything on the service side; it may only spend a credit the failed call did not.
 *
 * The budget ("Max Attempts") is the most requests one read makes in a row without progress, whatever
 * failed: an HTTP status, a refused, dropped or idle connection. JSON requests make no progress until they
 * succeed, so for them it is simply the number of tries. A stream makes progress when it reads lines it had
 * not read before; that starts a new budget. The stream's resume after a drop spends the same budget as the
 * transport's retries (one RetryBudget per read), so Max Attempts 3 means at most 3 requests in a row.
 */
import { sleep, sleepWithAbort } from 'n8n-workflow';

export interface RetryTiming {
	/** Ceiling of the first wait; each further wait doubles it. */
	baseDelayMs: number;
	/** Ceiling of any computed wait. */
	maxDelayMs: number;
	/** The longest Retry-After the node honours; longer requests are cut to this (and the error says so). */
	maxRetryAfterMs: number;
}

/** The timing of the shipped node. Tests pass a faster one through the `retryTiming` options. */
export const RETRY_TIMING: Readonly<RetryTiming> = Object.freeze({
	baseDelayMs: 500,
	maxDelayMs: 30_000,
	maxRetryAfterMs: 60_000,
});

/** Default number of requests in a row without progress (the "Max Attempts" option). */
export const DEFAULT_MAX_ATTEMPTS = 4;

/** Rate limited, or a failure of the service or of a proxy in front of it: worth another try. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/**
 * A connection that could not be made at all (service down, wrong port) gets at most this many tries in
 * a row: a couple of retries ride out a restart, more only delay the message that names the Base URL.
 */
export const MAX_ATTEMPTS_UNREACHABLE = 3;

/**
 * The budget a caller passes, or the default when it passes none. What a user typed is refused earlier when it
 * is no whole number of 1 or more (by the parameter readers); this only keeps the budget sound.
 */
export function normalizeMaxAttempts(value: unknown): number {
	const wanted = Math.floor(Number(value ?? DEFAULT_MAX_ATTEMPTS));
	return Number.isFinite(wanted) && wanted >= 1 ? wanted : DEFAULT_MAX_ATTEMPTS;
}

/**
 * Capped exponential backoff with "equal jitter": half of the ceiling for sure, the other half random,
 * so that parallel calls that failed together do not come back together. `retry` counts from 1.
 */
export function backoffDelay(retry: number, timing: RetryTiming = RETRY_TIMING, random = Math.random): number {
	const ceiling = Math.min(timing.maxDelayMs, timing.baseDelayMs * 2 ** Math.max(0, retry - 1));
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Retry-After as milliseconds: delta-seconds or an HTTP date. Undefined when absent, unreadable, or when
 * it asks for no wait at all (0, a negative number, a date that is not in the future): such a header would
 * spend every try within milliseconds, so the backoff applies instead.
 */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
	const text = Array.isArray(value) ? value[0] : value;
	if (typeof text !== 'string' && typeof text !== 'number') return undefined;
	const trimmed = String(text).trim();
	if (/^[+-]?\d+(?:\.\d+)?$/.test(trimmed)) {
		const ms = Math.round(Number(trimmed) * 1000);
		return ms > 0 ? ms : undefined;
	}
	// An HTTP date names a weekday or a month; a bare number was handled above (Date.parse reads "-5" as a year).
	if (!/[a-z]/i.test(trimmed)) return undefined;
	const date = Date.parse(trimmed);
	if (Number.isNaN(date) || date <= now) return undefined;
	return date - now;
}

export interface PlannedWait {
	ms: number;
	/** What the service asked for, when it sent a usable Retry-After. */
	requestedMs?: number;
	/** True when the service asked for longer than the node waits. */
	capped: boolean;
}

/** The wait before retry number `retry`: the service's Retry-After when it sent one (capped), else backoff. */
export function planWait(
	retry: number,
	retryAfterHeader: unknown,
	timing: RetryTiming = RETRY_TIMING,
	now = Date.now(),
): PlannedWait {
	const requestedMs = parseRetryAfter(retryAfterHeader, now);
	if (requestedMs === undefined) return { ms: backoffDelay(retry, timing), capped: false };
	const capped = requestedMs > timing.maxRetryAfterMs;
	return { ms: capped ? timing.maxRetryAfterMs : requestedMs, requestedMs, capped };
}

/** Waits, and stops waiting at once when the execution is cancelled (where n8n offers the signal). */
export async function waitFor(ms: number, signal?: AbortSignal): Promise<void> {
	if (ms <= 0) return;
	// Older n8n-workflow versions (the peer dependency is open) have no sleepWithAbort: fall back to sleep.
	if (signal && typeof sleepWithAbort === 'function') {
		await sleepWithAbort(ms, signal);
		return;
	}
	await sleep(ms);
}

/** One failed request, as the budget needs to know it. */
export interface Failure {
	/** How the final error names it, e.g. "HTTP 503", "connection dropped". */
	label: string;
	/** Whether another request may succeed (429, 5xx, a dropped, refused or idle connection). */
	retryable: boolean;
	/** The connection could not be made at all: at most MAX_ATTEMPTS_UNREACHABLE requests in a row. */
	unreachable?: boolean;
	/** The Retry-After header of the answer, if any. */
	retryAfter?: unknown;
}

/**
 * The requests of one read: counts them, decides after each failure whether another one may be made, and
 * waits before it. Create one per read (one JSON request, or one whole stream with its resumes).
 */
export class RetryBudget {
	readonly maxAttempts: number;

	/** Requests since the read last made progress. */
	private attempts = 0;

	/** Failures met since the read last made progress, by label, in the order first met. */
	private readonly met = new Map<string, number>();

	/** Set when the last wait was cut to the longest Retry-After the node honours. */
	private cappedRequestMs?: number;

	constructor(
		maxAttempts: unknown,
		readonly timing: RetryTiming = RETRY_TIMING,
		readonly signal?: AbortSignal,
	) {
		this.maxAttempts = normalizeMaxAttempts(maxAttempts);
	}

	/** Counts a request about to be sent; returns its number in the current run (1 for the first). */
	startRequest(): number {
		return ++this.attempts;
	}

	/** The read got further (new lines): the next failures start a new budget. */
	progress(): void {
		this.attempts = 0;
		this.met.clear();
		this.cappedRequestMs = undefined;
	}

	/** Requests made since the last progress. */
	get requests(): number {
		return this.attempts;
	}

	/**
	 * Records a failure of the current request; returns the wait before the next request, or undefined when
	 * the read must give up (not retryable, or the budget is spent).
	 */
	afterFailure(failure: Failure): PlannedWait | undefined {
		// Right after progress the failed request is not one "without progress": it starts the new run uncounted.
		if (this.attempts > 0) this.met.set(failure.label, (this.met.get(failure.label) ?? 0) + 1);
		if (!failure.retryable) return undefined;
		const allowed = failure.unreachable ? Math.min(this.maxAttempts, MAX_ATTEMPTS_UNREACHABLE) : this.maxAttempts;
		if (this.attempts >= allowed) return undefined;
		const wait = planWait(Math.max(1, this.attempts), failure.retryAfter, this.timing);
		this.cappedRequestMs = wait.capped ? wait.requestedMs : undefined;
		return wait;
	}

	/** Waits before the next request; rejects at once when the execution is cancelled. */
	async wait(plan: PlannedWait): Promise<void> {
		await waitFor(plan.ms, this.signal);
	}

	/** Every kind of failure met since the last progress, e.g. "2× HTTP 503, 1× connection dropped". */
	summary(): string {
		return [...this.met].map(([label, count]) => `${count}× ${label}`).join(', ');
	}

	/** How many different kinds of failure were met since the last progress. */
	get kindsMet(): number {
		return this.met.size;
	}

	/** A sentence for the final error when the service asked for a longer wait than the node allows. */
	retryAfterNote(): string | undefined {
		if (this.cappedRequestMs === undefined) return undefined;
		return (
			` The service asked to wait ${Math.ceil(this.cappedRequestMs / 1000)} s before trying again; the node ` +
			`waits at most ${this.timing.maxRetryAfterMs / 1000} s.`
		);
	}
}
