/** The request log that tests read: one entry per API request (control endpoints are not logged). */
import type { IncomingHttpHeaders } from 'node:http';
import type { EndpointName } from './types';

export interface RequestLogEntry {
	/** Sequence number, from 1. */
	seq: number;
	/** Arrival time in epoch milliseconds with sub-millisecond resolution (performance.timeOrigin + now()). */
	time: number;
	method: string;
	/** Path without the query string, e.g. /json/api/v1/domain/search. */
	path: string;
	query: Record<string, string>;
	endpoint: EndpointName | 'unknown';
	/** Request headers as Node received them (lower-case names), Authorization included. */
	headers: IncomingHttpHeaders;
	/** Parsed JSON body; the raw text when it was not valid JSON; undefined without a body. */
	body?: unknown;
	/** Response status; 0 while pending or when the connection was reset without a response. */
	status: number;
	/** Name of the injected fault that shaped this response, if any (e.g. "status:503", "reset", "stream:drop"). */
	fault?: string;
	/** API key used (from the Authorization header), if any. */
	key?: string;
	/** Stream only: number of lines written. */
	lines?: number;
	/** Stream under a link speed only: how long the stream waited for the link, in ms. */
	linkWaitMs?: number;
}

export class RequestLog {
	readonly entries: RequestLogEntry[] = [];
	private seq = 0;

	add(entry: Omit<RequestLogEntry, 'seq'>): RequestLogEntry {
		const full = { seq: ++this.seq, ...entry };
		this.entries.push(full);
		return full;
	}

	calls(endpoint?: string): RequestLogEntry[] {
		return endpoint === undefined ? this.entries.slice() : this.entries.filter((e) => e.endpoint === endpoint);
	}

	/** Empties the log in place (the array object stays the same, so `sim.log` references stay valid). */
	clear(): void {
		this.entries.length = 0;
	}
}
