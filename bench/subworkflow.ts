/**
 * 6. Sub-Workflow output in real n8n 2.8.4: the peak RSS of the n8n process that runs the node (main in
 * regular mode, the worker in queue mode) over 100,000 and 1,000,000 records; records per second through
 * the sub-workflow path against the File output of the same snapshot in the same n8n process; and what
 * one sub-execution costs per batch.
 *
 * Every workflow is started by a webhook of a running n8n, so the same process runs all of them; before
 * each run its peak-RSS counter (VmHWM) is reset through /proc/<pid>/clear_refs. The sub-workflow is a
 * No Operation node (saving no successful execution), so what is measured is the path itself, not a
 * database.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';

import { queueModeEnv } from '../scripts/n8n/env';
import type { N8nProcess } from '../scripts/n8n/instance';
import { N8nRestClient } from '../scripts/n8n/rest';
import {
	createDatabase,
	deleteRedisKeys,
	dropDatabase,
	isPostgresReachable,
	isRedisReachable,
} from '../scripts/n8n/services';
import {
	BATCH_SUB_WORKFLOW_SETTINGS,
	chain,
	domainData,
	executeWorkflowTrigger,
	noOp,
	webhook,
	workflow,
	workflowId,
} from '../scripts/n8n/workflows';
import { KEYS } from '../test/simulator';
import { processMemory } from './lib/machine';
import { BenchN8n, DOMAIN_DATA_CREDENTIAL, n8nAvailable } from './lib/n8n';
import { markdownTable, type BenchContext, type Figure, type SectionResult } from './lib/report';
import { SimulatorProcess } from './lib/simulator-process';
import { formatNumber } from './lib/stats';

const TITLE = 'Sub-Workflow output (real n8n)';
const GROWTH_TARGET_MB = 150;
const FIELDS = ['name', 'rank', 'country_code', 'language_code', 'title'];
const SUB_ID = workflowId('bench subworkflow noop');

interface Measured {
	records: number;
	wallMs: number;
	peakMb: number;
	summary: Record<string, unknown>;
}

/** A caller started by a webhook: Stream of the newest snapshot, `records` of it, into `output`. */
function caller(key: string, path: string, parameters: Record<string, unknown>) {
	return workflow(workflowId(`bench subworkflow ${key}`), `Bench: ${key}`, chain(
		webhook('Webhook', path),
		domainData('Stream', {
			resource: 'dataset', operation: 'stream', label: 'latest', fields: FIELDS, returnAll: false, ...parameters,
		}, DOMAIN_DATA_CREDENTIAL),
	));
}

interface Plan {
	key: string;
	records: number;
	parameters: Record<string, unknown>;
}

function plans(sizes: number[], batch: number, overheadBatches: [number, number]): Plan[] {
	const [small, large] = sizes;
	return [
		...sizes.map((records) => ({ key: `sub ${records} ${batch}`, records, parameters: { output: 'subWorkflow', batchSize: batch } })),
		{ key: `file ${large}`, records: large, parameters: { output: 'file' } },
		...overheadBatches.map((size) => ({ key: `sub ${small} ${size}`, records: small, parameters: { output: 'subWorkflow', batchSize: size } })),
	].map((plan) => ({
		...plan,
		parameters: { limit: plan.records, ...plan.parameters, ...(plan.parameters.output === 'subWorkflow' ? { workflowId: { __rl: true, mode: 'id', value: SUB_ID } } : {}) },
	}));
}

/** One n8n set-up (regular, or queue mode with a worker), with every workflow imported and active. */
async function setUp(
	context: BenchContext,
	sim: SimulatorProcess,
	all: Plan[],
	suffix: string,
	env?: Record<string, string>,
	processEnv?: Record<string, string>,
) {
	const n8n = await BenchN8n.create(context, sim.url, KEYS.pro, { env });
	const callers = all.map((plan) => ({ plan, path: `bench-sw-${suffix}-${plan.key.replace(/\s+/g, '-')}` }));
	await n8n.importWorkflows([
		workflow(SUB_ID, 'Bench: sub-workflow (no operation)', chain(executeWorkflowTrigger(), noOp('Done')), { settings: { ...BATCH_SUB_WORKFLOW_SETTINGS } }),
		...callers.map(({ plan, path }) => caller(`${suffix} ${plan.key}`, path, plan.parameters)),
	]);
	await n8n.instance.mustRun(['publish:workflow', `--id=${SUB_ID}`]);
	const main = await n8n.instance.start({ env: processEnv });
	const worker = env ? await n8n.instance.startWorker({ env: processEnv }) : undefined;
	const rest = new N8nRestClient(n8n.instance.url);
	await rest.ensureOwner();
	await rest.createApiKey();
	for (const { plan } of callers) await rest.activateWorkflow(workflowId(`bench subworkflow ${suffix} ${plan.key}`));
	return { n8n, main, worker, callers };
}

/** Runs one caller by its webhook; the peak RSS of `runner` (reset just before) and the wall time of the call. */
async function measure(n8nUrl: string, path: string, runner: N8nProcess, records: number): Promise<Measured> {
	const pid = runner.pid!;
	// Resets VmHWM to the current RSS (Linux >= 4.0): the peak is this run's.
	writeFileSync(`/proc/${pid}/clear_refs`, '5');
	const started = performance.now();
	const response = await fetch(`${n8nUrl}/webhook/${path}`, { method: 'POST', signal: AbortSignal.timeout(30 * 60_000) });
	const text = await response.text();
	const wallMs = performance.now() - started;
	if (response.status !== 200) throw new Error(`webhook ${path} answered ${response.status}: ${text.slice(0, 300)}`);
	const [summary] = JSON.parse(text) as Array<Record<string, unknown>>;
	const count = Number(summary.records ?? summary.recordCount);
	if (count !== records) throw new Error(`${path}: ${count} records, expected ${records} (${text.slice(0, 300)})`);
	const memory = processMemory(pid);
	if (!memory) throw new Error(`cannot read the memory of n8n process ${pid}`);
	return { records, wallMs, peakMb: memory.hwmMb, summary };
}

/** A heap limit for the n8n process: V8 then collects garbage before RSS grows, and what is left is what the run holds. */
const HEAP_CAP_MB = 384;

interface Setup {
	/** Key prefix of the results, e.g. "regular" or "queue capped". */
	name: string;
	queue: boolean;
	capped: boolean;
	/** Plans to run in order (the first one warms n8n up and is measured again). */
	keys: string[];
}

export async function subWorkflowSection(context: BenchContext): Promise<SectionResult> {
	const unavailable = await n8nAvailable(context);
	if (unavailable) return { id: 'subworkflow', title: TITLE, figures: [], details: [], pending: [unavailable] };
	const sizes = context.tiny ? [2_000, 20_000] : [100_000, 1_000_000];
	const batch = context.tiny ? 500 : 2_000;
	const overheadBatches: [number, number] = context.tiny ? [100, 1_000] : [500, 10_000];
	const all = plans(sizes, batch, overheadBatches);
	const byKey = (key: string) => all.find((plan) => plan.key === key)!;
	const suffix = `${process.pid}-${randomBytes(2).toString('hex')}`;
	const small = `sub ${sizes[0]} ${batch}`;
	const large = `sub ${sizes[1]} ${batch}`;
	const setups: Setup[] = [
		{ name: 'regular', queue: false, capped: false, keys: [small, small, large, `file ${sizes[1]}`, ...overheadBatches.map((size) => `sub ${sizes[0]} ${size}`)] },
		{ name: 'regular capped', queue: false, capped: true, keys: [small, small, large] },
		{ name: 'queue', queue: true, capped: false, keys: [small, small, large] },
		{ name: 'queue capped', queue: true, capped: true, keys: [small, small, large] },
	];
	const sim = await SimulatorProcess.start({ domains: sizes[1] });
	const results = new Map<string, Measured>();
	const pending: string[] = [];
	const figures: Figure[] = [];
	const details: string[] = [];
	const queueReady = (await isPostgresReachable()) && (await isRedisReachable({ db: 7 }));
	if (!queueReady) pending.push('queue mode needs PostgreSQL and Redis on 127.0.0.1');
	try {
		for (const setup of setups.filter((entry) => queueReady || !entry.queue)) {
			const tag = `${setup.name.replace(/\s+/g, '')}${suffix}`;
			const database = `dd_bench_subwf_${tag.replace(/-/g, '_')}`;
			const redisPrefix = `dd-bench-subwf-${tag}`;
			if (setup.queue) await createDatabase(database);
			const env = setup.queue ? queueModeEnv({ postgres: { database }, redis: { db: 7, prefix: redisPrefix } }) : undefined;
			const processEnv = setup.capped ? { NODE_OPTIONS: `--max-old-space-size=${HEAP_CAP_MB}` } : undefined;
			const { n8n, main, worker, callers } = await setUp(context, sim, all, tag, env, processEnv);
			try {
				for (const key of setup.keys) {
					const { path } = callers.find((entry) => entry.plan.key === key)!;
					const result = await measure(n8n.instance.url, path, worker ?? main, byKey(key).records);
					context.log(`  subworkflow ${setup.name} ${key}: ${(result.wallMs / 1000).toFixed(1)} s, peak RSS ${result.peakMb.toFixed(0)} MB`);
					// The first run of a key warms n8n up (lazy loading, JIT); the second one counts.
					results.set(`${setup.name} ${key}`, result);
				}
			} finally {
				await n8n.dispose();
				if (setup.queue) {
					await dropDatabase(database);
					await deleteRedisKeys(redisPrefix, { db: 7 }).catch(() => undefined);
				}
			}
		}
	} finally {
		await sim.close();
	}

	const rate = (result: Measured) => formatNumber(Math.round(result.records / (result.wallMs / 1000)));
	const rows: string[][] = [];
	for (const setup of setups) {
		const smallRun = results.get(`${setup.name} ${small}`);
		const largeRun = results.get(`${setup.name} ${large}`);
		if (!smallRun || !largeRun) continue;
		const growth = largeRun.peakMb - smallRun.peakMb;
		const runner = setup.queue ? 'worker' : 'main';
		const heap = setup.capped ? `heap capped at ${HEAP_CAP_MB} MB` : "n8n's default heap";
		figures.push({
			what: `${setup.queue ? 'queue' : 'regular'} mode, ${heap}: peak RSS of ${runner}, ${formatNumber(sizes[0])} → ${formatNumber(sizes[1])} records`,
			value: `${smallRun.peakMb.toFixed(0)} → ${largeRun.peakMb.toFixed(0)} MB (${growth < 0 ? '−' : '+'}${Math.abs(growth).toFixed(0)} MB)`,
			target: `growth < ${GROWTH_TARGET_MB} MB`,
			met: growth < GROWTH_TARGET_MB,
		});
		for (const result of [smallRun, largeRun]) {
			rows.push([setup.queue ? 'queue' : 'regular', runner, setup.capped ? `${HEAP_CAP_MB} MB` : 'default', formatNumber(result.records), formatNumber(batch), (result.wallMs / 1000).toFixed(1), rate(result), result.peakMb.toFixed(0)]);
		}
	}
	const sub = results.get(`regular ${large}`);
	const file = results.get(`regular file ${sizes[1]}`);
	if (sub && file) {
		const subRate = sub.records / (sub.wallMs / 1000);
		const fileRate = file.records / (file.wallMs / 1000);
		figures.push({
			what: `records/s, ${formatNumber(sizes[1])} records: Sub-Workflow (batches of ${formatNumber(batch)}) against File output`,
			value: `${formatNumber(Math.round(subRate))} against ${formatNumber(Math.round(fileRate))} (${(subRate / fileRate).toFixed(2)} ×)`,
		});
		rows.push(['regular', 'main', 'default', formatNumber(file.records), 'File output', (file.wallMs / 1000).toFixed(1), rate(file), file.peakMb.toFixed(0)]);
	}
	const [more, fewer] = overheadBatches.map((size) => results.get(`regular sub ${sizes[0]} ${size}`));
	if (fewer && more) {
		const runsMore = Math.ceil(sizes[0] / overheadBatches[0]);
		const runsFewer = Math.ceil(sizes[0] / overheadBatches[1]);
		const perBatchMs = (more.wallMs - fewer.wallMs) / (runsMore - runsFewer);
		figures.push({ what: 'overhead of one sub-execution (per batch)', value: `${perBatchMs.toFixed(1)} ms` });
		for (const [result, size] of [[more, overheadBatches[0]], [fewer, overheadBatches[1]]] as const) {
			rows.push(['regular', 'main', 'default', formatNumber(result.records), formatNumber(size), (result.wallMs / 1000).toFixed(1), rate(result), result.peakMb.toFixed(0)]);
		}
	}
	details.push(
		`n8n 2.8.4 from the packed package, started with \`n8n start\` (queue mode: main + \`n8n worker\`, PostgreSQL and Redis on 127.0.0.1). ` +
			`Each workflow is a Webhook and Dataset → Stream of the newest snapshot (fields ${FIELDS.join(', ')}; the simulator in a child process), ` +
			'started by a POST to its webhook; the time is that call\'s wall time. The sub-workflow is "When Executed by Another Workflow" → No Operation, ' +
			'saving no successful execution. Before each run the peak-RSS counter (VmHWM) of the process that runs the node is reset through ' +
			'`/proc/<pid>/clear_refs`; the peak is read after the run. A first run of the smaller size warms n8n up and is not counted. ' +
			`The per-batch overhead is the difference of two runs over ${formatNumber(sizes[0])} records in batches of ${formatNumber(overheadBatches[0])} and ` +
			`${formatNumber(overheadBatches[1])}, divided by the difference in sub-executions. One run per figure (each 1,000,000-record run takes about a minute).`,
		'**Default heap and capped heap.** With its default heap limit, V8 lets an n8n process grow its heap with the garbage that every ' +
			'sub-execution leaves (n8n serialises each sub-execution\'s data for its database, the records are parsed and copied) and collects it ' +
			`late, so the peak RSS of a long run is higher than that of a short one without anything being kept. The same runs with the heap capped ` +
			`(\`NODE_OPTIONS=--max-old-space-size=${HEAP_CAP_MB}\` for that process) show what the run holds: the 1,000,000-record run then peaks ` +
			'where the 100,000-record run does. The node itself holds one batch: the stream is paused while a sub-execution runs.',
		markdownTable(['mode', 'process', 'heap limit', 'records', 'batch size', 'seconds', 'records/s', 'peak RSS MB'], rows),
	);
	return { id: 'subworkflow', title: TITLE, figures, details, pending: pending.length ? pending : undefined };
}
