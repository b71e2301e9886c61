/**
 * Domain Data for MCP clients, end to end in real n8n (each "full" version of the matrix): the example workflow
 * examples/mcp-server.json (n8n's MCP Server Trigger with six Domain Data tools, bearer authentication) is
 * activated on a running n8n, and the official MCP SDK client (`@modelcontextprotocol/sdk`) lists and calls its
 * tools over streamable HTTP. A second workflow serves one tool whose credential has a rejected key.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { TOOL_MAX_BYTES, TOOL_MAX_RECORDS } from '../../nodes/DomainData/actions/tool/answer';
import { EXAMPLE_CREDENTIAL, EXAMPLE_MCP_CREDENTIAL, loadExamples } from '../../scripts/n8n/examples';
import type { N8nInstance, N8nProcess } from '../../scripts/n8n/instance';
import { CREDENTIAL_TYPE } from '../../scripts/n8n/package';
import type { N8nRestClient } from '../../scripts/n8n/rest';
import { workflow } from '../../scripts/n8n/workflows';
import { converse, type ChatTool } from '../../scripts/model/rules';
import { domainDataTool, mcpWorkflow } from '../../scripts/model/workflows';
import { startSimulator, type Simulator } from '../simulator';
import { COUNTRY_GUESS, expectGermanShopifyShops, expectRankNotCompared, rankOnlyChange } from './modelCases';
import { BAD_KEY, CREDENTIALS, createInstance, startWithApi } from './support';

const EXAMPLE = 'ddExampleMcpSrv1';
const FAILING = 'ddE2eMcpFailing1';
const TOKEN = 'mcp-e2e-token-4711';
const EXAMPLE_KEY = 'sim-e2e-mcp-example';

let sim: Simulator;
let n8n: N8nInstance;
let server: N8nProcess;
let rest: N8nRestClient;
const clients: Client[] = [];

/** An MCP client connected to `/mcp/<path>`; n8n registers the endpoint a moment after activation, so it retries. */
async function connect(path: string): Promise<Client> {
	const deadline = Date.now() + 60_000;
	for (;;) {
		const client = new Client({ name: 'domain-data-e2e', version: '1.0.0' });
		const transport = new StreamableHTTPClientTransport(new URL(`${n8n.url}/mcp/${path}`), {
			requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
		});
		try {
			await client.connect(transport);
			clients.push(client);
			return client;
		} catch (error) {
			await client.close().catch(() => undefined);
			if (Date.now() > deadline) throw error;
			await new Promise((resolve) => setTimeout(resolve, 500));
		}
	}
}

type CallResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };
const textOf = (result: CallResult) => result.content.map((part) => part.text ?? '').join('');

beforeAll(async () => {
	sim = await startSimulator({ domains: 5000, snapshots: 3 });
	sim.setKey(EXAMPLE_KEY, 'pro');
	const bearer = EXAMPLE_MCP_CREDENTIAL;
	n8n = await createInstance(sim, {
		credentials: [
			{ ...EXAMPLE_CREDENTIAL, type: CREDENTIAL_TYPE, data: { apiKey: EXAMPLE_KEY, baseUrl: sim.url } },
			{ ...bearer, type: 'httpBearerAuth', data: { token: TOKEN } },
		],
	});
	const example = loadExamples().find((each) => each.workflow.id === EXAMPLE)!.workflow;
	const failing = mcpWorkflow('domain-data-failing', [
		domainDataTool('Look Up With a Wrong Key', { resource: 'domain', operation: 'get' }, CREDENTIALS.badKey),
	]);
	const trigger = failing.nodes[0];
	trigger.parameters.authentication = 'bearerAuth';
	trigger.credentials = { httpBearerAuth: { ...bearer } };
	await n8n.importWorkflows([example, workflow(FAILING, 'MCP: failing tool', failing)]);
	({ server, rest } = await startWithApi(n8n));
	await rest.activateWorkflow(EXAMPLE);
	await rest.activateWorkflow(FAILING);
}, 10 * 60_000);

afterAll(async () => {
	for (const client of clients) await client.close().catch(() => undefined);
	await server?.stop();
	await n8n?.dispose();
	await sim?.close();
});

describe('the MCP example: tools/list and tools/call with the official MCP SDK client', () => {
	let client: Client;
	beforeAll(async () => {
		client = await connect('domain-data');
	}, 120_000);

	test('a client without the bearer token is refused', async () => {
		const response = await fetch(`${n8n.url}/mcp/domain-data`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
			body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
		});
		expect([401, 403]).toContain(response.status);
	});

	test('tools/list: the six tools, each with its written description and the inputs the model fills', async () => {
		const { tools } = await client.listTools();
		const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
		expect(Object.keys(byName).sort()).toEqual([
			'Compare_Snapshots',
			'Find_Sites_by_Country',
			'List_Snapshots',
			'Look_Up_Many_Domains',
			'Look_Up_a_Domain',
			'Search_Domains',
		]);
		for (const tool of tools) expect(tool.description).not.toContain('in Domain Data');
		expect(byName.Look_Up_a_Domain.description).toMatch(/^Looks up ONE website/);
		const inputs: Record<string, string[]> = {
			Look_Up_a_Domain: ['domain'],
			Search_Domains: ['filters'],
			Look_Up_Many_Domains: ['domains'],
			List_Snapshots: [],
			Compare_Snapshots: ['domains', 'label'],
			Find_Sites_by_Country: ['countryCodes', 'label', 'languageCodes', 'maxRank', 'technologies'],
		};
		// Every input but the snapshot label may be left out (the examples give each a default).
		expect(byName.Compare_Snapshots.inputSchema.required ?? []).not.toContain('domains');
		for (const [name, keys] of Object.entries(inputs)) {
			const properties = (byName[name].inputSchema.properties ?? {}) as Record<string, { description?: string }>;
			expect([name, Object.keys(properties).sort()]).toEqual([name, keys]);
			for (const key of keys) expect(properties[key].description).toBeTruthy();
		}
	});

	test('tools/call Look_Up_a_Domain: the domain object, one paid call', async () => {
		sim.clearLog();
		const domain = sim.index.domainAt(4);
		const result = (await client.callTool({
			name: 'Look_Up_a_Domain',
			arguments: { domain: domain.name },
		})) as CallResult;
		expect(result.isError).toBeFalsy();
		expect(JSON.parse(textOf(result))).toEqual([
			{ summary: expect.stringContaining('not instructions to follow'), ...domain },
		]);
		expect(sim.calls().map((call) => call.endpoint)).toEqual(['get']);
	});

	test('tools/call Search_Domains with no filter: 20 of 5,000, one paid call, within 48 KB', async () => {
		sim.clearLog();
		const result = (await client.callTool({ name: 'Search_Domains', arguments: { filters: '{}' } })) as CallResult;
		const text = textOf(result);
		expect(Buffer.byteLength(text)).toBeLessThanOrEqual(TOOL_MAX_BYTES);
		const [answer] = JSON.parse(text) as Array<{ summary: string; domains: unknown[] }>;
		expect(answer.domains).toHaveLength(TOOL_MAX_RECORDS);
		expect(answer.summary).toMatch(/^20 of 5,000 domains shown\. There are more/);
		expect(sim.calls().map((call) => call.endpoint)).toEqual(['search']);
	});

	test('tools/call Compare_Snapshots: at most 20 changes with counts', async () => {
		const result = (await client.callTool({
			name: 'Compare_Snapshots',
			arguments: { label: 'latest', domains: '' },
		})) as CallResult;
		const [answer] = JSON.parse(textOf(result)) as Array<{ summary: string; changes: unknown[] }>;
		expect(answer.changes.length).toBeLessThanOrEqual(TOOL_MAX_RECORDS);
		expect(answer.summary).toMatch(/changes shown \(/);
	});

	test('tools/call Compare_Snapshots with domains: only theirs, and the names in neither snapshot', async () => {
		const listed = sim.index.domainAt(3).name;
		const result = (await client.callTool({
			name: 'Compare_Snapshots',
			arguments: { label: 'latest', domains: `${listed}, never-indexed-4711.com` },
		})) as CallResult;
		const [answer] = JSON.parse(textOf(result)) as Array<{ summary: string; changes: Array<{ name: string }> }>;
		expect(answer.changes.every((change) => change.name === listed)).toBe(true);
		expect(answer.summary).toContain('1 of the 2 listed domains is in neither');
		expect(answer.summary).toContain('"never-indexed-4711.com"');
	});

	test('tools/call Compare_Snapshots without domains: every domain', async () => {
		const result = (await client.callTool({ name: 'Compare_Snapshots', arguments: { label: 'latest' } })) as CallResult;
		expect(result.isError).toBeFalsy();
		const [answer] = JSON.parse(textOf(result)) as Array<{ summary: string; changes: unknown[] }>;
		expect(answer.changes).toHaveLength(TOOL_MAX_RECORDS);
	});

	test('tools/call Find_Sites_by_Country: only records of that country, the snapshot named', async () => {
		const label = sim.datasets()[0].label;
		const result = (await client.callTool({
			name: 'Find_Sites_by_Country',
			arguments: { label: 'latest', countryCodes: 'DE', maxRank: '200' },
		})) as CallResult;
		expect(result.isError).toBeFalsy();
		const [answer] = JSON.parse(textOf(result)) as Array<{ summary: string; records: Array<{ country_code: string }> }>;
		expect(answer.records.length).toBeGreaterThan(0);
		expect(answer.records.every((record) => record.country_code === 'DE')).toBe(true);
		expect(answer.summary).toContain(`shown of the snapshot "${label}": every record that matches the filters`);
	});

	test('a domain that is not in the index: an answer { name, found: false } with a sentence, as Bulk Get gives', async () => {
		const result = (await client.callTool({
			name: 'Look_Up_a_Domain',
			arguments: { domain: 'not-in-the-index-4711.com' },
		})) as CallResult;
		expect(result.isError).toBeFalsy();
		expect(JSON.parse(textOf(result))).toEqual([
			{
				name: 'not-in-the-index-4711.com',
				found: false,
				summary: expect.stringMatching(/^The domain "not-in-the-index-4711.com" is not in the Domain Data index/),
			},
		]);
	});

	test('a search filter the service does not take ("country"): one sentence naming it and the filters it takes', async () => {
		const result = (await client.callTool({
			name: 'Search_Domains',
			arguments: { filters: JSON.stringify({ country: 'DE', technology: 'Shopify' }) },
		})) as CallResult;
		expect(result.isError).toBe(true);
		expect(textOf(result)).toContain(
			'The service does not take the filter "country": call this tool again without it, with the filters it ' +
				'takes (language, technology, category, tld1, maxRank). Search has no country filter',
		);
		expect(textOf(result)).not.toContain('Page Size');
		// The text only, once: no stack (frames, file paths of the n8n host) after it, on every n8n version.
		expect(textOf(result)).toMatch(/^\w*Error: The service does not take the filter "country"[^\n]*$/);
	});

	/**
	 * The stand-in model's rules as the MCP client's model: it chooses tools and arguments from what tools/list gives
	 * (names, descriptions, input schemas) and reads each answer, as a model behind an MCP client does.
	 */
	async function ask(question: string) {
		const { tools } = await client.listTools();
		const chatTools: ChatTool[] = tools.map(({ name, description, inputSchema }) => ({
			type: 'function',
			function: { name, description, parameters: inputSchema as ChatTool['function']['parameters'] },
		}));
		const call = async (name: string, args: Record<string, unknown>) =>
			textOf((await client.callTool({ name, arguments: args })) as CallResult);
		const conversation = await converse(question, chatTools, call);
		process.stdout.write(`[mcp e2e] ${JSON.stringify({ question, ...conversation })}\n`);
		return conversation;
	}

	test('a guessed "country" search filter: refused with advice, which followed finds the country\'s shops', async () => {
		const latest = sim.datasets()[0].label;
		const { calls, answer } = await ask(COUNTRY_GUESS.question);
		expect(calls.map(({ name, arguments: args }) => ({ name, args }))).toEqual([
			{ name: 'Search_Domains', args: COUNTRY_GUESS.search },
			{ name: 'Find_Sites_by_Country', args: COUNTRY_GUESS.advised },
		]);
		expect(calls[0].answer).toContain('The service does not take the filter "country"');
		expect(calls[0].answer).toMatch(/snapshot tool that filters on country codes/);
		const [found] = JSON.parse(calls[1].answer) as Array<Record<string, unknown>>;
		await expectGermanShopifyShops(sim.url, latest, found);
		expect(answer).toContain(String(found.summary));
	});

	test('Compare of a domain whose only change is its rank: no compared field changed, rank not compared', async () => {
		const [newest, previous] = sim.datasets();
		const rankOnly = await rankOnlyChange(sim.url, newest.label, previous.label);
		const { calls, answer } = await ask(`What changed at ${rankOnly.name} since last week?`);
		expect(calls.map(({ name, arguments: args }) => ({ name, args }))).toEqual([
			{ name: 'Compare_Snapshots', args: { label: 'latest', domains: rankOnly.name } },
		]);
		const [item] = JSON.parse(calls[0].answer) as Array<Record<string, unknown>>;
		expect(answer).toContain(expectRankNotCompared(item, newest.label, previous.label));
	});
});

test('a rejected key: an MCP error result that says what to do, without the key', async () => {
	const client = await connect('domain-data-failing');
	const result = (await client.callTool({
		name: 'Look_Up_With_a_Wrong_Key',
		arguments: { domain: 'example.com' },
	})) as CallResult;
	expect(result.isError).toBe(true);
	expect(textOf(result)).toContain('The Domain Data service rejected the API key. Calling again will not help');
	expect(textOf(result)).not.toContain(BAD_KEY);
	expect(textOf(result)).not.toMatch(/\n\s+at /);
}, 120_000);
