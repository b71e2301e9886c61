/**
 * The node as a tool (n8n's "Domain Data Tool": AI Agent, MCP Server Trigger, any tool-using node): every operation
 * runs within the bounds (bounds.ts) and answers with one item a model can read (answer.ts). A failure becomes a
 * short text: for an agent's tool call the answer `{ error }`, so that the agent goes on on every n8n version (2.8
 * fails the whole run when a tool node throws; 2.41 hands the model the bare message); elsewhere (an MCP client) it
 * is thrown with that text, which the MCP Server Trigger returns as an error result. "On Error: Stop Workflow", set
 * on the tool, throws the error itself, as n8n 2.41 does.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { asNodeError, operationError, redact } from '../../errors';
import { credentialSecret, isTransientError } from '../../transport';
import type { OperationExecute } from '../types';
import { SEARCH_FILTERS } from '../domain/searchFilters';
import { cleanText, toolAnswer, type RecordsMode } from './answer';
import { boundedItems, boundedParameters, type BoundedRun, TOOL_MAX_RECORDS, withBounds } from './bounds';

const MAX_ERROR_CHARS = 600;
/** Where the model cannot help (key, credits, plan) it is told to tell the user. */
const HELP_BY_STATUS: Record<string, string> = {
	'401':
		'Calling again will not help: tell the user that the API key of the Domain Data credential in n8n must be fixed.',
	'402': 'Calling again will not help until the credits renew: tell the user.',
	'403': 'Calling again will not help: tell the user that the Domain Data plan lacks this feature.',
};
const UNAVAILABLE = 'The service is down or overloaded right now: try again in a few minutes, or tell the user.';
/**
 * A value the operation refused (its input or a parameter): what the model can do, in terms of the tool's input.
 * The error's own description speaks of the editor's fields, which a model cannot change.
 */
const HELP_BY_OPERATION: Record<string, string> = {
	get:
		'Call this tool again with one domain name such as example.com (a URL or an email address also works). To find ' +
		'websites by language, technology or category, use a Domain Data search tool if there is one; else ask the user ' +
		'for a domain.',
	bulk: 'Call this tool again with domain names separated by commas, such as example.com, example.org.',
	search:
		`Call this tool again with filters as a JSON object such as {"language": "de", "technology": "Shopify"}; the ` +
		`filters are ${SEARCH_FILTERS.join(', ')}.`,
	stream:
		'Call this tool again with "latest" or the date label (YYYY-MM-DD) of a snapshot that exists; a tool that ' +
		'lists snapshots tells which exist.',
	compare:
		'Call this tool again with "latest" or the date label (YYYY-MM-DD) of a snapshot that exists; a tool that ' +
		'lists snapshots tells which exist.',
};
/** A Domains list (Stream's and Compare's Filters → Domains, which a model may fill) that holds no domain. */
const HELP_WITH_DOMAINS =
	'Call this tool again with domain names, URLs or email addresses separated by commas as "domains", such as ' +
	'example.com, example.org; or leave "domains" empty for every domain.';
const TELL_THE_USER = 'Tell the user that the Domain Data tool could not answer this.';

/** Outputs that would answer with a file or run a sub-workflow: a tool answers with data instead. */
const OUTPUTS_REFUSED: Record<string, string> = { file: 'an NDJSON file', subWorkflow: 'a sub-workflow' };

/** n8n gives the tool version of a node the type `<package>.<name>Tool`. */
export function isToolRun(context: IExecuteFunctions): boolean {
	return context.getNode().type.endsWith('Tool');
}

/** The filters of a search the service refused, named in its words: one sentence, nothing unrelated after it. */
function rejectedFilterText(reason: string, filters: unknown): string | undefined {
	let sent: string[] = [];
	try {
		const parsed: unknown = typeof filters === 'string' ? JSON.parse(filters) : filters;
		if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) sent = Object.keys(parsed);
	} catch {
		return undefined;
	}
	const named = sent.filter((key) => reason.includes(`"${key}"`) || reason.includes(`'${key}'`));
	const rejected = named.length > 0 ? named : sent.filter((key) => !SEARCH_FILTERS.includes(key));
	if (rejected.length === 0) return undefined;
	const quoted = rejected.map((key) => `"${cleanText(key, 40)}"`).join(' and ');
	const others = SEARCH_FILTERS.filter((key) => !rejected.includes(key)).join(', ');
	return (
		`The service does not take the filter ${quoted}: call this tool again without it, with the filters it takes ` +
		`(${others}; for a country, use its language or tld1).`
	);
}

/** A failed call in words a model can act on: what failed and what would help; never the API key (`secret`). */
function toolErrorText(error: unknown, secret: string | undefined, operation: string, run: BoundedRun): string {
	const { message, description, httpCode } = (error ?? {}) as Record<string, unknown>;
	const what = typeof message === 'string' && message ? message.replace(/\.$/, '') : 'The Domain Data tool failed';
	const rejected =
		operation === 'search' && String(httpCode) === '400' ? rejectedFilterText(what, run.filters) : undefined;
	const told = typeof description === 'string' && description.startsWith('Tell the user') ? description : undefined;
	const help =
		HELP_BY_STATUS[String(httpCode)] ??
		(isTransientError(error)
			? UNAVAILABLE
			: (told ??
				(httpCode === undefined && what.startsWith('The filter "Domains"')
					? HELP_WITH_DOMAINS
					: httpCode === undefined || ['400', '404'].includes(String(httpCode))
						? HELP_BY_OPERATION[operation]
						: undefined)));
	return cleanText(redact(rejected ?? `${what}. ${help ?? TELL_THE_USER}`, secret), MAX_ERROR_CHARS);
}

function refuseOutput(this: IExecuteFunctions, operation: string): void {
	if (operation !== 'stream' && operation !== 'compare') return;
	const output = String(this.getNodeParameter('output', 0, 'items'));
	if (!OUTPUTS_REFUSED[output]) return;
	const message = `This tool is set to send its data to ${OUTPUTS_REFUSED[output]}, which a tool cannot answer with`;
	const records = operation === 'stream' ? 'records' : 'changes';
	throw operationError(this.getNode(), message, {
		description:
			'Tell the user to set Output to "Items" in the tool\'s parameters; the tool then answers with at most ' +
			`${TOOL_MAX_RECORDS} ${records}.`,
	});
}

/** The answer of the node run as a tool: one item, also when the call failed (see the note at the top). */
export async function runAsTool(
	this: IExecuteFunctions,
	operation: string,
	execute: OperationExecute,
): Promise<INodeExecutionData[]> {
	const items = this.getInputData();
	const pairedItem = items.map((_, item) => ({ item }));
	const run: BoundedRun = { namesLeft: [], itemsLeft: 0, hints: [] };
	try {
		refuseOutput.call(this, operation);
		const output = await execute.call(
			withBounds(this, boundedParameters(operation, run), run),
			boundedItems(operation, items, run),
		);
		const records = output.map((item) => item.json);
		const mode = this.getNodeParameter('toolRecords', 0, 'full') as RecordsMode;
		return [{ json: toolAnswer(operation, records, mode, run), pairedItem }];
	} catch (error) {
		if (this.getNode().onError === 'stopWorkflow') throw asNodeError(this.getNode(), error);
		const secret = await credentialSecret.call(this).catch(() => undefined);
		const text = toolErrorText(error, secret, operation, run);
		// An agent's tool call (run by n8n's engine) carries its id in the input.
		if (items.some((item) => item.json.toolCallId !== undefined)) return [{ json: { error: text }, pairedItem }];
		throw operationError(this.getNode(), text);
	}
}
