/**
 * Lists of domains in real n8n (the packed tarball), against the simulator: Dataset → Compare with Filters → Domains
 * (names, URLs and emails) gives exactly the brute-force diff restricted to those names; Dataset → Stream with a list
 * from an expression over a Code node's items gives exactly those records; Enrich Items with Source Snapshot makes one
 * stream request and no bulk call and gives every row its record or the not-found marker in input order; names no
 * snapshot holds are counted in a hint. Then examples/watch-accounts.json activated on a running n8n, fired by a new
 * snapshot in which watched accounts changed: its summary file names exactly those changes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { EXAMPLE_CREDENTIAL, loadExamples } from '../../scripts/n8n/examples';
import type { N8nInstance } from '../../scripts/n8n/instance';
import { CREDENTIAL_TYPE } from '../../scripts/n8n/package';
import type { ExecutionResult } from '../../scripts/n8n/run-data';
import { chain, domainData, manualTrigger, node, workflow, workflowId } from '../../scripts/n8n/workflows';
import { bruteForce, rawSnapshot, type Record_ } from '../harness/bruteForceDiff';
import { startSimulator, type Simulator } from '../simulator';
import { createInstance, e2eVersion, ownKeyCredential, startWithApi, waitUntil } from './support';

const DOMAINS = 2000;
const NEWEST = '2025-06-30';
const PREVIOUS = '2025-06-23';
const COMPARE = workflowId('domainsCompare');
const STREAM = workflowId('domainsStream');
const ENRICH = workflowId('domainsEnrich');
const WATCH = 'ddExampleWatch01';
const FIELDS = ['title', 'technologies', 'country_code'];
const NEITHER = ['never-indexed.example', 'also-never.example'];

let sim: Simulator;
let n8n: N8nInstance;
let runs: Map<string, ExecutionResult>;
let newer: Record_[];
let older: Record_[];
let compareNames: string[];
let streamNames: string[];
let enrichCalls: string[];
let watchKey: string;

/** Spellings of one name as a CRM holds them. */
const SPELLINGS = [
	(name: string) => name,
	(name: string) => `https://www.${name}/about?x=1`,
	(name: string) => `Sales@${name.toUpperCase()}`,
];
const spelled = (names: string[]) => names.map((name, index) => SPELLINGS[index % SPELLINGS.length](name));
const code = (name: string, jsCode: string) => node(name, 'n8n-nodes-base.code', 2, { jsCode });

function ran(id: string): ExecutionResult {
	const run = runs.get(id);
	if (!run?.ok) throw new Error(`workflow ${id} failed on n8n ${e2eVersion()}: ${run?.describe()}`);
	return run;
}

function hintsOf(id: string, nodeName: string): string[] {
	const task = ran(id).run?.data?.resultData.runData[nodeName]?.[0] as { hints?: Array<{ message: string }> };
	return (task?.hints ?? []).map((hint) => hint.message);
}

beforeAll(async () => {
	sim = await startSimulator({ domains: DOMAINS, snapshots: 4 });
	newer = await rawSnapshot(sim.url, NEWEST);
	older = await rawSnapshot(sim.url, PREVIOUS);
	const olderNames = new Set(older.map((record) => record.name));
	const newerNames = new Set(newer.map((record) => record.name));
	compareNames = [
		...newer.filter((record) => !olderNames.has(record.name)).slice(0, 8),
		...older.filter((record) => !newerNames.has(record.name)).slice(0, 8),
		...newer.filter((record, index) => olderNames.has(record.name) && index % 7 === 0),
	].map((record) => record.name);
	streamNames = newer.filter((_, index) => index % 11 === 3).map((record) => record.name);

	const watch = ownKeyCredential(sim, 'domainsWatch');
	watchKey = watch.key;
	n8n = await createInstance(sim, {
		credentials: [{ ...EXAMPLE_CREDENTIAL, type: CREDENTIAL_TYPE, data: { apiKey: watchKey, baseUrl: sim.url } }],
	});
	const pro = { id: 'ddE2eCredPro0001', name: 'Domain Data (pro plan)' };
	const accounts = JSON.stringify(spelled(streamNames).concat(NEITHER));
	const rows = newer.filter((_, index) => index % 10 === 0).map((record) => record.name);
	const distinct = JSON.stringify([...rows, ...NEITHER]);
	await n8n.importWorkflows([
		workflow(
			COMPARE,
			'Compare a list of accounts',
			chain(
				manualTrigger(),
				domainData(
					'Compare',
					{
						resource: 'dataset',
						operation: 'compare',
						label: 'latest',
						fields: FIELDS,
						returnAll: true,
						filters: { domains: [...spelled(compareNames), ...NEITHER].join('\n') },
						options: {},
					},
					pro,
				),
			),
		),
		workflow(
			STREAM,
			'Stream the records of a list from an expression',
			chain(
				manualTrigger(),
				code('Accounts', `return ${accounts}.map((website) => ({ json: { website } }));`),
				domainData(
					'Stream',
					{
						resource: 'dataset',
						operation: 'stream',
						label: 'latest',
						fields: ['name', 'rank', 'title'],
						returnAll: true,
						filters: { domains: "={{ $('Accounts').all().map(item => item.json.website) }}" },
						options: {},
					},
					pro,
					{ executeOnce: true },
				),
			),
		),
		workflow(
			ENRICH,
			'Enrich rows from the newest snapshot',
			chain(
				manualTrigger(),
				code(
					'Rows',
					`const names = ${distinct};\n` +
						'return Array.from({ length: 600 }, (_, row) => ({ json: { row, website: names[(row * 7) % names.length] } }));',
				),
				domainData(
					'Enrich',
					{
						resource: 'domain',
						operation: 'enrich',
						domainField: 'website',
						options: { source: 'snapshot' },
					},
					pro,
				),
			),
		),
		loadExamples({ filesDir: n8n.filesDir }).find((example) => example.workflow.id === WATCH)!.workflow,
	]);
	runs = await n8n.executeBatch([COMPARE, STREAM]);
	sim.clearLog();
	runs.set(ENRICH, await n8n.execute(ENRICH));
	enrichCalls = sim.calls().map((entry) => entry.endpoint);
}, 10 * 60_000);

afterAll(async () => {
	await n8n?.dispose();
	await sim?.close();
});

test(`Compare with a list of names, URLs and emails: exactly the brute-force diff of those names (n8n ${e2eVersion()})`, () => {
	const listed = new Set(compareNames);
	const expected = bruteForce(
		newer.filter((record) => listed.has(record.name)),
		older.filter((record) => listed.has(record.name)),
		{ label: NEWEST, baseLabel: PREVIOUS },
		{ fields: FIELDS },
	);
	expect(expected.length).toBeGreaterThan(16);
	expect(ran(COMPARE).json('Compare')).toEqual(expected);
	expect(hintsOf(COMPARE, 'Compare')).toEqual([
		`2 of the ${compareNames.length + 2} listed domains are in neither "${NEWEST}" nor "${PREVIOUS}": ` +
			NEITHER.map((name) => `"${name}"`).join(', '),
	]);
});

test('Stream with a list from an expression: exactly those records, once, in snapshot order', () => {
	const listed = new Set(streamNames);
	expect(ran(STREAM).json('Stream')).toEqual(
		newer
			.filter((record) => listed.has(record.name))
			.map((record) => ({ name: record.name, rank: record.rank, title: record.title, label: NEWEST })),
	);
	expect(hintsOf(STREAM, 'Stream')).toEqual([
		`2 of the ${streamNames.length + 2} listed domains are not in the dataset "${NEWEST}": ` +
			NEITHER.map((name) => `"${name}"`).join(', '),
	]);
});

test('Enrich Items with Source Snapshot: one stream request, no bulk call, every row in order', () => {
	expect(enrichCalls).toEqual(['datasets', 'stream']);
	const byName = new Map(newer.map((record) => [record.name, record]));
	const rows = ran(ENRICH).json('Enrich');
	expect(rows).toHaveLength(600);
	const names = ran(ENRICH)
		.json('Rows')
		.map((row) => row.website as string);
	rows.forEach((row, index) => {
		const record = byName.get(names[index]);
		const { name, rank, title, technologies, language_code: language, country_code } = (record ?? {}) as Record_;
		expect([row.row, row.website]).toEqual([index, names[index]]);
		// Under a lookup's field names (language_code is language); country_code and label are the snapshot's own.
		expect(row.domainData).toEqual(
			record
				? expect.objectContaining({ name, rank, title, technologies, language, country_code, label: NEWEST })
				: { name: names[index], found: false },
		);
		if (record) expect(row.domainData).not.toHaveProperty('language_code');
	});
});

test(
	'the watch-accounts example, activated: a new snapshot in which accounts changed gives a summary of exactly them',
	async () => {
		const { rest } = await startWithApi(n8n);
		const polls = () => sim.calls('datasets').filter((entry) => entry.key === watchKey).length;
		const example = loadExamples().find((each) => each.workflow.id === WATCH)!.workflow;
		const nodes = example.nodes as Array<{ name: string; parameters: { jsCode?: string } }>;
		const accountsCode = String(nodes.find((each) => each.name === 'Accounts')!.parameters.jsCode);
		const watched = [...accountsCode.matchAll(/website: "([^"]+)"/g)].map((match) => match[1]);
		// Two watched accounts of the newest snapshot get a new title, one a new technology, in the next snapshot.
		const label = '2025-07-07';
		sim.addSnapshot(label);
		const next = new Map((await rawSnapshot(sim.url, label)).map((record) => [record.name, record]));
		sim.removeSnapshot(label);
		const present = ['prairiebakeryonline.com', 'starradiohq.org', 'indigobooks.com.au'];
		expect(present.every((name) => next.has(name))).toBe(true);
		expect(watched.length).toBeGreaterThanOrEqual(10);

		await rest.activateWorkflow(WATCH);
		expect(await waitUntil(() => polls() >= 1)).toBe(true);
		sim.addSnapshot(label, {
			records: {
				[present[0]]: { title: 'A new title' },
				[present[1]]: { title: 'Another new title' },
				[present[2]]: { technologies: [...(next.get(present[2])!.technologies as string[]), 'Shopify'] },
			},
		});
		await rest.deactivateWorkflow(WATCH);
		await rest.activateWorkflow(WATCH);
		expect(await waitUntil(() => polls() >= 2)).toBe(true);
		const [run] = await rest.waitForExecutions(WATCH, 1);
		expect(run.result.describe()).toBe('ok');

		// The brute force over every watched name: what changed between NEWEST and the new snapshot.
		const before = new Map((await rawSnapshot(sim.url, NEWEST)).map((record) => [record.name, record]));
		const after = await rawSnapshot(sim.url, label);
		const fields = ['title', 'technologies', 'redirects_to', 'status'];
		const names = new Set(
			watched.map((website) =>
				website
					.replace(/^.*@/, '')
					.replace(/^https?:\/\//, '')
					.replace(/^www\./, '')
					.replace(/\/.*$/, '')
					.toLowerCase(),
			),
		);
		const expected = bruteForce(
			after.filter((record) => names.has(record.name)),
			[...before.values()].filter((record) => names.has(record.name)),
			{ label, baseLabel: NEWEST },
			{ fields },
		).map((change) => change.name);
		expect(expected).toEqual(expect.arrayContaining(present));
		const summary = run.result.json('Summary')[0];
		expect(summary).toMatchObject({ snapshot: label, since: NEWEST, accounts: watched.length });
		expect((summary.changes as string[]).map((line) => line.replace(/^- ([^:]+):.*$/, '$1'))).toEqual(expected);
		const text = readFileSync(join(n8n.filesDir, `watch-accounts-${label}.md`), 'utf8');
		expect(text).toBe(summary.text);
		expect(text).toContain(`- ${present[0]}: title: `);
		expect(text.split('\n').find((line) => line.startsWith(`- ${present[2]}: `))).toContain('technologies: +Shopify');
		// Each snapshot asked once (Compare's output pass replays its spool of the newer one), with the watched names'
		// lines only parsed.
		const streams = sim.calls('stream').filter((entry) => entry.key === watchKey);
		expect(streams.map((entry) => entry.path.split('/').pop())).toEqual([label, NEWEST]);
	},
	5 * 60_000,
);
