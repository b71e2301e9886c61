/**
 * The link between the service and its client: a cap on a stream's bytes per second (a token bucket, one per stream
 * request). The stream writer takes tokens for each batch before it writes it and waits while the bucket is in debt,
 * so a capped stream is paced, never buffered: the next batch is built only once the previous one may leave.
 */
import { delay } from './http-utils';

export interface LinkClock {
	/** Milliseconds, monotonic. */
	now(): number;
	sleep(ms: number): Promise<void>;
}

const REAL_CLOCK: LinkClock = { now: () => performance.now(), sleep: delay };

/** What a link lets through at once after an idle spell: a twentieth of a second's bytes, at least 64 KB. */
export function burstBytesFor(bytesPerSecond: number): number {
	return Math.max(64 * 1024, Math.round(bytesPerSecond / 20));
}

export class LinkPacer {
	/** Bytes taken so far, and how long the stream waited for the link (what the log reports). */
	bytes = 0;
	waitedMs = 0;
	private tokens: number;
	private last: number;

	constructor(
		readonly bytesPerSecond: number,
		private readonly clock: LinkClock = REAL_CLOCK,
		readonly burstBytes = burstBytesFor(bytesPerSecond),
	) {
		this.tokens = burstBytes;
		this.last = clock.now();
	}

	/** Takes `bytes` from the bucket; when that leaves it in debt, waits until the link has paid it off. */
	async take(bytes: number): Promise<void> {
		const now = this.clock.now();
		this.tokens = Math.min(this.burstBytes, this.tokens + ((now - this.last) * this.bytesPerSecond) / 1000);
		this.last = now;
		this.tokens -= bytes;
		this.bytes += bytes;
		if (this.tokens >= 0) return;
		const wait = (-this.tokens / this.bytesPerSecond) * 1000;
		this.waitedMs += wait;
		await this.clock.sleep(wait);
	}
}
