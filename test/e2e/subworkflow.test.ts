/**
 * The Sub-Workflow output in real n8n 2.8.4, from the packed package: whole snapshots go, batch by batch,
 * through a sub-workflow whose Postgres node (n8n's own) inserts them into a table of a database created
 * for this run (PostgreSQL on 127.0.0.1, dropped afterwards). Regular mode: a whole snapshot of 100,000 records,
 * and a run that fails at a batch and is resumed with Skip Records. Queue mode (main + worker): 25,000 records,
 * run by the worker.
 */
import { createHash, randomBytes } from 'node:crypto';

import type { CredentialImport, N8nInstance, WorkflowImport } from '../../scripts/n8n/instance';
import { fromApiExecution } from '../../scripts/n8n/run-data';
import { createDatabase, dropDatabase, isPostgresReachable, queryDatabase } from '../../scripts/n8n/services';
import {
	BATCH_SUB_WORKFLOW_SETTINGS,
	chain,
	domainData,
	executeWorkflowTrigger,
	manualTrigger,
	postgresInsert,
	webhook,
	workflow,
	workflowId,
} from '../../scripts/n8n/workflows';
import { startSimulator, type Simulator } from '../simulator';
import { importAndPublish, type QueueMode, startQueueMode, stopQueueMode } from './subworkflowSupport';
import {
	CLI_PUBLISHED_SUB_WORKFLOWS_ENV,
	CREDENTIALS,
	createInstance,
	credentialImports,
	postWebhook,
} from './support';

const suffix = `${process.pid}_${randomBytes(3).toString('hex')}`;
const TARGET = `dd_e2e_subwf_${suffix}`;
const QUEUE_N8N_DATABASE = `dd_e2e_subwfq_${suffix}`;
const REDIS_DB = Number(process.env.N8N_E2E_REDIS_DB ?? 7);
const REDIS_PREFIX = `dd-e2e-subwf-${suffix.replace(/_/g, '-')}`;
/**
 * A whole snapshot in 20 batches: every record once in the table, the summary right. How a million or two go (time,
 * memory, on the worker too) is the benchmark's question (bench/subworkflow.ts: 100,000 to 2,000,000 records).
 */
const WHOLE = 100_000;
/** Five batches on the worker, none of them enqueued or saved. */
const QUEUE_RECORDS = 25_000;
const RESUME_RECORDS = 50_000;
/** Where the failure at batch 4 tells to resume: the 15,000 records of batches 1-3 were done. */
const RESUME_AT = 15_000;
const BATCH = 5000;
const FIELDS = ['name', 'rank'];

const POSTGRES = { id: workflowId('credPostgresSubWf'), name: 'Postgres (e2e target)' };
const postgresCredential: CredentialImport = {
	...POSTGRES,
	type: 'postgres',
	data: { host: '127.0.0.1', port: 5432, database: TARGET, user: 'postgres', password: '', ssl: 'disable' },
};

let sim: Simulator;
let newest: string;
const created: string[] = [];
const startedAt = Date.now();

async function sql(text: string): Promise<string> {
	return await queryDatabase(TARGET, text);
}

async function createTable(table: string): Promise<void> {
	await sql(`create table ${table} (name text not null, rank integer not null, label text not null)`);
}

/** Rows, distinct names, and a digest of the sorted names: equal to `expectedNames` only if every record is there once. */
async function tableState(table: string): Promise<{ rows: number; distinct: number; digest: string; labels: string }> {
	const [rows, distinct, digest, labels] = (
		await sql(
			`select count(*), count(distinct name), md5(coalesce(string_agg(name, ',' order by name collate "C"), '')), string_agg(distinct label, ',') from ${table}`,
		)
	).split('|');
	return { rows: Number(rows), distinct: Number(distinct), digest, labels };
}

/** The name of the record at a 0-based position of the newest snapshot's stream. */
function nameAt(position: number): string {
	return (JSON.parse(sim.index.lineAt(position, newest, 'name')) as { name: string }).name;
}

function digestOfFirst(count: number): string {
	const names: string[] = [];
	for (let position = 0; position < count; position++) names.push(nameAt(position));
	names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
	return createHash('md5').update(names.join(',')).digest('hex');
}

/**
 * A sub-workflow inserting each batch into `table`, and a caller streaming the newest snapshot into it (into
 * `sub` when given: a second caller of a sub-workflow already there).
 */
function pair(
	stem: string,
	table: string,
	stream: Record<string, unknown>,
	trigger = manualTrigger(),
	sub = workflow(
		workflowId(`${stem}Sub`),
		`Sub-workflow: insert a batch into ${table}`,
		chain(executeWorkflowTrigger(), postgresInsert('Insert Rows', table, POSTGRES)),
		{ settings: { ...BATCH_SUB_WORKFLOW_SETTINGS } },
	),
): { sub: WorkflowImport; caller: WorkflowImport } {
	const caller = workflow(
		workflowId(`${stem}Caller`),
		`Stream the newest snapshot into ${table}`,
		chain(
			trigger,
			domainData(
				'Stream',
				{
					resource: 'dataset',
					operation: 'stream',
					label: 'latest',
					fields: FIELDS,
					output: 'subWorkflow',
					workflowId: { __rl: true, mode: 'id', value: sub.id },
					batchSize: BATCH,
					...stream,
				},
				CREDENTIALS.pro,
			),
		),
	);
	return { sub, caller };
}

beforeAll(async () => {
	if (!(await isPostgresReachable())) throw new Error('These tests need PostgreSQL on 127.0.0.1:5432 (user postgres)');
	await createDatabase(TARGET);
	created.push(TARGET);
	sim = await startSimulator({ domains: WHOLE, snapshots: 2 });
	newest = sim.datasets()[0].label;
}, 120_000);

afterAll(async () => {
	await sim?.close();
	for (const database of created) await dropDatabase(database);
	console.log(`subworkflow e2e: ${((Date.now() - startedAt) / 1000).toFixed(0)} s in all`);
}, 120_000);

describe('regular mode', () => {
	let n8n: N8nInstance;
	const whole = pair('subWhole', 'domains_whole', { returnAll: true });
	const failing = pair('subResume', 'domains_resume', { returnAll: false, limit: RESUME_RECORDS });
	// The run the failure's message asks for: the same limit, Skip Records as the message names it (RESUME_AT, checked
	// below before this runs), into the same sub-workflow. Imported with the others: one n8n import, no second publish.
	const resumed = pair(
		'subResumed',
		'domains_resume',
		{ returnAll: false, limit: RESUME_RECORDS, options: { skipRecords: RESUME_AT } },
		manualTrigger(),
		failing.sub,
	);

	beforeAll(async () => {
		await createTable('domains_whole');
		await createTable('domains_resume');
		n8n = await createInstance(sim, { credentials: [postgresCredential], env: CLI_PUBLISHED_SUB_WORKFLOWS_ENV });
		await importAndPublish(n8n, [whole, failing, { caller: resumed.caller }]);
	}, 10 * 60_000);

	afterAll(async () => {
		await n8n?.dispose();
	});

	test(
		`${WHOLE.toLocaleString('en-US')} records of the newest snapshot end up in the table, each exactly once`,
		async () => {
			const run = await n8n.execute(whole.caller.id, { timeoutMs: 30 * 60_000 });
			expect(run.describe()).toBe('ok');
			expect(run.json('Stream')).toEqual([
				expect.objectContaining({
					label: newest,
					records: WHOLE,
					batches: WHOLE / BATCH,
					skippedRecords: 0,
					durationMs: expect.any(Number),
				}),
			]);
			const state = await tableState('domains_whole');
			expect(state).toEqual({ rows: WHOLE, distinct: WHOLE, digest: digestOfFirst(WHOLE), labels: newest });
			const first = JSON.parse(sim.index.lineAt(0, newest, FIELDS.join(','))) as { name: string; rank: number };
			expect(await sql(`select rank from domains_whole where name = '${first.name}'`)).toBe(String(first.rank));
		},
		30 * 60_000,
	);

	test(
		'a sub-workflow failing at batch 4 stops the node there; resumed with Skip Records, every record is in the table once',
		async () => {
			// Batch 4 holds records 15,001-20,000: the table refuses record 15,001, so that whole insert fails.
			const refused = nameAt(15_000);
			await sql(`alter table domains_resume add constraint refuse_one check (name <> '${refused}')`);
			const failed = await n8n.execute(failing.caller.id, { timeoutMs: 10 * 60_000 });
			expect(failed.ok).toBe(false);
			expect(failed.error?.message).toBe(
				`The sub-workflow failed at batch 4 (records 15,001-20,000 of the dataset "${newest}"); 15,000 records were done`,
			);
			expect(failed.error?.description).toContain('refuse_one');
			const resumeAt = Number(/"Skip Records" set to (\d+)/.exec(String(failed.error?.description))?.[1]);
			expect(resumeAt).toBe(RESUME_AT);
			// The failed batch was one statement: nothing of it stayed.
			expect((await tableState('domains_resume')).rows).toBe(15_000);

			await sql('alter table domains_resume drop constraint refuse_one');
			const run = await n8n.execute(resumed.caller.id, { timeoutMs: 10 * 60_000 });
			expect(run.describe()).toBe('ok');
			expect(run.json('Stream')).toEqual([
				expect.objectContaining({ records: RESUME_RECORDS - 15_000, batches: 7, skippedRecords: 15_000 }),
			]);
			expect(await tableState('domains_resume')).toEqual({
				rows: RESUME_RECORDS,
				distinct: RESUME_RECORDS,
				digest: digestOfFirst(RESUME_RECORDS),
				labels: newest,
			});
		},
		20 * 60_000,
	);
});

describe('queue mode', () => {
	let queue: QueueMode | undefined;
	const hookPath = `dd-e2e-subwf-${suffix}`;
	const queued = pair(
		'subQueue',
		'domains_queue',
		{ returnAll: false, limit: QUEUE_RECORDS },
		webhook('Webhook', hookPath),
	);
	const target = { database: QUEUE_N8N_DATABASE, redisDb: REDIS_DB, redisPrefix: REDIS_PREFIX };

	beforeAll(async () => {
		await createTable('domains_queue');
		created.push(QUEUE_N8N_DATABASE);
		queue = await startQueueMode(sim, target, [...credentialImports(sim), postgresCredential], [queued]);
	}, 10 * 60_000);

	afterAll(async () => {
		await stopQueueMode(queue, target);
	}, 120_000);

	test(
		`${QUEUE_RECORDS.toLocaleString('en-US')} records go through the sub-workflow on the worker that runs the node`,
		async () => {
			const { n8n, main, worker, rest } = queue!;
			const answer = await postWebhook(n8n.url, hookPath, {}, 15 * 60_000);
			expect(answer).toEqual([
				expect.objectContaining({ label: newest, records: QUEUE_RECORDS, batches: QUEUE_RECORDS / BATCH }),
			]);

			const [run] = await rest.waitForExecutions(queued.caller.id, 1);
			const executionId = run.execution.id;
			await worker.waitForOutput(new RegExp(`Worker finished execution ${executionId}\\b`), 60_000);
			expect(worker.output()).toMatch(new RegExp(`Worker started execution ${executionId}\\b`));
			expect(main.output()).toMatch(new RegExp(`Enqueued execution ${executionId}\\b`));
			expect(fromApiExecution(run.execution).json('Stream')).toEqual(answer);
			// Sub-executions are not queued: they run inside the worker's execution. None is enqueued by main.
			expect(main.output().match(/Enqueued execution/g)).toHaveLength(1);
			// The sub-workflow saves no successful execution: the list holds nothing of its runs (one per batch).
			expect(await rest.executions(queued.sub.id, { includeData: false })).toHaveLength(0);

			expect(await tableState('domains_queue')).toEqual({
				rows: QUEUE_RECORDS,
				distinct: QUEUE_RECORDS,
				digest: digestOfFirst(QUEUE_RECORDS),
				labels: newest,
			});
		},
		20 * 60_000,
	);
});
