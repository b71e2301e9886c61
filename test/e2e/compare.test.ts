/**
 * Dataset → Compare in n8n 2.8.4 from the packed tarball, against the simulator: workflows run through
 * `n8n execute-batch` (items and file outputs, checked against the independent brute-force diff), and the
 * example "on a new snapshot, list the sites in Germany that added Shopify" activated on a running n8n
 * (`n8n start`), fired by a snapshot published with chosen changes, its CSV checked row by row.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { EXAMPLE_CREDENTIAL, loadExamples } from '../../scripts/n8n/examples';
import type { N8nInstance } from '../../scripts/n8n/instance';
import { CREDENTIAL_TYPE } from '../../scripts/n8n/package';
import type { ExecutionResult } from '../../scripts/n8n/run-data';
import { chain, domainData, manualTrigger, workflow, workflowId } from '../../scripts/n8n/workflows';
import { bruteForce, fileSummaryOf, rawSnapshot, type Question, type Record_ } from '../harness/bruteForceDiff';
import { startSimulator, type Simulator } from '../simulator';
import { CREDENTIALS, createInstance, startWithApi, waitUntil } from './support';

const DOMAINS = 2000;
const NEWEST = '2025-06-30';
const PREVIOUS = '2025-06-23';
const EXAMPLE = 'ddExampleCompare1';
const EXAMPLE_KEY = 'sim-e2e-compare-example';
const ITEMS = workflowId('compareItems');
const FILE = workflowId('compareFile');
const ITEMS_QUESTION: Question = {
	fields: ['rank', 'technologies', 'country_code'],
	filters: { maxRank: 800 },
	minRankMove: 5,
};
const FILE_QUESTION: Question = { fields: ['title', 'categories', 'technologies'] };

let sim: Simulator;
let n8n: N8nInstance;
let runs: Map<string, ExecutionResult>;

beforeAll(async () => {
	sim = await startSimulator({ domains: DOMAINS, snapshots: 4 });
	sim.setKey(EXAMPLE_KEY, 'pro');
	n8n = await createInstance(sim, {
		credentials: [{ ...EXAMPLE_CREDENTIAL, type: CREDENTIAL_TYPE, data: { apiKey: EXAMPLE_KEY, baseUrl: sim.url } }],
	});
	const example = loadExamples({ filesDir: n8n.filesDir }).find((each) => each.workflow.id === EXAMPLE)!;
	await n8n.importWorkflows([
		example.workflow,
		workflow(
			ITEMS,
			'Compare into items',
			chain(
				manualTrigger(),
				domainData(
					'Compare',
					{
						resource: 'dataset',
						operation: 'compare',
						label: 'latest',
						fields: ITEMS_QUESTION.fields,
						returnAll: true,
						filters: ITEMS_QUESTION.filters,
						options: { minRankMove: ITEMS_QUESTION.minRankMove },
					},
					CREDENTIALS.pro,
				),
			),
		),
		workflow(
			FILE,
			'Compare into a file',
			chain(
				manualTrigger(),
				domainData(
					'Compare',
					{
						resource: 'dataset',
						operation: 'compare',
						label: NEWEST,
						baseLabel: PREVIOUS,
						fields: FILE_QUESTION.fields,
						returnAll: true,
						output: 'file',
					},
					CREDENTIALS.pro,
				),
			),
		),
	]);
	runs = await n8n.executeBatch([ITEMS, FILE]);
}, 10 * 60_000);

afterAll(async () => {
	await n8n?.dispose();
	await sim?.close();
});

function ran(id: string): ExecutionResult {
	const run = runs.get(id)!;
	if (!run.ok) throw new Error(`workflow ${id} failed: ${run.describe()}`);
	return run;
}

test('items: latest against previous, one item per change, equal to the brute-force diff', async () => {
	const expected = bruteForce(
		await rawSnapshot(sim.url, NEWEST),
		await rawSnapshot(sim.url, PREVIOUS),
		{ label: NEWEST, baseLabel: PREVIOUS },
		ITEMS_QUESTION,
	);
	expect(expected.length).toBeGreaterThan(20);
	expect(ran(ITEMS).json('Compare')).toEqual(expected);
});

test("file: the changes as NDJSON in n8n's binary storage, with the counts per kind", async () => {
	const expected = bruteForce(
		await rawSnapshot(sim.url, NEWEST),
		await rawSnapshot(sim.url, PREVIOUS),
		{ label: NEWEST, baseLabel: PREVIOUS },
		FILE_QUESTION,
	);
	const [item] = ran(FILE).json('Compare');
	const summary = fileSummaryOf(expected, { label: NEWEST, baseLabel: PREVIOUS });
	expect(item).toMatchObject(summary);
	expect((summary.added as number) * (summary.removed as number) * (summary.changed as number)).toBeGreaterThan(0);
});

test(
	'the example, activated: a new snapshot in which German sites adopt Shopify gives their CSV',
	async () => {
		const { rest } = await startWithApi(n8n);
		// Dataset list calls of the example's key: the trigger's polls, and one per execution of Compare.
		const listCalls = () => sim.calls('datasets').filter((entry) => entry.key === EXAMPLE_KEY).length;
		const waitForPolls = async (count: number) => expect(await waitUntil(() => listCalls() >= count)).toBe(true);

		// German sites of the newest snapshot that the next one holds too (same label, same data).
		const label = '2025-07-07';
		sim.addSnapshot(label);
		const next = new Set((await rawSnapshot(sim.url, label)).map((record) => record.name));
		sim.removeSnapshot(label);
		const newest = (await rawSnapshot(sim.url, NEWEST)).filter((record) => next.has(record.name));
		const noShopify = (record: Record_) => !(record.technologies as string[]).includes('Shopify');
		const german = newest.filter((record) => record.country_code === 'DE' && noShopify(record)).slice(0, 3);
		const [moved] = newest.filter((record) => record.country_code === 'US' && noShopify(record));

		await rest.activateWorkflow(EXAMPLE);
		await waitForPolls(1);
		sim.addSnapshot(label, {
			records: {
				...Object.fromEntries(
					german.map((record) => [record.name, { technologies: [...(record.technologies as string[]), 'Shopify'] }]),
				),
				[moved.name]: { country_code: 'DE', technologies: ['Shopify'] },
			},
		});
		await rest.deactivateWorkflow(EXAMPLE);
		await rest.activateWorkflow(EXAMPLE);
		await waitForPolls(2);
		const [run] = await rest.waitForExecutions(EXAMPLE, 1);
		expect(run.result.describe()).toBe('ok');

		// The brute force: sites in Germany in the new snapshot whose technologies gained Shopify.
		const older = new Map((await rawSnapshot(sim.url, NEWEST)).map((record) => [record.name, record]));
		const expected = (await rawSnapshot(sim.url, label)).flatMap((record) => {
			const before = older.get(record.name);
			if (
				!before ||
				record.country_code !== 'DE' ||
				!(record.technologies as string[]).includes('Shopify') ||
				!noShopify(before)
			)
				return [];
			return [record.name];
		});
		expect(expected).toEqual(expect.arrayContaining([...german.map((record) => record.name), moved.name]));
		const csv = readFileSync(join(n8n.filesDir, `shopify-adopters-de-${label}.csv`), 'utf8').replace(/^\uFEFF/, '');
		const [header, ...rows] = csv.trim().split(/\r?\n/);
		expect(header).toBe('domain,title,technologies,change,since,snapshot');
		expect(rows.map((row) => row.split(',')[0])).toEqual(expected);
		expect(rows.find((row) => row.startsWith(`${moved.name},`))).toContain(`,moved to Germany,${NEWEST},${label}`);
		expect(rows.find((row) => row.startsWith(`${german[0].name},`))).toContain(`,added Shopify,${NEWEST},${label}`);
		// Two polls and one list call of Compare (to resolve its labels once); each snapshot read once (pass 3
		// replays the newer one from the spool), each time asking only for the fields compared and filtered on.
		expect(listCalls()).toBe(3);
		const streams = sim.calls('stream').filter((entry) => entry.key === EXAMPLE_KEY);
		expect(streams.map((entry) => [entry.path.split('/').pop(), entry.query.fields])).toEqual([
			[label, 'name,title,country_code,technologies'],
			[NEWEST, 'name,title,country_code,technologies'],
		]);
	},
	5 * 60_000,
);
