/**
 * The Domain Data tool in n8n's AI Agent, end to end in real n8n (each "full" version of the matrix): the agent at
 * the version's default node version, n8n's OpenAI Chat Model with its credential's Base URL at the stand-in model
 * (scripts/model), the tool's parameters filled by the model through `$fromAI`, the simulator as the service.
 *
 * What the model received is read from the stand-in's request log (the tool descriptions, the tool answers and their
 * bytes); the paid calls per answer from the simulator's request log (each workflow has a key of its own). A failing
 * call (rejected key, unknown domain, service down) must reach the model as text without the key, and the run must
 * succeed: n8n 2.8.4 fails the whole run when a tool node throws, so this holds there only because the node answers
 * with the text itself.
 *
 * The AI-agent example (examples/ai-agent-tool.json, six tools) answers the demo's questions, one per rule of the
 * stand-in model: each from the right tool with the right arguments, the answer built from the tool's data.
 */
import type { INodePropertyOptions } from 'n8n-workflow';

import { DomainData } from '../../nodes/DomainData/DomainData.node';
import { TOOL_MAX_BYTES, TOOL_MAX_RECORDS } from '../../nodes/DomainData/actions/tool/answer';
import { EXAMPLE_CREDENTIAL, EXAMPLE_MODEL_CREDENTIAL, loadExamples } from '../../scripts/n8n/examples';
import type { CredentialImport, N8nInstance, WorkflowImport } from '../../scripts/n8n/instance';
import { CREDENTIAL_TYPE } from '../../scripts/n8n/package';
import { freePort } from '../../scripts/n8n/ports';
import type { ExecutionResult } from '../../scripts/n8n/run-data';
import {
	manualTrigger,
	workflow,
	workflowId,
	type CredentialRef,
	type WorkflowNode,
} from '../../scripts/n8n/workflows';
import { STAND_IN_NOTE } from '../../scripts/model/rules';
import { startModel, toolAnswers, type ModelRequest, type StandInModel } from '../../scripts/model/server';
import { agentWorkflow, domainDataTool, fromAI, modelCredential } from '../../scripts/model/workflows';
import { bruteForce, rawSnapshot } from '../harness/bruteForceDiff';
import { startSimulator, type Simulator } from '../simulator';
import {
	COUNTRY_GUESS,
	DEFAULT_COMPARED,
	expectGermanShopifyShops,
	expectRankNotCompared,
	rankOnlyChange,
} from './modelCases';
import { BAD_KEY, CREDENTIALS, createInstance, e2eVersion, ownKeyCredential } from './support';

const DOMAINS = 50_000;
const MODEL_CREDENTIAL = { id: 'ddE2eStandInMdl1', name: 'Stand-in model' };
const log = (line: string) => process.stdout.write(`[agent e2e ${e2eVersion()}] ${line}\n`);

/** One question to the agent, with one Domain Data tool and a credential whose key is its own. */
interface Case {
	question: string;
	tool: Record<string, unknown>;
	/** The tool's credential; default: a pro key of the case's own. */
	credential?: CredentialRef;
}

const description = new DomainData().description;
/** What n8n describes the tool with on "Set Automatically": the action of the tool's operation, "in Domain Data". */
function autoDescription(resource: string, operation: string): string {
	const property = description.properties.find(
		(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource),
	);
	const option = (property?.options as INodePropertyOptions[] | undefined)?.find((o) => o.value === operation);
	return `${option?.action} in Domain Data`;
}

let sim: Simulator;
let model: StandInModel;
let n8n: N8nInstance;
const cases: Record<string, Case & { id: string; key?: string }> = {};
let runs: Map<string, ExecutionResult>;

/** The demo's questions to the AI-agent example: the tool the model must call and its arguments. */
const EXAMPLE_KEY = 'sim-e2e-agent-example';
const EXAMPLE_QUESTIONS: Record<string, { question: string; tool: string; args?: Record<string, unknown> }> = {
	get: {
		question: 'What does openreads.com.au run on?',
		tool: 'Look_Up_a_Domain',
		args: { domain: 'openreads.com.au' },
	},
	search: {
		question: 'Find German websites that use Shopify',
		tool: 'Search_Domains',
		args: { filters: '{"language":"de","technology":"Shopify"}' },
	},
	unknown: {
		question: 'What does not-a-real-domain-xyz.com run on?',
		tool: 'Look_Up_a_Domain',
		args: { domain: 'not-a-real-domain-xyz.com' },
	},
	bulk: { question: '', tool: 'Look_Up_Many_Domains' },
	compare: {
		question: 'What changed since last week?',
		tool: 'Compare_Snapshots',
		args: { label: 'latest', domains: '' },
	},
	// The names are chosen once the simulator runs (a removal, an addition or change, a name never indexed).
	compareDomains: { question: '', tool: 'Compare_Snapshots' },
	// A domain whose rank moved and nothing compared changed, chosen once the simulator runs.
	compareRankOnly: { question: '', tool: 'Compare_Snapshots' },
	list: { question: 'Which snapshots exist?', tool: 'List_Snapshots', args: {} },
	country: {
		question: 'Find German Shopify shops ranked under 10,000',
		tool: 'Find_Sites_by_Country',
		args: { label: 'latest', countryCodes: 'DE', languageCodes: '', technologies: 'Shopify', maxRank: '10000' },
	},
	// The search refuses "country"; the model follows the refusal's advice (the second call is asserted in its test).
	countryGuess: { question: COUNTRY_GUESS.question, tool: 'Search_Domains', args: COUNTRY_GUESS.search },
	noRule: { question: 'Write me a poem about the sea.', tool: '' },
};
/** The domain whose only change is its rank, and its ranks in both snapshots. */
let rankOnly: { name: string; rank: number; baseRank: number };
// n8n execute-batch takes only ids with a digit in them.
const exampleId = (name: string) => workflowId(`agentEx1${name}`);

/** The example with a Manual Trigger in place of its chat trigger, the agent asking `question`. */
function exampleAsking(name: string, question: string): WorkflowImport {
	const example = loadExamples().find(({ file }) => file === 'ai-agent-tool.json')!.workflow;
	const exampleNodes = example.nodes as WorkflowNode[];
	const chat = exampleNodes.find((node) => node.type.endsWith('chatTrigger'))!;
	const start = { ...manualTrigger(), position: chat.position };
	const nodes = exampleNodes.map((node) => {
		if (node === chat) return start;
		if (!node.type.endsWith('.agent')) return node;
		return { ...node, parameters: { ...node.parameters, promptType: 'define', text: question } };
	});
	const connections = { ...example.connections } as Record<string, unknown>;
	connections[start.name] = connections[chat.name];
	delete connections[chat.name];
	return workflow(exampleId(name), `Agent example: ${name}`, { nodes, connections });
}

/** For "what changed at …": a removed name, an added or changed one and one never indexed; their brute-force diff. */
let listedChanges: { names: string[]; expected: Array<Record<string, unknown>> };
async function changesOfListed(label: string, baseLabel: string) {
	const newer = await rawSnapshot(sim.url, label);
	const older = await rawSnapshot(sim.url, baseLabel);
	const labels = { label, baseLabel };
	const all = bruteForce(newer, older, labels, { fields: DEFAULT_COMPARED });
	const removed = all.find((change) => change.change === 'removed')!;
	const other = all.find((change) => change.change !== 'removed')!;
	const names = [String(removed.name), String(other.name), 'never-indexed-4711.com'];
	const expected = all
		.filter((change) => names.includes(String(change.name)))
		.map(({ label: _label, baseLabel: _baseLabel, ...change }) => change);
	return { names, expected };
}

function addCase(name: string, item: Case): void {
	cases[name] = { ...item, id: workflowId(`agent${name}`) };
}

beforeAll(async () => {
	sim = await startSimulator({ domains: DOMAINS, snapshots: 3 });
	model = await startModel();
	const down = await freePort();
	// Most tools leave their main input at its default, which the model fills in the tool ($fromAI with our
	// description, DomainData.node.ts); Search and the rejected key set their own $fromAI, as a user may.
	const get = (options = {}, domain?: string) => ({
		resource: 'domain',
		operation: 'get',
		options,
		...(domain ? { domain } : {}),
	});
	const [first, second, third] = [1, 2, 3].map((rank) => sim.index.domainAt(rank).name);
	addCase('get', { question: `What does ${sim.index.domainAt(7).name} run on?`, tool: get() });
	addCase('search', {
		question: 'List every website of the index.',
		tool: {
			resource: 'domain',
			operation: 'search',
			returnAll: true,
			filters: fromAI('filters', 'Search filters as a JSON object'),
		},
	});
	addCase('bulk', {
		question: `Compare ${first}, ${second} and ${third}.`,
		tool: { resource: 'domain', operation: 'bulk' },
	});
	addCase('list', {
		question: 'Which snapshots of the index exist?',
		tool: { resource: 'dataset', operation: 'list', returnAll: true },
	});
	addCase('compare', {
		question: 'What changed in the latest snapshot?',
		tool: { resource: 'dataset', operation: 'compare', baseLabel: 'previous', returnAll: true },
	});
	addCase('badKey', {
		question: 'What does example.com run on?',
		tool: get({}, fromAI('domain', 'The domain to look up')),
		credential: CREDENTIALS.badKey,
	});
	addCase('unknown', { question: 'What does not-in-the-index-4711.com run on?', tool: get() });
	const downCredential = { id: workflowId('credDown'), name: 'Domain Data (service down)' };
	addCase('down', {
		question: 'What does example.org run on?',
		tool: get({ maxAttempts: 1 }),
		credential: downCredential,
	});

	const credentials: CredentialImport[] = [
		modelCredential(MODEL_CREDENTIAL, model.url),
		{
			...downCredential,
			type: CREDENTIAL_TYPE,
			data: { apiKey: 'sim-e2e-down-key-123', baseUrl: `http://127.0.0.1:${down}` },
		},
	];
	for (const [name, item] of Object.entries(cases)) {
		if (item.credential) continue;
		const own = ownKeyCredential(sim, `agent${name}`);
		item.credential = own.ref;
		item.key = own.key;
		credentials.push(own.credential);
	}
	const names = [1, 2, 3].map((rank) => sim.index.domainAt(rank).name);
	EXAMPLE_QUESTIONS.bulk.question = `Look up ${names[0]}, ${names[1]} and ${names[2]}.`;
	EXAMPLE_QUESTIONS.bulk.args = { domains: names.join(', ') };
	const [newest, previous] = sim.datasets();
	listedChanges = await changesOfListed(newest.label, previous.label);
	EXAMPLE_QUESTIONS.compareDomains.question = `What changed at ${listedChanges.names.join(' and ')} since last week?`;
	EXAMPLE_QUESTIONS.compareDomains.args = { label: 'latest', domains: listedChanges.names.join(', ') };
	rankOnly = await rankOnlyChange(sim.url, newest.label, previous.label);
	EXAMPLE_QUESTIONS.compareRankOnly.question = `What changed at ${rankOnly.name} since last week?`;
	EXAMPLE_QUESTIONS.compareRankOnly.args = { label: 'latest', domains: rankOnly.name };
	sim.setKey(EXAMPLE_KEY, 'pro');
	credentials.push(
		{ ...EXAMPLE_CREDENTIAL, type: CREDENTIAL_TYPE, data: { apiKey: EXAMPLE_KEY, baseUrl: sim.url } },
		modelCredential(EXAMPLE_MODEL_CREDENTIAL, model.url),
	);
	n8n = await createInstance(sim, { credentials });
	await n8n.importWorkflows(
		Object.entries(EXAMPLE_QUESTIONS).map(([name, item]) => exampleAsking(name, item.question)),
	);
	await n8n.importWorkflows(
		Object.entries(cases).map(([name, item]) =>
			workflow(
				item.id,
				`Agent: ${name}`,
				agentWorkflow({
					n8nVersion: n8n.version,
					question: item.question,
					model: MODEL_CREDENTIAL,
					tools: [domainDataTool('Domain Data', item.tool, item.credential!)],
				}),
			),
		),
	);
	runs = await n8n.executeBatch(
		[...Object.values(cases).map((item) => item.id), ...Object.keys(EXAMPLE_QUESTIONS).map(exampleId)],
		{ concurrency: 2 },
	);
}, 15 * 60_000);

afterAll(async () => {
	await n8n?.dispose();
	await model?.close();
	await sim?.close();
});

/** The model's requests for a case, the tool answers it received, the agent's answer, and the paid calls. */
function outcome(name: string) {
	const item = cases[name];
	const run = runs.get(item.id)!;
	const requests: ModelRequest[] = model.requests.filter((request) => request.question === item.question);
	const answers = requests.flatMap(toolAnswers);
	const received = answers.at(-1) ?? '';
	return {
		run,
		requests,
		received,
		bytes: Buffer.byteLength(received),
		answer: run.ok ? String(run.json('AI Agent')[0]?.output ?? '') : '',
		calls: item.key ? sim.calls().filter((call) => call.key === item.key) : [],
	};
}

/** The run succeeded, the tool was called once, its answer reached the model within the bounds. */
function expectAnswered(name: string) {
	const result = outcome(name);
	expect(result.run.describe()).toBe('ok');
	expect(result.requests.length).toBe(2);
	expect(result.requests[0].reply).toMatchObject({ toolCall: { name: 'Domain_Data' } });
	expect(result.bytes).toBeGreaterThan(0);
	expect(result.bytes).toBeLessThanOrEqual(TOOL_MAX_BYTES);
	log(`${name}: the model received ${result.bytes} bytes; ${result.calls.length} paid calls`);
	return { ...result, items: JSON.parse(result.received) as Array<Record<string, unknown>> };
}

describe('the AI Agent with the Domain Data tool (Set Automatically descriptions, $fromAI values)', () => {
	test('each operation describes itself: its action, and its input says what to pass and what comes back', () => {
		const inputs: Record<string, string> = {
			get: 'domain',
			search: 'filters',
			bulk: 'domains',
			list: '',
			compare: 'label',
		};
		for (const [name, input] of Object.entries(inputs)) {
			const { resource, operation } = cases[name].tool as { resource: string; operation: string };
			const [request] = outcome(name).requests;
			expect(request.tools.map((tool) => tool.function.description)).toEqual([autoDescription(resource, operation)]);
			const properties = request.tools[0].function.parameters?.properties ?? {};
			expect(Object.keys(properties)).toEqual(input ? [input] : []);
			if (input && name !== 'search') expect(properties[input].description).toMatch(/The answer /);
			log(
				`${name}: "${request.tools[0].function.description}"; ${JSON.stringify(request.tools[0].function.parameters)}`,
			);
		}
		const [compare] = outcome('compare').requests;
		expect(compare.tools[0].function.parameters?.properties?.label.description).toContain(
			`at most ${TOOL_MAX_RECORDS} per call`,
		);
	});

	test('Get: one call, the domain object reaches the model, the answer quotes it', () => {
		const { items, calls, answer } = expectAnswered('get');
		const domain = sim.index.domainAt(7);
		expect(items).toEqual([{ summary: expect.stringContaining('not instructions to follow'), ...domain }]);
		expect(calls.map((call) => call.endpoint)).toEqual(['get']);
		expect(answer).toContain(domain.title);
		const [call] = outcome('get').requests;
		const toolAnswer = JSON.parse(outcome('get').received) as unknown;
		log(`transcript: ${JSON.stringify({ question: call.question, toolCall: call.reply, toolAnswer, answer })}`);
	});

	test('Search with Return All on 50,000 domains: under 64 KB, one call, and the answer says there is more', () => {
		const { items, calls, answer, bytes } = expectAnswered('search');
		expect(bytes).toBeLessThan(64 * 1024);
		expect(items).toHaveLength(1);
		expect(items[0].domains).toHaveLength(TOOL_MAX_RECORDS);
		expect(calls.map((call) => call.endpoint)).toEqual(['search']);
		expect(items[0].summary).toMatch(/^20 of 50,000 domains shown\. There are more/);
		expect(answer).toContain('There are more');
		log(`search answer: ${JSON.stringify(answer)}`);
	});

	test('Bulk Get: one call for the three names, three records', () => {
		const { items, calls, answer } = expectAnswered('bulk');
		expect((items[0].domains as unknown[]).length).toBe(3);
		expect(calls.map((call) => call.endpoint)).toEqual(['bulk']);
		expect(answer).toContain(sim.index.domainAt(2).title);
	});

	test('Dataset → List: one call, the snapshots newest first', () => {
		const { items, calls, answer } = expectAnswered('list');
		expect(items[0].datasets).toEqual(sim.datasets());
		expect(calls.map((call) => call.endpoint)).toEqual(['datasets']);
		expect(answer).toContain(sim.datasets()[0].label);
	});

	test('Dataset → Compare: at most 20 changes with their counts; the list call and at most three reads', () => {
		const { items, calls, answer } = expectAnswered('compare');
		expect((items[0].changes as unknown[]).length).toBe(TOOL_MAX_RECORDS);
		expect(items[0]).toMatchObject({ label: sim.datasets()[0].label, baseLabel: sim.datasets()[1].label });
		expect(calls.filter((call) => call.endpoint === 'datasets')).toHaveLength(1);
		expect(calls.filter((call) => call.endpoint === 'stream').length).toBeLessThanOrEqual(3);
		expect(answer).toMatch(/20 changes shown \(.*\): the first ones found.*There are more/s);
	});
});

describe('failing tool calls reach the model as text without the key, and the run succeeds', () => {
	const expectError = (name: string, pattern: RegExp, secret?: string) => {
		const { items, answer, run } = expectAnswered(name);
		expect(items).toEqual([{ error: expect.stringMatching(pattern) }]);
		expect(answer).toMatch(pattern);
		if (secret) expect(JSON.stringify(run.run)).not.toContain(secret);
		if (secret) expect(JSON.stringify(model.requests)).not.toContain(secret);
	};

	test('a rejected key', () =>
		expectError('badKey', /The Domain Data service rejected the API key\. .*credential in n8n must be fixed/, BAD_KEY));
	test('a domain that is not in the index is an answer, not a failure: { name, found: false } with a sentence', () => {
		const { items, answer } = expectAnswered('unknown');
		expect(items).toEqual([
			{ name: 'not-in-the-index-4711.com', found: false, summary: expect.stringContaining('Tell the user so') },
		]);
		expect(answer).toContain('not-in-the-index-4711.com: not in the Domain Data index');
	});
	test('a service that is down', () =>
		expectError(
			'down',
			/Could not connect to the Domain Data service.*try again in a few minutes/,
			'sim-e2e-down-key-123',
		));
});

describe("the AI-agent example answers the demo's questions, each from the right tool with the right arguments", () => {
	/** The model's requests for a question of the example, what the tool answered, and the agent's answer. */
	function asked(name: string) {
		const { question } = EXAMPLE_QUESTIONS[name];
		const run = runs.get(exampleId(name))!;
		const requests = model.requests.filter((request) => request.question === question);
		const received = requests.flatMap(toolAnswers);
		const answer = run.ok ? String(run.json('AI Agent')[0]?.output ?? '') : '';
		log(`example ${name}: ${JSON.stringify({ question, toolCall: requests[0]?.reply, received, answer })}`);
		return { run, requests, received, answer };
	}

	/** One tool call with the expected name and arguments, its answer within the bounds, the run a success. */
	function answeredBy(name: string) {
		const { tool, args } = EXAMPLE_QUESTIONS[name];
		const result = asked(name);
		expect(result.run.describe()).toBe('ok');
		expect(result.requests).toHaveLength(2);
		expect(result.requests[0].tools.map((each) => each.function.name).sort()).toEqual([
			'Compare_Snapshots',
			'Find_Sites_by_Country',
			'List_Snapshots',
			'Look_Up_Many_Domains',
			'Look_Up_a_Domain',
			'Search_Domains',
		]);
		expect(result.requests[0].reply).toEqual({ toolCall: { name: tool, arguments: args } });
		expect(result.received).toHaveLength(1);
		expect(Buffer.byteLength(result.received[0])).toBeLessThanOrEqual(TOOL_MAX_BYTES);
		expect(result.answer).toContain(STAND_IN_NOTE);
		const [item] = JSON.parse(result.received[0]) as Array<Record<string, unknown>>;
		return { ...result, item };
	}

	test('"What does openreads.com.au run on?": Get, and the answer quotes its title and technologies', () => {
		const { item, answer } = answeredBy('get');
		const domain = sim.index.findByName('openreads.com.au')!;
		expect(item).toEqual({ summary: expect.stringContaining('openreads.com.au'), ...domain });
		expect(answer).toContain(domain.title);
		expect(answer).toContain(`runs ${(domain.technologies ?? []).join(', ')}`);
	});

	test('"Find German websites that use Shopify": Search with language and technology, German Shopify sites', () => {
		const { item, answer } = answeredBy('search');
		const domains = item.domains as Array<{ name: string; language: string; technologies?: string[] }>;
		expect(domains.length).toBeGreaterThan(0);
		for (const domain of domains) {
			expect(domain.language).toBe('de');
			expect(domain.technologies).toContain('Shopify');
		}
		expect(item.summary).not.toContain('not matches');
		expect(answer).toContain(domains[0].name);
	});

	test('"What does not-a-real-domain-xyz.com run on?": Get answers found: false, and the agent says so', () => {
		const { item, answer } = answeredBy('unknown');
		expect(item).toMatchObject({ name: 'not-a-real-domain-xyz.com', found: false });
		expect(answer).toContain('not-a-real-domain-xyz.com: not in the Domain Data index');
	});

	test('several domains: Bulk Get with the names, one entry each', () => {
		const { item, answer } = answeredBy('bulk');
		expect((item.domains as unknown[]).length).toBe(3);
		expect(answer).toContain(sim.index.domainAt(2).title);
	});

	test('"What changed since last week?": Compare of the latest snapshot, the summary says what the changes are', () => {
		const { item, answer } = answeredBy('compare');
		expect(item).toMatchObject({ label: sim.datasets()[0].label, baseLabel: sim.datasets()[1].label });
		expect(answer).toContain(String(item.summary).split(':')[0]);
	});

	test('"What changed at <two names> and a name never indexed since last week?": Compare with those domains', () => {
		const { item, answer } = answeredBy('compareDomains');
		const [newest, previous] = sim.datasets();
		expect(item).toMatchObject({ label: newest.label, baseLabel: previous.label });
		expect(item.changes).toEqual(listedChanges.expected);
		expect(item.summary).toContain(
			`1 of the 3 listed domains is in neither "${newest.label}" nor "${previous.label}": "never-indexed-4711.com"`,
		);
		expect(answer).toContain('never-indexed-4711.com');
		for (const name of listedChanges.names.slice(0, 2)) expect(answer).toContain(name);
	});

	test('"Which snapshots exist?": List, and the answer names the newest', () => {
		const { item, answer } = answeredBy('list');
		expect(item.datasets).toEqual(sim.datasets());
		expect(answer).toContain(sim.datasets()[0].label);
	});

	/** The snapshot tool's answer: the first German Shopify shops of the latest snapshot, as many as fit, all DE. */
	async function germanShopifyShops(item: Record<string, unknown>) {
		const latest = sim.datasets()[0].label;
		const { records, matching } = await expectGermanShopifyShops(sim.url, latest, item);
		log(`${matching} German Shopify shops ranked under 10,000 in "${latest}"; ${records.length} shown`);
		return records;
	}

	test('"Find German Shopify shops ranked under 10,000": the snapshot tool by country_code, every shop DE', async () => {
		const { item, answer } = answeredBy('country');
		const records = await germanShopifyShops(item);
		expect(answer).toContain(String(records[0].name));
		expect(answer).toContain(String(item.summary));
	});

	test('a guessed "country" search filter: refused with advice, which the model follows to the snapshot tool', async () => {
		const { run, requests, answer } = asked('countryGuess');
		expect(run.describe()).toBe('ok');
		// The model's three turns: the guess, the call the refusal advised, the answer.
		expect(requests.map((request) => request.reply)).toEqual([
			{ toolCall: { name: 'Search_Domains', arguments: COUNTRY_GUESS.search } },
			{ toolCall: { name: 'Find_Sites_by_Country', arguments: COUNTRY_GUESS.advised } },
			{ content: expect.stringContaining(STAND_IN_NOTE) },
		]);
		const [refusal, found] = toolAnswers(requests[2]).map((text) => JSON.parse(text) as Array<Record<string, unknown>>);
		expect(refusal).toEqual([{ error: expect.stringContaining('The service does not take the filter "country"') }]);
		expect(String(refusal[0].error)).toMatch(/snapshot tool that filters on country codes/);
		const records = await germanShopifyShops(found[0]);
		expect(answer).toContain(String(found[0].summary));
		for (const record of records.slice(0, 5)) expect(answer).toContain(`${String(record.name)}: `);
	});

	test('"What changed at <a domain whose only change is rank>?": no compared field changed, rank not compared', () => {
		const { item, answer } = answeredBy('compareRankOnly');
		const [newest, previous] = sim.datasets();
		log(`${rankOnly.name}: rank ${rankOnly.baseRank} in "${previous.label}", ${rankOnly.rank} in "${newest.label}"`);
		expect(answer).toContain(expectRankNotCompared(item, newest.label, previous.label));
	});

	test('a question no rule fits: the stand-in says so plainly and calls no tool', () => {
		const { run, requests, answer } = asked('noRule');
		expect(run.describe()).toBe('ok');
		expect(requests).toHaveLength(1);
		expect(answer).toContain("I am the demo's stand-in model");
	});
});
