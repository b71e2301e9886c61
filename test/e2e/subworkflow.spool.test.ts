/**
 * The Sub-Workflow output with a sub-workflow slower than the service's patience, in real n8n from the packed
 * package. Between n8n and the simulator sits a proxy (one per run) that cuts an answer not read for 4 s (like
 * nginx's `send_timeout`); the sub-workflow waits 8 s per batch (n8n's Wait node), then inserts the batch into a
 * PostgreSQL table with n8n's Postgres node. The node spools the snapshot into n8n's binary data storage
 * (filesystem mode in regular mode, database mode in queue mode) and feeds the batches from there: every record
 * once, at most 2 stream requests, about one snapshot downloaded; the same with an Idle Timeout (6 s) shorter
 * than a batch. Without the spool every batch would hold the stream for 8 s: cut by the proxy, timed out by the Idle
 * Timeout, at least one more request per batch. The Idle Timeout leaves a margin: on a loaded machine the simulator
 * or n8n itself can stall for seconds, which a short timeout takes for a silent service (1 s: 4 to 5 requests; 3 s
 * at load 30 on 2 cores: 4 tries timed out while spooling), while it proves no more than 6 s does.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join, sep } from 'node:path';

import type { CredentialImport, N8nInstance } from '../../scripts/n8n/instance';
import type { ExecutionResult } from '../../scripts/n8n/run-data';
import { createDatabase, dropDatabase, isPostgresReachable, queryDatabase } from '../../scripts/n8n/services';
import * as wf from '../../scripts/n8n/workflows';
import { type ImpatientProxy, startImpatientProxy } from '../harness/impatientProxy';
import { startSimulator, type Simulator } from '../simulator';
import {
	importAndPublish,
	postgresCredential,
	type QueueMode,
	queueTarget,
	startQueueMode,
	stopQueueMode,
} from './subworkflowSupport';
import {
	CLI_PUBLISHED_SUB_WORKFLOWS_ENV,
	CREDENTIALS,
	createInstance,
	credentialImports,
	postWebhook,
} from './support';

const suffix = `${process.pid}_${randomBytes(3).toString('hex')}`;
const TARGET = `dd_e2e_spool_${suffix}`;
/**
 * About 15 MB of NDJSON: more than the socket buffers between the simulator, the proxy and n8n hold while the node
 * does not read, and two spool files of 8 MB. Three batches of 15,000: two pauses of the reader. Sizes only as large
 * as that proof needs; how fast large snapshots go is the benchmark's question.
 */
const RECORDS = 45_000;
const BATCH = 15_000;
const FIELDS = ['name', 'rank', 'title', 'meta_description', 'icon', 'canonical', 'first_published_at'];
/** Per batch, longer than the proxy's patience (PROXY_PATIENCE_MS) and the Idle Timeout (IDLE_SECONDS). */
const WAIT_SECONDS = 8;
const IDLE_SECONDS = 6;
/** 2 s was cut by a stall of n8n while it spooled (a second download) at load 30 on 2 cores. */
const PROXY_PATIENCE_MS = 4000;

const POSTGRES = { id: wf.workflowId('credPostgresSpool'), name: 'Postgres (spool target)' };

let sim: Simulator;
/** The proxy of the run behind the proxy and of queue mode. */
let proxy: ImpatientProxy;
/** The Idle Timeout run's own proxy: it runs beside the other, and each run's requests and bytes are counted apart. */
let idleProxy: ImpatientProxy;
let newest: string;
let snapshotBytes = 0;
const created: string[] = [];

async function waitUntil(done: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
	for (const end = Date.now() + timeoutMs; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 500))) {
		if (await done()) return true;
	}
	return false;
}

async function sql(text: string): Promise<string> {
	return await queryDatabase(TARGET, text);
}

async function createTable(table: string): Promise<void> {
	const text = FIELDS.filter((field) => field !== 'name' && field !== 'rank').map((field) => `${field} text`);
	await sql(
		`create table ${table} (name text not null, rank integer not null, ${text.join(', ')}, label text not null)`,
	);
}

/** Rows, distinct names, and whether they are exactly the snapshot's names (by their sorted digest). */
async function tableState(table: string): Promise<{ rows: number; distinct: number; digest: string }> {
	const [rows, distinct, digest] = (
		await sql(
			`select count(*), count(distinct name), md5(string_agg(name, ',' order by name collate "C")) from ${table}`,
		)
	).split('|');
	return { rows: Number(rows), distinct: Number(distinct), digest };
}

async function expectedState(): Promise<{ rows: number; distinct: number; digest: string }> {
	const names: string[] = [];
	for (let position = 0; position < RECORDS; position++) {
		names.push((JSON.parse(sim.index.lineAt(position, newest, 'name')) as { name: string }).name);
	}
	names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
	return { rows: RECORDS, distinct: RECORDS, digest: createHash('md5').update(names.join(',')).digest('hex') };
}

/** n8n's Wait node: under 65 s it waits in the running execution (no Wait state). */
function waitNode(): wf.WorkflowNode {
	return wf.node('Slow Work', 'n8n-nodes-base.wait', 1.1, {
		resume: 'timeInterval',
		amount: WAIT_SECONDS,
		unit: 'seconds',
	});
}

function pair(
	stem: string,
	table: string,
	options: Record<string, unknown>,
	trigger = wf.manualTrigger(),
	settings: Record<string, unknown> = { executionOrder: 'v1' },
	credential: { id: string; name: string } = CREDENTIALS.pro,
) {
	const sub = wf.workflow(
		wf.workflowId(`${stem}Sub`),
		`Sub-workflow: slow insert into ${table}`,
		wf.chain(wf.executeWorkflowTrigger(), waitNode(), wf.postgresInsert('Insert Rows', table, POSTGRES)),
		{ settings: { ...wf.BATCH_SUB_WORKFLOW_SETTINGS } },
	);
	const caller = wf.workflow(
		wf.workflowId(`${stem}Caller`),
		`Stream the newest snapshot into ${table}`,
		wf.chain(
			trigger,
			wf.domainData(
				'Stream',
				{
					resource: 'dataset',
					operation: 'stream',
					label: 'latest',
					fields: FIELDS,
					returnAll: true,
					output: 'subWorkflow',
					workflowId: { __rl: true, mode: 'id', value: sub.id },
					batchSize: BATCH,
					options,
				},
				credential,
			),
		),
		{ settings },
	);
	return { sub, caller };
}

/** The pro plan's key behind the Idle Timeout run's own proxy. */
const IDLE_PRO = { id: wf.workflowId('credProSpoolIdle'), name: 'Domain Data (pro plan, second proxy)' };

/** The credentials of the suite, the Domain Data ones pointed at the proxy (IDLE_PRO at the second one). */
function credentials(): CredentialImport[] {
	const pro = credentialImports({ url: idleProxy.url } as Simulator).find((entry) => entry.id === CREDENTIALS.pro.id)!;
	return [
		...credentialImports({ url: proxy.url } as Simulator),
		{ ...pro, ...IDLE_PRO },
		postgresCredential(POSTGRES.id, POSTGRES.name, TARGET),
	];
}

/**
 * Files of n8n's filesystem binary data mode below the user folder (their metadata files left out) of one
 * workflow's executions (n8n keeps them below `workflows/<id>/executions/`).
 */
function binaryDataFiles(root: string, workflowId: string): string[] {
	const files: string[] = [];
	const walk = (dir: string, inBinaryData: boolean) => {
		for (const entry of readdirSync(dir, { withFileTypes: true })) {
			const path = join(dir, entry.name);
			if (entry.isDirectory()) walk(path, inBinaryData || entry.name === 'binary_data');
			else if (inBinaryData && !entry.name.endsWith('.metadata')) files.push(path);
		}
	};
	walk(root, false);
	return files.filter((path) => path.includes(`${sep}workflows${sep}${workflowId}${sep}`));
}

beforeAll(async () => {
	if (!(await isPostgresReachable())) throw new Error('These tests need PostgreSQL on 127.0.0.1:5432 (user postgres)');
	await createDatabase(TARGET);
	created.push(TARGET);
	sim = await startSimulator({ domains: RECORDS, snapshots: 2 });
	newest = sim.datasets()[0].label;
	proxy = await startImpatientProxy(sim.url, PROXY_PATIENCE_MS);
	idleProxy = await startImpatientProxy(sim.url, PROXY_PATIENCE_MS);
	const url = `${sim.url}/json/api/v1/historical/domain/${newest}?fields=${FIELDS.join(',')}`;
	const answer = await fetch(url, { headers: { authorization: 'Bearer sim-pro-key' } });
	snapshotBytes = (await answer.arrayBuffer()).byteLength;
}, 120_000);

afterAll(async () => {
	await proxy?.close();
	await idleProxy?.close();
	await sim?.close();
	for (const database of created) await dropDatabase(database);
}, 120_000);

describe('regular mode (filesystem binary data)', () => {
	let n8n: N8nInstance;
	const behindProxy = pair('spoolProxy', 'spool_proxy', {});
	const shortIdle = pair(
		'spoolIdle',
		'spool_idle',
		{ idleTimeout: IDLE_SECONDS },
		wf.manualTrigger(),
		{ executionOrder: 'v1' },
		IDLE_PRO,
	);
	let runs: Map<string, ExecutionResult>;
	let spoolFilesLeft = 0;

	beforeAll(async () => {
		await createTable('spool_proxy');
		await createTable('spool_idle');
		n8n = await createInstance(sim, { credentials: false, env: CLI_PUBLISHED_SUB_WORKFLOWS_ENV });
		await n8n.importCredentials(credentials());
		await importAndPublish(n8n, [behindProxy, shortIdle]);
		// Both runs in one n8n process, side by side, each behind its own proxy: their Waits overlap, and each run's
		// stream requests and bytes are counted apart (each proxy saw nothing before).
		const filesBefore = binaryDataFiles(n8n.userFolder, behindProxy.caller.id).length;
		runs = await n8n.executeBatch([behindProxy.caller.id, shortIdle.caller.id], {
			concurrency: 2,
			timeoutMs: 10 * 60_000,
		});
		spoolFilesLeft = binaryDataFiles(n8n.userFolder, behindProxy.caller.id).length - filesBefore;
	}, 20 * 60_000);

	afterAll(async () => {
		await n8n?.dispose();
	});

	test(`behind a proxy that cuts an unread answer after ${PROXY_PATIENCE_MS / 1000} s: every record once, one download`, async () => {
		const run = runs.get(behindProxy.caller.id)!;
		expect(run.describe()).toBe('ok');
		const [summary] = run.json('Stream');
		expect(summary).toMatchObject({
			label: newest,
			records: RECORDS,
			batches: RECORDS / BATCH,
			progress: `batch ${RECORDS / BATCH} of ${RECORDS / BATCH}`,
		});
		expect(await tableState('spool_proxy')).toEqual(await expectedState());
		expect(proxy.streams()).toBeLessThanOrEqual(2);
		expect(proxy.streamBytes()).toBeLessThanOrEqual(snapshotBytes * 1.05);
		// The snapshot went through the spool (8 MB files), and its files stay with the execution's binary data (n8n
		// offers a node no way to delete them).
		const { spooledBytes, spoolFiles } = summary as { spooledBytes: number; spoolFiles: number };
		expect(spoolFiles).toBeGreaterThan(0);
		expect(spoolFiles).toBe(Math.ceil(spooledBytes / (8 * 1024 * 1024)));
		expect(spoolFilesLeft).toBe(spoolFiles);
	});

	test(`with an Idle Timeout (${IDLE_SECONDS} s) shorter than a batch: every record once, one download`, async () => {
		const run = runs.get(shortIdle.caller.id)!;
		expect(run.describe()).toBe('ok');
		expect(run.json('Stream')).toEqual([expect.objectContaining({ records: RECORDS, batches: RECORDS / BATCH })]);
		expect(await tableState('spool_idle')).toEqual(await expectedState());
		expect(idleProxy.streams()).toBeLessThanOrEqual(2);
		expect(idleProxy.streamBytes()).toBeLessThanOrEqual(snapshotBytes * 1.05);
	});
});

describe('queue mode (database binary data)', () => {
	let queue: QueueMode | undefined;
	const hookPath = `dd-e2e-spool-${suffix}`;
	// Successful runs of the caller are not saved: n8n deletes each at its end, with its binary data.
	const notSaved = { executionOrder: 'v1', saveDataSuccessExecution: 'none' };
	const queued = pair(
		'spoolQueue',
		'spool_queue',
		{ idleTimeout: IDLE_SECONDS },
		wf.webhook('Webhook', hookPath),
		notSaved,
	);
	const target = queueTarget('spool', suffix);

	beforeAll(async () => {
		await createTable('spool_queue');
		created.push(target.database);
		// n8n 2.8 deletes an execution it does not save at once; 2.41 marks it deleted and its pruning removes it at
		// the next pass (every 15 minutes by default): every 6 s here (n8n reads the interval in minutes as a number).
		const pruning = { EXECUTIONS_DATA_PRUNE_HARD_DELETE_INTERVAL: '0.1' };
		queue = await startQueueMode(sim, target, credentials(), [queued], pruning);
	}, 10 * 60_000);

	afterAll(async () => {
		await stopQueueMode(queue, target);
	}, 120_000);

	beforeEach(() => {
		proxy.paths.length = 0;
	});

	test(
		'on the worker, spooled into the database: every record once, one download',
		async () => {
			const bytesBefore = proxy.streamBytes();
			const answer = (await postWebhook(queue!.n8n.url, hookPath, {}, 15 * 60_000)) as Array<Record<string, unknown>>;
			expect(answer).toEqual([expect.objectContaining({ label: newest, records: RECORDS, batches: RECORDS / BATCH })]);
			expect(await tableState('spool_queue')).toEqual(await expectedState());
			expect(proxy.streams()).toBeLessThanOrEqual(2);
			expect(proxy.streamBytes() - bytesBefore).toBeLessThanOrEqual(snapshotBytes * 1.05);
			// Spool files of about 8 MB each: far under the database mode's limit per file (512 MiB by default).
			const { spooledBytes, spoolFiles } = answer[0] as { spooledBytes: number; spoolFiles: number };
			expect(spoolFiles).toBe(Math.ceil(spooledBytes / (8 * 1024 * 1024)));
			// The caller saves no successful execution: n8n deletes the execution, and with it the spool's rows.
			const rows = async () => await queryDatabase(target.database, 'select count(*) from binary_data');
			expect(await waitUntil(async () => (await rows()) === '0', 180_000)).toBe(true);
		},
		25 * 60_000,
	);
});
