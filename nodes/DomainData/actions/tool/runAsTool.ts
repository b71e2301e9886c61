/**
 * The node as a tool (AI Agent, MCP Server Trigger, any tool-using node): every operation runs within `ToolBounds` and
 * answers with one item a model can read (answer.ts). A failure becomes a short text: for an agent's tool call the
 * answer `{ error }`, so that the agent goes on on every n8n version (2.8 fails the whole run when a tool node throws);
 * elsewhere (an MCP client) it is thrown with that text. "On Error: Stop Workflow" on the tool throws the error itself.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { asNodeError, operationError, redact, toolHelpOf, withoutFinalStops } from '../../errors';
import { credentialSecret, isTransientError } from '../../transport';
import type { OperationExecute, ToolBounds } from '../perItem';
import { filterInOtherCase, SEARCH_FILTERS } from '../domain/searchFilters';
import { type RecordsMode, toolAnswer, TOOL_MAX_RECORDS } from './answer';
import { cleanText } from './cleanText';

const MAX_ERROR_CHARS = 600;
/** Where the model cannot help (key, credits, plan) it is told to tell the user. */
const HELP_BY_STATUS: Record<string, string> = {
	'401':
		'Calling again will not help: tell the user that the API key of the Domain Data credential in n8n must be fixed.',
	'402': 'Calling again will not help until the credits renew: tell the user.',
	'403': 'Calling again will not help: tell the user that the Domain Data plan lacks this feature.',
};
const UNAVAILABLE = 'The service is down or overloaded right now: try again in a few minutes, or tell the user.';
const HELP_WITH_LABEL =
	'Call this tool again with "latest" or the date label (YYYY-MM-DD) of a snapshot that exists; a tool that lists ' +
	'snapshots tells which exist.';
/** A value the operation refused: what the model can do with the tool's input (not the editor's fields). */
const HELP_BY_OPERATION: Record<string, string> = {
	get:
		'Call this tool again with one domain name such as example.com (a URL or an email address also works). To find ' +
		'websites by language, technology or category, use a Domain Data search tool if there is one; else ask the user ' +
		'for a domain.',
	bulk: 'Call this tool again with domain names separated by commas, such as example.com, example.org.',
	search:
		`Call this tool again with filters as a JSON object such as {"language": "de", "technology": "Shopify"}; the ` +
		`filters are ${SEARCH_FILTERS.join(', ')}.`,
	stream: HELP_WITH_LABEL,
	compare: HELP_WITH_LABEL,
};
/** A Domains list (Stream's and Compare's Filters → Domains, which a model may fill) that holds no domain. */
const HELP_WITH_DOMAINS =
	'Call this tool again with domain names, URLs or email addresses separated by commas as "domains", such as ' +
	'example.com, example.org; or leave "domains" empty for every domain.';
const TELL_THE_USER = 'Tell the user that the Domain Data tool could not answer this.';

/** Said with every refused search filter: a model that sent "country" wants one, and neither language nor tld1 is. */
const NO_COUNTRY_FILTER =
	'Search has no country filter, and neither language nor tld1 stands for a country; records by country ' +
	'(country_code) come from a Domain Data snapshot tool that filters on country codes, if there is one; else ' +
	'tell the user that this search cannot filter by country.';

const quotedKey = (key: string) => `"${cleanText(key, 40)}"`;

/**
 * The keys of a refused search that are no search filter (or one in another case), and what to send instead;
 * undefined when every key is a filter (then a value was refused, and the service's reason says which).
 */
function rejectedFilterText(keys: string[]): string | undefined {
	const rejected = keys.filter((key) => !SEARCH_FILTERS.includes(key));
	if (rejected.length === 0) return undefined;
	const renamed = rejected.filter((key) => filterInOtherCase(key) !== undefined);
	const dropped = rejected.filter((key) => !renamed.includes(key));
	const quoted = rejected.map(quotedKey).join(' and ');
	const filters = SEARCH_FILTERS.join(', ');
	const instead = renamed.map((key) => `"${filterInOtherCase(key)}" in place of ${quotedKey(key)}`).join(' and ');
	const without = dropped.length > 0 ? `, without ${dropped.map(quotedKey).join(' and ')}` : '';
	const again =
		renamed.length > 0
			? `call this tool again with ${instead}${without}; the filters it takes are ${filters}`
			: `call this tool again without it, with the filters it takes (${filters})`;
	return `The service does not take the filter ${quoted}: ${again}. ${NO_COUNTRY_FILTER}`;
}

/** What helps after a failure: by the error's kind (set where it was made), its status, or the operation. */
function helpFor(error: unknown, operation: string): string | undefined {
	const { description, httpCode } = (error ?? {}) as Record<string, unknown>;
	const status = httpCode === undefined ? undefined : String(httpCode);
	const { help } = toolHelpOf(error);
	if (status && HELP_BY_STATUS[status]) return HELP_BY_STATUS[status];
	if (isTransientError(error)) return UNAVAILABLE;
	if (help === 'description' && typeof description === 'string') return description;
	if (help === 'domainList') return HELP_WITH_DOMAINS;
	if (status === undefined || status === '400' || status === '404') return HELP_BY_OPERATION[operation];
	return undefined;
}

/** A failed call in words a model can act on: what failed and what would help; never the API key (`secret`). */
function toolErrorText(error: unknown, secret: string | undefined, operation: string): string {
	const { message } = (error ?? {}) as Record<string, unknown>;
	const what = typeof message === 'string' && message ? withoutFinalStops(message) : 'The Domain Data tool failed';
	const { help, filterKeys } = toolHelpOf(error);
	const rejected = help === 'searchFilters' ? rejectedFilterText(filterKeys) : undefined;
	const text = rejected ?? `${what}. ${helpFor(error, operation) ?? TELL_THE_USER}`;
	return cleanText(redact(text, secret), MAX_ERROR_CHARS);
}

/** Stream's and Compare's filters set in the node (a tool's inputs when filled from the model, as in the examples). */
function filtersSetIn(context: IExecuteFunctions, operation: string): string[] {
	if (operation !== 'stream' && operation !== 'compare') return [];
	const filters = context.getNode().parameters.filters;
	return filters && typeof filters === 'object' && !Array.isArray(filters) ? Object.keys(filters) : [];
}

/** The answer of the node run as a tool: one item, also when the call failed (see the note at the top). */
export async function runAsTool(
	this: IExecuteFunctions,
	operation: string,
	execute: OperationExecute,
): Promise<INodeExecutionData[]> {
	const items = this.getInputData();
	const pairedItem = items.map((_, item) => ({ item }));
	const bounds: ToolBounds = { records: TOOL_MAX_RECORDS };
	// Enrich Items gets its first items within the bound (one item, one record).
	const given = operation === 'enrich' ? items.slice(0, TOOL_MAX_RECORDS) : items;
	try {
		const { items: output, facts } = await execute.call(this, given, bounds);
		const records = output.map((item) => item.json);
		const mode = this.getNodeParameter('toolRecords', 0, 'full') as RecordsMode;
		const itemsLeft = items.length - given.length;
		const filterInputs = filtersSetIn(this, operation);
		return [{ json: toolAnswer(operation, records, mode, { ...facts, itemsLeft, filterInputs }), pairedItem }];
	} catch (error) {
		if (this.getNode().onError === 'stopWorkflow') throw asNodeError(this.getNode(), error);
		const secret = await credentialSecret.call(this).catch(() => undefined);
		const text = toolErrorText(error, secret, operation);
		// An agent's tool call (run by n8n's engine) carries its id in the input.
		if (items.some((item) => item.json.toolCallId !== undefined)) return [{ json: { error: text }, pairedItem }];
		const failure = operationError(this.getNode(), text);
		// n8n 2.8's MCP Server Trigger sends a thrown error's stack after its message: file paths, the text twice.
		failure.stack = '';
		throw failure;
	}
}
