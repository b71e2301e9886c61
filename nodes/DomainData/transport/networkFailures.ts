/**
 * Requests that got no (whole) answer: refused, dropped, silent, a broken TLS or compression. What each means
 * (retried or not), and the error that names what to do once the retries are spent.
 */
import type { INode, NodeApiError } from 'n8n-workflow';

import { buildApiError } from '../errors';
import { BASE_URL_HINT, afterTries, type FailureContext } from './answerErrors';
import { formatSeconds } from './idle';

/** Connections that broke after they were made: the request may be tried again at once. */
const DROPPED_CODES: ReadonlySet<string> = new Set([
	'ECONNRESET',
	'EPIPE',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'ECONNABORTED',
	'ERR_STREAM_PREMATURE_CLOSE',
	'UND_ERR_SOCKET',
	'UND_ERR_CLOSED',
	'Z_BUF_ERROR',
]);

const TIMEOUT_CODES: ReadonlySet<string | undefined> = new Set(['ETIMEDOUT', 'ECONNABORTED', 'ESOCKETTIMEDOUT']);

/** Connections that could not be made: a couple of tries ride out a restart, then the Base URL is named. */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** Every code of a connection that could not be made (ENOTFOUND too, not retried), as the error explains it. */
const CONNECT_PROBLEMS: Record<string, string> = {
	ECONNREFUSED: 'Nothing accepted the connection at this address (ECONNREFUSED)',
	EHOSTUNREACH: 'The host cannot be reached (EHOSTUNREACH)',
	ENETUNREACH: 'The network of the host cannot be reached (ENETUNREACH)',
	EAI_AGAIN: 'The host name could not be resolved right now (EAI_AGAIN)',
	ENOTFOUND: 'The host name does not exist (ENOTFOUND)',
};

/** The body's Content-Encoding (gzip, deflate, br) does not match its bytes. */
const UNDECODABLE_CODES: ReadonlySet<string> = new Set(['Z_DATA_ERROR', 'Z_NEED_DICT', 'ERR__ERROR_FORMAT_PADDING_1']);

const SYSTEM_CODE = /^(?:E[A-Z0-9_]+|ERR_[A-Z0-9_]+|UND_ERR_[A-Z_]+|Z_[A-Z_]+)$/;

export function classifyNetworkCode(code: string | undefined): 'dropped' | 'unreachable' | 'fatal' {
	if (code && DROPPED_CODES.has(code)) return 'dropped';
	if (code && UNREACHABLE_CODES.has(code)) return 'unreachable';
	return 'fatal';
}

/** How the final error of a read names a failure without an answer. */
export function networkFailureLabel(code: string | undefined): string {
	switch (classifyNetworkCode(code)) {
		case 'dropped':
			return TIMEOUT_CODES.has(code) ? 'no answer in time' : 'connection dropped';
		case 'unreachable':
			return 'connection refused or host unreachable';
		default:
			return code ? `connection failed (${code})` : 'connection failed';
	}
}

/** The system error code of a failure: n8n's NodeApiError wraps the AxiosError (`cause`), which wraps the socket's. */
export function networkErrorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth++) {
		const { code, httpCode, message, messages } = current as Record<string, unknown>;
		// n8n's NodeApiError keeps the wrapped error's system code as its httpCode, and its messages (not the error).
		for (const candidate of [code, httpCode]) {
			if (typeof candidate === 'string' && SYSTEM_CODE.test(candidate)) return candidate;
		}
		for (const text of [message, ...(Array.isArray(messages) ? messages : [])]) {
			if (typeof text !== 'string') continue;
			if (/socket hang up|^aborted$|premature close/i.test(text)) return 'ECONNRESET';
			if (/^timeout of \d+ms exceeded/i.test(text)) return 'ECONNABORTED';
			const named = /\b(E[A-Z]{3,}[A-Z_]*)\b/.exec(text)?.[1];
			if (named && (DROPPED_CODES.has(named) || CONNECT_PROBLEMS[named] !== undefined)) return named;
		}
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

/**
 * Whether trying again may work: a stream body that broke while it was read, or an error of this transport for a
 * dropped or refused connection, a 429 or a 5xx (after its retries). The Dataset stream resumes on such errors.
 */
export function isTransientError(error: unknown): boolean {
	if (!error || typeof error !== 'object') return false;
	const context = (error as { context?: { transient?: unknown } }).context;
	if (context && typeof context.transient === 'boolean') return context.transient;
	// A body that stayed silent for the idle timeout (IdleTimeoutError) is a dropped connection.
	if ((error as { code?: unknown }).code === 'IDLE_TIMEOUT') return true;
	return classifyNetworkCode(networkErrorCode(error)) !== 'fatal';
}

/** The error for a request that got no answer, after its retries. */
export function networkError(node: INode, code: string | undefined, context: FailureContext): NodeApiError {
	if (code && UNDECODABLE_CODES.has(code)) return undecodableBodyError(node, code, context.itemIndex);
	const kind = classifyNetworkCode(code);
	const [message, description] = networkTexts(code, kind, context);
	return buildApiError(node, {
		itemIndex: context.itemIndex,
		networkCode: code,
		transient: kind !== 'fatal',
		message,
		description,
	});
}

function networkTexts(code: string | undefined, kind: string, context: FailureContext): [string, string] {
	const { shown } = context;
	if (kind === 'dropped') {
		return [
			TIMEOUT_CODES.has(code)
				? `The Domain Data service at ${shown} did not answer in time${afterTries(context)}`
				: `The connection to the Domain Data service at ${shown} broke before an answer came${afterTries(context)}`,
			`${code}: this is usually a passing network or service problem. ` +
				'Run the node again later, or raise Max Attempts in the options.',
		];
	}
	if (kind === 'unreachable' || code === 'ENOTFOUND') {
		return [
			`Could not connect to the Domain Data service at ${shown}${afterTries(context)}`,
			`${CONNECT_PROBLEMS[code as string]}. ${BASE_URL_HINT} If the address is right, the service may be down: ` +
				'try again later.',
		];
	}
	if (code && /CERT|SSL|TLS/.test(code)) {
		return [`The TLS certificate of ${shown} could not be verified (${code})`, BASE_URL_HINT];
	}
	if (code === 'ERR_CANCELED') {
		return [
			'The request to the Domain Data service was cancelled',
			'The execution was stopped while the request was under way.',
		];
	}
	return [`The request to the Domain Data service at ${shown} failed${code ? ` (${code})` : ''}`, BASE_URL_HINT];
}

/** A JSON answer that was still not whole at its deadline, on every try. */
export function deadlineError(node: INode, ms: number, context: FailureContext): NodeApiError {
	const tried = context.budget.requests > 1 ? ` (${context.budget.requests} tries)` : '';
	return buildApiError(node, {
		itemIndex: context.itemIndex,
		transient: true,
		message:
			`The Domain Data service at ${context.shown} did not send its whole answer within ` +
			`${formatSeconds(ms)}${tried}`,
		description:
			'The answer kept arriving too slowly (a service or proxy that trickles). Try again later; if the service is ' +
			'just slow, raise "Request Deadline" in the options.',
	});
}

export function isUndecodableBody(error: unknown): boolean {
	const code = networkErrorCode(error);
	return code !== undefined && UNDECODABLE_CODES.has(code);
}

export function undecodableBodyError(node: INode, code: string | undefined, itemIndex?: number): NodeApiError {
	return buildApiError(node, {
		itemIndex,
		networkCode: code,
		message:
			'The answer of the Domain Data service says it is compressed (Content-Encoding: gzip, deflate or br), ' +
			'but its bytes are not',
		description:
			`The body cannot be decompressed${code ? ` (${code})` : ''}. A proxy in front of the service, or the ` +
			`service itself, sends a wrong Content-Encoding header; nothing of this answer is used. ${BASE_URL_HINT}`,
	});
}
