/**
 * The resumable NDJSON source: the lines of one snapshot stream, read to the end whatever the network does,
 * in memory bounded by a chunk of the body. The one place that decides whether a stream is asked again.
 *
 * - No gap, no duplicate: the endpoint has no offset, so after a drop the same request is sent again and its
 *   first N lines are skipped, N being the complete lines already handed out. A half-received line is
 *   dropped and read again.
 * - The same lines: the interface does not promise the same order twice. A fingerprint of the lines handed
 *   out (a hash chained over each line's length, head and tail; 16 bytes whatever the size) is compared
 *   with the skipped lines' when the skip ends: a stream sent again in another order, or with lines
 *   missing, ends the read with an error instead of lines output twice or lost.
 * - Bounded: one retry budget for the whole read (retry.ts): at most `maxAttempts` requests in a row
 *   without new lines, whatever failed (an HTTP status, a refused, dropped or silent connection).
 * - Not stalled: no byte for the idle timeout while the node waits for one (idle.ts), or bytes but no
 *   complete line for that long (a line that grows a byte at a time), counts as a dropped connection.
 */
import { asNodeError, buildApiError, redact } from '../errors';
import {
	isTransientError,
	isUndecodableBody,
	networkErrorCode,
	networkFailureLabel,
	undecodableBodyError,
} from './networkFailures';
import { Fingerprint } from './fingerprint';
import { DEFAULT_IDLE_TIMEOUT_MS, IdleTimeoutError } from './idle';
import { type LineBlock, MAX_LINE_BYTES, NdjsonLineSplitter } from './ndjson';
import { cancelSignal, credentialSecret, type DomainDataFunctions } from './request';
import { RetryBudget, type RetryTiming } from './retry';
import { ndjsonBody, send } from './send';

/** The lines of `block` from `from` on: those before it were handed out before a drop. */
export interface LineRange {
	block: LineBlock;
	from: number;
	/** The line number (1-based) of line `from` in the stream. */
	firstLine: number;
}

export interface NdjsonStreamOptions {
	/** The snapshot's label (a date): the path is /historical/domain/<label>; errors name it. */
	label: string;
	qs?: Record<string, string | number>;
	/** Requests in a row without new lines before the read gives up (default 4), whatever failed. */
	maxAttempts?: number;
	/** No byte (or no complete line) for this long counts as a dropped connection (default 60 s). */
	idleTimeoutMs?: number;
	/** Backoff timing (tests pass a faster one); default RETRY_TIMING. */
	retryTiming?: RetryTiming;
	itemIndex?: number;
	/** The error for the service's "not found" (the caller knows which labels exist). */
	notFound: () => Promise<Error>;
	/** The error when the execution is cancelled during the read (the caller knows how far it got). */
	cancelled: () => Error;
	/** Counted while reading: stream requests sent, and how many of them resumed after a drop. */
	counts?: { requests: number; reconnects: number };
}

interface Source {
	context: DomainDataFunctions;
	options: NdjsonStreamOptions;
	signal?: AbortSignal;
	secret?: string;
	/** Lines handed out so far, in stream order: the resume point. */
	handled: number;
	/** The fingerprint of those lines. */
	fingerprint: Fingerprint;
	/** Positions of lines read cut short, left out of the fingerprints (see Fingerprint). */
	damaged: Set<number>;
}

/**
 * Reads the stream of `options.label` to its end: yields each block of lines as it completes, with the
 * lines skipped on a resume left out (by `from`). Stop iterating at any time: the connection is closed.
 */
export async function* readNdjsonStream(
	this: DomainDataFunctions,
	options: NdjsonStreamOptions,
): AsyncGenerator<LineRange> {
	const signal = cancelSignal(this);
	const fingerprint = new Fingerprint();
	const source: Source = { context: this, options, signal, handled: 0, fingerprint, damaged: new Set() };
	source.secret = await credentialSecret.call(this);
	/** One budget for the whole read: the transport's retries and the resumes below spend it together. */
	const budget = new RetryBudget(options.maxAttempts, options.retryTiming, signal);
	for (;;) {
		const handledBefore = source.handled;
		const body = await open(source, budget);
		if (options.counts) options.counts.requests++;
		const failure = yield* readResponse(source, body);
		if (failure === undefined) return;
		// New lines read: the read got further, so the failures before do not count against the next ones.
		if (source.handled > handledBefore) budget.progress();
		await waitBeforeResume(source, budget, failure.error);
	}
}

/** Opens the stream (with the transport's retries); the service's 404 becomes the caller's error. */
async function open(source: Source, budget: RetryBudget): Promise<AsyncIterable<Uint8Array>> {
	const { context, options } = source;
	try {
		const request = {
			method: 'GET' as const,
			path: ['historical', 'domain', options.label],
			qs: options.qs,
			budget,
			timeoutMs: options.idleTimeoutMs,
			itemIndex: options.itemIndex,
		};
		const answer = await send.call(context, request, { stream: true, allowNotFound: true });
		if (answer !== undefined) return await ndjsonBody(context, answer);
		throw await options.notFound();
	} catch (error) {
		throw failedWhile(source, error);
	}
}

/**
 * Reads one response: yields its new lines, block by block. Returns undefined at the end of the stream, or
 * the failure when the body broke off or stalled (the caller decides about a resume). Leaving early closes
 * the connection.
 */
async function* readResponse(
	source: Source,
	body: AsyncIterable<Uint8Array>,
): AsyncGenerator<LineRange, { error: unknown } | undefined> {
	const { options, signal } = source;
	const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
	const splitter = new NdjsonLineSplitter();
	const chunks = body[Symbol.asyncIterator]();
	/** The skipped lines of a resume, checked against the fingerprint of the lines handed out before. */
	const skipped = source.handled > 0 ? new Fingerprint() : undefined;
	/** Lines seen in this response (a resume starts at 0 again and skips up to `handled`). */
	let seen = 0;
	let lineAt = Date.now();
	let settled = false;
	try {
		for (;;) {
			let step: IteratorResult<Uint8Array>;
			try {
				step = await chunks.next();
			} catch (error) {
				// n8n aborts the body when the execution is cancelled.
				if (signal?.aborted) throw options.cancelled();
				// Only the body can fail here, after a 2xx: normally the connection dropped mid-stream.
				settled = true;
				return { error };
			}
			if (signal?.aborted) throw options.cancelled();
			const block = split(source, splitter, step);
			if (block.count > 0) lineAt = Date.now();
			else if (!step.done && Date.now() - lineAt >= idleMs) {
				return { error: new IdleTimeoutError(idleMs, 'complete record') };
			}
			let from = 0;
			if (skipped && seen < source.handled) {
				from = Math.min(block.count, source.handled - seen);
				skipped.add(block, 0, from, seen, source.damaged, true);
				seen += from;
				if (seen === source.handled && !skipped.equals(source.fingerprint)) throw reorderedError(source);
			}
			if (from < block.count) {
				source.fingerprint.add(block, from, block.count, seen, source.damaged, false);
				const range: LineRange = { block, from, firstLine: seen + 1 };
				seen += block.count - from;
				source.handled = seen;
				yield range;
				// The time the caller held the lines is no silence of the service.
				lineAt = Date.now();
			}
			if (step.done) {
				settled = true;
				if (seen < source.handled) throw endedEarlyError(source, seen);
				return undefined;
			}
		}
	} finally {
		// Stopped early (the end of what the caller wants, an error, a stall): close the connection now.
		if (!settled) await chunks.return?.();
	}
}

/** The lines a chunk (or the end of the body) completed; a line too long to be a record is an error. */
function split(source: Source, splitter: NdjsonLineSplitter, step: IteratorResult<Uint8Array>): LineBlock {
	try {
		return step.done ? splitter.end() : splitter.push(step.value);
	} catch {
		// The splitter's only failure: a line too long to be a record (LineTooLongError).
		throw dataError(
			source,
			`Line ${source.handled + 1} of the dataset "${source.options.label}" is longer than ` +
				`${MAX_LINE_BYTES / (1024 * 1024)} MB`,
			'No record is that long: the service sent something else than NDJSON records. Try again later; if it ' +
				'persists, report it to the service.',
		);
	}
}

/**
 * After a response broke off: gives up with an error when the failure is final or the budget is spent,
 * else waits before the next request (which re-reads and skips the lines already handed out).
 */
async function waitBeforeResume(source: Source, budget: RetryBudget, failure: unknown): Promise<void> {
	const { context, options } = source;
	if (isUndecodableBody(failure)) {
		throw undecodableBodyError(context.getNode(), networkErrorCode(failure), options.itemIndex);
	}
	if (!isTransientError(failure)) throw asNodeError(context.getNode(), failure, options.itemIndex);
	const wait = budget.afterFailure({ label: dropLabel(failure), retryable: true });
	if (wait === undefined) {
		const cause = redact(failure instanceof Error ? failure.message : String(failure), source.secret);
		const requests = budget.requests;
		throw dataError(
			source,
			`The dataset "${options.label}" could not be read to the end: ${requests} request${requests > 1 ? 's' : ''} ` +
				`in a row failed without new lines (${budget.summary()})`,
			`${source.handled} lines had been read when the connection failed the last time (${cause}). Nothing ` +
				'partial is returned. Try again later, raise "Max Attempts" or "Idle Timeout", or read less with a ' +
				'Limit or filters.',
		);
	}
	if (options.counts) options.counts.reconnects++;
	try {
		await budget.wait(wait);
	} catch (error) {
		throw failedWhile(source, error);
	}
}

/** How the final error names a failure of the body: "connection dropped", "no data for 60 s"... */
function dropLabel(error: unknown): string {
	if (error instanceof IdleTimeoutError) return error.label;
	return networkFailureLabel(networkErrorCode(error) ?? 'ECONNRESET');
}

function dataError(source: Source, message: string, description: string) {
	return buildApiError(source.context.getNode(), { message, description, itemIndex: source.options.itemIndex });
}

/** An error while opening or waiting: the cancellation when the execution was cancelled, else the error. */
function failedWhile(source: Source, error: unknown) {
	if (source.signal?.aborted) return source.options.cancelled();
	return asNodeError(source.context.getNode(), error, source.options.itemIndex);
}

function endedEarlyError(source: Source, seen: number) {
	return dataError(
		source,
		`The dataset "${source.options.label}" ended after ${seen} lines when it was asked again after a dropped ` +
			`connection, but ${source.handled} lines had been read before`,
		'The snapshot changed between two requests, so the result cannot be completed without gaps. Nothing partial ' +
			'is returned. Run the node again.',
	);
}

function reorderedError(source: Source) {
	const lines = source.handled.toLocaleString('en-US');
	return dataError(
		source,
		`The dataset "${source.options.label}" came back in another order after a dropped connection: ` +
			`its first ${lines} lines are not the ${lines} lines read before the connection dropped`,
		'The service does not promise the same order twice, and a stream cannot continue where it stopped, so the ' +
			'read stops here: no record was output twice and none was left out. Run the node again; if connections ' +
			'keep dropping, raise "Idle Timeout" or read less with a Limit or filters.',
	);
}
