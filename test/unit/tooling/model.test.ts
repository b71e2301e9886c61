/**
 * The stand-in chat model (scripts/model): OpenAI's Chat Completions over real HTTP, plain and streamed (the
 * streamed chunks add up to the plain answer), tool calls by its rules, answers from tool results, and a log
 * of what it was sent.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { decide, NO_RULE, STAND_IN_NOTE } from '../../../scripts/model/rules';
import { startModel, toolAnswers, type StandInModel } from '../../../scripts/model/server';

let model: StandInModel;
beforeAll(async () => {
	model = await startModel();
});
afterAll(async () => {
	await model.close();
});

const TOOLS = [
	{
		type: 'function',
		function: {
			name: 'Look_Up',
			description: 'Get one website by domain',
			parameters: { type: 'object', properties: { domain: { type: 'string', description: 'The domain' } } },
		},
	},
	{
		type: 'function',
		function: {
			name: 'Search',
			description: 'Search websites by filters',
			parameters: { type: 'object', properties: { filters: { type: 'string', description: 'Filters as JSON' } } },
		},
	},
];

async function chat(body: Record<string, unknown>): Promise<Response> {
	return await fetch(`${model.url}/chat/completions`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ model: 'stand-in', ...body }),
	});
}

/** A message, or a streamed piece of one. */
interface Delta {
	content?: string | null;
	tool_calls?: Array<{ id?: string; function?: { name?: string; arguments?: string } }>;
}

/** The message a streamed answer adds up to. */
async function fromStream(
	response: Response,
): Promise<{ content: string; toolCall?: { name: string; arguments: string }; finish?: string }> {
	const events = (await response.text())
		.split('\n\n')
		.filter(Boolean)
		.map((event) => event.replace(/^data: /, ''));
	expect(events.at(-1)).toBe('[DONE]');
	let content = '';
	let toolCall: { name: string; arguments: string } | undefined;
	let finish: string | undefined;
	for (const event of events.slice(0, -1)) {
		const choice = (JSON.parse(event) as { choices: Array<{ delta: Delta; finish_reason: string | null }> }).choices[0];
		if (!choice) continue;
		content += choice.delta.content ?? '';
		const call = choice.delta.tool_calls?.[0];
		if (call?.function?.name) toolCall = { name: call.function.name, arguments: '' };
		if (call?.function?.arguments && toolCall) toolCall.arguments += call.function.arguments;
		finish = choice.finish_reason ?? finish;
	}
	return { content, toolCall, finish };
}

test('a question: a tool call with arguments read from it, plain and streamed alike', async () => {
	const body = { messages: [{ role: 'user', content: 'What does acme.com run on?' }], tools: TOOLS };
	const plain = (await (await chat(body)).json()) as { choices: Array<{ message: Delta; finish_reason: string }> };
	expect(plain.choices[0].finish_reason).toBe('tool_calls');
	const call = plain.choices[0].message.tool_calls![0];
	expect(call.function).toEqual({ name: 'Look_Up', arguments: JSON.stringify({ domain: 'acme.com' }) });

	const streamed = await chat({ ...body, stream: true, stream_options: { include_usage: true } });
	expect(streamed.headers.get('content-type')).toBe('text/event-stream');
	expect(await fromStream(streamed)).toEqual({ content: '', toolCall: call.function, finish: 'tool_calls' });
	expect(model.requests.map((request) => request.stream)).toEqual([false, true]);
});

test('search filters come from the words of the question', () => {
	const reply = decide([{ role: 'user', content: 'Which German websites are using Shopify?' }], TOOLS as never);
	expect(reply).toEqual({
		toolCall: { name: 'Search', arguments: { filters: '{"language":"de","technology":"Shopify"}' } },
	});
});

test('after the tool answered: text built from its answer, plain and streamed alike', async () => {
	const answer = JSON.stringify([
		{
			summary: '2 of 9 domains shown. There are more.',
			domains: [
				{ name: 'a.de', title: 'A', language: 'de' },
				{ name: 'b.de', title: 'B' },
			],
		},
	]);
	const messages = [
		{ role: 'user', content: 'Which German websites are there?' },
		{
			role: 'assistant',
			content: null,
			tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'Search', arguments: '{}' } }],
		},
		{ role: 'tool', tool_call_id: 'call_1', content: answer },
	];
	const plain = (await (await chat({ messages, tools: TOOLS })).json()) as {
		choices: Array<{ message: { content: string } }>;
	};
	const text = plain.choices[0].message.content;
	expect(text).toBe(
		'Here is what I found (from Search).\n2 of 9 domains shown. There are more.\n- a.de: "A" (language de)\n' +
			`- b.de: "B"\n\n${STAND_IN_NOTE}`,
	);
	expect(await fromStream(await chat({ messages, tools: TOOLS, stream: true }))).toEqual({
		content: text,
		toolCall: undefined,
		finish: 'stop',
	});
	expect(toolAnswers(model.requests.at(-1)!)).toEqual([answer]);
});

test("Get's answer (a summary beside the record's fields): the record in words", () => {
	const answer = { summary: 'Data about a.de.', name: 'a.de', title: 'A', language: 'de', categories: ['/News'] };
	const messages = [
		{ role: 'user', content: 'What does a.de run on?' },
		{ role: 'tool', content: JSON.stringify([{ ...answer, technologies: ['Shopify'] }]) },
	];
	expect(decide(messages, TOOLS as never)).toEqual({
		content: `Here is what I found.\na.de: "A" (language de); runs Shopify\n\n${STAND_IN_NOTE}`,
	});
});

test('an error the tool answered with is passed on', () => {
	const messages = [
		{ role: 'user', content: 'What does x.com run on?' },
		{ role: 'tool', content: JSON.stringify([{ error: 'The key was rejected.' }]) },
	];
	expect(decide(messages, TOOLS as never)).toEqual({
		content: `Here is what I found.\nThe tool reported a problem: The key was rejected.\n\n${STAND_IN_NOTE}`,
	});
});

describe('the rules: which tool for which question', () => {
	const tool = (name: string, description: string, properties: Record<string, string>) => ({
		type: 'function' as const,
		function: {
			name,
			description,
			parameters: {
				type: 'object',
				properties: Object.fromEntries(
					Object.entries(properties).map(([key, about]) => [key, { type: 'string', description: about }]),
				),
			},
		},
	});
	// The example's tools (examples/ai-agent-tool.json), with their descriptions and the input n8n gives each.
	const INPUTS: Record<string, Record<string, string>> = {
		get: { domain: 'The website to look up' },
		bulk: { domains: 'Up to 20 domain names' },
		search: { filters: 'Filters as a JSON object' },
		compare: {
			label: 'The newer snapshot',
			domains: 'The domains to compare: names, URLs or email addresses; the answer names those in neither snapshot',
		},
		list: {},
		stream: {
			label: 'The weekly snapshot to read',
			countryCodes: 'Countries as ISO 3166-1 alpha-2 codes',
			languageCodes: 'Languages as ISO 639-1 codes',
			maxRank: 'Only websites ranked this or better',
			technologies: 'Technologies separated by commas',
		},
	};
	const example = JSON.parse(readFileSync(join(__dirname, '../../../examples/ai-agent-tool.json'), 'utf8')) as {
		nodes: Array<{ name: string; type: string; parameters: Record<string, string> }>;
	};
	const ALL = example.nodes
		.filter((node) => node.type.endsWith('domainDataTool'))
		.map(({ name, parameters }) =>
			tool(name.replace(/ /g, '_'), parameters.toolDescription, INPUTS[parameters.operation]),
		);
	expect(ALL).toHaveLength(6);
	const call = (question: string) => decide([{ role: 'user', content: question }], ALL);

	test.each([
		['What does openreads.com.au run on?', 'Look_Up_a_Domain', { domain: 'openreads.com.au' }],
		['What does not-a-real-domain-xyz.com run on?', 'Look_Up_a_Domain', { domain: 'not-a-real-domain-xyz.com' }],
		[
			'Compare openreads.com.au, omega-bank.ru and alphaherald.com.br.',
			'Look_Up_Many_Domains',
			{ domains: 'openreads.com.au, omega-bank.ru, alphaherald.com.br' },
		],
		[
			'Find German websites that use Shopify',
			'Search_Domains',
			{ filters: '{"language":"de","technology":"Shopify"}' },
		],
		[
			// A country is no language: the snapshot tool finds records by country_code.
			'Which sites in France run on WordPress?',
			'Find_Sites_by_Country',
			{ label: 'latest', countryCodes: 'FR', languageCodes: '', maxRank: '', technologies: 'WordPress' },
		],
		[
			'Find German Shopify shops ranked under 10,000',
			'Find_Sites_by_Country',
			{ label: 'latest', countryCodes: 'DE', languageCodes: '', maxRank: '10000', technologies: 'Shopify' },
		],
		['What changed since last week?', 'Compare_Snapshots', { label: 'latest', domains: '' }],
		[
			'What changed at acme.com and globex.io since last week?',
			'Compare_Snapshots',
			{ label: 'latest', domains: 'acme.com, globex.io' },
		],
		[
			'What changed for acme.com, globex.io and initech.de since the last snapshot?',
			'Compare_Snapshots',
			{ label: 'latest', domains: 'acme.com, globex.io, initech.de' },
		],
		['Which snapshots exist?', 'List_Snapshots', {}],
		[
			// A country code as a search filter: the guess a model makes, which the search refuses with advice.
			'Search for websites in country DE that use Shopify, ranked under 10,000',
			'Search_Domains',
			{ filters: '{"country":"DE","technology":"Shopify","maxRank":10000}' },
		],
	])('%s → %s', (question, name, args) => {
		expect(call(question)).toEqual({ toolCall: { name, arguments: args } });
	});

	describe("a refused country filter: the refusal's advice followed, when it gives one", () => {
		const QUESTION = 'Search for websites in country DE that use Shopify, ranked under 10,000';
		const REFUSAL =
			'The service does not take the filter "country": call this tool again without it, with the filters it ' +
			'takes (language, technology, category, tld1, maxRank). Search has no country filter, and neither ' +
			'language nor tld1 stands for a country; records by country (country_code) come from a Domain Data ' +
			'snapshot tool that filters on country codes, if there is one; else tell the user that this search ' +
			'cannot filter by country.';
		/** The conversation after the guessed search: its call, and the tool's answer `content`. */
		const refused = (content: string, filters = '{"country":"DE","technology":"Shopify","maxRank":10000}') => [
			{ role: 'user', content: QUESTION },
			{
				role: 'assistant',
				content: null,
				tool_calls: [{ id: 'call_1', function: { name: 'Search_Domains', arguments: JSON.stringify({ filters }) } }],
			},
			{ role: 'tool', tool_call_id: 'call_1', content },
		];
		const FIND = {
			label: 'latest',
			countryCodes: 'DE',
			languageCodes: '',
			maxRank: '10000',
			technologies: 'Shopify',
		};

		test("the AI Agent's answer [{ error }] or an MCP error text: the snapshot tool, with the refused filters", () => {
			for (const content of [JSON.stringify([{ error: REFUSAL }]), REFUSAL]) {
				expect(decide(refused(content), ALL)).toEqual({
					toolCall: { name: 'Find_Sites_by_Country', arguments: FIND },
				});
			}
		});

		test('then the answer is built from both answers, the refusal and the records', () => {
			const records = JSON.stringify([{ summary: '1 record shown.', records: [{ name: 'a.de', country_code: 'DE' }] }]);
			const messages = [
				...refused(JSON.stringify([{ error: REFUSAL }])),
				{
					role: 'assistant',
					content: null,
					tool_calls: [{ id: 'call_2', function: { name: 'Find_Sites_by_Country', arguments: '{}' } }],
				},
				{ role: 'tool', tool_call_id: 'call_2', content: records },
			];
			expect(decide(messages, ALL)).toEqual({
				content:
					'Here is what I found (from Search_Domains, Find_Sites_by_Country).\n' +
					`The tool reported a problem: ${REFUSAL}\n1 record shown.\n- a.de: "" (country DE)\n\n${STAND_IN_NOTE}`,
			});
		});

		test('no advice to follow: a refusal without it, a call without a country, or no snapshot tool attached', () => {
			const other = 'The service does not take the filter "city": call this tool again without it.';
			expect(decide(refused(JSON.stringify([{ error: other }])), ALL)).toHaveProperty('content');
			const noCountry = refused(JSON.stringify([{ error: REFUSAL }]), '{"city":"Berlin"}');
			expect(decide(noCountry, ALL)).toHaveProperty('content');
			const withoutFind = ALL.filter((each) => each.function.name !== 'Find_Sites_by_Country');
			expect(decide(refused(REFUSAL), withoutFind)).toHaveProperty('content');
		});
	});

	test('no rule fits: it says so plainly, and calls nothing', () => {
		expect(call('Write me a poem about the sea.')).toEqual({ content: NO_RULE });
		expect(NO_RULE).toContain('stand-in model');
		// What it can do, truly: a country is found by its country code in a snapshot, not by language or tld1.
		expect(NO_RULE).toContain('websites of a country in a snapshot by its country code');
		expect(NO_RULE).toContain('German-language websites, of any country');
		expect(NO_RULE).not.toContain('tld1');
	});

	test('a lone tool the rules do not recognise (an HTTP Request tool) serves the rule', () => {
		const http = tool('HTTP_Request', 'Calls the Domain Data service', { technology: 'e.g. Shopify' });
		expect(decide([{ role: 'user', content: 'List every website using Shopify.' }], [http])).toEqual({
			toolCall: { name: 'HTTP_Request', arguments: { technology: 'Shopify' } },
		});
	});

	test('the rule names a tool the agent lacks: it says so, and calls nothing', () => {
		const reply = decide([{ role: 'user', content: 'Find German websites that use Shopify' }], [ALL[0]]);
		expect(reply).toEqual({
			content: expect.stringContaining('calls a Domain Data search tool, and none is attached'),
		});
	});
});

test('the Responses API is not served, with a hint', async () => {
	const response = await fetch(`${model.url}/responses`, { method: 'POST', body: '{}' });
	expect(response.status).toBe(404);
	expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
		'turn "Use Responses API" off',
	);
	expect((await (await fetch(`${model.url}/models`)).json()) as object).toMatchObject({ data: [{ id: 'stand-in' }] });
});
