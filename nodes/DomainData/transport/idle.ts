/**
 * Our own idle timeout for response bodies: a body that sends no byte for `ms` counts as a dropped
 * connection (the retry policy then applies), instead of waiting for n8n's or the operating system's
 * much longer limits. n8n replaces the request's abort signal by the execution's cancel signal, so a
 * watchdog races the next chunk, and a stalled body is destroyed.
 *
 * The watchdog is one `sleep` loop per body, not a timer per chunk: `sleep` is the only timer every
 * n8n-workflow version offers (n8n 2.41's has no `sleepWithAbort`), and a timer per chunk that cannot be
 * cancelled would pile up by the thousand on a fast stream.
 */
import { sleep } from 'n8n-workflow';

/** No byte for this long counts as a dropped connection, for JSON answers and streams alike. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

/** A JSON answer not whole this long after its request was sent counts as failed (one that trickles). */
export const DEFAULT_REQUEST_DEADLINE_MS = 120_000;

/**
 * The longest time n8n's HTTP client can be given (Node's timers hold 2^31 - 1 ms; a longer one fires at
 * once with a TimeoutOverflowWarning). The editor options are refused above it.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * The socket timeout n8n's HTTP client gets for a stream. It counts while the body is paused too (a
 * sub-workflow working on a batch), so it is not the idle timeout, which withIdleTimeout applies while the
 * node waits for the service; this one only frees a socket that an abandoned request still holds.
 */
export function streamSocketTimeoutMs(idleMs: number): number {
	return Math.min(MAX_TIMER_MS, Math.max(idleMs, 60 * 60_000));
}

/** A body that stopped sending. Transient: the read is tried again under the retry policy. */
export class IdleTimeoutError extends Error {
	readonly code = 'IDLE_TIMEOUT';

	/** `what` did not come for `ms`: "data" (no byte), or "complete record" (a stream line that never ends). */
	constructor(
		readonly ms: number,
		readonly what = 'data',
	) {
		super(`No ${what} came for ${formatSeconds(ms)}`);
		this.name = 'IdleTimeoutError';
	}

	/** How the final error of a read names this failure. */
	get label(): string {
		return `no ${this.what} for ${formatSeconds(this.ms)}`;
	}
}

/** A JSON answer that was not whole by its deadline (transient, like an idle one). */
export class RequestDeadlineError extends IdleTimeoutError {
	constructor(ms: number) {
		super(ms, 'whole answer');
		this.message = `The answer was not whole within ${formatSeconds(ms)}`;
		this.name = 'RequestDeadlineError';
	}

	override get label(): string {
		return `answer not whole within ${formatSeconds(this.ms)}`;
	}
}

export function formatSeconds(ms: number): string {
	const seconds = ms / 1000;
	return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

const IDLE = Symbol('idle');

/**
 * How often the watchdog looks: often enough to notice silence within a quarter of the timeout, at most once a
 * second.
 */
function watchdogTick(ms: number): number {
	return Math.max(10, Math.min(1000, Math.floor(ms / 4)));
}

/**
 * The chunks of `body`, failing with IdleTimeoutError when none comes for `ms` while a read is pending (the
 * time the caller holds a chunk does not count), and with RequestDeadlineError once `deadline` (a time, as
 * from Date.now) has passed. Call it as soon as the answer's headers came: the silence counts from then.
 */
export function withIdleTimeout<T>(
	body: AsyncIterable<T>,
	ms: number,
	deadline?: { at: number; ms: number },
): AsyncGenerator<T> {
	return watch(body, ms, Date.now(), deadline);
}

async function* watch<T>(
	body: AsyncIterable<T>,
	ms: number,
	answeredAt: number,
	deadline?: { at: number; ms: number },
): AsyncGenerator<T> {
	const chunks = body[Symbol.asyncIterator]();
	let finished = false;
	/**
	 * When the pending read began; undefined while the caller holds a chunk (a sub-workflow may take minutes
	 * over a batch: that is no silence of the service). The first read counts from the answer's arrival.
	 */
	let waitingSince: number | undefined = answeredAt;
	let watching = true;
	let idleFired: IdleTimeoutError | undefined;
	/**
	 * Ends the pending read with IDLE. A fresh promise per read, instead of racing every read against one
	 * long-lived "idle" promise: each such race leaves a reaction on that promise which keeps the read's
	 * result, the chunk, alive until the body ends (a whole snapshot held in memory).
	 */
	let wakeIdle: (() => void) | undefined;
	void (async () => {
		while (watching) {
			await sleep(watchdogTick(Math.min(ms, deadline?.ms ?? ms)));
			if (!watching) return;
			const now = Date.now();
			if (deadline && now >= deadline.at) idleFired = new RequestDeadlineError(deadline.ms);
			else if (waitingSince !== undefined && now - waitingSince >= ms) idleFired = new IdleTimeoutError(ms);
			if (idleFired) {
				wakeIdle?.();
				return;
			}
		}
	})();
	try {
		for (;;) {
			let step: IteratorResult<T> | typeof IDLE | undefined;
			let broke: { error: unknown } | undefined;
			waitingSince ??= Date.now();
			try {
				step = await new Promise<IteratorResult<T> | typeof IDLE>((resolve, reject) => {
					if (idleFired) return resolve(IDLE);
					wakeIdle = () => resolve(IDLE);
					chunks.next().then(resolve, reject);
				});
			} catch (error) {
				broke = { error };
			}
			wakeIdle = undefined;
			if (broke || step === undefined) {
				// n8n's HTTP client may close a silent socket at about the same moment (its `timeout`): that is
				// this same idle timeout, and is named so.
				if (idleFired) throw idleFired;
				if (Date.now() - (waitingSince ?? Date.now()) >= ms * 0.75) throw new IdleTimeoutError(ms);
				throw broke?.error;
			}
			if (step === IDLE) {
				const error = idleFired ?? new IdleTimeoutError(ms);
				// The pending read cannot be cancelled otherwise: destroying the body makes it fail, and the
				// connection is released.
				(body as { destroy?: (error?: Error) => void }).destroy?.(error);
				finished = true;
				throw error;
			}
			waitingSince = undefined;
			if (step.done) {
				finished = true;
				return;
			}
			yield step.value;
		}
	} finally {
		watching = false;
		// Left early (the caller stopped, or a chunk failed): close the body now.
		if (!finished) await chunks.return?.();
	}
}

const LATE = Symbol('late');

/**
 * The answer of `request` (its headers), or undefined when none came within `ms`. n8n's client cannot be
 * told to stop waiting (it aborts on the execution's cancel signal only), so a late answer is handed to
 * `release` (which closes its body) and the socket is freed by the client's own, longer timeout.
 */
export async function answerWithin<T>(
	request: Promise<T>,
	ms: number,
	release: (late: T) => void,
): Promise<T | undefined> {
	const until = Date.now() + ms;
	let settled = false;
	const answer = await new Promise<T | typeof LATE>((resolve, reject) => {
		request.then(resolve, reject);
		void (async () => {
			while (!settled) {
				await sleep(watchdogTick(ms));
				if (!settled && Date.now() >= until) return resolve(LATE);
			}
		})();
	}).finally(() => {
		settled = true;
	});
	if (answer !== LATE) return answer;
	request.then(release, () => undefined);
	return undefined;
}
