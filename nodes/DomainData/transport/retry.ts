/** The retry policy (docs/operations.md#retries-and-the-base-url); every call is a read, so a retry changes nothing. */
import { sleep, sleepWithAbort } from 'n8n-workflow';

/** Backoff's ceiling doubles from `baseDelayMs` up to `maxDelayMs`; a Retry-After is cut to `maxRetryAfterMs`. */
export type RetryTiming = Readonly<Record<'baseDelayMs' | 'maxDelayMs' | 'maxRetryAfterMs', number>>;
export const RETRY_TIMING: RetryTiming = Object.freeze({
	baseDelayMs: 500,
	maxDelayMs: 30_000,
	maxRetryAfterMs: 60_000,
});

/** Requests in a row without progress (the "Max Attempts" option). */
export const DEFAULT_MAX_ATTEMPTS = 4;

/** Rate limited, or a failure of the service or of a proxy in front of it. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/** The dropped connections that are timeouts (no answer in time). */
export const TIMEOUT_CODES: ReadonlySet<string | undefined> = new Set(['ETIMEDOUT', 'ECONNABORTED', 'ESOCKETTIMEDOUT']);

/** Connections that broke after they were made (timeouts and resets): the request may be tried again at once. */
const DROPPED_CODES: ReadonlySet<unknown> = new Set([
	...TIMEOUT_CODES,
	'ECONNRESET',
	'EPIPE',
	'ERR_STREAM_PREMATURE_CLOSE',
	'UND_ERR_SOCKET',
	'UND_ERR_CLOSED',
	'Z_BUF_ERROR',
]);

/** Connections that could not be made. */
const UNREACHABLE_CODES: ReadonlySet<unknown> = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** Node's system and library codes, and OpenSSL's reasons a certificate was refused (CERT_HAS_EXPIRED, …). */
const SYSTEM_CODE = /^(?:E[A-Z0-9_]+|ERR_[A-Z0-9_]+|UND_ERR_[A-Z_]+|Z_[A-Z_]+|[A-Z_]*CERT[A-Z_]*|UNABLE_TO_[A-Z_]+)$/;

/** What the HTTP stack says without a code, read as the code it means. */
const MESSAGE_CODES: ReadonlyArray<[RegExp, string]> = [
	[/socket hang up|^aborted$|premature close/i, 'ECONNRESET'],
	[/^timeout of \d+ms exceeded/i, 'ECONNABORTED'],
];

export function classifyNetworkCode(code: string | undefined): 'dropped' | 'unreachable' | 'fatal' {
	if (DROPPED_CODES.has(code)) return 'dropped';
	return UNREACHABLE_CODES.has(code) ? 'unreachable' : 'fatal';
}

/** How the final error of a read names a failure without an answer. */
export function networkFailureLabel(code: string | undefined): string {
	const kind = classifyNetworkCode(code);
	if (kind === 'dropped') return TIMEOUT_CODES.has(code) ? 'no answer in time' : 'connection dropped';
	if (kind === 'unreachable') return 'connection refused or host unreachable';
	return code ? `connection failed (${code})` : 'connection failed';
}

/** The system error code of a failure: n8n's NodeApiError wraps the AxiosError (`cause`), which wraps the socket's. */
export function networkErrorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth++) {
		const { code, httpCode, message, messages } = current as Record<string, unknown>;
		// n8n's NodeApiError keeps the wrapped error's system code as its httpCode, and its messages (not the error).
		for (const candidate of [code, httpCode]) {
			if (typeof candidate === 'string' && SYSTEM_CODE.test(candidate)) return candidate;
		}
		for (const text of [message, ...(Array.isArray(messages) ? messages : [])]) {
			if (typeof text !== 'string') continue;
			const said = MESSAGE_CODES.find(([pattern]) => pattern.test(text));
			if (said) return said[1];
			const named = /\b(E[A-Z]{3,}[A-Z_]*)\b/.exec(text)?.[1];
			if (classifyNetworkCode(named) !== 'fatal' || named === 'ENOTFOUND') return named;
		}
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

/** Whether trying again may work: a dropped or refused connection, a 429 or a 5xx (after this transport's tries). */
export function isTransientError(error: unknown): boolean {
	if (!error || typeof error !== 'object') return false;
	const context = (error as { context?: { transient?: unknown } }).context;
	if (context && typeof context.transient === 'boolean') return context.transient;
	// A body that stayed silent for the idle timeout (IdleTimeoutError) is a dropped connection.
	if ((error as { code?: unknown }).code === 'IDLE_TIMEOUT') return true;
	return classifyNetworkCode(networkErrorCode(error)) !== 'fatal';
}

/** A connection that cannot be made: a couple of retries ride out a restart, more only delay the error. */
const MAX_ATTEMPTS_UNREACHABLE = 3;

/** Capped exponential backoff with "equal jitter", so that calls that failed together do not come back together. */
export function backoffDelay(retry: number, timing: RetryTiming = RETRY_TIMING, random = Math.random): number {
	const ceiling = Math.min(timing.maxDelayMs, timing.baseDelayMs * 2 ** Math.max(0, retry - 1));
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Retry-After (seconds or an HTTP date) in ms; undefined when unusable or asking for no wait (backoff then). */
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
	return Number.isNaN(date) || date <= now ? undefined : date - now;
}

/** A wait before another request; `requestedMs`: the service's usable Retry-After. */
type PlannedWait = { ms: number; requestedMs?: number; capped: boolean };

/** The wait before retry number `retry`: the service's Retry-After when it sent one (capped), else backoff. */
export function planWait(retry: number, retryAfter: unknown, timing = RETRY_TIMING, now = Date.now()): PlannedWait {
	const requestedMs = parseRetryAfter(retryAfter, now);
	if (requestedMs === undefined) return { ms: backoffDelay(retry, timing), capped: false };
	const capped = requestedMs > timing.maxRetryAfterMs;
	return { ms: capped ? timing.maxRetryAfterMs : requestedMs, requestedMs, capped };
}

/** The requests of one read (a JSON request, or a stream and its resumes); progress (new lines) starts a new run. */
export class RetryBudget {
	/** Requests since the last progress. */
	private attempts = 0;
	/** Failures met since the last progress, by label, in the order first met. */
	private readonly met = new Map<string, number>();
	/** What the service asked for, when the last wait was cut to `maxRetryAfterMs`. */
	private cappedRequestMs?: number;

	/** `limits.maxAttempts` comes checked (readCallLimits); tests hand a budget with a faster `timing` to a read. */
	constructor(
		readonly limits: { maxAttempts: number },
		readonly signal?: AbortSignal,
		readonly timing: RetryTiming = RETRY_TIMING,
	) {}

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
		unreachable?: boolean;
		retryAfter?: unknown;
	}): PlannedWait | undefined {
		// Right after progress the failed request is not one "without progress": it starts the new run uncounted.
		if (this.attempts > 0) this.met.set(failure.label, (this.met.get(failure.label) ?? 0) + 1);
		if (!failure.retryable) return undefined;
		const { maxAttempts } = this.limits;
		const allowed = failure.unreachable ? Math.min(maxAttempts, MAX_ATTEMPTS_UNREACHABLE) : maxAttempts;
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

	/** ` after 3 tries (2× HTTP 503, 1× connection dropped)` for a message; nothing after one request. */
	afterTries(): string {
		if (this.attempts <= 1) return '';
		return ` after ${this.attempts} tries${this.met.size > 1 ? ` (${this.summary()})` : ''}`;
	}

	/** A sentence for the final error when the service asked for a longer wait than the node allows. */
	retryAfterNote(): string {
		if (this.cappedRequestMs === undefined) return '';
		return (
			` The service asked to wait ${Math.ceil(this.cappedRequestMs / 1000)} s before trying again; the node ` +
			`waits at most ${this.timing.maxRetryAfterMs / 1000} s.`
		);
	}
}
