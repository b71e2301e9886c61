/**
 * When to try a request again and how long to wait first. Every call of the service is a read, so a retry
 * never changes anything on the service side; it may only spend a credit the failed call did not.
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

export const RETRY_TIMING: RetryTiming = {
	baseDelayMs: 500,
	maxDelayMs: 30_000,
	maxRetryAfterMs: 60_000,
};

/** Rate limited, or a failure of the service or of a proxy in front of it: worth another try. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/**
 * A connection that could not be made at all (service down, wrong port) gets at most this many tries in
 * all: a couple of retries ride out a restart, more only delay the message that names the Base URL.
 */
export const MAX_ATTEMPTS_UNREACHABLE = 3;

/**
 * Capped exponential backoff with "equal jitter": half of the ceiling for sure, the other half random,
 * so that parallel calls that failed together do not come back together. `retry` counts from 1.
 */
export function backoffDelay(retry: number, timing: RetryTiming = RETRY_TIMING, random = Math.random): number {
	const ceiling = Math.min(timing.maxDelayMs, timing.baseDelayMs * 2 ** Math.max(0, retry - 1));
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
	const text = Array.isArray(value) ? value[0] : value;
	if (typeof text !== 'string' && typeof text !== 'number') return undefined;
	const trimmed = String(text).trim();
	if (/^\d+(?:\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
	const date = Date.parse(trimmed);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

export interface PlannedWait {
	ms: number;
	/** What the service asked for, when it sent Retry-After. */
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
