/**
 * Workflows with an AI agent or an MCP Server Trigger, for the tests, the demo and the bench: n8n's AI Agent at
 * the installed n8n's default version, n8n's OpenAI Chat Model pointed at the stand-in model (server.ts), and
 * tools on the agent's `ai_tool` input.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { NODE_TYPES } from '../n8n/package';
import { n8nInstallDir } from '../n8n/paths';
import { domainData, manualTrigger, node, type CredentialRef, type WorkflowNode } from '../n8n/workflows';
import { STAND_IN_MODEL } from './server';

export const DOMAIN_DATA_TOOL = `${NODE_TYPES.domainData}Tool`;
const LANGCHAIN = '@n8n/n8n-nodes-langchain';

/** The OpenAI credential of the stand-in model: any key, the Base URL of the running stand-in. */
export function modelCredential(ref: CredentialRef, modelUrl: string) {
	return { ...ref, type: 'openAiApi', data: { apiKey: 'stand-in-needs-no-key', url: modelUrl } };
}

/** The version n8n gives a new node of this type (the node's `defaultVersion`, read from the installed n8n). */
export function defaultNodeVersion(n8nVersion: string, nodeFile: string): number {
	const file = join(n8nInstallDir(n8nVersion), 'node_modules', LANGCHAIN, 'dist', 'nodes', nodeFile);
	const found = /defaultVersion:\s*([\d.]+)/.exec(readFileSync(file, 'utf8'));
	if (!found) throw new Error(`no defaultVersion in ${file}`);
	return Number(found[1]);
}

/** n8n's OpenAI Chat Model (1.3) on Chat Completions, which the stand-in speaks (1.3 defaults to the Responses API). */
export function chatModel(credential: CredentialRef, name = 'OpenAI Chat Model'): WorkflowNode {
	return node(
		name,
		`${LANGCHAIN}.lmChatOpenAi`,
		1.3,
		{
			model: { __rl: true, mode: 'list', value: STAND_IN_MODEL },
			responsesApiEnabled: false,
			options: {},
		},
		{ credentials: { openAiApi: { id: credential.id, name: credential.name } } },
	);
}

/** The Domain Data node as a tool (its description on "Set Automatically" unless `parameters` set one). */
export function domainDataTool(
	name: string,
	parameters: Record<string, unknown>,
	credential: CredentialRef,
): WorkflowNode {
	return { ...domainData(name, parameters, credential), type: DOMAIN_DATA_TOOL };
}

/** `$fromAI(key, description, type)`, for use inside an expression: the model fills it. */
export function fromAIValue(key: string, description: string, type = 'string'): string {
	return `$fromAI('${key}', ${JSON.stringify(description)}, '${type}')`;
}

/** A parameter whose whole value the model fills. */
export function fromAI(key: string, description: string, type = 'string'): string {
	return `={{ ${fromAIValue(key, description, type)} }}`;
}

/** Manual Trigger → AI Agent asking `question`, with the model and the tools attached. */
export function agentWorkflow(options: {
	n8nVersion: string;
	question: string;
	model: CredentialRef;
	tools: WorkflowNode[];
	systemMessage?: string;
}) {
	const agent = node(
		'AI Agent',
		`${LANGCHAIN}.agent`,
		defaultNodeVersion(options.n8nVersion, 'agents/Agent/Agent.node.js'),
		{
			promptType: 'define',
			text: options.question,
			options: options.systemMessage ? { systemMessage: options.systemMessage } : {},
		},
	);
	const model = chatModel(options.model);
	const start = manualTrigger();
	start.position = [0, 0];
	agent.position = [240, 0];
	model.position = [160, 220];
	options.tools.forEach((tool, index) => (tool.position = [320 + 160 * index, 220]));
	const toAgent = (type: string) => [[{ node: agent.name, type, index: 0 }]];
	const connections: Record<string, unknown> = {
		[start.name]: { main: toAgent('main') },
		[model.name]: { ai_languageModel: toAgent('ai_languageModel') },
	};
	for (const tool of options.tools) connections[tool.name] = { ai_tool: toAgent('ai_tool') };
	return { nodes: [start, agent, model, ...options.tools], connections };
}

/** n8n's MCP Server Trigger at `/mcp/<path>` with the tools attached (no authentication: tests on 127.0.0.1 only). */
export function mcpWorkflow(path: string, tools: WorkflowNode[]) {
	const trigger = node(
		'MCP Server Trigger',
		`${LANGCHAIN}.mcpTrigger`,
		2,
		{ path, authentication: 'none' },
		{ webhookId: path },
	);
	tools.forEach((tool, index) => (tool.position = [160 * index, 220]));
	const connections: Record<string, unknown> = {};
	for (const tool of tools) connections[tool.name] = { ai_tool: [[{ node: trigger.name, type: 'ai_tool', index: 0 }]] };
	return { nodes: [trigger, ...tools], connections };
}
