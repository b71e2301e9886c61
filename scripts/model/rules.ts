/**
 * How the stand-in model decides, by plain rules (deterministic, no network): a question without tool results
 * gets one tool call, whose arguments are read from the question by the names and descriptions of the tool's
 * parameters; once tools have answered, the reply is built from what they returned. The reply quotes the tool's
 * data (its summary, names, titles, languages, technologies, errors), so tests and the demo can see that the
 * answer comes from the tool.
 */

/** A chat message as OpenAI's Chat Completions API carries it. */
export interface ChatMessage {
	role: 'system' | 'user' | 'assistant' | 'tool' | string;
	content?: string | Array<{ type: string; text?: string }> | null;
	tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
	tool_call_id?: string;
}

export interface ChatTool {
	type: 'function';
	function: { name: string; description?: string; parameters?: JsonSchema };
}

interface JsonSchema {
	type?: string | string[];
	description?: string;
	properties?: Record<string, JsonSchema>;
}

export type Reply = { content: string } | { toolCall: { name: string; arguments: Record<string, unknown> } };

export function textOf(message: ChatMessage | undefined): string {
	const content = message?.content;
	if (typeof content === 'string') return content;
	return (content ?? []).map((part) => part.text ?? '').join('');
}

const DOMAIN = /\b(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:[a-z]{2,}|xn--[a-z0-9-]+)\b/gi;
const LANGUAGES: Record<string, string> = {
	english: 'en',
	german: 'de',
	french: 'fr',
	spanish: 'es',
	italian: 'it',
	dutch: 'nl',
	portuguese: 'pt',
	japanese: 'ja',
	chinese: 'zh',
	korean: 'ko',
	russian: 'ru',
	polish: 'pl',
	swedish: 'sv',
	turkish: 'tr',
};

const words = (text: string) => new Set(text.toLowerCase().match(/[a-z]+/g) ?? []);

/** The tool whose name the question names, else the one whose name and description share most words with it. */
function chooseTool(question: string, tools: ChatTool[]): ChatTool {
	const named = tools.find((tool) => question.includes(tool.function.name));
	if (named) return named;
	const asked = words(question);
	const score = (tool: ChatTool) =>
		[...words(`${tool.function.name} ${tool.function.description ?? ''}`)].filter((w) => asked.has(w)).length;
	return tools.reduce((best, tool) => (score(tool) > score(best) ? tool : best));
}

/** Search filters read from the question: a language, a technology ("using X", "runs X"), a category, a top-N. */
function filtersFrom(question: string): Record<string, unknown> {
	const filters: Record<string, unknown> = {};
	for (const [name, code] of Object.entries(LANGUAGES))
		if (new RegExp(`\\b${name}\\b`, 'i').test(question)) filters.language = code;
	const technology = /\b(?:using|uses|use|runs?|on|built with)\s+([A-Z][\w+-]*(?:\.[\w+-]+)*)/.exec(question);
	if (technology) filters.technology = technology[1];
	const category = /(\/[A-Z][^,?.]*)/.exec(question);
	if (category) filters.category = category[1].trim();
	const top = /\btop\s+([\d,]+)/i.exec(question);
	if (top) filters.maxRank = Number(top[1].replace(/,/g, ''));
	return filters;
}

function argumentFor(key: string, schema: JsonSchema, question: string): unknown {
	const about = `${key} ${schema.description ?? ''}`.toLowerCase();
	const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
	const domains = question.match(DOMAIN) ?? [];
	const filters = filtersFrom(question);
	if (key in filters) return filters[key];
	if (/filter|json/.test(about)) return type === 'object' ? filters : JSON.stringify(filters);
	if (/label|date|snapshot|dataset/.test(about)) return /\b\d{4}-\d{2}-\d{2}\b/.exec(question)?.[0] ?? 'latest';
	if (/domains|names|list/.test(about)) return type === 'array' ? domains : domains.join(', ');
	if (/domain|url|website|site|email/.test(about)) return domains[0] ?? question;
	if (type === 'number' || type === 'integer') return Number(/\b\d+\b/.exec(question.replace(DOMAIN, ''))?.[0] ?? 10);
	if (type === 'boolean') return false;
	return question;
}

/** A short line for one record of a tool answer: name, title, language, country, technologies, or a change. */
function describeRecord(record: Record<string, unknown>): string {
	if (record.found === false) return `${String(record.name)}: not in the index`;
	if (record.change) return `${String(record.change)} ${String(record.name)}`;
	if (record.label && !record.name) return String(record.label);
	const language = record.language ?? record.language_code;
	const facts = [
		language && `language ${String(language)}`,
		record.country_code && `country ${String(record.country_code)}`,
	]
		.filter(Boolean)
		.join(', ');
	const technologies =
		Array.isArray(record.technologies) && record.technologies.length ? `; runs ${record.technologies.join(', ')}` : '';
	return `${String(record.name)}: "${String(record.title ?? '')}"${facts ? ` (${facts})` : ''}${technologies}`;
}

/** What one tool answered, in words: its error, its summary and the first records, or its one record. */
function describeResult(content: string): string {
	let items: unknown;
	try {
		items = JSON.parse(content);
	} catch {
		return content;
	}
	const answers = (Array.isArray(items) ? items : [items]) as Array<Record<string, unknown>>;
	return answers
		.map((answer) => {
			if (typeof answer !== 'object' || answer === null) return String(answer);
			if (answer.error) return `The tool reported a problem: ${String(answer.error)}`;
			const list = Object.values(answer).find((value) => Array.isArray(value)) as
				Array<Record<string, unknown>> | undefined;
			if (!answer.summary || !list) return describeRecord(answer);
			const shown = list.slice(0, 5).map(describeRecord);
			return `${String(answer.summary)}${shown.length ? `\n- ${shown.join('\n- ')}` : ''}`;
		})
		.join('\n');
}

/** The reply to a conversation (`tools` may be empty: then the model answers at once). */
export function decide(messages: ChatMessage[], tools: ChatTool[]): Reply {
	const lastUser = messages.map((message) => message.role).lastIndexOf('user');
	const question = textOf(messages[lastUser]);
	const results = messages.slice(lastUser + 1).filter((message) => message.role === 'tool');
	if (results.length > 0)
		return { content: `Here is what I found.\n${results.map((result) => describeResult(textOf(result))).join('\n')}` };
	if (tools.length === 0) return { content: `I have no tool to look that up: ${question}` };
	const tool = chooseTool(question, tools);
	const properties = tool.function.parameters?.properties ?? {};
	const args = Object.fromEntries(
		Object.entries(properties).map(([key, schema]) => [key, argumentFor(key, schema, question)]),
	);
	return { toolCall: { name: tool.function.name, arguments: args } };
}
