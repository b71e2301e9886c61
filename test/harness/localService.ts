/**
 * A tiny JSON server on 127.0.0.1 that plays a broken or hostile Domain Data service: the test decides
 * every answer (status, headers, body, delay). The simulator stays correct; misbehaviour lives here.
 */
import type { IncomingMessage } from 'node:http';

import { startLocalServer } from './localServer';

export interface LocalRequest {
	/** 1-based arrival number. */
	seq: number;
	method: string;
	/** The path below /json/api/v1 (e.g. /domain/bulk). */
	path: string;
	/** The parsed JSON body, or undefined. */
	body: unknown;
}

export interface LocalAnswer {
	status?: number;
	headers?: Record<string, string>;
	/** Sent as JSON; a string is sent as it is. */
	body?: unknown;
	/** Milliseconds before the answer is sent. */
	delayMs?: number;
}

export interface LocalService {
	/** The Base URL for the credential. */
	url: string;
	requests: LocalRequest[];
	/** "request <tag>" and "answer <tag> <status>" in the order they happened (tag from `tagOf`). */
	events: string[];
	close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
	let text = '';
	for await (const chunk of req) text += chunk;
	if (!text) return undefined;
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}

export async function startLocalService(
	answer: (request: LocalRequest) => LocalAnswer,
	tagOf: (request: LocalRequest) => string = (request) => request.path,
): Promise<LocalService> {
	const requests: LocalRequest[] = [];
	const events: string[] = [];
	// The listening, recording and closing are localServer's; this adds the JSON plan per request.
	const server = await startLocalServer(async (req, res) => {
		const request: LocalRequest = {
			seq: requests.length + 1,
			method: req.method ?? 'GET',
			path: (req.url ?? '/').replace(/^\/json\/api\/v1/, '').replace(/\?.*$/, ''),
			body: await readJson(req),
		};
		requests.push(request);
		const tag = tagOf(request);
		events.push(`request ${tag}`);
		const planned = answer(request);
		const send = () => {
			const status = planned.status ?? 200;
			events.push(`answer ${tag} ${status}`);
			res.writeHead(status, { 'content-type': 'application/json', ...(planned.headers ?? {}) });
			res.end(typeof planned.body === 'string' ? planned.body : JSON.stringify(planned.body ?? {}));
		};
		if (planned.delayMs) setTimeout(send, planned.delayMs);
		else send();
	});
	return { url: server.url, requests, events, close: () => server.close() };
}
