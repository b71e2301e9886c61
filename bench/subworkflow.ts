/**
 * 6. Sub-Workflow output in real n8n 2.8.4: the peak RSS of the n8n process that runs the node (main in
 * regular mode, the worker in queue mode) over 100,000, 1,000,000 and 2,000,000 records (and 300,000 with
 * n8n's default heap), so that a plateau shows as one; V8's own trace of its full collections in that
 * process, which tells garbage collected late from data kept; records per second through the
 * sub-workflow path against the File output of the same snapshot in the same n8n process; and what one
 * sub-execution costs per batch.
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
import { gcSince, logOffset, requestFullGc, TRACE_GC_OPTION, type GcSummary } from './lib/gc-trace';
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
	/** Undefined when V8 made no full collection during the run. */
	gc?: GcSummary;
	summary: Record<string, unknown>;
}

/** A caller started by a webhook: Stream of the newest snapshot, `records` of it, into `output`. */
function caller(key: string, path: string, parameters: Record<string, unknown>) {
	return workflow(
		workflowId(`bench subworkflow ${key}`),
		`Bench: ${key}`,
		chain(
			webhook('Webhook', path),
			domainData(
				'Stream',
				{
					resource: 'dataset',
					operation: 'stream',
					label: 'latest',
					fields: FIELDS,
					returnAll: false,
					...parameters,
				},
				DOMAIN_DATA_CREDENTIAL,
			),
		),
	);
}

interface Plan {
	key: string;
	records: number;
	parameters: Record<string, unknown>;
}

function plans(sizes: Sizes, batch: number, overheadBatches: [number, number]): Plan[] {
	const { small, large } = sizes;
	return [
		...Object.values(sizes).map((records) => ({
			key: `sub ${records} ${batch}`,
			records,
			parameters: { output: 'subWorkflow', batchSize: batch },
		})),
		{ key: `file ${large}`, records: large, parameters: { output: 'file' } },
		...overheadBatches.map((size) => ({
			key: `sub ${small} ${size}`,
			records: small,
			parameters: { output: 'subWorkflow', batchSize: size },
		})),
	].map((plan) => ({
		...plan,
		parameters: {
			limit: plan.records,
			...plan.parameters,
			...(plan.parameters.output === 'subWorkflow' ? { workflowId: { __rl: true, mode: 'id', value: SUB_ID } } : {}),
		},
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
		workflow(SUB_ID, 'Bench: sub-workflow (no operation)', chain(executeWorkflowTrigger(), noOp('Done')), {
			settings: { ...BATCH_SUB_WORKFLOW_SETTINGS },
		}),
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
	const logStart = logOffset(runner.logFile);
	// Resets VmHWM to the current RSS (Linux >= 4.0): the peak is this run's.
	writeFileSync(`/proc/${pid}/clear_refs`, '5');
	const started = performance.now();
	const response = await fetch(`${n8nUrl}/webhook/${path}`, {
		method: 'POST',
		signal: AbortSignal.timeout(30 * 60_000),
	});
	const text = await response.text();
	const wallMs = performance.now() - started;
	if (response.status !== 200) throw new Error(`webhook ${path} answered ${response.status}: ${text.slice(0, 300)}`);
	const [summary] = JSON.parse(text) as Array<Record<string, unknown>>;
	const count = Number(summary.records ?? summary.recordCount);
	if (count !== records) throw new Error(`${path}: ${count} records, expected ${records} (${text.slice(0, 300)})`);
	const memory = processMemory(pid);
	if (!memory) throw new Error(`cannot read the memory of n8n process ${pid}`);
	// What the run left behind: a full collection now, its line in the log (through a stream) a moment later.
	requestFullGc(pid);
	await new Promise((resolvePromise) => setTimeout(resolvePromise, 1500));
	return { records, wallMs, peakMb: memory.hwmMb, gc: gcSince(runner.logFile, logStart, pid), summary };
}

/** A heap limit for the n8n process: V8 then collects garbage before RSS grows, and what is left is what the run holds. */
const HEAP_CAP_MB = 384;

/** The run sizes: the target is set between `small` and `large`; `largest` shows whether the growth stops. */
interface Sizes {
	small: number;
	/** Between small and large, with the default heap only: the shape of the curve. */
	middle: number;
	large: number;
	largest: number;
}

interface Setup {
	/** Key prefix of the results, e.g. "regular" or "queue capped". */
	name: string;
	queue: boolean;
	capped: boolean;
	/** Plans to run in order (the first one warms n8n up and is measured again). */
	keys: string[];
}

function mb(value: number): string {
	return value.toFixed(0);
}

function growth(from: Measured, to: Measured): string {
	const delta = to.peakMb - from.peakMb;
	return `${mb(from.peakMb)} → ${mb(to.peakMb)} MB (${delta < 0 ? '−' : '+'}${mb(Math.abs(delta))} MB)`;
}

/** The table's GC cells: full collections, heap after the final one (smallest–largest of the run), largest heap reserved. */
function gcCells(gc: GcSummary | undefined): string[] {
	if (!gc) return ['0', '–', '–'];
	return [String(gc.fullGcs), `${mb(gc.liveLastMb)} (${mb(gc.liveMinMb)}–${mb(gc.liveMaxMb)})`, mb(gc.committedMaxMb)];
}

export async function subWorkflowSection(context: BenchContext): Promise<SectionResult> {
	const unavailable = await n8nAvailable(context);
	if (unavailable) return { id: 'subworkflow', title: TITLE, figures: [], details: [], pending: [unavailable] };
	const sizes: Sizes = context.tiny
		? { small: 2_000, middle: 6_000, large: 20_000, largest: 40_000 }
		: { small: 100_000, middle: 300_000, large: 1_000_000, largest: 2_000_000 };
	const batch = context.tiny ? 500 : 2_000;
	const overheadBatches: [number, number] = context.tiny ? [100, 1_000] : [500, 10_000];
	const all = plans(sizes, batch, overheadBatches);
	const byKey = (key: string) => all.find((plan) => plan.key === key)!;
	const suffix = `${process.pid}-${randomBytes(2).toString('hex')}`;
	const sub = (records: number) => `sub ${records} ${batch}`;
	const capped = [sub(sizes.small), sub(sizes.small), sub(sizes.large), sub(sizes.largest)];
	const byDefault = [sub(sizes.small), sub(sizes.small), sub(sizes.middle), sub(sizes.large), sub(sizes.largest)];
	const setups: Setup[] = [
		{
			name: 'regular',
			queue: false,
			capped: false,
			keys: [...byDefault, `file ${sizes.large}`, ...overheadBatches.map((size) => `sub ${sizes.small} ${size}`)],
		},
		{ name: 'regular capped', queue: false, capped: true, keys: capped },
		{ name: 'queue', queue: true, capped: false, keys: byDefault },
		{ name: 'queue capped', queue: true, capped: true, keys: capped },
	];
	const sim = await context.simulators.start({ domains: sizes.largest });
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
			const env = setup.queue
				? queueModeEnv({ postgres: { database }, redis: { db: 7, prefix: redisPrefix } })
				: undefined;
			const nodeOptions = [TRACE_GC_OPTION, ...(setup.capped ? [`--max-old-space-size=${HEAP_CAP_MB}`] : [])];
			const { n8n, main, worker, callers } = await setUp(context, sim, all, tag, env, {
				NODE_OPTIONS: nodeOptions.join(' '),
			});
			try {
				for (const key of setup.keys) {
					const { path } = callers.find((entry) => entry.plan.key === key)!;
					const result = await measure(n8n.instance.url, path, worker ?? main, byKey(key).records);
					const gc = result.gc
						? `, ${result.gc.fullGcs} full GCs, heap after them ${mb(result.gc.liveMinMb)}-${mb(result.gc.liveMaxMb)} MB, at the end ${mb(result.gc.liveLastMb)} MB`
						: '';
					context.log(
						`  subworkflow ${setup.name} ${key}: ${(result.wallMs / 1000).toFixed(1)} s, peak RSS ${mb(result.peakMb)} MB${gc}`,
					);
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
	const row = (mode: string, runner: string, heap: string, result: Measured, batchLabel: string) => [
		mode,
		runner,
		heap,
		formatNumber(result.records),
		batchLabel,
		(result.wallMs / 1000).toFixed(1),
		rate(result),
		mb(result.peakMb),
		...gcCells(result.gc),
	];
	for (const setup of setups) {
		const runs = [sizes.small, sizes.middle, sizes.large, sizes.largest].map((records) =>
			results.get(`${setup.name} ${sub(records)}`),
		);
		const [smallRun, , largeRun, largestRun] = runs;
		if (!smallRun || !largeRun) continue;
		const runner = setup.queue ? 'worker' : 'main';
		const mode = setup.queue ? 'queue' : 'regular';
		const heap = setup.capped ? `heap capped at ${HEAP_CAP_MB} MB` : "n8n's default heap";
		figures.push({
			what: `${mode} mode, ${heap}: peak RSS of ${runner}, ${formatNumber(sizes.small)} → ${formatNumber(sizes.large)} records`,
			value: growth(smallRun, largeRun),
			target: `growth < ${GROWTH_TARGET_MB} MB`,
			met: largeRun.peakMb - smallRun.peakMb < GROWTH_TARGET_MB,
		});
		if (largestRun) {
			figures.push({
				what: `${mode} mode, ${heap}: peak RSS of ${runner}, ${formatNumber(sizes.large)} → ${formatNumber(sizes.largest)} records (does it level off?)`,
				value: growth(largeRun, largestRun),
			});
		}
		const traced = [smallRun, largestRun ?? largeRun];
		if (traced.every((result) => result.gc)) {
			figures.push({
				what: `${mode} mode, ${heap}: ${runner}'s heap in use after a full collection at the end of the run, ${formatNumber(traced[0].records)} → ${formatNumber(traced[1].records)} records (what the run leaves behind)`,
				value: `${mb(traced[0].gc!.liveLastMb)} → ${mb(traced[1].gc!.liveLastMb)} MB (during the runs: ${mb(traced[0].gc!.liveMaxMb)} and ${mb(traced[1].gc!.liveMaxMb)} MB at most)`,
			});
		}
		for (const result of runs)
			if (result)
				rows.push(row(mode, runner, setup.capped ? `${HEAP_CAP_MB} MB` : 'default', result, formatNumber(batch)));
	}
	const subRun = results.get(`regular ${sub(sizes.large)}`);
	const file = results.get(`regular file ${sizes.large}`);
	if (subRun && file) {
		const subRate = subRun.records / (subRun.wallMs / 1000);
		const fileRate = file.records / (file.wallMs / 1000);
		figures.push({
			what: `records/s, ${formatNumber(sizes.large)} records: Sub-Workflow (batches of ${formatNumber(batch)}) against File output`,
			value: `${formatNumber(Math.round(subRate))} against ${formatNumber(Math.round(fileRate))} (${(subRate / fileRate).toFixed(2)} ×)`,
		});
		rows.push(row('regular', 'main', 'default', file, 'File output'));
	}
	const [more, fewer] = overheadBatches.map((size) => results.get(`regular sub ${sizes.small} ${size}`));
	if (fewer && more) {
		const runsMore = Math.ceil(sizes.small / overheadBatches[0]);
		const runsFewer = Math.ceil(sizes.small / overheadBatches[1]);
		const perBatchMs = (more.wallMs - fewer.wallMs) / (runsMore - runsFewer);
		figures.push({ what: 'overhead of one sub-execution (per batch)', value: `${perBatchMs.toFixed(1)} ms` });
		for (const [result, size] of [
			[more, overheadBatches[0]],
			[fewer, overheadBatches[1]],
		] as const) {
			rows.push(row('regular', 'main', 'default', result, formatNumber(size)));
		}
	}
	details.push(
		`n8n 2.8.4 from the packed package, started with \`n8n start\` (queue mode: main + \`n8n worker\`, PostgreSQL and Redis on 127.0.0.1). ` +
			`Each workflow is a Webhook and Dataset → Stream of the newest snapshot (fields ${FIELDS.join(', ')}; the simulator in a child process), ` +
			'started by a POST to its webhook; the time is that call\'s wall time. The sub-workflow is "When Executed by Another Workflow" → No Operation, ' +
			'saving no successful execution. Before each run the peak-RSS counter (VmHWM) of the process that runs the node is reset through ' +
			'`/proc/<pid>/clear_refs`; the peak is read after the run. A first run of the smallest size warms n8n up and is not counted; the sizes then ' +
			'run from the smallest to the largest in the same process. ' +
			`The per-batch overhead is the difference of two runs over ${formatNumber(sizes.small)} records in batches of ${formatNumber(overheadBatches[0])} and ` +
			`${formatNumber(overheadBatches[1])}, divided by the difference in sub-executions. One run per figure.`,
		"**What V8 did.** Every n8n process of this section runs with V8's `--trace-gc`, set by a preload (bench/lib/trace-gc-preload.js) in " +
			`NODE_OPTIONS, and \`--max-old-space-size=${HEAP_CAP_MB}\` for the capped rows. After each run the bench asks that process for a full ` +
			'collection (SIGUSR2, through the preload; the next run then starts from a collected heap) and reads from its log: the number of full collections (Mark-Compact) of its main thread, that ' +
			'final one included; the heap in use right after the final one (what the run left behind), and in parentheses the smallest and the largest ' +
			'after any full collection of the run; and the largest heap V8 had reserved, which is what the peak RSS follows. If a run kept something ' +
			'per record or per sub-execution, the heap left after the final collection would grow with the size of the run.',
		markdownTable(
			[
				'mode',
				'process',
				'heap limit',
				'records',
				'batch size',
				'seconds',
				'records/s',
				'peak RSS MB',
				'full GCs',
				'heap after final full GC MB (min–max)',
				'heap reserved MB',
			],
			rows,
		),
	);
	return { id: 'subworkflow', title: TITLE, figures, details, pending: pending.length ? pending : undefined };
}
