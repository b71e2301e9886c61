/**
 * 8. AI agent: for a few typical questions, what reaches the model (bytes of the tool answers) and what the user
 * pays for (calls to the service), with the Domain Data tool against n8n's HTTP Request tool making the calls our
 * operation makes, on the same simulator. Real n8n (2.8.4): Manual Trigger → AI Agent with n8n's OpenAI Chat Model
 * on the stand-in model (scripts/model), one tool; the stand-in's log gives the bytes, the simulator's log the calls.
 */
import { agentWorkflow, domainDataTool, fromAIValue, modelCredential } from '../scripts/model/workflows';
import { startModel, toolAnswers, type StandInModel } from '../scripts/model/server';
import { node, workflow, workflowId, type WorkflowNode } from '../scripts/n8n/workflows';
import { KEYS } from '../test/simulator';
import { TOOL_MAX_BYTES } from '../nodes/DomainData/actions/tool/answer';
import { BenchN8n, DOMAIN_DATA_CREDENTIAL, HEADER_AUTH_CREDENTIAL, n8nAvailable } from './lib/n8n';
import { markdownTable, type BenchContext, type Figure, type SectionResult } from './lib/report';
import { formatNumber } from './lib/stats';

const MODEL_CREDENTIAL = { id: 'benchStandInMdl1', name: 'Stand-in model (bench)' };

interface Question {
	id: string;
	question: (names: string[]) => string;
	ours: Record<string, unknown>;
	/** The HTTP Request tool's parameters for the same calls (`api` is the service's base path). */
	http: (api: string) => Record<string, unknown>;
}

/** The HTTP Request node's cursor pagination, as a user sets it up for Search (the calls Return All makes). */
const SEARCH_PAGINATION = {
	pagination: {
		pagination: {
			paginationMode: 'updateAParameterInEachRequest',
			parameters: { parameters: [{ type: 'body', name: 'searchAfter', value: '={{ $response.body.search_after }}' }] },
			paginationCompleteWhen: 'other',
			completeExpression: '={{ $response.body.search_after === undefined }}',
			limitPagesFetched: true,
			maxRequests: 10_000,
		},
	},
};

const NAMES = fromAIValue('domains', 'Domain names separated by commas');

const QUESTIONS: Question[] = [
	{
		id: 'look up one domain',
		question: ([first]) => `What does ${first} run on?`,
		ours: { resource: 'domain', operation: 'get' },
		http: (api) => ({
			method: 'GET',
			url: `={{ "${api}/domain/" + ${fromAIValue('domain', 'The domain name to look up')} }}`,
		}),
	},
	{
		id: 'every site on a technology',
		question: () => 'List every website using Shopify.',
		ours: { resource: 'domain', operation: 'search', returnAll: true },
		http: (api) => ({
			method: 'POST',
			url: `${api}/domain/search`,
			sendBody: true,
			specifyBody: 'json',
			jsonBody: `={{ JSON.stringify({ technology: ${fromAIValue('technology', 'e.g. Shopify')}, pageSize: 100 }) }}`,
			options: SEARCH_PAGINATION,
		}),
	},
	{
		id: 'compare five domains',
		question: (names) => `Compare ${names.slice(0, 4).join(', ')} and ${names[4]}.`,
		ours: { resource: 'domain', operation: 'bulk' },
		http: (api) => ({
			method: 'POST',
			url: `${api}/domain/bulk`,
			sendBody: true,
			specifyBody: 'json',
			jsonBody: `={{ JSON.stringify({ domains: ${NAMES}.split(/[\\s,]+/).filter(Boolean) }) }}`,
		}),
	},
	{
		id: 'the newest snapshot',
		question: () => 'Show me the records of the latest snapshot.',
		ours: { resource: 'dataset', operation: 'stream', returnAll: true },
		http: (api) => ({
			method: 'GET',
			url: `={{ "${api}/historical/domain/" + ${fromAIValue('label', 'latest or a date label YYYY-MM-DD')} }}`,
		}),
	},
];

function httpTool(api: string, question: Question): WorkflowNode {
	return node(
		'HTTP Request',
		'n8n-nodes-base.httpRequestTool',
		4.2,
		{
			toolDescription: 'Calls the Domain Data service',
			authentication: 'genericCredentialType',
			genericAuthType: 'httpHeaderAuth',
			...question.http(api),
		},
		{ credentials: { httpHeaderAuth: { ...HEADER_AUTH_CREDENTIAL } } },
	);
}

interface Measure {
	bytes: number;
	calls: number;
	/** Why the run failed (n8n cannot carry what the tool answered, for one), when it did. */
	failed?: string;
}

export async function agent(context: BenchContext): Promise<SectionResult> {
	const title = 'AI agent: what reaches the model';
	const skipped = await n8nAvailable(context);
	if (skipped) return { id: 'agent', title, figures: [], details: [], pending: [skipped] };
	const domains = context.tiny ? 2_000 : 50_000;
	const sim = await context.simulators.start({ domains });
	let model: StandInModel | undefined;
	let n8n: BenchN8n | undefined;
	try {
		model = await startModel();
		n8n = await BenchN8n.create(context, sim.url, KEYS.pro);
		await n8n.instance.importCredentials([modelCredential(MODEL_CREDENTIAL, model.url)]);
		const names = await domainNames(sim.url, 5);
		const api = `${sim.url}/json/api/v1`;
		const runs: Array<{ question: Question; text: string; ours: string; http: string }> = QUESTIONS.map((question) => ({
			question,
			text: question.question(names),
			ours: workflowId(`bench agent ours ${question.id}`),
			http: workflowId(`bench agent http ${question.id}`),
		}));
		const graph = (text: string, tool: WorkflowNode) =>
			agentWorkflow({ n8nVersion: n8n!.instance.version, question: text, model: MODEL_CREDENTIAL, tools: [tool] });
		await n8n.importWorkflows(
			runs.flatMap((run) => [
				workflow(
					run.ours,
					`Bench agent: ${run.question.id} (Domain Data tool)`,
					graph(run.text, domainDataTool('Domain Data', run.question.ours, DOMAIN_DATA_CREDENTIAL)),
				),
				workflow(
					run.http,
					`Bench agent: ${run.question.id} (HTTP Request tool)`,
					graph(run.text, httpTool(api, run.question)),
				),
			]),
		);
		const measure = async (id: string, text: string): Promise<Measure> => {
			await sim.clearLog();
			const result = await n8n!.instance.execute(id, { timeoutMs: 900_000 });
			const failed = result.ok ? undefined : (result.error?.message ?? 'no run data').split('\n')[0].slice(0, 200);
			const asked = model!.requests.filter((request) => request.question === text).at(-1);
			const answers = asked ? toolAnswers(asked) : [];
			return {
				bytes: answers.reduce((sum, answer) => sum + Buffer.byteLength(answer), 0),
				calls: (await sim.calls()).length,
				failed,
			};
		};
		const rows: string[][] = [];
		const figures: Figure[] = [];
		const notes: string[] = [];
		for (const run of runs) {
			// Both contenders ask the same question, so the model's log is read right after each run.
			const ours = await measure(run.ours, run.text);
			model.requests.length = 0;
			const http = await measure(run.http, run.text);
			model.requests.length = 0;
			const shown = (m: Measure) =>
				`${formatNumber(m.bytes)} B / ${m.calls} calls${m.failed ? ' (the run failed)' : ''}`;
			for (const [who, m] of [
				['ours', ours],
				['HTTP Request', http],
			] as const) {
				if (m.failed) notes.push(`${run.question.id}, ${who}: the run failed: ${m.failed}`);
			}
			context.log(`agent: ${run.question.id}: ours ${shown(ours)}, HTTP Request ${shown(http)}`);
			const ratio = (a: number, b: number) => (b === 0 ? '–' : `${(a / b).toFixed(a / b < 10 ? 2 : 0)}×`);
			rows.push([
				run.question.id,
				run.text,
				formatNumber(ours.bytes),
				formatNumber(http.bytes),
				ratio(http.bytes, ours.bytes),
				`${ours.calls}`,
				`${http.calls}`,
			]);
			figures.push({
				what: `${run.question.id}: bytes and paid calls to the model, ours vs HTTP Request tool`,
				value: `${shown(ours)} vs ${shown(http)} (${ratio(http.bytes, ours.bytes)} the bytes)`,
				target: `≤ ${TOOL_MAX_BYTES / 1024} KB per answer`,
				met: ours.bytes <= TOOL_MAX_BYTES && !ours.failed,
			});
		}
		return {
			id: 'agent',
			title,
			figures,
			details: [
				`Real n8n ${n8n.instance.version}, ${formatNumber(domains)} domains in the simulator. Each question runs once ` +
					"through Manual Trigger → AI Agent (its default version) with n8n's OpenAI Chat Model on the stand-in model " +
					'and one tool: our Domain Data tool (its main input filled by the model, Return All on where the question ' +
					"asks for everything) or n8n's HTTP Request tool doing the calls our operation makes (Search: the HTTP " +
					'Request pagination that follows `search_after`; the snapshot: the stream URL). Bytes: the tool answers in ' +
					"the request the model got; calls: the simulator's request log of the run.",
				markdownTable(
					[
						'question',
						'asked',
						'bytes, ours',
						'bytes, HTTP Request',
						'HTTP ÷ ours',
						'calls, ours',
						'calls, HTTP Request',
					],
					rows,
				),
				...notes,
			],
		};
	} finally {
		await n8n?.dispose();
		await model?.close();
		await sim.close();
	}
}

/** The names of the first `count` domains in rank order (a search of the simulator). */
async function domainNames(baseUrl: string, count: number): Promise<string[]> {
	const response = await fetch(`${baseUrl}/json/api/v1/domain/search`, {
		method: 'POST',
		headers: { authorization: `Bearer ${KEYS.pro}`, 'content-type': 'application/json' },
		body: JSON.stringify({ pageSize: count }),
	});
	return ((await response.json()) as { results: Array<{ name: string }> }).results.map((domain) => domain.name);
}
