/**
 * The node as a tool (n8n's "Domain Data Tool": AI Agent, MCP Server Trigger, any tool-using node): every operation
 * runs within the bounds below and answers with one item a model can read (answer.ts). A failure becomes a
 * short text: for an agent's tool call the answer `{ error }`, so that the agent goes on on every n8n version (2.8
 * fails the whole run when a tool node throws; 2.41 hands the model the bare message); elsewhere (an MCP client) it
 * is thrown with that text, which the MCP Server Trigger returns as an error result. "On Error: Stop Workflow", set
 * on the tool, throws the error itself, as n8n 2.41 does.
 *
 * The bounds below keep every call to the records an answer can show (the README and the tool descriptions state
 * them). A name not in the index is an answer for a model (`{ name, found: false }`), not a failure; an empty Domains
 * filter of Stream or Compare, which a model may fill (examples/ai-agent-tool.json), means every domain.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { asNodeError, operationError, redact } from '../../errors';
import { splitDomainList } from '../../helpers/domainName';
import { credentialSecret, isTransientError } from '../../transport';
import type { OperationExecute } from '../perItem';
import { filterInOtherCase, filtersObject, SEARCH_FILTERS } from '../domain/searchFilters';
import { type BoundedRun, type RecordsMode, toolAnswer, TOOL_MAX_RECORDS } from './answer';
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
	stream: HELP_WITH_LABEL,
	compare: HELP_WITH_LABEL,
};
/** A Domains list (Stream's and Compare's Filters → Domains, which a model may fill) that holds no domain. */
const HELP_WITH_DOMAINS =
	'Call this tool again with domain names, URLs or email addresses separated by commas as "domains", such as ' +
	'example.com, example.org; or leave "domains" empty for every domain.';
const TELL_THE_USER = 'Tell the user that the Domain Data tool could not answer this.';

/** Outputs that would answer with a file or run a sub-workflow: a tool answers with data instead. */
const OUTPUTS_REFUSED: Record<string, string> = { file: 'an NDJSON file', subWorkflow: 'a sub-workflow' };

const quotedKey = (key: string) => `"${cleanText(key, 40)}"`;

/**
 * The filters of a search the service refused, named in its words: one sentence, nothing unrelated after it. A key
 * that is a filter's name in another case ("Language") is refused with the others, and the sentence gives its name.
 */
function rejectedFilterText(reason: string, filters: unknown): string | undefined {
	const sent = Object.keys(filtersObject(filters) ?? {});
	const named = sent.filter((key) => reason.includes(`"${key}"`) || reason.includes(`'${key}'`));
	const unknown = sent.filter((key) => !SEARCH_FILTERS.includes(key));
	const renamed = unknown.filter((key) => filterInOtherCase(key) !== undefined);
	const rejected = named.length > 0 ? [...new Set([...named, ...renamed])] : unknown;
	if (rejected.length === 0) return undefined;
	const quoted = rejected.map(quotedKey).join(' and ');
	if (renamed.length > 0) {
		const instead = renamed.map((key) => `"${filterInOtherCase(key)}" in place of ${quotedKey(key)}`);
		const dropped = rejected.filter((key) => !renamed.includes(key));
		const without = dropped.length > 0 ? `, without ${dropped.map(quotedKey).join(' and ')}` : '';
		return (
			`The service does not take the filter ${quoted}: call this tool again with ${instead.join(' and ')}${without}; ` +
			`the filters it takes are ${SEARCH_FILTERS.join(', ')} (for a country, use its language or tld1).`
		);
	}
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

type Bound = (value: unknown) => unknown;

function withOptions(options: IDataObject): Bound {
	return (value) => ({ ...((value ?? {}) as IDataObject), ...options });
}

/** The bounded value of each parameter that could make an operation fetch more. */
function boundedParameters(operation: string, run: BoundedRun): Record<string, Bound> {
	// The Limit within the bound, plus a record where only a record more than can be shown tells that there is more
	// (Search learns it from the cursor); a Limit below the bound is the user's, and shown whole. A value that is not
	// a whole number is left to the operation to refuse.
	const extra = (limit: number) => (operation === 'search' || limit < TOOL_MAX_RECORDS ? 0 : 1);
	const bounds: Record<string, Bound> = {
		returnAll: () => false,
		limit: (value) => {
			const limit = Number(value ?? TOOL_MAX_RECORDS);
			return Number.isInteger(limit) && limit >= 1 ? Math.min(limit, TOOL_MAX_RECORDS) + extra(limit) : value;
		},
		output: () => 'items',
	};
	if (operation === 'get') bounds.options = withOptions({ onNotFound: 'returnNotFound' });
	if (operation === 'search') {
		bounds.options = withOptions({ includePagingInfo: true });
		bounds.filters = (value) => (run.filters = value);
	}
	if (operation === 'stream' || operation === 'compare') bounds.filters = withoutEmptyDomains;
	if (operation === 'bulk') {
		bounds.options = withOptions({ includeNotFound: true });
		bounds.domains = (value) => {
			const names = splitDomainList(value);
			run.namesLeft = names.slice(TOOL_MAX_RECORDS);
			return names.slice(0, TOOL_MAX_RECORDS);
		};
	}
	return bounds;
}

/** Filters without a Domains filter that names nothing: the model left it empty to mean every domain. */
function withoutEmptyDomains(value: unknown): unknown {
	const filters = value as IDataObject | undefined;
	if (!filters || typeof filters !== 'object' || !('domains' in filters)) return value;
	if (splitDomainList(filters.domains).length > 0) return value;
	const others = { ...filters };
	delete others.domains;
	return others;
}

/** The input items an operation gets: Enrich Items' first TOOL_MAX_RECORDS (one item, one record). */
function boundedItems(operation: string, items: INodeExecutionData[], run: BoundedRun): INodeExecutionData[] {
	if (operation !== 'enrich' || items.length <= TOOL_MAX_RECORDS) return items;
	run.itemsLeft = items.length - TOOL_MAX_RECORDS;
	return items.slice(0, TOOL_MAX_RECORDS);
}

/**
 * The context with bounded parameters; Continue On Fail off, so that a failure reaches the tool layer's words; the
 * hints the operation leaves are kept in `run` (and still shown in the editor). A Proxy rather than an object that
 * lists the context's members: n8n's execute context is a class instance whose members differ between versions (and
 * whose methods need their own `this`); the bounds replace three of them, everything else reaches the real context.
 */
function withBounds(context: IExecuteFunctions, bounds: Record<string, Bound>, run: BoundedRun): IExecuteFunctions {
	const replaced: Record<PropertyKey, unknown> = {
		getNodeParameter: (name: string, ...rest: unknown[]) => {
			const value = (context.getNodeParameter as (...args: unknown[]) => unknown)(name, ...rest);
			return bounds[name] ? bounds[name](value) : value;
		},
		continueOnFail: () => false,
		addExecutionHints: (...hints: Array<{ message: string }>) => {
			run.hints.push(...hints.map((hint) => hint.message));
			if (typeof context.addExecutionHints === 'function') context.addExecutionHints(...hints);
		},
	};
	return new Proxy(context, {
		get(target, property) {
			if (property in replaced) return replaced[property];
			const value: unknown = Reflect.get(target, property, target);
			return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
		},
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
		// Where Enrich Items puts the domain data, for the answer's compact records (item 0's, as the bound reads it).
		if (operation === 'enrich') run.destinationField = String(this.getNodeParameter('destinationField', 0, '')).trim();
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
