/**
 * A failed tool call in words a model can act on: what failed (the error's message) and what would help. Where
 * the model cannot help (key, credits, plan) it is told to tell the user; where waiting helps, to wait.
 */
import { redact } from '../../errors';
import { isTransientError } from '../../transport';

const MAX_CHARS = 600;

const HELP_BY_STATUS: Record<string, string> = {
	'401':
		'Calling again will not help: tell the user that the API key of the Domain Data credential in n8n must be fixed.',
	'402': 'Calling again will not help until the credits renew: tell the user.',
	'403': 'Calling again will not help: tell the user that the Domain Data plan lacks this feature.',
};
const UNAVAILABLE = 'The service is down or overloaded right now: try again in a few minutes, or tell the user.';

/** `secret` (the credential's API key) never appears in the text, whatever the error holds. */
export function toolErrorText(error: unknown, secret: string | undefined): string {
	const { message, description, httpCode } = (error ?? {}) as {
		message?: unknown;
		description?: unknown;
		httpCode?: unknown;
	};
	const what = typeof message === 'string' && message ? message.replace(/\.$/, '') : 'The Domain Data tool failed';
	const help =
		HELP_BY_STATUS[String(httpCode)] ??
		(isTransientError(error) ? UNAVAILABLE : typeof description === 'string' ? description : '');
	const text = redact(help ? `${what}. ${help}` : `${what}.`, secret);
	return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS - 1)}…` : text;
}
