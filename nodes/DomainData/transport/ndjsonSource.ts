/**
 * A snapshot stream read to the end whatever the network does, in memory bounded by a chunk: after a drop it is asked
 * again and skips the lines handed out, checked by fingerprint (docs/dataset.md, "Resume after a dropped connection").
 */
import { asNodeError, buildApiError, count, redact } from '../errors';
import { isUndecodable, undecodableBodyError } from './failures';
import { IdleTimeoutError } from './idle';
import { Hasher64 } from './hash';
import { type LineBlock, MAX_LINE_BYTES, NdjsonLineSplitter } from './ndjson';
import { type ApiRequest, type CallLimits, cancelSignal, credentialSecret, type DomainDataFunctions } from './request';
import { isTransientError, networkErrorCode, networkFailureLabel, RetryBudget } from './retry';
import { send } from './send';

/** The lines of `block` from `from` on (those before went out before a drop); `firstLine`: 1-based, of line `from`. */
export type LineRange = { block: LineBlock; from: number; firstLine: number };

export interface NdjsonStreamOptions extends Pick<ApiRequest, 'qs' | 'itemIndex'> {
	/** The snapshot's label (a date): the path is /historical/domain/<label>. */
	label: string;
	/** Its Idle Timeout also counts the time without a complete line. */
	limits: CallLimits;
	/** The errors for the service's "not found" and for a cancelled execution (the caller knows more). */
	notFound: () => Promise<Error>;
	cancelled: () => Error;
	/** Counts the stream requests that resumed after a drop. */
	counts?: { reconnects: number };
	/** The retry budget of the whole read; when absent, one from `limits` and the execution's cancel signal. */
	budget?: RetryBudget;
}

interface Source {
	context: DomainDataFunctions;
	options: NdjsonStreamOptions;
	signal?: AbortSignal;
	secret?: string;
	/** Lines handed out so far: the resume point. */
	handled: number;
	fingerprint: Fingerprint;
	/** Positions of lines read cut short, left out of the fingerprints. */
	damaged: Set<number>;
}

/** Yields each block of lines of the stream as it completes, without those a resume skips; stopping closes it. */
export async function* readNdjsonStream(this: DomainDataFunctions, options: NdjsonStreamOptions) {
	const signal = cancelSignal(this);
	const fingerprint = new Fingerprint();
	const secret = await credentialSecret.call(this);
	const source: Source = { context: this, options, signal, secret, handled: 0, fingerprint, damaged: new Set() };
	// One budget for the whole read: the transport's retries and the resumes below spend it together.
	const budget = options.budget ?? new RetryBudget(options.limits, signal);
	for (;;) {
		const handledBefore = source.handled;
		const body = await open(source, budget);
		const failure = yield* readResponse(source, body);
		if (failure === undefined) return;
		if (source.handled > handledBefore) budget.progress();
		await waitBeforeResume(source, budget, failure.error);
	}
}

/** Opens the stream (with the transport's retries); the service's 404 becomes the caller's error. */
async function open(source: Source, budget: RetryBudget): Promise<AsyncIterable<Uint8Array>> {
	const { context, options } = source;
	const { label, qs, limits, itemIndex } = options;
	try {
		const request = { method: 'GET' as const, path: ['historical', 'domain', label], qs, budget, limits, itemIndex };
		const body = await send.call(context, request, { stream: true, allowNotFound: true });
		if (body !== undefined) return body as AsyncIterable<Uint8Array>;
		throw await options.notFound();
	} catch (error) {
		throw failedWhile(source, error);
	}
}

/** Yields the new lines of one response; returns the failure when its body broke off or stalled, else undefined. */
async function* readResponse(source: Source, body: AsyncIterable<Uint8Array>) {
	const { options, signal } = source;
	const { idleTimeoutMs } = options.limits;
	const splitter = new NdjsonLineSplitter();
	const chunks = body[Symbol.asyncIterator]();
	// The skipped lines of a resume, checked against the fingerprint of the lines handed out before.
	const skipped = source.handled > 0 ? new Fingerprint() : undefined;
	// Lines seen in this response (a resume starts at 0 again and skips up to `handled`).
	let seen = 0;
	let lineAt = Date.now();
	try {
		for (;;) {
			const step = await chunks.next().catch((error: unknown) => ({ error }));
			// n8n aborts the body when the execution is cancelled: a read that failed then is the cancellation.
			if (signal?.aborted) throw options.cancelled();
			if ('error' in step) return step;
			const block = split(source, splitter, step);
			if (block.count > 0) lineAt = Date.now();
			else if (!step.done && Date.now() - lineAt >= idleTimeoutMs) {
				return { error: new IdleTimeoutError(idleTimeoutMs, 'complete record') };
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
				if (seen < source.handled) throw endedEarlyError(source, seen);
				return undefined;
			}
		}
	} finally {
		// Stopped early (the caller has enough, an error, a stall): close the connection now; else a no-op.
		await chunks.return?.();
	}
}

/** The lines a chunk (or the end of the body) completed. */
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

/** After a response broke off: gives up when the failure is final or the budget is spent, else waits. */
async function waitBeforeResume(source: Source, budget: RetryBudget, failure: unknown): Promise<void> {
	const { context, options } = source;
	const code = networkErrorCode(failure);
	if (isUndecodable(code)) throw undecodableBodyError(context.getNode(), code, options.itemIndex);
	if (!isTransientError(failure)) throw asNodeError(context.getNode(), failure, options.itemIndex);
	const label = failure instanceof IdleTimeoutError ? failure.label : networkFailureLabel(code ?? 'ECONNRESET');
	const wait = budget.afterFailure({ label, retryable: true });
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
	await budget.wait(wait).catch((error: unknown) => {
		throw failedWhile(source, error);
	});
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
	const lines = count(source.handled);
	return dataError(
		source,
		`The dataset "${source.options.label}" came back in another order after a dropped connection: ` +
			`its first ${lines} lines are not the ${lines} lines read before the connection dropped`,
		'The service does not promise the same order twice, and a stream cannot continue where it stopped, so the ' +
			'read stops here: no record was output twice and none was left out. Run the node again; if connections ' +
			'keep dropping, raise "Idle Timeout" or read less with a Limit or filters.',
	);
}

/** Code units of a line's start and end that go into the fingerprint: enough to tell records apart. */
const HEAD = 24;
const TAIL = 8;
const CLOSING_BRACE = 0x7d;

/** Lines read cut short (no closing brace) may come whole next time: up to this many stay out of both fingerprints. */
const DAMAGED_POSITIONS_KEPT = 4096;

/** Lines in order (each one's length, head and tail hashed, so a swap changes it too) and their number. */
class Fingerprint {
	private readonly hasher = new Hasher64();
	private lines = 0;

	/** Adds lines `from` to `to` of `block`, the first at stream `position`; a re-read (`resumed`) notes no damage. */
	add(block: LineBlock, from: number, to: number, position: number, damaged: Set<number>, resumed: boolean) {
		for (let index = from; index < to; index++, position++) {
			const text = block.textOf(index);
			const start = block.starts[index];
			const end = block.ends[index];
			// A line that is not blank and does not end like a record is noted (while there is room) and left out; a
			// re-read leaves out the lines the first read noted.
			if (resumed) {
				if (damaged.has(position)) continue;
			} else if (start !== end && text.charCodeAt(end - 1) !== CLOSING_BRACE && damaged.size < DAMAGED_POSITIONS_KEPT) {
				damaged.add(position);
				continue;
			}
			const headEnd = Math.min(end, start + HEAD);
			this.hasher
				.word(end - start)
				.text(text, start, headEnd)
				.text(text, Math.max(headEnd, end - TAIL), end);
		}
		this.lines += to - from;
	}

	equals(other: Fingerprint): boolean {
		const mine = this.hasher.digest({ hi: 0, lo: 0 });
		const theirs = other.hasher.digest({ hi: 0, lo: 0 });
		return this.lines === other.lines && mine.hi === theirs.hi && mine.lo === theirs.lo;
	}
}
