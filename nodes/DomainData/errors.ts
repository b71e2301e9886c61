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
	const { message, description } = (typeof error === 'object' && error !== null ? error : {}) as { message?: unknown; description?: unknown };
	return operationError(node, typeof message === 'string' ? message : String(error), {
		itemIndex,
		description: typeof description === 'string' ? description : undefined,
	});
}
