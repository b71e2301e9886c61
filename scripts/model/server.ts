/**
 * The stand-in chat model: a small OpenAI-compatible server on 127.0.0.1 for the tests, the demo and the bench.
 * It speaks Chat Completions (`POST /v1/chat/completions`, plain JSON and `stream: true` server-sent events) and
 * lists one model (`GET /v1/models`, for the editor's model dropdown); it decides by the rules of rules.ts, needs
 * no key and no network, and records every request it was sent (what a model receives: tool descriptions,
 * parameter schemas, tool answers).
 *
 * n8n's OpenAI Chat Model node points at it through its credential's Base URL (`<url>`, which ends in /v1).
 * From version 1.3 that node defaults to OpenAI's Responses API (`/v1/responses`), which the stand-in does not
 * speak: use version 1.2, or turn "Use Responses API" off (the examples do).
 *
 *   const model = await startModel();   // model.url = http://127.0.0.1:<port>/v1
 *   model.requests                       // every chat request, oldest first
 *   await model.close();
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { decide, textOf, type ChatMessage, type ChatTool, type Reply } from './rules';

export const STAND_IN_MODEL = 'stand-in';

export interface ModelRequest {
	messages: ChatMessage[];
	tools: ChatTool[];
	stream: boolean;
	/** The question of the conversation (its last user message). */
	question: string;
	reply: Reply;
}

export interface StandInModel {
	/** The Base URL for n8n's OpenAI credential: `http://127.0.0.1:<port>/v1`. */
	url: string;
	port: number;
	requests: ModelRequest[];
	close(): Promise<void>;
}

let callCounter = 0;

function completion(model: string, reply: Reply) {
	const message =
		'content' in reply
			? { role: 'assistant', content: reply.content }
			: {
					role: 'assistant',
					content: null,
					tool_calls: [
						{
							id: `call_${++callCounter}`,
							type: 'function',
							function: { name: reply.toolCall.name, arguments: JSON.stringify(reply.toolCall.arguments) },
						},
					],
				};
	return {
		id: `chatcmpl-${callCounter}-${Date.now()}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model,
		choices: [{ index: 0, message, logprobs: null, finish_reason: 'content' in reply ? 'stop' : 'tool_calls' }],
		usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
	};
}

/** The same reply as server-sent events, in the chunks OpenAI sends: role, content or tool call, finish, usage. */
function sendStream(response: ServerResponse, body: ReturnType<typeof completion>, withUsage: boolean): void {
	response.writeHead(200, {
		'content-type': 'text/event-stream',
		'cache-control': 'no-cache',
		connection: 'keep-alive',
	});
	const { message, finish_reason } = body.choices[0];
	const chunk = (delta: object, finish: string | null = null) => ({
		id: body.id,
		object: 'chat.completion.chunk',
		created: body.created,
		model: body.model,
		choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
	});
	const events: object[] = [chunk({ role: 'assistant', content: '' })];
	if (message.content)
		for (const piece of message.content.match(/\S+\s*/g) ?? []) events.push(chunk({ content: piece }));
	const call = message.tool_calls?.[0];
	if (call) {
		events.push(
			chunk({
				tool_calls: [
					{ index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
				],
			}),
		);
		events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: call.function.arguments } }] }));
	}
	events.push(chunk({}, finish_reason));
	if (withUsage) events.push({ ...chunk({}), choices: [], usage: body.usage });
	for (const event of events) response.write(`data: ${JSON.stringify(event)}\n\n`);
	response.end('data: [DONE]\n\n');
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
	response.writeHead(status, { 'content-type': 'application/json' });
	response.end(JSON.stringify(body));
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
}

export async function startModel(options: { port?: number; host?: string } = {}): Promise<StandInModel> {
	const requests: ModelRequest[] = [];
	const server = createServer((request, response) => {
		const path = (request.url ?? '').split('?')[0].replace(/\/+$/, '');
		if (request.method === 'GET' && path === '/v1/models') {
			return sendJson(response, 200, {
				object: 'list',
				data: [{ id: STAND_IN_MODEL, object: 'model', created: 0, owned_by: 'n8n-nodes-domain-data' }],
			});
		}
		if (request.method !== 'POST' || path !== '/v1/chat/completions') {
			const hint =
				path === '/v1/responses'
					? ': the stand-in speaks Chat Completions only; turn "Use Responses API" off in the OpenAI Chat Model node'
					: '';
			return sendJson(response, 404, {
				error: { message: `${request.method} ${path} is not served${hint}`, type: 'invalid_request_error' },
			});
		}
		readJson(request)
			.then((body) => {
				const messages = (body.messages ?? []) as ChatMessage[];
				const tools = (body.tools ?? []) as ChatTool[];
				const reply = decide(messages, tools);
				const stream = body.stream === true;
				const lastUser = messages.map((message) => message.role).lastIndexOf('user');
				requests.push({ messages, tools, stream, question: textOf(messages[lastUser]), reply });
				const answer = completion(String(body.model ?? STAND_IN_MODEL), reply);
				if (!stream) return sendJson(response, 200, answer);
				sendStream(
					response,
					answer,
					(body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true,
				);
			})
			.catch((error: Error) =>
				sendJson(response, 400, { error: { message: error.message, type: 'invalid_request_error' } }),
			);
	});
	const host = options.host ?? '127.0.0.1';
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, host, resolve);
	});
	const port = (server.address() as AddressInfo).port;
	return {
		url: `http://${host}:${port}/v1`,
		port,
		requests,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/** The tool answers a conversation carried (the `tool` messages after its question), as the model received them. */
export function toolAnswers(request: ModelRequest): string[] {
	const lastUser = request.messages.map((message) => message.role).lastIndexOf('user');
	return request.messages
		.slice(lastUser + 1)
		.filter((message) => message.role === 'tool')
		.map(textOf);
}
