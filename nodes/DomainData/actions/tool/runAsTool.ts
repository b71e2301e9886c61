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
import { toolAnswer, type RecordsMode } from './answer';
import { boundedParameters, type BoundedRun, TOOL_MAX_RECORDS, withBounds } from './bounds';

const MAX_ERROR_CHARS = 600;
/** Where the model cannot help (key, credits, plan) it is told to tell the user. */
const HELP_BY_STATUS: Record<string, string> = {
	'401':
		'Calling again will not help: tell the user that the API key of the Domain Data credential in n8n must be fixed.',
	'402': 'Calling again will not help until the credits renew: tell the user.',
	'403': 'Calling again will not help: tell the user that the Domain Data plan lacks this feature.',
};
const UNAVAILABLE = 'The service is down or overloaded right now: try again in a few minutes, or tell the user.';

/** Outputs that would answer with a file or run a sub-workflow: a tool answers with data instead. */
const OUTPUTS_REFUSED: Record<string, string> = { file: 'an NDJSON file', subWorkflow: 'a sub-workflow' };

/** n8n gives the tool version of a node the type `<package>.<name>Tool`. */
export function isToolRun(context: IExecuteFunctions): boolean {
	return context.getNode().type.endsWith('Tool');
}

/** A failed call in words a model can act on: what failed and what would help; never the API key (`secret`). */
function toolErrorText(error: unknown, secret: string | undefined): string {
	const { message, description, httpCode } = (error ?? {}) as Record<string, unknown>;
	const what = typeof message === 'string' && message ? message.replace(/\.$/, '') : 'The Domain Data tool failed';
	const help =
		HELP_BY_STATUS[String(httpCode)] ??
		(isTransientError(error) ? UNAVAILABLE : typeof description === 'string' ? description : '');
	const text = redact(help ? `${what}. ${help}` : `${what}.`, secret);
	return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text;
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
	try {
		refuseOutput.call(this, operation);
		const run: BoundedRun = { namesLeft: [] };
		const output = await execute.call(withBounds(this, boundedParameters(operation, run)), items);
		const records = output.map((item) => item.json);
		const mode = this.getNodeParameter('toolRecords', 0, 'full') as RecordsMode;
		return [{ json: toolAnswer(operation, records, mode, run), pairedItem }];
	} catch (error) {
		if (this.getNode().onError === 'stopWorkflow') throw asNodeError(this.getNode(), error);
		const text = toolErrorText(error, await credentialSecret.call(this).catch(() => undefined));
		// An agent's tool call (run by n8n's engine) carries its id in the input.
		if (items.some((item) => item.json.toolCallId !== undefined)) return [{ json: { error: text }, pairedItem }];
		throw operationError(this.getNode(), text);
	}
}
