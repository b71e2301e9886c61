/**
 * Reading answer bodies with a cap. Every request asks n8n for the body as a stream (`encoding: 'stream'`),
 * so that nothing is read whole before the transport decides how much of it it wants: an error body only
 * up to what a message needs, a JSON answer up to a generous cap, a dataset stream chunk by chunk.
 */

/** Enough of an error body to read `{"error": ...}` or a proxy's page title; the rest is not read. */
export const ERROR_BODY_LIMIT = 64 * 1024;

/** No JSON answer of the service comes near this (a search page of 1000 results is about 3 MB). */
export const JSON_BODY_LIMIT = 64 * 1024 * 1024;

export function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array | string> {
	return !!value && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}

/** A JSON answer larger than JSON_BODY_LIMIT: not something the service sends. */
export class BodyTooLargeError extends Error {
	constructor(readonly limit: number) {
		super(`The answer is larger than ${Math.round(limit / (1024 * 1024))} MB`);
		this.name = 'BodyTooLargeError';
	}
}

function toBytes(chunk: Uint8Array | string): Uint8Array {
	return typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
}

/**
 * The first `limit` bytes of a body as text; leaving early closes the rest of it. A body that breaks off
 * gives what came until then (the status alone then has to tell the story).
 */
export async function readHead(body: unknown, limit = ERROR_BODY_LIMIT): Promise<string> {
	if (!isAsyncIterable(body)) return typeof body === 'string' ? body.slice(0, limit) : '';
	const decoder = new TextDecoder();
	let text = '';
	let size = 0;
	try {
		for await (const chunk of body) {
			const bytes = toBytes(chunk);
			const room = limit - size;
			text += decoder.decode(bytes.length > room ? bytes.subarray(0, room) : bytes, { stream: true });
			size += Math.min(bytes.length, room);
			// Leaving the loop destroys the rest of the body.
			if (size >= limit) break;
		}
	} catch {
		// broke off: keep what came
	}
	return text + decoder.decode();
}

/** A whole body as text, failing with BodyTooLargeError beyond `limit` (errors of the body are thrown). */
export async function readWhole(body: AsyncIterable<Uint8Array | string>, limit = JSON_BODY_LIMIT): Promise<string> {
	const pieces: Uint8Array[] = [];
	let size = 0;
	for await (const chunk of body) {
		const bytes = toBytes(chunk);
		size += bytes.length;
		if (size > limit) throw new BodyTooLargeError(limit);
		pieces.push(bytes);
	}
	const whole = new Uint8Array(size);
	let offset = 0;
	for (const piece of pieces) {
		whole.set(piece, offset);
		offset += piece.length;
	}
	return new TextDecoder().decode(whole);
}
