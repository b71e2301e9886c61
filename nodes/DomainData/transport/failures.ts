/** The errors of requests that got no usable answer, each naming what to do (which are tried again: retry.ts). */
import type { INode, NodeApiError } from 'n8n-workflow';

import { buildApiError, clip, decodeHtml, maskServiceText } from '../errors';
import { formatSeconds } from './idle';
import type { ApiRequest } from './request';
import { classifyNetworkCode, RETRYABLE_STATUSES, type RetryBudget, TIMEOUT_CODES } from './retry';

export type FailureContext = Pick<ApiRequest, 'method' | 'itemIndex' | 'badRequestDescription'> & {
	/** The path below /json/api/v1, encoded, e.g. /domain/example.com. */
	path: string;
	/** The service address as error messages show it (see resolveBaseUrl in request.ts). */
	shown: string;
	/** The requests of the read: how many in a row failed, of which kinds, and a Retry-After longer than allowed. */
	budget: RetryBudget;
	/** The API key: masked in every text that came from the outside, in case the service echoes it. */
	secret?: string;
};

/** A non-2xx answer of the service (or of a proxy in front of it). */
export type FailedAnswer = { status: number; statusText?: string; body: unknown; contentType?: string };

const endpoint = (context: FailureContext) => `${context.method} /json/api/v1${context.path}`;

const BASE_URL_HINT =
	'Check the Base URL of the Domain Data credential: it is the address of the service, ' +
	'e.g. https://api.domain-data.example (a trailing /json/api/v1 is accepted).';

/** `told` quotes what the answer said (`reason`) as a sentence; `label` is e.g. "503 Service Unavailable". */
type StatusFacts = { context: FailureContext; reason?: string; told: string; label: string };

/** Message and description of a non-2xx answer, by status ("5xx" for every 500 and above). */
const STATUS_TEXTS: Record<string, (facts: StatusFacts) => [message: string, description: string]> = {
	400: ({ context, reason }) => [
		`The service rejected the request: ${reason ?? 'bad request (400)'}`,
		context.badRequestDescription ?? 'Check the parameters of the node.',
	],
	401: ({ told }) => [
		'The Domain Data service rejected the API key',
		`Check the API Key of the Domain Data credential: it may be mistyped, revoked or disabled.${told}`,
	],
	402: ({ told }) => [
		'The request credits of this Domain Data account are used up',
		`Wait until the monthly allowance renews, or upgrade the plan.${told}`,
	],
	403: ({ told }) => [
		'The plan of this Domain Data account does not include this feature',
		'Historical datasets (Dataset resource and the trigger) need a plan with the historical data feature; ' +
			`upgrade the plan or use another API key.${told}`,
	],
	404: ({ context, told }) => [
		`The address ${context.shown} has no Domain Data endpoint ${endpoint(context)} (404)`,
		`${BASE_URL_HINT}${told}`,
	],
	429: ({ context, told }) => [
		`The Domain Data service is still rate limiting the requests${context.budget.afterTries()} (429)`,
		'Wait a little and run the node again, lower Concurrency, or raise Max Attempts in the options.' +
			`${context.budget.retryAfterNote()}${told}`,
	],
	'5xx': ({ context, told, label }) => [
		`The Domain Data service failed with ${label}${context.budget.afterTries()}`,
		'The service, or a proxy in front of it, has a problem; this is usually temporary. ' +
			`Try again later, or raise Max Attempts in the options.${context.budget.retryAfterNote()}${told}`,
	],
	other: ({ context, told, label }) => [
		`Unexpected answer from the Domain Data service: HTTP ${label} to ${endpoint(context)}`,
		`${BASE_URL_HINT}${told}`,
	],
};

/** The error for a non-2xx answer that will not be tried again. */
export function statusError(node: INode, answer: FailedAnswer, context: FailureContext): NodeApiError {
	const { status, statusText } = answer;
	const { text: reason, fromService } = readServiceMessage(answer.body, answer.contentType, context.secret);
	// The reason phrase comes from the other end too: masked, then cut.
	const phrase = statusText ? clip(maskServiceText(statusText, context.secret).replace(/\s+/g, ' '), 60) : '';
	const texts = STATUS_TEXTS[status >= 500 ? '5xx' : status] ?? STATUS_TEXTS.other;
	const [message, description] = texts({
		context,
		reason,
		told: reason ? ` The ${fromService ? 'service said' : 'answer was'}: "${reason}".` : '',
		label: `${status}${phrase ? ' ' + phrase : ''}`,
	});
	return buildApiError(node, {
		httpCode: String(status),
		itemIndex: context.itemIndex,
		serviceMessage: reason,
		transient: RETRYABLE_STATUSES.has(status),
		message,
		description,
	});
}

/** A 2xx answer that is not what the service sends (e.g. a web page at a wrong Base URL). */
export function unexpectedBodyError(node: INode, context: FailureContext, what: string): NodeApiError {
	const message = `The address ${context.shown} did not answer like the Domain Data service (${what})`;
	return buildApiError(node, { itemIndex: context.itemIndex, message, description: BASE_URL_HINT });
}

/** Why an answer that holds the API key is refused (JSON answers here, stream lines in the snapshot reader). */
export const KEY_ECHO_DESCRIPTION =
	'No answer of the service holds your API key: whatever answered echoes the request, headers included. ' +
	'Nothing of it is output (not as an item, not in a file). Check the Base URL of the credential; ' +
	'if it is right, report it to the service and consider replacing the key.';

/** A JSON answer that holds the API key: refused whole, so that no part of it reaches an output. */
export function keyEchoError(node: INode, context: FailureContext): NodeApiError {
	const message = `The answer of ${context.shown} to ${endpoint(context)} contains the API key of the credential`;
	return buildApiError(node, { itemIndex: context.itemIndex, message, description: KEY_ECHO_DESCRIPTION });
}

/** An answer of the service whose shape is not the documented one. */
export function unexpectedAnswerError(node: INode, what: string, itemIndex?: number): NodeApiError {
	const message = `The Domain Data service gave an unexpected answer (${what})`;
	return buildApiError(node, { itemIndex, message, description: BASE_URL_HINT });
}

/** `{"error": "..."}` (or `message`) as the service sends it, also as JSON text. */
function errorField(body: unknown): string | undefined {
	let value = body;
	if (typeof body === 'string' && body.trim().startsWith('{')) {
		try {
			value = JSON.parse(body);
		} catch {
			// not JSON after all: read as text
		}
	}
	const { error, message } = (value ?? {}) as { error?: unknown; message?: unknown };
	const field = [error, message].find((entry) => typeof entry === 'string' && entry.trim());
	return (field as string | undefined)?.trim();
}

/**
 * What an error body says in one short line: the service's `{"error": ...}` (`fromService`), a proxy's page title or
 * first heading, or plain text; masked before it is cut, so no part of the key survives at the cut.
 */
export function readServiceMessage(body: unknown, contentType = '', secret?: string) {
	const mask = (text: string) => maskServiceText(text, secret);
	const said = errorField(body);
	if (said) return { text: clip(mask(said)), fromService: true };
	const text = typeof body === 'string' ? body.trim() : '';
	if (!text) return { fromService: false };
	if (/html/i.test(contentType) || /^<(?:!doctype|html|head|body|\?xml)/i.test(text)) {
		const heading = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1] ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(text)?.[1];
		const clean = heading ? mask(decodeHtml(heading).replace(/\s+/g, ' ').trim()) : '';
		return { text: clean ? clip(clean, 120) : undefined, fromService: false };
	}
	return { text: clip(mask(text.replace(/\s+/g, ' '))), fromService: false };
}

/** Every code of a connection that could not be made (ENOTFOUND too, not retried), as the error explains it. */
const CONNECT_PROBLEMS: Record<string, string> = {
	ECONNREFUSED: 'Nothing accepted the connection at this address (ECONNREFUSED)',
	EHOSTUNREACH: 'The host cannot be reached (EHOSTUNREACH)',
	ENETUNREACH: 'The network of the host cannot be reached (ENETUNREACH)',
	EAI_AGAIN: 'The host name could not be resolved right now (EAI_AGAIN)',
	ENOTFOUND: 'The host name does not exist (ENOTFOUND)',
};

const UNDECODABLE_CODES: ReadonlySet<unknown> = new Set(['Z_DATA_ERROR', 'Z_NEED_DICT', 'ERR__ERROR_FORMAT_PADDING_1']);

/** Whether the body's Content-Encoding (gzip, deflate, br) does not match its bytes. */
export const isUndecodable = (code: string | undefined) => UNDECODABLE_CODES.has(code);

/** The error for a request that got no answer, after its retries. */
export function networkError(node: INode, code: string | undefined, context: FailureContext): NodeApiError {
	if (isUndecodable(code)) return undecodableBodyError(node, code, context.itemIndex);
	const kind = classifyNetworkCode(code);
	const [message, description] = networkTexts(code, kind, context);
	const { itemIndex } = context;
	return buildApiError(node, { itemIndex, networkCode: code, transient: kind !== 'fatal', message, description });
}

function networkTexts(code: string | undefined, kind: string, context: FailureContext): [string, string] {
	const { shown, budget } = context;
	if (kind === 'dropped') {
		return [
			TIMEOUT_CODES.has(code)
				? `The Domain Data service at ${shown} did not answer in time${budget.afterTries()}`
				: `The connection to the Domain Data service at ${shown} broke before an answer came${budget.afterTries()}`,
			`${code}: this is usually a passing network or service problem. ` +
				'Run the node again later, or raise Max Attempts in the options.',
		];
	}
	if (kind === 'unreachable' || code === 'ENOTFOUND') {
		return [
			`Could not connect to the Domain Data service at ${shown}${budget.afterTries()}`,
			`${CONNECT_PROBLEMS[code as string]}. ${BASE_URL_HINT} If the address is right, the service may be down: ` +
				'try again later.',
		];
	}
	if (code && /CERT|SSL|TLS|UNABLE_TO_/.test(code)) {
		return [
			`The TLS certificate of ${shown} could not be verified (${code})`,
			'The certificate is expired, self-signed or from an authority n8n does not know (as behind a proxy that ' +
				`inspects TLS). ${BASE_URL_HINT} Behind such a proxy, give n8n its root certificate (NODE_EXTRA_CA_CERTS).`,
		];
	}
	if (code === 'ERR_INVALID_CHAR') {
		return [
			'The API Key of the Domain Data credential holds a character that cannot be sent in a request header',
			'A line break, a tab or a character outside ASCII came in with the key (often when it is copied, or read by ' +
				'an expression or from a file). Enter the key again, without it.',
		];
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
