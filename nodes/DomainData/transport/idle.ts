/** Our idle timeout and request deadline, instead of waiting for n8n's or the operating system's much longer limits. */
import { type IN8nHttpFullResponse, sleep } from 'n8n-workflow';

/** Node's timers hold 2^31 - 1 ms (a longer one fires at once); the editor options are refused above it. */
export const MAX_TIMER_MS = 2_147_483_647;

/** A body that stopped sending `what`; `label` names this failure in the final error of a read. */
export class IdleTimeoutError extends Error {
	readonly code = 'IDLE_TIMEOUT';

	constructor(
		readonly ms: number,
		readonly what = 'data',
		readonly label = `no ${what} for ${formatSeconds(ms)}`,
	) {
		super(`No ${what} came for ${formatSeconds(ms)}`);
		this.name = 'IdleTimeoutError';
	}
}

/** A JSON answer that was not whole by its deadline (transient, like an idle one). */
export class RequestDeadlineError extends IdleTimeoutError {
	constructor(ms: number) {
		super(ms, 'whole answer', `answer not whole within ${formatSeconds(ms)}`);
		this.message = `The answer was not whole within ${formatSeconds(ms)}`;
		this.name = 'RequestDeadlineError';
	}
}

export function formatSeconds(ms: number): string {
	const seconds = ms / 1000;
	return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

/**
 * Calls `expired` every quarter of `ms` (10 ms to 1 s) until it returns true or the returned stop is called: one
 * `sleep` loop, as n8n-workflow offers no timer that can be cancelled, and one per chunk would pile up.
 */
function watchdog(ms: number, expired: () => boolean): () => void {
	const tick = Math.max(10, Math.min(1000, Math.floor(ms / 4)));
	let watching = true;
	void (async () => {
		let last = Date.now();
		let skipped = false;
		while (watching) {
			await sleep(tick);
			// After a hold-up, timers run before the data that came meanwhile is read: judge silence one tick later.
			const stalled: boolean = Date.now() - last > 2 * tick && !skipped;
			last = Date.now();
			skipped = stalled;
			if (!watching || (!stalled && expired())) return;
		}
	})();
	return () => {
		watching = false;
	};
}

const IDLE = Symbol('idle');

/**
 * The chunks of `body`, failing with IdleTimeoutError when none comes for `ms` while a read is pending (not while the
 * caller holds one), and with RequestDeadlineError after `deadline.at`. Call it on the headers: silence counts from it.
 */
export async function* withIdleTimeout<T>(body: AsyncIterable<T>, ms: number, deadline?: { at: number; ms: number }) {
	const chunks = body[Symbol.asyncIterator]();
	let finished = false;
	// Undefined while the caller holds a chunk (a sub-workflow may take minutes over a batch: no silence).
	let waitingSince: number | undefined = Date.now();
	let fired: IdleTimeoutError | undefined;
	// Ends the pending read. One per read: a long-lived promise raced by every read keeps each chunk alive to the end.
	let wake: (() => void) | undefined;
	const stop = watchdog(Math.min(ms, deadline?.ms ?? ms), () => {
		const now = Date.now();
		if (deadline && now >= deadline.at) fired = new RequestDeadlineError(deadline.ms);
		else if (waitingSince !== undefined && now - waitingSince >= ms) fired = new IdleTimeoutError(ms);
		if (fired) wake?.();
		return fired !== undefined;
	});
	try {
		for (;;) {
			const since = (waitingSince ??= Date.now());
			const step = await new Promise<IteratorResult<T> | typeof IDLE>((resolve, reject) => {
				if (fired) return resolve(IDLE);
				wake = () => resolve(IDLE);
				chunks.next().then(resolve, reject);
			}).catch((error: unknown) => {
				// n8n's client may close a silent socket at about the same moment (its `timeout`): the same timeout.
				throw fired ?? (Date.now() - since >= ms * 0.75 ? new IdleTimeoutError(ms) : error);
			});
			wake = undefined;
			if (step === IDLE) {
				const error = fired ?? new IdleTimeoutError(ms);
				// The pending read cannot be cancelled otherwise: destroying the body fails it and frees the connection.
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
		stop();
		// Left early (the caller stopped, or a chunk failed): close the body now.
		if (!finished) await chunks.return?.();
	}
}

const LATE = Symbol('late');

/** The answer of `request` (its headers), or undefined when none came within `ms`: a late one's body is closed. */
export async function answerWithin(request: Promise<IN8nHttpFullResponse>, ms: number) {
	const until = Date.now() + ms;
	let stop: () => void = () => undefined;
	const answer = await new Promise<IN8nHttpFullResponse | typeof LATE>((resolve, reject) => {
		request.then(resolve, reject);
		stop = watchdog(ms, () => {
			if (Date.now() < until) return false;
			resolve(LATE);
			return true;
		});
	}).finally(() => stop());
	if (answer !== LATE) return answer;
	request.then(
		(late) => (late.body as { destroy?: () => void } | undefined)?.destroy?.(),
		() => undefined,
	);
	return undefined;
}
