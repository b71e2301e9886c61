/**
 * How the stand-in model decides, by plain rules (deterministic, no network; listed at ruleFor and in
 * docs/agents.md): a question without tool results gets one tool call, to the tool of the kind its rule names
 * (the kind read from the tool's input and words: kindOf), with arguments read from the question; a question no
 * rule fits gets a plain "no rule" answer and no call. Once tools have answered, the reply is built from what they
 * returned: it quotes the tool's data (its summary, names, titles, languages, technologies, errors), so tests and
 * the demo can see that the answer comes from the tool, and it says that a stand-in wrote it. One answer is acted on
 * instead: a search refused for its country filter, whose advice names a snapshot tool by country codes that is
 * attached (followAdvice).
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

/**
 * Countries a question may name, as the ISO 3166-1 codes a snapshot's records hold (country_code): the search has no
 * country filter, and a language is not a country, so these go to the snapshot tool (Stream's Country Codes).
 */
const COUNTRIES: Record<string, string> = {
	germany: 'DE',
	austria: 'AT',
	switzerland: 'CH',
	france: 'FR',
	spain: 'ES',
	mexico: 'MX',
	italy: 'IT',
	netherlands: 'NL',
	brazil: 'BR',
	portugal: 'PT',
	japan: 'JP',
	china: 'CN',
	korea: 'KR',
	russia: 'RU',
	poland: 'PL',
	sweden: 'SE',
	turkey: 'TR',
};

/** The operation a tool runs, read from its input (`domain`, `domains`, `filters`, `label`) and its words. */
type ToolKind = 'get' | 'bulk' | 'search' | 'compare' | 'stream' | 'list';

function kindOf(tool: ChatTool): ToolKind | undefined {
	const properties = Object.keys(tool.function.parameters?.properties ?? {});
	const about = `${tool.function.name} ${tool.function.description ?? ''}`.toLowerCase();
	// Compare may take `domains` too (the domains it compares): its snapshot label tells it from Bulk Get.
	if (properties.includes('countryCodes')) return 'stream';
	if (properties.includes('label')) return /compar|chang/.test(about) ? 'compare' : 'stream';
	if (properties.includes('domains')) return 'bulk';
	if (properties.includes('domain')) return 'get';
	if (properties.includes('filters')) return 'search';
	if (/list|snapshots|datasets/.test(about)) return 'list';
	return undefined;
}

/**
 * The rules, in order: the first that fits the question picks the kind of tool.
 * - "what changed", "changes" (and no domain named) → Compare
 * - "what changed at <domain> [and <domain>…] since …" → Compare with those domains (`domains`)
 * - "which snapshots", "snapshots exist", "list … snapshots/datasets" → List
 * - "records of … snapshot", or a country named ("shops in Germany") → Stream (the snapshot tool, by country_code)
 * - two or more domain names → Bulk Get (Get with the first, when there is no Bulk Get)
 * - one domain name → Get
 * - "sites", "websites" or "domains" (with "use X", "<language>", "country XX") → Search with those filters; a
 *   country code ("in country DE") goes as a `country` filter, which the search refuses with advice (followAdvice)
 */
function ruleFor(question: string): ToolKind | undefined {
	const domains = question.match(DOMAIN) ?? [];
	if (domains.length === 0 && /\b(what changed|chang(e|es|ed))\b/i.test(question)) return 'compare';
	if (/\bwhat changed (at|on|for)\b.*\bsince\b/i.test(question)) return 'compare';
	if (
		/\b(which|what) (snapshots|datasets)\b|\b(snapshots|datasets) (exist|are there)|\blist\b.*\b(snapshots|datasets)\b/i.test(
			question,
		)
	)
		return 'list';
	if (domains.length === 0 && /\brecords\b.*\bsnapshot\b/i.test(question)) return 'stream';
	if (domains.length === 0 && Object.keys(countriesIn(question)).length > 0) return 'stream';
	if (domains.length > 1) return 'bulk';
	if (domains.length === 1) return 'get';
	if (/\b(web)?sites?\b|\bdomains\b/i.test(question)) return 'search';
	return undefined;
}

export const NO_RULE =
	"I am the demo's stand-in model: I follow a few fixed rules, and none fits this question. I can look up one " +
	'domain ("What does example.com run on?"), several ("Compare a.com and b.org"), search by language, technology, ' +
	'category and rank ("Find German websites that use Shopify": German-language websites, of any country), find ' +
	'websites of a country in a snapshot by its country code ("Find German Shopify shops ranked under 10,000", ' +
	'"Which sites in France run on WordPress?"), say what changed ("What changed since last week?", "What changed ' +
	'at acme.com and globex.io since last week?") and which snapshots exist ("Which snapshots exist?"). For other ' +
	'questions, put a real chat model in my place.';

export const STAND_IN_NOTE =
	"(The demo's stand-in model wrote this by fixed rules from the tool's answer; a real chat model would answer in " +
	'its own words.)';

/** Shops of a country ("German shops", "Swiss stores"): businesses are of a country, not of a language. */
const BUSINESS_COUNTRIES: Record<string, string> = { german: 'DE', austrian: 'AT', swiss: 'CH', french: 'FR' };
const BUSINESSES = /\b(shops?|stores?|companies|businesses|retailers)\b/i;

/** The countries a question names, as codes by name. */
function countriesIn(question: string): Record<string, string> {
	const named = Object.entries(COUNTRIES).filter(([name]) => new RegExp(`\\b${name}\\b`, 'i').test(question));
	if (BUSINESSES.test(question))
		named.push(
			...Object.entries(BUSINESS_COUNTRIES).filter(([name]) => new RegExp(`\\b${name}\\b`, 'i').test(question)),
		);
	return Object.fromEntries(named);
}

/** A rank bound read from the question: "top 1000", "ranked under 10,000". */
function maxRankIn(question: string): number | undefined {
	const top = /\b(?:top|under|below|within)\s+([\d,]+)/i.exec(question);
	return top ? Number(top[1].replace(/,/g, '')) : undefined;
}

/** The snapshot tool's filters read from the question (Stream's inputs in the examples): texts, '' when not asked. */
function snapshotFiltersFrom(question: string): Record<string, string> {
	// "Shopify shops": the shop system named before the shops.
	const { technology = /\b([A-Z][\w+-]*)\s+(?:shops?|stores?)\b/.exec(question)?.[1] } = filtersFrom(question);
	const businesses = BUSINESSES.test(question);
	const language = businesses ? undefined : filtersFrom(question).language;
	const rank = maxRankIn(question);
	const codes = [...Object.values(countriesIn(question)), countryCodeIn(question)].filter(Boolean);
	return {
		countryCodes: codes.join(', '),
		languageCodes: typeof language === 'string' ? language : '',
		technologies: typeof technology === 'string' ? technology : '',
		maxRank: rank === undefined ? '' : String(rank),
	};
}

/** A country given by its code ("in country DE", "country code FR"), as a user who knows the codes writes it. */
function countryCodeIn(question: string): string | undefined {
	return /\bcountry(?:\s+code)?\s+([A-Z]{2})\b/.exec(question)?.[1];
}

/**
 * Search filters read from the question: a language, a technology ("using X"), a category, a top-N; and a country
 * code written as such ("country DE"), which is the guess a model makes before the search refuses it.
 */
function filtersFrom(question: string): Record<string, unknown> {
	const country = countryCodeIn(question);
	const filters: Record<string, unknown> = country ? { country } : {};
	for (const [name, code] of Object.entries(LANGUAGES))
		if (new RegExp(`\\b${name}\\b`, 'i').test(question)) filters.language = code;
	const technology =
		/\b(?:using|uses|use|running|runs?(?: on)?|built (?:with|on)|on)\s+([A-Z][\w+-]*(?:\.[\w+-]+)*(?:\s+[A-Z][\w+-]*)*)/.exec(
			question,
		);
	if (technology) filters.technology = technology[1];
	const category = /(\/[A-Z][^,?.]*)/.exec(question);
	if (category) filters.category = category[1].trim();
	const rank = maxRankIn(question);
	if (rank !== undefined) filters.maxRank = rank;
	return filters;
}

function argumentFor(key: string, schema: JsonSchema, question: string): unknown {
	const about = `${key} ${schema.description ?? ''}`.toLowerCase();
	const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
	const domains = question.match(DOMAIN) ?? [];
	const filters = filtersFrom(question);
	const snapshotFilters = snapshotFiltersFrom(question);
	if (key in snapshotFilters) return snapshotFilters[key];
	if (key in filters) return filters[key];
	if (key === 'filters' || /^filter|json object/.test(about))
		return type === 'object' ? filters : JSON.stringify(filters);
	const label = () => /\b\d{4}-\d{2}-\d{2}\b/.exec(question)?.[0] ?? 'latest';
	const names = () => (type === 'array' ? domains : domains.join(', '));
	// The keys first: Compare's `domains` speaks of snapshots, and a `label` may speak of names.
	if (key === 'label') return label();
	if (key === 'domains') return names();
	if (/label|snapshot|dataset/.test(about)) return label();
	if (/domains|names|list/.test(about)) return names();
	if (/domain|url|website|site|email/.test(about)) return domains[0] ?? question;
	if (type === 'number' || type === 'integer') return Number(/\b\d+\b/.exec(question.replace(DOMAIN, ''))?.[0] ?? 10);
	if (type === 'boolean') return false;
	return question;
}

/** A short line for one record of a tool answer: name, title, language, country, technologies, or a change. */
function describeRecord(record: Record<string, unknown>): string {
	if (record.found === false) return `${String(record.name)}: not in the Domain Data index`;
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

/** Where a Domain Data tool answer holds its records (Get's answer holds the record's fields themselves). */
const LIST_KEYS = ['domains', 'records', 'datasets', 'changes'];

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
			const key = LIST_KEYS.find((name) => Array.isArray(answer[name]));
			const list = key ? (answer[key] as Array<Record<string, unknown>>) : undefined;
			if (!answer.summary || !list) return describeRecord(answer);
			const shown = list.slice(0, 5).map(describeRecord);
			return `${String(answer.summary)}${shown.length ? `\n- ${shown.join('\n- ')}` : ''}`;
		})
		.join('\n');
}

/** The error a tool answered with: `[{ error }]` (the AI Agent's tool answer) or plain text (an MCP error result). */
function errorOf(content: string): string | undefined {
	try {
		const answers = [JSON.parse(content) as unknown].flat() as Array<{ error?: unknown } | null>;
		const error = answers.find((answer) => typeof answer?.error === 'string')?.error;
		return typeof error === 'string' ? error : undefined;
	} catch {
		return content;
	}
}

/** The search filters of a tool call: its `filters` input (a JSON text or an object), else its inputs themselves. */
function filtersOfCall(argumentsText: string): Record<string, unknown> {
	try {
		const args = JSON.parse(argumentsText) as Record<string, unknown>;
		const filters = typeof args.filters === 'string' ? (JSON.parse(args.filters) as unknown) : args.filters;
		return typeof filters === 'object' && filters !== null ? (filters as Record<string, unknown>) : args;
	} catch {
		return {};
	}
}

/** Refused search filters as the snapshot tool's inputs (Stream's in the examples): texts, '' when not sent. */
const SNAPSHOT_INPUT_OF: Record<string, string> = {
	country: 'countryCodes',
	language: 'languageCodes',
	technology: 'technologies',
	maxRank: 'maxRank',
};

/**
 * A refusal's advice, followed: the search refuses a country filter and names where records by country come from (a
 * snapshot tool that filters on country codes). When the last tool answer says so, the call it answered sent a
 * country, and such a tool is attached and not called yet, the model calls it with the refused filters as its inputs.
 * Read from the refusal's words as a model reads them: a refusal without that advice gets no second call.
 */
function followAdvice(after: ChatMessage[], tools: ChatTool[]): Reply | undefined {
	const result = after.filter((message) => message.role === 'tool').at(-1);
	const refusal = errorOf(textOf(result));
	if (!refusal || !/\bsnapshot tool\b/i.test(refusal) || !/\bcountry codes?\b/i.test(refusal)) return undefined;
	const calls = after.flatMap((message) => message.tool_calls ?? []);
	const refused = calls.find((call) => call.id === result?.tool_call_id) ?? calls.at(-1);
	const filters = filtersOfCall(refused?.function.arguments ?? '{}');
	const tool = tools.find(
		(candidate) =>
			kindOf(candidate) === 'stream' && 'countryCodes' in (candidate.function.parameters?.properties ?? {}),
	);
	if (!filters.country || !tool || calls.some((call) => call.function.name === tool.function.name)) return undefined;
	const inputs = Object.fromEntries(
		Object.entries(SNAPSHOT_INPUT_OF).map(([filter, input]) => [input, String(filters[filter] ?? '')]),
	);
	const properties = Object.keys(tool.function.parameters?.properties ?? {});
	const args = Object.fromEntries(properties.map((key) => [key, key === 'label' ? 'latest' : (inputs[key] ?? '')]));
	return { toolCall: { name: tool.function.name, arguments: args } };
}

/** The reply to a conversation (`tools` may be empty: then the model answers at once). */
export function decide(messages: ChatMessage[], tools: ChatTool[]): Reply {
	const lastUser = messages.map((message) => message.role).lastIndexOf('user');
	const question = textOf(messages[lastUser]);
	const after = messages.slice(lastUser + 1);
	const results = after.filter((message) => message.role === 'tool');
	const advised = results.length > 0 ? followAdvice(after, tools) : undefined;
	if (advised) return advised;
	if (results.length > 0) {
		const called = after.flatMap((message) => message.tool_calls ?? []).map((call) => call.function.name);
		const from = called.length > 0 ? ` (from ${[...new Set(called)].join(', ')})` : '';
		const found = results.map((result) => describeResult(textOf(result))).join('\n');
		return { content: `Here is what I found${from}.\n${found}\n\n${STAND_IN_NOTE}` };
	}
	if (tools.length === 0) return { content: `I have no tool to look that up: ${question}` };
	const kind = ruleFor(question);
	if (!kind) return { content: NO_RULE };
	const fallback = kind === 'bulk' ? 'get' : undefined;
	const tool =
		tools.find((candidate) => kindOf(candidate) === kind) ??
		tools.find((candidate) => fallback && kindOf(candidate) === fallback) ??
		// A lone tool of another kind (an HTTP Request tool, as the bench attaches) serves every rule.
		(tools.length === 1 && !kindOf(tools[0]) ? tools[0] : undefined);
	if (!tool) {
		return {
			content:
				`My rule for this question calls a Domain Data ${kind} tool, and none is attached to the agent. ` +
				"(I am the demo's stand-in model: I follow fixed rules.)",
		};
	}
	const properties = tool.function.parameters?.properties ?? {};
	const args = Object.fromEntries(
		Object.entries(properties).map(([key, schema]) => [key, argumentFor(key, schema, question)]),
	);
	return { toolCall: { name: tool.function.name, arguments: args } };
}

/** One tool call of a conversation and the text the tool answered. */
export interface CallMade {
	name: string;
	arguments: Record<string, unknown>;
	answer: string;
}

/**
 * A conversation driven by the rules outside n8n, with `call` as the model's hands (an MCP client calling the tools
 * an MCP server lists): the question, then each call the rules make and its answer, until the rules answer in text.
 */
export async function converse(
	question: string,
	tools: ChatTool[],
	call: (name: string, args: Record<string, unknown>) => Promise<string>,
	maxCalls = 4,
): Promise<{ calls: CallMade[]; answer: string }> {
	const messages: ChatMessage[] = [{ role: 'user', content: question }];
	const calls: CallMade[] = [];
	for (;;) {
		const reply = decide(messages, tools);
		if ('content' in reply) return { calls, answer: reply.content };
		if (calls.length === maxCalls) throw new Error(`more than ${maxCalls} tool calls for "${question}"`);
		const { name, arguments: args } = reply.toolCall;
		const id = `call_${calls.length + 1}`;
		const answer = await call(name, args);
		calls.push({ name, arguments: args, answer });
		messages.push(
			{ role: 'assistant', content: null, tool_calls: [{ id, function: { name, arguments: JSON.stringify(args) } }] },
			{ role: 'tool', tool_call_id: id, content: answer },
		);
	}
}
