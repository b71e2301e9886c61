/**
 * What a failed answer says, as a short text an error can quote: the service's `{"error": ...}`, a proxy's
 * page title, or plain text. Every text is decoded before the API key is masked, and masked before it is cut.
 */
import { maskServiceText, NAMED_ENTITIES } from '../errors';

/** `{"error": "..."}` as the service sends it. */
function errorField(value: unknown): string | undefined {
	if (value && typeof value === 'object' && !Array.isArray(value)) {
		const error = (value as { error?: unknown }).error;
		if (typeof error === 'string' && error.trim()) return error.trim();
		const message = (value as { message?: unknown }).message;
		if (typeof message === 'string' && message.trim()) return message.trim();
	}
	return undefined;
}

/** The text of an HTML fragment: tags removed, character references decoded (they can spell the key). */
function htmlText(html: string): string {
	return html
		.replace(/<[^>]*>/g, ' ')
		.replace(/&#(x[0-9a-f]+|\d+);/gi, (all, code: string) => {
			const value = /^x/i.test(code) ? parseInt(code.slice(1), 16) : parseInt(code, 10);
			return value > 0 && value <= 0x10ffff ? String.fromCodePoint(value) : all;
		})
		.replace(/&([a-z]+);/gi, (all, name: string) => NAMED_ENTITIES[name.toLowerCase()] ?? all)
		.replace(/\s+/g, ' ')
		.trim();
}

export function clip(text: string, max = 300): string {
	return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

export interface ServiceMessage {
	/** A short, single-line text for the user, if the body held one. */
	text?: string;
	/** True when the body was the service's own `{"error": ...}` JSON (not a proxy's page). */
	fromService: boolean;
}

/**
 * What an error body says. The service answers `{"error": "..."}`; a proxy may answer an HTML page
 * (only its title or first heading is kept, e.g. "502 Bad Gateway") or plain text. The text is decoded
 * first (JSON parsed, tags and entities of a page resolved), then masked (maskServiceText), then cut, so no
 * part of the key survives at the cut nor in an escape.
 */
export function readServiceMessage(body: unknown, contentType = '', secret?: string): ServiceMessage {
	const mask = (text: string) => maskServiceText(text, secret);
	const direct = errorField(body);
	if (direct) return { text: clip(mask(direct)), fromService: true };
	if (typeof body !== 'string') return { fromService: false };
	const text = body.trim();
	if (!text) return { fromService: false };
	if (text.startsWith('{')) {
		try {
			const parsed = errorField(JSON.parse(text));
			if (parsed) return { text: clip(mask(parsed)), fromService: true };
		} catch {
			// not JSON after all: treated as text below
		}
	}
	if (/html/i.test(contentType) || /^<(?:!doctype|html|head|body|\?xml)/i.test(text)) {
		const heading = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1] ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(text)?.[1];
		const clean = heading ? mask(htmlText(heading)) : '';
		return { text: clean ? clip(clean, 120) : undefined, fromService: false };
	}
	return { text: clip(mask(text.replace(/\s+/g, ' '))), fromService: false };
}

export function said(text: string | undefined, fromService = true): string {
	if (!text) return '';
	return fromService ? ` The service said: "${text}".` : ` The answer was: "${text}".`;
}
