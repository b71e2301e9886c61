/** Small helpers for writing responses and reading bodies with node:http. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const MAX_BODY_BYTES = 1024 * 1024;

export function sendJson(
	res: ServerResponse,
	status: number,
	payload: unknown,
	headers: Record<string, string> = {},
): void {
	if (res.headersSent || res.destroyed) return;
	const body = JSON.stringify(payload);
	res.writeHead(status, {
		'content-type': 'application/json; charset=utf-8',
		'content-length': Buffer.byteLength(body),
		...headers,
	});
	res.end(body);
}

/** Every error of the service: {"error": "<human-readable message>"}. */
export function sendError(
	res: ServerResponse,
	status: number,
	message: string,
	headers: Record<string, string> = {},
): void {
	sendJson(res, status, { error: message }, headers);
}

export type BodyResult = { ok: true; text: string } | { ok: false; message: string };

/** Reads the whole request body as UTF-8 text (bodies of this API are small). */
export function readBody(req: IncomingMessage): Promise<BodyResult> {
	return new Promise((resolve) => {
		const chunks: Buffer[] = [];
		let size = 0;
		let tooLarge = false;
		req.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size > MAX_BODY_BYTES) tooLarge = true;
			else chunks.push(chunk);
		});
		req.on('end', () =>
			resolve(
				tooLarge
					? { ok: false, message: `Request body larger than ${MAX_BODY_BYTES} bytes.` }
					: { ok: true, text: Buffer.concat(chunks).toString('utf8') },
			),
		);
		req.on('error', () => resolve({ ok: false, message: 'Request body could not be read.' }));
	});
}

/** Parses JSON; returns undefined-marked failure instead of throwing. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
	try {
		return { ok: true, value: JSON.parse(text) };
	} catch {
		return { ok: false };
	}
}

export function delay(ms: number): Promise<void> {
	return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
