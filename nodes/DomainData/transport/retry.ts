/**
 * The one retry policy (docs/operations.md#retries-and-the-base-url): which failures are tried again, how long
 * to wait, how many requests one read may make. Every call is a read, so a retry changes nothing on the service.
 */
import { sleep, sleepWithAbort } from 'n8n-workflow';

export interface RetryTiming {
	/** Ceiling of the first wait; each further wait doubles it. */
	baseDelayMs: number;
	maxDelayMs: number;
	/** The longest Retry-After the node honours; longer requests are cut to this (and the error says so). */
	maxRetryAfterMs: number;
}

/** The timing of the shipped node; tests pass a faster one. */
export const RETRY_TIMING: Readonly<RetryTiming> = Object.freeze({
	baseDelayMs: 500,
	maxDelayMs: 30_000,
	maxRetryAfterMs: 60_000,
});

/** Requests in a row without progress (the "Max Attempts" option). */
export const DEFAULT_MAX_ATTEMPTS = 4;

/** Rate limited, or a failure of the service or of a proxy in front of it. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/** A connection that cannot be made: a couple of retries ride out a restart, more only delay the error. */
const MAX_ATTEMPTS_UNREACHABLE = 3;

/**
 * Capped exponential backoff with "equal jitter" (half of the ceiling for sure, half random), so that parallel
 * calls that failed together do not come back together. `retry` counts from 1.
 */
export function backoffDelay(retry: number, timing: RetryTiming = RETRY_TIMING, random = Math.random): number {
	const ceiling = Math.min(timing.maxDelayMs, timing.baseDelayMs * 2 ** Math.max(0, retry - 1));
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Retry-After (delta-seconds or an HTTP date) as milliseconds. Undefined when absent, unreadable, or asking for no
 * wait at all: such a header would spend every try within milliseconds, so the backoff applies instead.
 */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
	const text = Array.isArray(value) ? value[0] : value;
	if (typeof text !== 'string' && typeof text !== 'number') return undefined;
	const trimmed = String(text).trim();
	if (/^[+-]?\d+(?:\.\d+)?$/.test(trimmed)) {
		const ms = Math.round(Number(trimmed) * 1000);
		return ms > 0 ? ms : undefined;
	}
	// An HTTP date names a weekday or a month (Date.parse reads "-5" as a year).
	if (!/[a-z]/i.test(trimmed)) return undefined;
	const date = Date.parse(trimmed);
	if (Number.isNaN(date) || date <= now) return undefined;
	return date - now;
}

export interface PlannedWait {
	ms: number;
	/** What the service asked for, when it sent a usable Retry-After. */
	requestedMs?: number;
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

/**
 * The requests of one read (one JSON request, or a stream with its resumes): counts them, decides after each
 * failure whether another one may be made, and waits before it. Progress (new lines) starts a new budget.
 */
export class RetryBudget {
	readonly maxAttempts: number;
	/** Requests since the last progress. */
	private attempts = 0;
	/** Failures met since the last progress, by label, in the order first met. */
	private readonly met = new Map<string, number>();
	/** What the service asked for, when the last wait was cut to `maxRetryAfterMs`. */
	private cappedRequestMs?: number;

	readonly timing: RetryTiming;

	constructor(
		limits: { maxAttempts: number; retryTiming?: RetryTiming },
		readonly signal?: AbortSignal,
	) {
		// What a user typed is refused earlier by the parameter readers; this only keeps the budget sound.
		const wanted = Math.floor(limits.maxAttempts);
		this.maxAttempts = Number.isFinite(wanted) && wanted >= 1 ? wanted : DEFAULT_MAX_ATTEMPTS;
		this.timing = limits.retryTiming ?? RETRY_TIMING;
	}

	/** Counts a request about to be sent; returns its number in the current run (1 for the first). */
	startRequest(): number {
		return ++this.attempts;
	}

	progress(): void {
		this.attempts = 0;
		this.met.clear();
		this.cappedRequestMs = undefined;
	}

	get requests(): number {
		return this.attempts;
	}

	/** Records a failed request; returns the wait before the next one, or undefined when the read must give up. */
	afterFailure(failure: {
		/** How the final error names it, e.g. "HTTP 503", "connection dropped". */
		label: string;
		retryable: boolean;
		/** The connection could not be made at all. */
		unreachable?: boolean;
		retryAfter?: unknown;
	}): PlannedWait | undefined {
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
	async wait({ ms }: PlannedWait): Promise<void> {
		if (ms <= 0) return;
		// Older n8n-workflow versions (the peer dependency is open) have no sleepWithAbort.
		if (this.signal && typeof sleepWithAbort === 'function') await sleepWithAbort(ms, this.signal);
		else await sleep(ms);
	}

	/** Every kind of failure met since the last progress, e.g. "2× HTTP 503, 1× connection dropped". */
	summary(): string {
		return [...this.met].map(([label, count]) => `${count}× ${label}`).join(', ');
	}

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
