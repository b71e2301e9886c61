/**
 * V8's `--trace-gc` lines of one process, read from its log: whether a long run keeps data (the heap left
 * after each full collection grows) or only collects its garbage later (the heap before collection grows,
 * the heap after it does not).
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** For NODE_OPTIONS, which refuses `--trace-gc` itself: a preload that turns it on (and lets `requestFullGc` work). */
export const TRACE_GC_OPTION = `--require=${join(__dirname, 'trace-gc-preload.js')}`;

/** A full collection in `pid` now (the preload of TRACE_GC_OPTION listens for it); it shows up in the log. */
export function requestFullGc(pid: number): void {
	process.kill(pid, 'SIGUSR2');
}

export interface GcSummary {
	/** Full collections (Mark-Compact) in the window. */
	fullGcs: number;
	/** Heap in use after each full collection: the smallest, the last (the one `requestFullGc` asked for, when asked) and the largest, in MB. */
	liveMinMb: number;
	liveLastMb: number;
	liveMaxMb: number;
	/** The largest heap V8 had reserved (the figure in parentheses), in MB. */
	committedMaxMb: number;
}

/** e.g. `[123:0x55d4c0]  10427 ms: Mark-Compact 190.5 (203.3) -> 150.2 (204.1) MB, ...` (pid:isolate) */
const FULL_GC =
	/^\[(\d+):([^\]]*)\]\s+[\d.]+ ms: Mark-Compact(?: \([^)]*\))? ([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB/;

interface FullGc {
	isolate: string;
	liveMb: number;
	committedMb: number;
}

/** The size of a log now: the start of a window for `gcSince`. */
export function logOffset(file: string): number {
	return statSync(file).size;
}

function fullGcs(file: string, from: number, pid: number): FullGc[] {
	const size = statSync(file).size - from;
	const buffer = Buffer.alloc(Math.max(0, size));
	const fd = openSync(file, 'r');
	try {
		readSync(fd, buffer, 0, buffer.length, from);
	} finally {
		closeSync(fd);
	}
	const found: FullGc[] = [];
	for (const line of buffer.toString('utf8').split('\n')) {
		const match = FULL_GC.exec(line);
		if (!match || Number(match[1]) !== pid) continue;
		found.push({
			isolate: match[2],
			liveMb: Number(match[5]),
			committedMb: Math.max(Number(match[4]), Number(match[6])),
		});
	}
	return found;
}

/**
 * The full collections of `pid`'s main thread logged in `file` after `offset`. Its worker threads (n8n's
 * event-log writer) are isolates of the same pid with small heaps: the main thread is the isolate with the
 * largest heap over the whole log. The task runner, a child process, has a pid of its own.
 */
export function gcSince(file: string, offset: number, pid: number): GcSummary | undefined {
	const whole = fullGcs(file, 0, pid);
	if (whole.length === 0) return undefined;
	const main = whole.reduce((largest, gc) => (gc.committedMb > largest.committedMb ? gc : largest)).isolate;
	const window = fullGcs(file, offset, pid).filter((gc) => gc.isolate === main);
	if (window.length === 0) return undefined;
	const live = window.map((gc) => gc.liveMb);
	return {
		fullGcs: live.length,
		liveMinMb: Math.min(...live),
		liveLastMb: live[live.length - 1],
		liveMaxMb: Math.max(...live),
		committedMaxMb: Math.max(...window.map((gc) => gc.committedMb)),
	};
}
