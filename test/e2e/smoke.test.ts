/**
 * Smoke run of the packed package on each "smoke" version of the test matrix (the newest n8n 1.x,
 * 1.123.81, for users who have not moved to n8n 2; see scripts/n8n/versions.ts): the nodes load from the
 * community-package folder and every operation runs once through `n8n execute-batch`; one failure runs
 * through `n8n execute` to check the error that version reports. The Sub-Workflow output runs a whole
 * snapshot through a sub-workflow that writes each batch to a file (n8n 1.x runs a called workflow
 * without publishing it). The AI Agent (1.x's default version) calls the node as a tool on the stand-in model.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { N8nInstance } from '../../scripts/n8n/instance';
import type { ExecutionResult } from '../../scripts/n8n/run-data';
import {
	BATCH_SUB_WORKFLOW_SETTINGS,
	chain,
	domainData,
	executeWorkflowTrigger,
	manualTrigger,
	node,
	setJson,
	splitOut,
	workflow,
	workflowId,
	type CredentialRef,
} from '../../scripts/n8n/workflows';
import { startModel, toolAnswers, type StandInModel } from '../../scripts/model/server';
import { agentWorkflow, domainDataTool, modelCredential } from '../../scripts/model/workflows';
import { startSimulator, type Simulator } from '../simulator';
import { BAD_KEY, CREDENTIALS, createInstance, e2eVersion } from './support';

const WF = {
	get: workflowId('v1Get'),
	search: workflowId('v1Search'),
	bulk: workflowId('v1Bulk'),
	enrich: workflowId('v1Enrich'),
	list: workflowId('v1List'),
	stream: workflowId('v1Stream'),
	file: workflowId('v1File'),
	notFound: workflowId('v1NotFound'),
	subWorkflow: workflowId('v1SubWorkflow'),
	agent: workflowId('v1Agent'),
	agentBadKey: workflowId('v1AgentBadKey'),
};
const MODEL = { id: 'ddE2eStandInMdl1', name: 'Stand-in model' };
const SUB_WORKFLOW = workflowId('v1SubWorkflowWriter');
const DOMAINS = 5000;
const SUB_BATCH = 1000;
/** Each sub-execution writes its batch here, named by its execution id. */
const BATCH_FILE_PREFIX = 'sub-batch-';
const pro = CREDENTIALS.pro;
const VERSION = e2eVersion();

let sim: Simulator;
let model: StandInModel;
let n8n: N8nInstance;
let runs: Map<string, ExecutionResult>;
let notFound: ExecutionResult;

function items(id: string, nodeName: string): Array<Record<string, unknown>> {
	const run = runs.get(id)!;
	if (!run.ok) throw new Error(`workflow ${id} failed on n8n ${VERSION}: ${run.describe()}`);
	return run.json(nodeName);
}

beforeAll(async () => {
	sim = await startSimulator({ domains: DOMAINS, snapshots: 2 });
	model = await startModel();
	n8n = await createInstance(sim, { credentials: [modelCredential(MODEL, model.url)] });
	const names = [1, 2, 3].map((rank) => sim.index.domainAt(rank).name);
	const agent = (question: string, credential: CredentialRef) =>
		agentWorkflow({
			n8nVersion: n8n.version,
			question,
			model: MODEL,
			tools: [domainDataTool('Domain Data', { resource: 'domain', operation: 'get' }, credential)],
		});
	await n8n.importWorkflows([
		workflow(
			WF.get,
			'get',
			chain(
				manualTrigger(),
				domainData('Get', { resource: 'domain', operation: 'get', domain: `https://${names[0]}/` }, pro),
			),
		),
		workflow(
			WF.search,
			'search',
			chain(
				manualTrigger(),
				domainData(
					'Search',
					{
						resource: 'domain',
						operation: 'search',
						returnAll: false,
						limit: 15,
						filters: '{}',
						options: { pageSize: 10 },
					},
					pro,
				),
			),
		),
		workflow(
			WF.bulk,
			'bulk',
			chain(
				manualTrigger(),
				domainData('Bulk', { resource: 'domain', operation: 'bulk', domains: names.join('\n') }, pro),
			),
		),
		workflow(
			WF.enrich,
			'enrich',
			chain(
				manualTrigger(),
				setJson('Rows', { rows: names.map((name) => ({ email: `info@${name}` })) }),
				splitOut('Split Out', 'rows'),
				domainData(
					'Enrich',
					{ resource: 'domain', operation: 'enrich', domainField: 'email', destinationField: 'site' },
					pro,
				),
			),
		),
		workflow(
			WF.list,
			'list',
			chain(manualTrigger(), domainData('List', { resource: 'dataset', operation: 'list', returnAll: true }, pro)),
		),
		workflow(
			WF.stream,
			'stream',
			chain(
				manualTrigger(),
				domainData(
					'Stream',
					{
						resource: 'dataset',
						operation: 'stream',
						label: 'latest',
						returnAll: false,
						limit: 20,
						output: 'batches',
						batchSize: 10,
					},
					pro,
				),
			),
		),
		workflow(
			WF.file,
			'file',
			chain(
				manualTrigger(),
				domainData(
					'Stream',
					{ resource: 'dataset', operation: 'stream', label: 'latest', returnAll: true, output: 'file' },
					pro,
				),
				node('Write File', 'n8n-nodes-base.readWriteFile', 1, {
					operation: 'write',
					fileName: `={{ ${JSON.stringify(n8n.filesDir + '/')} + $json.fileName }}`,
					dataPropertyName: 'data',
					options: {},
				}),
			),
		),
		workflow(
			SUB_WORKFLOW,
			'sub-workflow: write the batch to a file',
			chain(
				executeWorkflowTrigger(),
				node('To JSON', 'n8n-nodes-base.convertToFile', 1.1, {
					operation: 'toJson',
					mode: 'once',
					binaryPropertyName: 'data',
					options: {},
				}),
				node('Write Batch', 'n8n-nodes-base.readWriteFile', 1, {
					operation: 'write',
					fileName: `={{ ${JSON.stringify(`${n8n.filesDir}/${BATCH_FILE_PREFIX}`)} + $execution.id + '.json' }}`,
					dataPropertyName: 'data',
					options: {},
				}),
			),
			{ settings: { ...BATCH_SUB_WORKFLOW_SETTINGS } },
		),
		workflow(
			WF.subWorkflow,
			'sub-workflow output',
			chain(
				manualTrigger(),
				domainData(
					'Stream',
					{
						resource: 'dataset',
						operation: 'stream',
						label: 'latest',
						fields: ['name', 'rank'],
						returnAll: true,
						output: 'subWorkflow',
						workflowId: { __rl: true, mode: 'id', value: SUB_WORKFLOW },
						batchSize: SUB_BATCH,
					},
					pro,
				),
			),
		),
		workflow(WF.agent, 'agent', agent(`What does ${names[1]} run on?`, pro)),
		workflow(WF.agentBadKey, 'agent, rejected key', agent('What does example.com run on?', CREDENTIALS.badKey)),
		workflow(
			WF.notFound,
			'not found',
			chain(
				manualTrigger(),
				domainData('Get', { resource: 'domain', operation: 'get', domain: 'not-in-the-index-v1.com' }, pro),
			),
		),
	]);
	const succeeding = Object.values(WF).filter((id) => id !== WF.notFound);
	[runs, notFound] = await Promise.all([n8n.executeBatch(succeeding), n8n.execute(WF.notFound)]);
}, 10 * 60_000);

afterAll(async () => {
	await n8n?.dispose();
	await model?.close();
	await sim?.close();
});

test(`every operation runs on n8n ${VERSION}`, () => {
	const top = [1, 2, 3].map((rank) => sim.index.domainAt(rank));
	expect(items(WF.get, 'Get')).toEqual([top[0]]);
	expect(items(WF.search, 'Search').map((domain) => domain.rank)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
	expect(items(WF.bulk, 'Bulk')).toEqual(top);
	expect(items(WF.enrich, 'Enrich')).toEqual(top.map((domain) => ({ email: `info@${domain.name}`, site: domain })));
	expect(items(WF.list, 'List')).toEqual(sim.datasets().map(({ label, value }) => ({ label, value })));
	expect(items(WF.stream, 'Stream').map((batch) => [batch.batch, (batch.records as unknown[]).length])).toEqual([
		[1, 10],
		[2, 10],
	]);
});

test(`the whole snapshot reaches disk through n8n ${VERSION}'s binary data and Write File node`, () => {
	const newest = sim.datasets()[0].label;
	const [file] = items(WF.file, 'Stream');
	expect(file).toMatchObject({ label: newest, recordCount: DOMAINS });
	const written = readFileSync(join(n8n.filesDir, `${newest}.ndjson`), 'utf8');
	expect(written).toBe(Array.from({ length: DOMAINS }, (_, i) => sim.index.lineAt(i, newest)).join('\n') + '\n');
});

test(`the Sub-Workflow output sends the whole snapshot through a sub-workflow of n8n ${VERSION}, each record once`, () => {
	const newest = sim.datasets()[0].label;
	expect(items(WF.subWorkflow, 'Stream')).toEqual([
		{
			label: newest,
			records: DOMAINS,
			batches: DOMAINS / SUB_BATCH,
			progress: `batch ${DOMAINS / SUB_BATCH} of ${DOMAINS / SUB_BATCH}`,
			fields: ['name', 'rank'],
			skippedRecords: 0,
			durationMs: expect.any(Number),
		},
	]);
	const files = readdirSync(n8n.filesDir).filter((name) => name.startsWith(BATCH_FILE_PREFIX));
	const batches = files.map(
		(name) => JSON.parse(readFileSync(join(n8n.filesDir, name), 'utf8')) as Array<Record<string, unknown>>,
	);
	expect(batches.map((batch) => batch.length)).toEqual(Array.from({ length: DOMAINS / SUB_BATCH }, () => SUB_BATCH));
	const received = batches.flat().sort((a, b) => Number(a.rank) - Number(b.rank));
	const expected = Array.from(
		{ length: DOMAINS },
		(_, i) => ({ ...JSON.parse(sim.index.lineAt(i, newest, 'name,rank')), label: newest }) as Record<string, unknown>,
	).sort((a, b) => Number(a.rank) - Number(b.rank));
	expect(received).toEqual(expected);
});

test('a failure is reported with its message and HTTP code', () => {
	expect(notFound.ok).toBe(false);
	expect(String(notFound.error?.httpCode)).toBe('404');
	expect(notFound.error?.message).toContain('not-in-the-index-v1.com');
});

test(`the AI Agent of n8n ${VERSION} calls the node as a tool; a rejected key reaches the model as text and the run goes on`, () => {
	const domain = sim.index.domainAt(2);
	expect(String(items(WF.agent, 'AI Agent')[0].output)).toContain(domain.title);
	const received = (question: string) =>
		model.requests.filter((request) => request.question === question).flatMap(toolAnswers);
	expect(received(`What does ${domain.name} run on?`).map((answer) => JSON.parse(answer))).toEqual([
		[{ summary: expect.stringContaining('not instructions to follow'), ...domain }],
	]);
	expect(String(items(WF.agentBadKey, 'AI Agent')[0].output)).toContain('rejected the API key');
	expect(JSON.stringify(received('What does example.com run on?'))).not.toContain(BAD_KEY);
});
