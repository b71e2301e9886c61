/**
 * The workflows of examples/ run in n8n 2.8.4 as a user imports them, against the simulator: the ones
 * started by hand run through `n8n execute-batch` and the files they write are checked. (The new-snapshot
 * example is activated in server.test.ts, the watch-accounts example in domains.test.ts; the AI-agent example
 * needs a model, so only its node types are checked there.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

import { randomBytes } from 'node:crypto';

import { EXAMPLE_CREDENTIAL, EXAMPLE_POSTGRES_CREDENTIAL, loadExamples } from '../../scripts/n8n/examples';
import type { N8nInstance } from '../../scripts/n8n/instance';
import { CREDENTIAL_TYPE } from '../../scripts/n8n/package';
import type { ExecutionResult } from '../../scripts/n8n/run-data';
import { createDatabase, dropDatabase, isPostgresReachable, queryDatabase } from '../../scripts/n8n/services';
import { manualTrigger, node, workflow, workflowId, type WorkflowNode } from '../../scripts/n8n/workflows';
import { bruteForce, rawSnapshot } from '../harness/bruteForceDiff';
import { KEYS, startSimulator, type Simulator } from '../simulator';
import { CLI_PUBLISHED_SUB_WORKFLOWS_ENV, createInstance } from './support';

const DOMAINS = 3000;

let sim: Simulator;
let n8n: N8nInstance;
let runs: Map<string, ExecutionResult>;
/** The snapshot-into-PostgreSQL example writes into a database of its own, created for this run. */
const POSTGRES_TARGET = `dd_e2e_examples_${process.pid}_${randomBytes(3).toString('hex')}`;
let postgresCreated = false;

/** Examples that write into a database (a Postgres node, or a sub-workflow that has one) run in their own test. */
const needsDatabase = (workflow: { nodes: Array<Record<string, unknown>> }) =>
	workflow.nodes.some(
		(node) =>
			node.type === 'n8n-nodes-base.postgres' ||
			(node.parameters as { output?: string } | undefined)?.output === 'subWorkflow',
	);

/** Parses the CSV that n8n's Convert to File node writes (a BOM, a header row, quoted cells as needed). */
function parseCsv(text: string): Array<Record<string, string>> {
	const rows: string[][] = [];
	let row: string[] = [];
	let cell = '';
	let quoted = false;
	const body = text.replace(/^\uFEFF/, '');
	for (let i = 0; i < body.length; i++) {
		const char = body[i];
		if (quoted) {
			if (char === '"' && body[i + 1] === '"') {
				cell += '"';
				i++;
			} else if (char === '"') quoted = false;
			else cell += char;
		} else if (char === '"') quoted = true;
		else if (char === ',') {
			row.push(cell);
			cell = '';
		} else if (char === '\n' || char === '\r') {
			if (char === '\r' && body[i + 1] === '\n') i++;
			row.push(cell);
			rows.push(row);
			row = [];
			cell = '';
		} else cell += char;
	}
	if (cell || row.length) rows.push([...row, cell]);
	const [header, ...data] = rows;
	return data.map((cells) => Object.fromEntries(header.map((name, i) => [name, cells[i] ?? ''])));
}

function ran(id: string): ExecutionResult {
	const run = runs.get(id)!;
	if (!run.ok) throw new Error(`example ${id} failed: ${run.describe()}`);
	return run;
}

beforeAll(async () => {
	sim = await startSimulator({ domains: DOMAINS, snapshots: 3 });
	n8n = await createInstance(sim, {
		credentials: [{ ...EXAMPLE_CREDENTIAL, type: CREDENTIAL_TYPE, data: { apiKey: KEYS.pro, baseUrl: sim.url } }],
		env: CLI_PUBLISHED_SUB_WORKFLOWS_ENV,
	});
	const examples = loadExamples({ filesDir: n8n.filesDir });
	await n8n.importWorkflows(examples.map((example) => example.workflow));
	const manual = examples.filter(
		(example) =>
			example.workflow.nodes.some((node) => node.type === 'n8n-nodes-base.manualTrigger') &&
			!needsDatabase(example.workflow),
	);
	runs = await n8n.executeBatch(manual.map((example) => example.workflow.id));
}, 10 * 60_000);

afterAll(async () => {
	await n8n?.dispose();
	await sim?.close();
	if (postgresCreated) await dropDatabase(POSTGRES_TARGET);
});

test('every example names the shared credential and only nodes of n8n and this package', () => {
	const examples = loadExamples();
	expect(examples.length).toBeGreaterThan(0);
	for (const { file, workflow } of examples) {
		for (const node of workflow.nodes) {
			expect([file, node.type]).toEqual([
				file,
				expect.stringMatching(/^(n8n-nodes-base|@n8n\/n8n-nodes-langchain|n8n-nodes-domain-data)\./),
			]);
			const credentials = node.credentials as Record<string, unknown> | undefined;
			if (String(node.type).startsWith('n8n-nodes-domain-data.')) {
				expect([file, credentials]).toEqual([file, { [CREDENTIAL_TYPE]: EXAMPLE_CREDENTIAL }]);
			}
		}
	}
});

test("enrich leads: every lead becomes a row with its website's data, unknown domains marked", () => {
	const rows = parseCsv(readFileSync(join(n8n.filesDir, 'leads-enriched.csv'), 'utf8'));
	const leads = ran('ddExampleEnrich1').json('Split Out Leads') as Array<{ company: string; contact: string }>;
	expect(rows.map((row) => [row.company, row.contact])).toEqual(leads.map((lead) => [lead.company, lead.contact]));
	for (const row of rows) {
		const known = sim.index.findByName(row.domain);
		// Convert to File writes booleans as TRUE / FALSE.
		expect([row.contact, row.found.toLowerCase()]).toEqual([row.contact, known ? 'true' : 'false']);
		if (known) expect([row.title, row.rank]).toEqual([known.title, String(known.rank)]);
	}
	expect(rows.filter((row) => row.found.toLowerCase() === 'false').map((row) => row.domain)).toEqual([
		'unknown-startup-example.com',
	]);
});

test('search into a table: the German Shopify sites in rank order, one row each', () => {
	const rows = parseCsv(readFileSync(join(n8n.filesDir, 'shopify-de.csv'), 'utf8'));
	const expected: string[] = [];
	for (let rank = 1; rank <= DOMAINS && expected.length < 500; rank++) {
		const domain = sim.index.domainAt(rank);
		if (domain.language === 'de' && (domain.technologies ?? []).some((t) => t.toLowerCase() === 'shopify'))
			expected.push(domain.name);
	}
	expect(expected.length).toBeGreaterThan(0);
	expect(rows.map((row) => row.domain)).toEqual(expected);
});

test('enrich from a snapshot: every row gets its record of the newest snapshot, or is marked not found', async () => {
	const newest = sim.datasets()[0].label;
	const snapshot = new Map((await rawSnapshot(sim.url, newest)).map((record) => [record.name, record]));
	const rows = parseCsv(readFileSync(join(n8n.filesDir, 'rows-from-snapshot.csv'), 'utf8'));
	const input = ran('ddExampleEnrSnp1').json('Rows') as Array<{ row: number; contact: string }>;
	expect(rows.map((row) => [row.row, row.contact])).toEqual(input.map((each) => [String(each.row), each.contact]));
	for (const row of rows) {
		const known = snapshot.get(row.domain);
		expect([row.contact, row.found.toLowerCase()]).toEqual([row.contact, known ? 'true' : 'false']);
		if (known) expect([row.title, row.rank, row.snapshot]).toEqual([known.title ?? '', String(known.rank), newest]);
	}
	// Not found: what the snapshot lacks, as of its date (a site new to the index since is found by a lookup only).
	const notFound = new Set(rows.filter((row) => row.found.toLowerCase() === 'false').map((row) => row.domain));
	expect(notFound).toContain('unknown-startup-example.com');
	expect(new Set(rows.map((row) => row.domain)).size - notFound.size).toBeGreaterThanOrEqual(9);
});

test('export a whole snapshot: the gzip file holds every record of the newest snapshot', () => {
	const newest = sim.datasets()[0].label;
	const [item] = ran('ddExampleExport1').json('Stream Snapshot');
	expect(item).toMatchObject({ label: newest, fileName: `${newest}.ndjson.gz`, recordCount: DOMAINS });
	const text = gunzipSync(readFileSync(join(n8n.filesDir, `${newest}.ndjson.gz`))).toString('utf8');
	expect(text).toBe(Array.from({ length: DOMAINS }, (_, i) => sim.index.lineAt(i, newest)).join('\n') + '\n');
});

test(
	'newest snapshot into PostgreSQL: the sub-workflow inserts every record of the newest snapshot once',
	async () => {
		if (!(await isPostgresReachable()))
			throw new Error('This example needs PostgreSQL on 127.0.0.1:5432 (user postgres)');
		await createDatabase(POSTGRES_TARGET);
		postgresCreated = true;
		// The table the example's note asks for.
		await queryDatabase(
			POSTGRES_TARGET,
			'create table domains (name text primary key, rank integer, title text, country_code text, language_code text, label text)',
		);
		await n8n.importCredentials([
			{
				...EXAMPLE_POSTGRES_CREDENTIAL,
				type: 'postgres',
				data: {
					host: '127.0.0.1',
					port: 5432,
					database: POSTGRES_TARGET,
					user: 'postgres',
					password: '',
					ssl: 'disable',
				},
			},
		]);
		await n8n.mustRun(['publish:workflow', '--id=ddExampleToPgSub']);
		const run = await n8n.execute('ddExampleToPg001');
		const newest = sim.datasets()[0].label;
		expect(run.describe()).toBe('ok');
		expect(run.json('Stream Into PostgreSQL')).toEqual([
			expect.objectContaining({ label: newest, records: DOMAINS, batches: 2 }),
		]);
		const first = JSON.parse(sim.index.lineAt(0, newest, 'name,rank,country_code')) as {
			name: string;
			rank: number;
			country_code: string;
		};
		expect(await queryDatabase(POSTGRES_TARGET, 'select count(*), count(distinct name), min(label) from domains')).toBe(
			`${DOMAINS}|${DOMAINS}|${newest}`,
		);
		expect(
			await queryDatabase(POSTGRES_TARGET, `select rank, country_code from domains where name = '${first.name}'`),
		).toBe(`${first.rank}|${first.country_code}`);
	},
	5 * 60_000,
);

test(
	'watch accounts, run by hand on the two newest snapshots: the Markdown names the changes and the domain in neither',
	async () => {
		const [newest, previous] = sim.datasets();
		const example = loadExamples({ filesDir: n8n.filesDir }).find(
			({ file }) => file === 'watch-accounts.json',
		)!.workflow;
		const nodes = example.nodes as WorkflowNode[];
		// Started by hand: "New Snapshot" gives what the trigger gives for a new snapshot, its label and the one before.
		const trigger = nodes.find((each) => each.name === 'New Snapshot')!;
		const snapshot = { label: newest.label, previousLabel: previous.label };
		const newSnapshot = node(trigger.name, 'n8n-nodes-base.code', 2, {
			jsCode: `return [{ json: ${JSON.stringify(snapshot)} }];`,
		});
		const start = manualTrigger();
		const connections = {
			...example.connections,
			[start.name]: { main: [[{ node: trigger.name, type: 'main', index: 0 }]] },
		};
		const id = workflowId('examplesWatchByHand');
		const graph = { nodes: [start, ...nodes.map((each) => (each === trigger ? newSnapshot : each))], connections };
		await n8n.importWorkflows([workflow(id, 'Watch accounts, by hand', graph)]);
		const run = await n8n.execute(id);
		expect(run.describe()).toBe('ok');

		// What the Markdown must say, by brute force over the watched names (as Compare reads a website, URL or email).
		const accounts = run.json('Accounts') as Array<{ account: string; website: string }>;
		const nameOf = (website: string) =>
			website
				.replace(/^.*@/, '')
				.replace(/^https?:\/\//, '')
				.replace(/^www\./, '')
				.replace(/\/.*$/, '')
				.toLowerCase();
		const names = new Set(accounts.map((account) => nameOf(account.website)));
		const watched = (records: Array<{ name: string }>) => records.filter((record) => names.has(record.name));
		const newer = watched(await rawSnapshot(sim.url, newest.label));
		const older = watched(await rawSnapshot(sim.url, previous.label));
		const fields = ['title', 'technologies', 'redirects_to', 'status'];
		const changed = bruteForce(newer, older, { label: newest.label, baseLabel: previous.label }, { fields });
		const held = new Set([...newer, ...older].map((record) => record.name));
		const neither = accounts.filter((account) => !held.has(nameOf(account.website)));
		expect(neither.map((account) => nameOf(account.website))).toEqual(['unknown-startup-example.com']);

		const text = readFileSync(join(n8n.filesDir, `watch-accounts-${newest.label}.md`), 'utf8');
		const summary = run.json('Summary')[0];
		expect(text).toBe(summary.text);
		const [header, , counts, , inNeither, , ...lines] = text.split('\n');
		expect(header).toBe(`# Watched accounts: ${newest.label} compared with ${previous.label}`);
		expect(counts).toBe(`${accounts.length} accounts watched, ${changed.length} with a change.`);
		expect(inNeither).toBe('1 listed domain is in neither snapshot: unknown-startup-example.com (Stealth Startup).');
		expect(lines.filter(Boolean).map((line) => line.replace(/^- ([^:]+):.*$/, '$1'))).toEqual(
			changed.map((change) => change.name),
		);
		expect(summary).toMatchObject({ accounts: accounts.length, changed: changed.length, inNeitherSnapshot: 1 });
	},
	5 * 60_000,
);
