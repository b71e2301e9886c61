/**
 * Failures of the service turned into NodeApiErrors that say what went wrong and what to do: which HTTP
 * status or network failure means what. The errors themselves are built by ../errors.ts (from a clean
 * object, the key masked), like every error of the package.
 */
import type { INode, NodeApiError } from 'n8n-workflow';

import { buildApiError, redact } from '../errors';
import { RETRYABLE_STATUSES } from './retry';

/** What the transport knows about the request when it has to explain a failure. */
export interface FailureContext {
	method: string;
	/** The path below /json/api/v1, encoded, e.g. /domain/example.com. */
	path: string;
	/** The service address as the credential names it (see baseUrl.ts). */
	shown: string;
	/** Requests made in a row without progress when the read gave up. */
	attempts: number;
	/** Every kind of failure met, when there was more than one, e.g. "2× HTTP 503, 1× connection dropped". */
	failureSummary?: string;
	itemIndex?: number;
	notFoundMessage?: string;
	notFoundDescription?: string;
	badRequestDescription?: string;
	/** Set when the last answer asked for a longer wait than the node allows. */
	retryAfterNote?: string;
	/** Removed from every text that came from the outside, in case the service echoes it. */
	secret?: string;
}

/** A non-2xx answer of the service (or of a proxy in front of it). */
export interface FailedAnswer {
	status: number;
	statusText?: string;
	body: unknown;
	contentType?: string;
}

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

/** Connections that could not be made: a couple of tries ride out a restart, then the Base URL is named. */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
	'ECONNREFUSED',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'EAI_AGAIN',
]);

const CONNECT_PROBLEMS: Record<string, string> = {
	ECONNREFUSED: 'Nothing accepted the connection at this address (ECONNREFUSED)',
	EHOSTUNREACH: 'The host cannot be reached (EHOSTUNREACH)',
	ENETUNREACH: 'The network of the host cannot be reached (ENETUNREACH)',
	EAI_AGAIN: 'The host name could not be resolved right now (EAI_AGAIN)',
	ENOTFOUND: 'The host name does not exist (ENOTFOUND)',
};

export type NetworkFailureKind = 'dropped' | 'unreachable' | 'fatal';

/** How the final error of a read names a failure without an answer. */
export function networkFailureLabel(code: string | undefined): string {
	switch (classifyNetworkCode(code)) {
		case 'dropped':
			return code === 'ETIMEDOUT' || code === 'ECONNABORTED' || code === 'ESOCKETTIMEDOUT'
				? 'no answer in time'
				: 'connection dropped';
		case 'unreachable':
			return 'connection refused or host unreachable';
		default:
			return code ? `connection failed (${code})` : 'connection failed';
	}
}

export function classifyNetworkCode(code: string | undefined): NetworkFailureKind {
	if (code && DROPPED_CODES.has(code)) return 'dropped';
	if (code && UNREACHABLE_CODES.has(code)) return 'unreachable';
	return 'fatal';
}

/**
 * The system error code behind a failed request or a broken stream: n8n wraps axios errors into a
 * NodeApiError whose `cause` is the AxiosError, whose `cause` is the socket error.
 */
export function networkErrorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth++) {
		const { code, httpCode, message, messages } = current as {
			code?: unknown;
			httpCode?: unknown;
			message?: unknown;
			messages?: unknown;
		};
		// n8n's NodeApiError keeps the system code of the error it wrapped as its httpCode, and the
		// original messages (the wrapped error itself is not kept as its cause).
		for (const candidate of [code, httpCode]) {
			if (typeof candidate === 'string' && SYSTEM_CODE.test(candidate)) return candidate;
		}
		const texts = [message, ...(Array.isArray(messages) ? messages : [])];
		for (const text of texts) {
			if (typeof text !== 'string') continue;
			if (/socket hang up|^aborted$|premature close/i.test(text)) return 'ECONNRESET';
			if (/^timeout of \d+ms exceeded/i.test(text)) return 'ECONNABORTED';
			const named = /\b(E[A-Z]{3,}[A-Z_]*)\b/.exec(text)?.[1];
			if (named && (DROPPED_CODES.has(named) || UNREACHABLE_CODES.has(named) || named === 'ENOTFOUND')) {
				return named;
			}
		}
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

const SYSTEM_CODE = /^(?:E[A-Z0-9_]+|ERR_[A-Z0-9_]+|UND_ERR_[A-Z_]+|Z_[A-Z_]+)$/;

/**
 * Whether an error means "the connection failed or broke; trying again may work": a stream body that
 * broke while it was read (ECONNRESET, "aborted", premature close...), or an error of this transport
 * for a dropped or refused connection, a 429 or a 5xx (after its retries were spent).
 * The Dataset stream resumes on such errors; anything else (400, 401, 402, 403, 404, a wrong Base URL
 * that does not resolve) is final.
 */
export function isTransientError(error: unknown): boolean {
	if (!error || typeof error !== 'object') return false;
	const context = (error as { context?: { transient?: unknown } }).context;
	if (context && typeof context.transient === 'boolean') return context.transient;
	// A body that stayed silent for the idle timeout (transport/idle.ts) is a dropped connection.
	if ((error as { code?: unknown }).code === 'IDLE_TIMEOUT') return true;
	return classifyNetworkCode(networkErrorCode(error)) !== 'fatal';
}

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

function stripTags(html: string): string {
	return html
		.replace(/<[^>]*>/g, ' ')
		.replace(/&nbsp;/gi, ' ')
		.replace(/&amp;/gi, '&')
		.replace(/&lt;/gi, '<')
		.replace(/&gt;/gi, '>')
		.replace(/\s+/g, ' ')
		.trim();
}

function clip(text: string, max = 300): string {
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
 * (only its title or first heading is kept, e.g. "502 Bad Gateway") or plain text. The API key is masked
 * in the whole text before anything is cut from it, so no part of the key survives at the cut.
 */
export function readServiceMessage(body: unknown, contentType = '', secret?: string): ServiceMessage {
	const mask = (text: string) => redact(text, secret);
	const direct = errorField(body);
	if (direct) return { text: clip(mask(direct)), fromService: true };
	if (typeof body !== 'string') return { fromService: false };
	const text = mask(body.trim());
	if (!text) return { fromService: false };
	if (text.startsWith('{')) {
		try {
			const parsed = errorField(JSON.parse(text));
			// JSON escapes (\u0041...) can spell the key: mask the decoded text again.
			if (parsed) return { text: clip(mask(parsed)), fromService: true };
		} catch {
			// not JSON after all: treated as text below
		}
	}
	if (/html/i.test(contentType) || /^<(?:!doctype|html|head|body|\?xml)/i.test(text)) {
		const heading =
			/<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1] ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(text)?.[1];
		// Tags and entities removed can join the key together again: mask after stripping too.
		const clean = heading ? mask(stripTags(heading)) : '';
		return { text: clean ? clip(clean, 120) : undefined, fromService: false };
	}
	return { text: clip(mask(text.replace(/\s+/g, ' '))), fromService: false };
}

function said(text: string | undefined, fromService = true): string {
	if (!text) return '';
	return fromService ? ` The service said: "${text}".` : ` The answer was: "${text}".`;
}

function tries(context: FailureContext): string {
	if (context.attempts <= 1) return '';
	return ` after ${context.attempts} tries${context.failureSummary ? ` (${context.failureSummary})` : ''}`;
}

const BASE_URL_HINT =
	'Check the Base URL of the Domain Data credential: it is the address of the service, e.g. https://api.domain-data.example (a trailing /json/api/v1 is accepted).';

/** The error for a non-2xx answer that will not be tried again. */
export function statusError(node: INode, answer: FailedAnswer, context: FailureContext): NodeApiError {
	const { status } = answer;
	const read = readServiceMessage(answer.body, answer.contentType, context.secret);
	const reason = read.text;
	const httpCode = String(status);
	const base = { httpCode, itemIndex: context.itemIndex, serviceMessage: reason };
	const told = said(reason, read.fromService);
	// The reason phrase comes from the other end too: masked, then cut, like every text of the service.
	const reasonPhrase = answer.statusText ? clip(redact(answer.statusText, context.secret).replace(/\s+/g, ' '), 60) : '';
	const statusLabel = `${status}${reasonPhrase ? ' ' + reasonPhrase : ''}`;

	switch (true) {
		case status === 400:
			return buildApiError(node, {
				...base,
				transient: false,
				message: `The service rejected the request: ${reason ?? 'bad request (400)'}`,
				description: context.badRequestDescription ?? 'Check the parameters of the node.',
			});
		case status === 401:
			return buildApiError(node, {
				...base,
				transient: false,
				message: 'The Domain Data service rejected the API key',
				description: `Check the API Key of the Domain Data credential: it may be mistyped, revoked or disabled.${told}`,
			});
		case status === 402:
			return buildApiError(node, {
				...base,
				transient: false,
				message: 'The request credits of this Domain Data account are used up',
				description: `Wait until the monthly allowance renews, or upgrade the plan.${told}`,
			});
		case status === 403:
			return buildApiError(node, {
				...base,
				transient: false,
				message: 'The plan of this Domain Data account does not include this feature',
				description: `Historical datasets (Dataset resource and the trigger) need a plan with the historical data feature; upgrade the plan or use another API key.${told}`,
			});
		case status === 404 && read.fromService && context.notFoundMessage !== undefined:
			return buildApiError(node, {
				...base,
				transient: false,
				message: context.notFoundMessage,
				description: context.notFoundDescription ?? `The service answered 404.${told}`,
			});
		case status === 404:
			return buildApiError(node, {
				...base,
				transient: false,
				message: `The address ${context.shown} has no Domain Data endpoint ${context.method} /json/api/v1${context.path} (404)`,
				description: `${BASE_URL_HINT}${told}`,
			});
		case status === 429:
			return buildApiError(node, {
				...base,
				transient: true,
				message: `The Domain Data service is still rate limiting the requests${tries(context)} (429)`,
				description: `Wait a little and run the node again, lower Concurrency, or raise Max Attempts in the options.${context.retryAfterNote ?? ''}${told}`,
			});
		case status >= 500:
			return buildApiError(node, {
				...base,
				transient: RETRYABLE_STATUSES.has(status),
				message: `The Domain Data service failed with ${statusLabel}${tries(context)}`,
				description: `The service, or a proxy in front of it, has a problem; this is usually temporary. Try again later, or raise Max Attempts in the options.${context.retryAfterNote ?? ''}${told}`,
			});
		default:
			return buildApiError(node, {
				...base,
				transient: false,
				message: `Unexpected answer from the Domain Data service: HTTP ${statusLabel} to ${context.method} /json/api/v1${context.path}`,
				description: `${BASE_URL_HINT}${told}`,
			});
	}
}

/** The error for a request that got no answer, after its retries. */
export function networkError(node: INode, code: string | undefined, context: FailureContext): NodeApiError {
	const kind = classifyNetworkCode(code);
	const base = { itemIndex: context.itemIndex, networkCode: code };
	if (kind === 'dropped') {
		const timedOut = code === 'ETIMEDOUT' || code === 'ECONNABORTED' || code === 'ESOCKETTIMEDOUT';
		return buildApiError(node, {
			...base,
			transient: true,
			message: timedOut
				? `The Domain Data service at ${context.shown} did not answer in time${tries(context)}`
				: `The connection to the Domain Data service at ${context.shown} broke before an answer came${tries(context)}`,
			description: `${code}: this is usually a passing network or service problem. Run the node again later, or raise Max Attempts in the options.`,
		});
	}
	if (kind === 'unreachable' || code === 'ENOTFOUND') {
		return buildApiError(node, {
			...base,
			transient: kind === 'unreachable',
			message: `Could not connect to the Domain Data service at ${context.shown}${tries(context)}`,
			description: `${CONNECT_PROBLEMS[code as string]}. ${BASE_URL_HINT} If the address is right, the service may be down: try again later.`,
		});
	}
	if (code && UNDECODABLE_CODES.has(code)) return undecodableBodyError(node, code, context.itemIndex);
	if (code && /CERT|SSL|TLS/.test(code)) {
		return buildApiError(node, {
			...base,
			transient: false,
			message: `The TLS certificate of ${context.shown} could not be verified (${code})`,
			description: BASE_URL_HINT,
		});
	}
	if (code === 'ERR_CANCELED') {
		return buildApiError(node, {
			...base,
			transient: false,
			message: 'The request to the Domain Data service was cancelled',
			description: 'The execution was stopped while the request was under way.',
		});
	}
	return buildApiError(node, {
		...base,
		transient: false,
		message: `The request to the Domain Data service at ${context.shown} failed${code ? ` (${code})` : ''}`,
		description: BASE_URL_HINT,
	});
}

/** The body's Content-Encoding (gzip, deflate, br) does not match its bytes. */
const UNDECODABLE_CODES: ReadonlySet<string> = new Set(['Z_DATA_ERROR', 'Z_NEED_DICT', 'ERR__ERROR_FORMAT_PADDING_1']);

/** Whether an error is a body that claims a compression it does not have. */
export function isUndecodableBody(error: unknown): boolean {
	const code = networkErrorCode(error);
	return code !== undefined && UNDECODABLE_CODES.has(code);
}

/** An answer whose Content-Encoding header says compressed (gzip...) while its bytes are not. */
export function undecodableBodyError(node: INode, code: string | undefined, itemIndex?: number): NodeApiError {
	return buildApiError(node, {
		itemIndex,
		networkCode: code,
		transient: false,
		message: 'The answer of the Domain Data service says it is compressed (Content-Encoding: gzip, deflate or br), but its bytes are not',
		description: `The body cannot be decompressed${code ? ` (${code})` : ''}. A proxy in front of the service, or the service itself, sends a wrong Content-Encoding header; nothing of this answer is used. ${BASE_URL_HINT}`,
	});
}

/** A 2xx answer that is not what the service sends (e.g. a web page at a wrong Base URL). */
export function unexpectedBodyError(node: INode, context: FailureContext, what: string): NodeApiError {
	return buildApiError(node, {
		itemIndex: context.itemIndex,
		transient: false,
		message: `The address ${context.shown} did not answer like the Domain Data service (${what})`,
		description: BASE_URL_HINT,
	});
}

/**
 * Why an answer that holds the API key is refused (JSON answers here, stream lines in the snapshot reader):
 * no data of the service holds the user's own key, so whatever answered echoes the request, headers included.
 */
export const KEY_ECHO_DESCRIPTION =
	'No answer of the service holds your API key: whatever answered echoes the request, headers included. Nothing of it is output (not as an item, not in a file). Check the Base URL of the credential; if it is right, report it to the service and consider replacing the key.';

/** A JSON answer that holds the API key: refused whole, so that no part of it reaches an output. */
export function keyEchoError(node: INode, context: FailureContext): NodeApiError {
	return buildApiError(node, {
		itemIndex: context.itemIndex,
		transient: false,
		message: `The answer of ${context.shown} to ${context.method} /json/api/v1${context.path} contains the API key of the credential`,
		description: KEY_ECHO_DESCRIPTION,
	});
}

/** An answer of the service whose shape is not the documented one. */
export function unexpectedAnswerError(node: INode, what: string, itemIndex?: number): NodeApiError {
	return buildApiError(node, {
		itemIndex,
		message: `The Domain Data service gave an unexpected answer (${what})`,
		description: BASE_URL_HINT,
	});
}
