/**
 * Our own idle timeout for response bodies: a body that sends no byte for `ms` counts as a dropped
 * connection (the retry policy then applies), instead of waiting for n8n's or the operating system's
 * much longer limits. n8n replaces the request's abort signal by the execution's cancel signal, so a
 * watchdog can settle the pending read instead of the next chunk, and a stalled body is destroyed.
 *
 * The watchdog is one `sleep` loop per body, not a timer per chunk: `sleep` is the only timer every
 * n8n-workflow version offers (n8n 2.41's has no `sleepWithAbort`), and a timer per chunk that cannot be
 * cancelled would pile up by the thousand on a fast stream.
 */
import { sleep } from 'n8n-workflow';

/** No byte for this long counts as a dropped connection, for JSON answers and streams alike. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

/** A body that stopped sending. Transient: the read is tried again under the retry policy. */
export class IdleTimeoutError extends Error {
	readonly code = 'IDLE_TIMEOUT';

	constructor(readonly ms: number) {
		super(`No data came for ${formatSeconds(ms)}`);
		this.name = 'IdleTimeoutError';
	}

	/** How the final error of a read names this failure. */
	get label(): string {
		return `no data for ${formatSeconds(this.ms)}`;
	}
}

function formatSeconds(ms: number): string {
	const seconds = ms / 1000;
	return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

/** "Idle Timeout (Seconds)" as given: a positive number of seconds (else the default), in milliseconds. */
export function idleTimeoutMs(seconds: unknown): number {
	const value = Number(seconds);
	return Number.isFinite(value) && value > 0 ? Math.round(value * 1000) : DEFAULT_IDLE_TIMEOUT_MS;
}

const IDLE = Symbol('idle');

/** How often the watchdog looks: often enough to notice silence within a quarter of the timeout, at most once a second. */
function watchdogTick(ms: number): number {
	return Math.max(10, Math.min(1000, Math.floor(ms / 4)));
}

/**
 * The chunks of `body`, failing with IdleTimeoutError when none comes for `ms`. Call it as soon as the
 * answer's headers came: the silence is counted from then, as the socket's own timeout counts it.
 */
export function withIdleTimeout<T>(body: AsyncIterable<T>, ms: number): AsyncGenerator<T> {
	return watch(body, ms, Date.now());
}

async function* watch<T>(body: AsyncIterable<T>, ms: number, answeredAt: number): AsyncGenerator<T> {
	const chunks = body[Symbol.asyncIterator]();
	let finished = false;
	/**
	 * When the pending read began; undefined while the caller holds a chunk (a sub-workflow may take minutes
	 * over a batch: that is no silence of the service). The first read counts from the answer's arrival.
	 */
	let waitingSince: number | undefined = answeredAt;
	let watching = true;
	let idleReached = false;
	/**
	 * Settles the pending read with IDLE. A fresh promise per read: a race against one long-lived promise
	 * would leave a reaction on it per chunk, each holding its chunk, so a whole stream stayed in memory.
	 */
	let wakeOnIdle: (() => void) | undefined;
	void (async () => {
		while (watching) {
			await sleep(watchdogTick(ms));
			if (watching && waitingSince !== undefined && Date.now() - waitingSince >= ms) {
				idleReached = true;
				wakeOnIdle?.();
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
				step = idleReached
					? IDLE
					: await new Promise<IteratorResult<T> | typeof IDLE>((resolve, reject) => {
							wakeOnIdle = () => resolve(IDLE);
							chunks.next().then(resolve, reject);
						});
			} catch (error) {
				broke = { error };
			} finally {
				wakeOnIdle = undefined;
			}
			if (broke || step === undefined) {
				// n8n's HTTP client may close a silent socket at about the same moment (its `timeout`): that is
				// this same idle timeout, and is named so.
				if (Date.now() - (waitingSince ?? Date.now()) >= ms * 0.75) throw new IdleTimeoutError(ms);
				throw broke?.error;
			}
			if (step === IDLE) {
				const error = new IdleTimeoutError(ms);
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
