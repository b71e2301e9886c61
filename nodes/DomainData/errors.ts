/**
 * The one place where the package builds n8n errors (a lint rule in eslint.config.mjs forbids
 * `new NodeApiError` and `new NodeOperationError` everywhere else). Every layer, and the trigger node,
 * imports from here; this file imports nothing but n8n-workflow, so it sits below all of them.
 *
 * Two rules hold for every error built here:
 * - From a clean object. Errors of n8n and axios carry the request configuration, headers included, and so
 *   the API key: nothing of them (no response, no cause) goes into an error; only our own words and texts
 *   that were masked (`redact`).
 * - The message stays as written. NodeError replaces a message that merely contains a system error code
 *   (EPERM, ENOENT, ECONNRESET...) by a generic text, and user input holds such codes ("deeperm.com"):
 *   every builder puts the message back after the constructor.
 */
import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/** Very short keys would blank out ordinary words; real keys are long. */
const MIN_MASKED_SECRET_LENGTH = 6;

/** Whether `text` holds the API key (keys shorter than 6 characters are not looked for). */
export function containsSecret(text: string, secret?: string): boolean {
	return !!secret && secret.length >= MIN_MASKED_SECRET_LENGTH && text.includes(secret);
}

/** `text` with every occurrence of the API key replaced by ***. */
export function redact(text: string, secret?: string): string {
	if (!containsSecret(text, secret)) return text;
	return text.split(secret as string).join('***');
}

/**
 * Whether a parsed JSON value holds the API key in any of its strings, object keys included: the raw text
 * can spell the key with escapes (`\/`, `\u0070`) that only the parsed strings show. Walked without
 * recursion, so that no nesting depth can overflow the stack.
 */
export function holdsSecret(value: unknown, secret?: string): boolean {
	if (!secret || secret.length < MIN_MASKED_SECRET_LENGTH) return false;
	if (typeof value === 'string') return value.includes(secret);
	const pending: unknown[] = [value];
	while (pending.length > 0) {
		const next = pending.pop();
		if (next === null || typeof next !== 'object') continue;
		// Strings are looked at where they are found: only objects and arrays wait on the stack.
		const entries = next as Record<string, unknown>;
		const isArray = Array.isArray(next);
		for (const key in entries) {
			if (!isArray && key.includes(secret)) return true;
			const entry = entries[key];
			if (typeof entry === 'string') {
				if (entry.includes(secret)) return true;
			} else if (entry !== null && typeof entry === 'object') pending.push(entry);
		}
	}
	return false;
}

/**
 * Whether a text may decode to one that holds the key: it holds the key, or a backslash (a JSON escape).
 * Text without either cannot spell the key in any of its parsed strings.
 */
export function mayHoldSecret(text: string, secret?: string): boolean {
	return !!secret && secret.length >= MIN_MASKED_SECRET_LENGTH && (text.includes(secret) || text.includes('\\'));
}

/** What an error quotes instead of a text of the service that spells the API key in a disguise. */
export const WITHHELD_TEXT = '(not shown: it holds the API key of the credential)';

/** The HTML character references decoded by name; a page can write any character by number too. */
export const NAMED_ENTITIES: Readonly<Record<string, string>> = {
	amp: '&',
	lt: '<',
	gt: '>',
	quot: '"',
	apos: "'",
	nbsp: ' ',
};

/**
 * The text as a reader would take it: JSON escapes, HTML character references and %XX decoded, tags and
 * other named entities removed.
 */
function decodedForms(text: string): string {
	return text
		.replace(/\\u([0-9a-fA-F]{4})|\\(.)/g, (_all, hex?: string, char?: string) =>
			hex
				? String.fromCharCode(parseInt(hex, 16))
				: char === 'n' || char === 't' || char === 'r'
					? ' '
					: (char as string),
		)
		.replace(/<[^>]*>/g, '')
		.replace(/&#(x[0-9a-f]+|\d+);?/gi, (_all, code: string) =>
			codePoint(/^x/i.test(code) ? parseInt(code.slice(1), 16) : parseInt(code, 10)),
		)
		.replace(/&([a-zA-Z]+);/g, (_all, name: string) => NAMED_ENTITIES[name.toLowerCase()] ?? '')
		.replace(/%([0-9a-fA-F]{2})/g, (_all, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function codePoint(value: number): string {
	return Number.isFinite(value) && value >= 0 && value <= 0x10ffff ? String.fromCodePoint(value) : '';
}

/** Letters and digits only: what survives any punctuation, tag or space put into the key. */
function skeleton(text: string): string {
	return text.replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * A text that came from the service, ready to be quoted in an error: the key masked (***), and the whole
 * text withheld when it still spells the key once escapes, entities and tags are decoded (`probe\/key`,
 * `&#112;robe`, `pro<b></b>be`). Mask before cutting: a cut key is not found any more.
 */
export function maskServiceText(text: string, secret?: string): string {
	const masked = redact(text, secret);
	if (!secret || secret.length < MIN_MASKED_SECRET_LENGTH || !/[\\&<%\s]/.test(masked)) return masked;
	const decoded = decodedForms(masked);
	if (decoded.includes(secret)) return WITHHELD_TEXT;
	const key = skeleton(secret);
	return key.length >= MIN_MASKED_SECRET_LENGTH && skeleton(decoded).includes(key) ? WITHHELD_TEXT : masked;
}

/** Text of a value as the user typed it, for error messages (strings quoted, long values cut). */
export function describeValue(value: unknown): string {
	if (value === undefined) return 'undefined';
	if (value === null) return 'null';
	if (typeof value === 'string') return `"${value.length > 200 ? value.slice(0, 199) + '…' : value}"`;
	// JSON would write NaN and Infinity as null.
	if (typeof value === 'number') return String(value);
	try {
		const text = JSON.stringify(value);
		return text.length > 200 ? text.slice(0, 199) + '…' : text;
	} catch {
		return String(value);
	}
}

export interface ErrorParts {
	message: string;
	description: string;
	httpCode?: string;
	itemIndex?: number;
	/** Whether trying again later may succeed (read by isTransientError in transport/errors.ts). */
	transient?: boolean;
	/** The service's own words, already masked. */
	serviceMessage?: string;
	networkCode?: string;
}

/**
 * A NodeApiError (a failure of the service, or an answer that is one in the operation's terms) made from
 * our own words only.
 */
export function buildApiError(node: INode, parts: ErrorParts): NodeApiError {
	const response: JsonObject = {};
	if (parts.httpCode) response.httpCode = parts.httpCode;
	if (parts.serviceMessage) response.error = parts.serviceMessage;
	if (parts.networkCode) response.networkCode = parts.networkCode;
	const error = new NodeApiError(node, response, {
		message: parts.message,
		description: parts.description,
		httpCode: parts.httpCode,
		itemIndex: parts.itemIndex,
	});
	error.message = parts.message;
	error.description = parts.description;
	error.context.transient = parts.transient ?? false;
	if (parts.networkCode) error.context.networkCode = parts.networkCode;
	return error;
}

/** A NodeOperationError (a parameter or a state the user can fix) whose message n8n leaves as written. */
export function operationError(
	node: INode,
	message: string,
	options: { description?: string; itemIndex?: number } = {},
): NodeOperationError {
	const error = new NodeOperationError(node, message, options);
	error.message = message;
	if (options.description !== undefined) error.description = options.description;
	return error;
}

export function isNodeError(error: unknown): error is NodeApiError | NodeOperationError {
	return error instanceof NodeApiError || error instanceof NodeOperationError;
}

/**
 * What leaves an operation: the error itself when it is already a node error, anything else as a
 * NodeOperationError with its item, built from its message alone (its cause may be an axios error).
 */
export function asNodeError(node: INode, error: unknown, itemIndex?: number): NodeApiError | NodeOperationError {
	if (isNodeError(error)) return error;
	const { message, description } = (typeof error === 'object' && error !== null ? error : {}) as {
		message?: unknown;
		description?: unknown;
	};
	return operationError(node, typeof message === 'string' ? message : String(error), {
		itemIndex,
		description: typeof description === 'string' ? description : undefined,
	});
}
