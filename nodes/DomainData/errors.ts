/**
 * Builds n8n errors from clean objects: axios errors carry the request headers, so the API key.
 * The message is set again after the constructor, which replaces one holding a system error code ("deeperm.com").
 */
import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/** Very short keys would blank out ordinary words; real keys are long. */
function isMaskable(secret?: string): secret is string {
	return !!secret && secret.length >= 6;
}

export function containsSecret(text: string, secret?: string): boolean {
	return isMaskable(secret) && text.includes(secret);
}

export function redact(text: string, secret?: string): string {
	return isMaskable(secret) ? text.replaceAll(secret, '***') : text;
}

/** Whether any string or key of a parsed JSON value holds the key; walked without recursion (any depth). */
export function holdsSecret(value: unknown, secret?: string): boolean {
	if (!isMaskable(secret)) return false;
	const pending: unknown[] = [value];
	while (pending.length > 0) {
		const next = pending.pop();
		if (typeof next === 'string' && next.includes(secret)) return true;
		if (next === null || typeof next !== 'object') continue;
		const isArray = Array.isArray(next);
		for (const key in next) {
			if (!isArray && key.includes(secret)) return true;
			pending.push((next as Record<string, unknown>)[key]);
		}
	}
	return false;
}

const WITHHELD_TEXT = '(not shown: it holds the API key of the credential)';

/** The HTML character references decoded by name; a page can write any character by number too. */
const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** The text of an HTML fragment as a reader sees it: tags as spaces, character references decoded or dropped. */
export function decodeHtml(html: string): string {
	return html
		.replace(/<[^>]*>/g, ' ')
		.replace(/&#(x[0-9a-f]+|\d+);?/gi, (_all, code: string) => {
			const value = /^x/i.test(code) ? parseInt(code.slice(1), 16) : parseInt(code, 10);
			return value > 0 && value <= 0x10ffff ? String.fromCodePoint(value) : '';
		})
		.replace(/&([a-z]+);/gi, (_all, name: string) => NAMED_ENTITIES[name.toLowerCase()] ?? '');
}

/** The text as a reader would take it: JSON escapes (`\n`, `\t`, `\r` as spaces), HTML and %XX decoded. */
function decodedForms(text: string): string {
	return decodeHtml(
		text.replace(/\\u([0-9a-fA-F]{4})|\\([ntr])|\\(.)/g, (_all, hex?: string, space?: string, char?: string) =>
			hex ? String.fromCharCode(parseInt(hex, 16)) : space ? ' ' : (char as string),
		),
	).replace(/%([0-9a-fA-F]{2})/g, (_all, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Letters and digits only: what survives any punctuation, tag or space put into the key. */
function skeleton(text: string): string {
	return text.replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * A service text ready to quote in an error: the key masked (***), the whole text withheld when it still spells the
 * key once decoded (`probe\/key`, `&#112;robe`, `pro<b></b>be`). Mask before cutting: a cut key is not found.
 */
export function maskServiceText(text: string, secret?: string): string {
	const masked = redact(text, secret);
	if (!isMaskable(secret) || !/[\\&<%\s]/.test(masked)) return masked;
	const decoded = decodedForms(masked);
	if (decoded.includes(secret)) return WITHHELD_TEXT;
	const key = skeleton(secret);
	return isMaskable(key) && skeleton(decoded).includes(key) ? WITHHELD_TEXT : masked;
}

/** `text` cut to at most `max` characters, the last "…", never inside a surrogate pair. */
export function clip(text: string, max = 300): string {
	if (text.length <= max) return text;
	const end = max - 1;
	const last = text.charCodeAt(end - 1);
	return `${text.slice(0, last >= 0xd800 && last <= 0xdbff ? end - 1 : end)}…`;
}

/** Text of a value as the user typed it, for error messages (strings quoted, long values cut). */
export function describeValue(value: unknown): string {
	// JSON would write NaN and Infinity as null, and undefined as nothing.
	if (value === undefined || typeof value === 'number') return String(value);
	if (typeof value === 'string') return `"${clip(value, 200)}"`;
	try {
		return clip(JSON.stringify(value), 200);
	} catch {
		return String(value);
	}
}

const NAMED_IN_MESSAGES = 5;

/** A number as messages write it: `1,000,000`. */
export function count(value: number): string {
	return value.toLocaleString('en-US');
}

/** `"a", "b", "c", "d", "e" and 199,995 more`: a list from an expression can hold a million entries. */
export function quoteFew(values: readonly unknown[], total = values.length, show = describeValue): string {
	const named = values.slice(0, NAMED_IN_MESSAGES).map(show).join(', ');
	const rest = total - Math.min(values.length, NAMED_IN_MESSAGES);
	return rest > 0 ? `${named} and ${count(rest)} more` : named;
}

/** A message as the start of a longer sentence: without the white space and full stops at its end. */
export function withoutFinalStops(message: string): string {
	let end = message.length;
	while (end > 0 && (message.charAt(end - 1) === '.' || message.charAt(end - 1).trim() === '')) end--;
	return message.slice(0, end);
}

/** Adds a sentence to an error's description (what was done before it failed, how to go on). */
export function withNote<E extends { description?: string | null }>(error: E, note: string): E {
	error.description = error.description ? `${error.description} ${note}` : note;
	return error;
}

interface ErrorParts {
	message: string;
	description: string;
	httpCode?: string;
	itemIndex?: number;
	/** Whether trying again later may succeed (read by isTransientError in transport/retry.ts). */
	transient?: boolean;
	/** The service's own words, already masked. */
	serviceMessage?: string;
	networkCode?: string;
}

/** A failure of the service (or an answer that is one in the operation's terms), made from our own words only. */
export function buildApiError(node: INode, parts: ErrorParts): NodeApiError {
	const { message, description, httpCode, itemIndex, serviceMessage, networkCode } = parts;
	const response: JsonObject = {};
	if (httpCode) response.httpCode = httpCode;
	if (serviceMessage) response.error = serviceMessage;
	if (networkCode) response.networkCode = networkCode;
	const error = new NodeApiError(node, response, { message, description, httpCode, itemIndex });
	error.message = message;
	error.description = description;
	error.context.transient = parts.transient ?? false;
	if (networkCode) error.context.networkCode = networkCode;
	return error;
}

/**
 * What a tool's answer says after this failure, set where the error is made: `description`, written for a model;
 * `domainList`, the Domains filter holds no domain; `searchFilters`, the service refused a search (`filterKeys`).
 */
type ToolHelp = 'description' | 'domainList' | 'searchFilters';

/** A NodeOperationError (a parameter or a state the user can fix). */
export function operationError(
	node: INode,
	message: string,
	options: { description?: string; itemIndex?: number; toolHelp?: ToolHelp } = {},
): NodeOperationError {
	const { toolHelp, ...parts } = options;
	const error = new NodeOperationError(node, message, parts);
	error.message = message;
	if (options.description !== undefined) error.description = options.description;
	return toolHelp ? withToolHelp(error, toolHelp) : error;
}

/** Marks an error with what a tool's answer says after it (and the filter keys of `searchFilters`): see toolHelpOf. */
export function withToolHelp<E extends NodeApiError | NodeOperationError>(
	error: E,
	help: ToolHelp,
	filterKeys?: string[],
): E {
	Object.assign(error.context, filterKeys ? { toolHelp: help, filterKeys } : { toolHelp: help });
	return error;
}

/** The ToolHelp an error was made with (and the filter keys of `searchFilters`), if any. */
export function toolHelpOf(error: unknown): { help?: ToolHelp; filterKeys: string[] } {
	const context = (error as { context?: { toolHelp?: ToolHelp; filterKeys?: string[] } } | undefined)?.context;
	return { help: context?.toolHelp, filterKeys: context?.filterKeys ?? [] };
}

export function isNodeError(error: unknown): error is NodeApiError | NodeOperationError {
	return error instanceof NodeApiError || error instanceof NodeOperationError;
}

/** What leaves an operation: a node error as it is, else one built from its message alone (not its axios cause). */
export function asNodeError(node: INode, error: unknown, itemIndex?: number): NodeApiError | NodeOperationError {
	if (isNodeError(error)) return error;
	const { message, description } = (typeof error === 'object' && error !== null ? error : {}) as IDataObject;
	return operationError(node, typeof message === 'string' ? message : String(error), {
		itemIndex,
		description: typeof description === 'string' ? description : undefined,
	});
}
