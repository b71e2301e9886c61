/**
 * Answers that came but cannot be used, turned into NodeApiErrors that say what went wrong and what to do:
 * a non-2xx status, a 2xx answer that is not the service's, an answer that holds the API key. The errors
 * themselves are built by ../errors.ts (from a clean object, the key masked), like every error of the package.
 */
import type { INode, NodeApiError } from 'n8n-workflow';

import { buildApiError, maskServiceText } from '../errors';
import { RETRYABLE_STATUSES } from './retry';
import { clip, readServiceMessage, said } from './serviceMessage';

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

export function tries(context: FailureContext): string {
	if (context.attempts <= 1) return '';
	return ` after ${context.attempts} tries${context.failureSummary ? ` (${context.failureSummary})` : ''}`;
}

export const BASE_URL_HINT =
	'Check the Base URL of the Domain Data credential: it is the address of the service, ' +
	'e.g. https://api.domain-data.example (a trailing /json/api/v1 is accepted).';

/** The error for a non-2xx answer that will not be tried again. */
export function statusError(node: INode, answer: FailedAnswer, context: FailureContext): NodeApiError {
	const { status } = answer;
	const read = readServiceMessage(answer.body, answer.contentType, context.secret);
	const reason = read.text;
	const httpCode = String(status);
	const base = { httpCode, itemIndex: context.itemIndex, serviceMessage: reason };
	const told = said(reason, read.fromService);
	// The reason phrase comes from the other end too: masked, then cut, like every text of the service.
	const reasonPhrase = answer.statusText
		? clip(maskServiceText(answer.statusText, context.secret).replace(/\s+/g, ' '), 60)
		: '';
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
				description:
					'Historical datasets (Dataset resource and the trigger) need a plan with the historical data feature; ' +
					`upgrade the plan or use another API key.${told}`,
			});
		case status === 404:
			return buildApiError(node, {
				...base,
				transient: false,
				message:
					`The address ${context.shown} has no Domain Data endpoint ` +
					`${context.method} /json/api/v1${context.path} (404)`,
				description: `${BASE_URL_HINT}${told}`,
			});
		case status === 429:
			return buildApiError(node, {
				...base,
				transient: true,
				message: `The Domain Data service is still rate limiting the requests${tries(context)} (429)`,
				description:
					'Wait a little and run the node again, lower Concurrency, or raise Max Attempts in the options.' +
					`${context.retryAfterNote ?? ''}${told}`,
			});
		case status >= 500:
			return buildApiError(node, {
				...base,
				transient: RETRYABLE_STATUSES.has(status),
				message: `The Domain Data service failed with ${statusLabel}${tries(context)}`,
				description:
					'The service, or a proxy in front of it, has a problem; this is usually temporary. ' +
					`Try again later, or raise Max Attempts in the options.${context.retryAfterNote ?? ''}${told}`,
			});
		default:
			return buildApiError(node, {
				...base,
				transient: false,
				message:
					`Unexpected answer from the Domain Data service: HTTP ${statusLabel} ` +
					`to ${context.method} /json/api/v1${context.path}`,
				description: `${BASE_URL_HINT}${told}`,
			});
	}
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
	'No answer of the service holds your API key: whatever answered echoes the request, headers included. ' +
	'Nothing of it is output (not as an item, not in a file). Check the Base URL of the credential; ' +
	'if it is right, report it to the service and consider replacing the key.';

/** A JSON answer that holds the API key: refused whole, so that no part of it reaches an output. */
export function keyEchoError(node: INode, context: FailureContext): NodeApiError {
	return buildApiError(node, {
		itemIndex: context.itemIndex,
		transient: false,
		message:
			`The answer of ${context.shown} to ${context.method} /json/api/v1${context.path} ` +
			'contains the API key of the credential',
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
