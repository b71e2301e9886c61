/**
 * 11. The real size (issue 27): every-field snapshots through every output of Dataset → Stream and through
 * Compare, in real n8n 2.8.4 with binary data on the filesystem and in the database; and where the memory of
 * the Sub-Workflow output goes, batch size by batch size.
 *
 *   npm run bench -- --only realsize                  879,000 records (hours on a small machine)
 *   npm run bench -- --only realsize --size 50000     the same runs over 50,000 records
 *   npm run bench -- --only realsize --targets        only the runs issue 27's targets name (File plain and gzip in
 *                                                     both modes, Sub-Workflow at the default batch, Compare on
 *                                                     loopback and over a 50 MB/s link): about a third of the time
 *   npm run bench -- --only realsize --targets --runs "compare without rank,file"
 *                                                     of those, the runs whose name starts so (each in its modes)
 *
 * Every workflow of a setup (a binary data mode, with or without a capped heap) is started by a webhook of one running
 * n8n (`n8n start`), so one process runs all of them; before each run its peak-RSS counter (VmHWM) is reset, after it
 * the peak is read. Per run: the wall time of
 * the webhook call, the peak RSS, what the run left on disk (n8n's user folder: binary data files, or the
 * SQLite database that holds them in the database mode), and the stream requests the simulator saw. The
 * baseline is the fastest hand-written reader (bench/baselines.ts's loop, counting instead of keeping) reading
 * the same snapshot(s) once, over the same link: Compare runs also with the simulator's streams capped at 50 MB/s
 * (a service's link, where the read Compare saves shows), the reader then too.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

import { request } from 'undici';

import type { WorkflowImport } from '../scripts/n8n/instance';
import { N8nRestClient } from '../scripts/n8n/rest';
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
import { DEFAULT_BATCH_SIZE } from '../nodes/DomainData/helpers/streams';
import { SNAPSHOT_FIELDS } from '../nodes/DomainData/helpers/snapshotFields';
import { COMPARE_LIMITS } from '../nodes/DomainData/helpers/compare/refusals';
import { KEYS } from '../test/simulator';
import { processMemory } from './lib/machine';
import { BenchN8n, DOMAIN_DATA_CREDENTIAL, n8nAvailable } from './lib/n8n';
import { markdownTable, type BenchContext, type Figure, type SectionResult } from './lib/report';
import { SimulatorProcess } from './lib/simulator-process';
import { formatNumber } from './lib/stats';

const TITLE = 'The real size (real n8n)';
export const REAL_SIZE = 879_000;
const SWEEP_BATCHES = [1_000, 2_000, 5_000, 10_000];
/** A service's link: 50 MB/s (decimal megabytes, as links are quoted). */
const LINK_BYTES_PER_SECOND = 50_000_000;
const TIME_TARGETS = { file: 1.5, compareLoopback: 1.3, compareLink: 1.1 };
/** The sub-workflow as a user builds it saves its successful executions (n8n's default); ours saves none. */
const SUB_SAVING = workflowId('bench realsize sub saving');
const SUB_QUIET = workflowId('bench realsize sub quiet');

interface Plan {
	key: string;
	/** Stream (or Compare) parameters beyond the shared ones. */
	parameters: Record<string, unknown>;
	/** Records the run must deliver (Compare: left unchecked, the changes are counted). */
	records?: number;
	/** Snapshots the fastest reader reads for the same data. */
	reads: number;
	fields: 'default' | 'every';
	/** The simulator's streams capped at this many bytes a second during the run (and the reader's). */
	linkBytesPerSecond?: number;
}

interface Measured {
	plan: Plan;
	mode: string;
	wallMs: number;
	peakMb: number;
	rssBeforeMb: number;
	/** RSS of the n8n process right after it started, before any run. */
	idleMb: number;
	diskMb: number;
	streams: number;
	items: number;
}

function sub(records: number, batch: number, fields: Plan['fields'], saving = false): Plan {
	return {
		key: `sub ${fields} ${batch}${saving ? ' saving' : ''}`,
		records,
		reads: 1,
		fields,
		parameters: {
			operation: 'stream',
			output: 'subWorkflow',
			batchSize: batch,
			workflowId: { __rl: true, mode: 'id', value: saving ? SUB_SAVING : SUB_QUIET },
		},
	};
}

const COMPARE = { operation: 'compare', output: 'file' };
/** An every-field line (what Compare keeps of an older record that changed), about. */
const EVERY_FIELD_LINE_BYTES = 1200;
/**
 * Every field but rank: the simulator moves every rank a little each week (as the service does), so with rank every
 * domain is a change; without it a few percent are, and most lines are byte for byte the older snapshot's.
 */
const COMPARE_WITHOUT_RANK = {
	...COMPARE,
	fields: SNAPSHOT_FIELDS.filter((field) => field !== 'name' && field !== 'rank'),
};

function plansFor(records: number, sweep: boolean): { memory: Plan[]; outputs: Plan[] } {
	const batches = [...new Set(SWEEP_BATCHES.map((size) => Math.max(1, Math.min(size, Math.floor(records / 5)))))];
	const memory = sweep
		? [
				...batches.map((size) => sub(records, size, 'default')),
				...batches.map((size) => sub(records, size, 'every')),
				sub(records, batches[batches.length - 1], 'every', true),
			]
		: [];
	const biggest = batches[batches.length - 1];
	const outputs: Plan[] = [
		{ key: 'file', records, reads: 1, fields: 'every', parameters: { operation: 'stream', output: 'file' } },
		{
			key: 'file gzip',
			records,
			reads: 1,
			fields: 'every',
			parameters: { operation: 'stream', output: 'file', options: { compression: 'gzip' } },
		},
		sub(records, Math.min(DEFAULT_BATCH_SIZE, biggest), 'every'),
		sub(records, biggest, 'every'),
		// With rank every domain changes: Compare keeps every older record for pass 3, and refuses (by design) past
		// COMPARE_LIMITS.maxKeptBytes of them; at such a size only the runs without rank can complete.
		...(records * EVERY_FIELD_LINE_BYTES > COMPARE_LIMITS.maxKeptBytes
			? []
			: [
					{ key: 'compare', reads: 2, fields: 'every' as const, parameters: COMPARE },
					{
						key: 'compare over 50 MB/s',
						reads: 2,
						fields: 'every' as const,
						parameters: COMPARE,
						linkBytesPerSecond: LINK_BYTES_PER_SECOND,
					},
				]),
		{ key: 'compare without rank', reads: 2, fields: 'every', parameters: COMPARE_WITHOUT_RANK },
		{
			key: 'compare without rank over 50 MB/s',
			reads: 2,
			fields: 'every',
			parameters: COMPARE_WITHOUT_RANK,
			linkBytesPerSecond: LINK_BYTES_PER_SECOND,
		},
	];
	return { memory, outputs: unique(outputs) };
}

function unique(plans: Plan[]): Plan[] {
	return plans.filter((plan, index) => plans.findIndex((other) => other.key === plan.key) === index);
}

function caller(tag: string, plan: Plan): WorkflowImport {
	const compare = plan.parameters.operation === 'compare';
	const fields = plan.fields === 'every' ? (compare ? SNAPSHOT_FIELDS.slice(1) : SNAPSHOT_FIELDS) : undefined;
	return workflow(
		workflowId(`bench realsize ${tag} ${plan.key}`),
		`Bench real size: ${tag} ${plan.key}`,
		chain(
			webhook('Webhook', path(tag, plan)),
			domainData(
				compare ? 'Compare' : 'Stream',
				{
					resource: 'dataset',
					label: 'latest',
					returnAll: plan.records === undefined,
					...(plan.records === undefined ? {} : { limit: plan.records }),
					...(fields ? { fields } : {}),
					...plan.parameters,
				},
				DOMAIN_DATA_CREDENTIAL,
			),
		),
	);
}

function path(tag: string, plan: Plan): string {
	return `bench-rs-${tag}-${plan.key.replace(/[^a-z0-9]+/gi, '-')}`;
}

/** The fastest reader's time for a plan's reads over its link. */
type ReaderTimes = Map<string, number>;
const readerKey = (reads: number, linkBytesPerSecond = 0) => `${reads} over ${linkBytesPerSecond}`;
const readerFor = (times: ReaderTimes, plan: Plan) => times.get(readerKey(plan.reads, plan.linkBytesPerSecond))!;

function folderMb(folder: string): number {
	return Number(execFileSync('du', ['-sk', folder], { encoding: 'utf8' }).split('\t')[0]) / 1024;
}

async function streamRequests(sim: SimulatorProcess): Promise<number> {
	return (await sim.calls()).filter((entry) => /\/historical\/domain\/[^/]+$/.test(entry.path)).length;
}

/** The fastest reader's loop (bench/baselines.ts), counting the records instead of keeping them. */
async function fastestCount(url: string): Promise<number> {
	const response = await request(url, { headers: { authorization: `Bearer ${KEYS.pro}` } });
	if (response.statusCode !== 200) throw new Error(`GET ${url} answered ${response.statusCode}`);
	const decoder = new TextDecoder();
	let rest = '';
	let records = 0;
	for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
		const text = rest + decoder.decode(chunk, { stream: true });
		let start = 0;
		for (let end = text.indexOf('\n', start); end !== -1; end = text.indexOf('\n', start)) {
			if (end > start && JSON.parse(text.slice(start, end))) records++;
			start = end + 1;
		}
		rest = text.slice(start);
	}
	return records;
}

interface Setup {
	mode: 'filesystem' | 'database';
	/** --max-old-space-size for n8n, when set. */
	heapMb?: number;
	plans: Plan[];
}

const elapsed = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/**
 * An n8n user folder with the package, the credentials, the two sub-workflows and the callers of `setups` imported
 * (each setup's callers tagged with its index).
 */
async function prepareFolder(
	context: BenchContext,
	sim: SimulatorProcess,
	setups: Array<{ setup: Setup; tag: string }>,
): Promise<BenchN8n> {
	const started = performance.now();
	const n8n = await BenchN8n.create(context, sim.url, KEYS.pro);
	try {
		const subWorkflow = (id: string, name: string, settings: Record<string, unknown>) =>
			workflow(id, name, chain(executeWorkflowTrigger(), noOp('Done')), { settings });
		await n8n.importWorkflows([
			subWorkflow(SUB_QUIET, 'Bench real size: sub-workflow saving nothing', { ...BATCH_SUB_WORKFLOW_SETTINGS }),
			subWorkflow(SUB_SAVING, "Bench real size: sub-workflow with n8n's default settings", { executionOrder: 'v1' }),
			...setups.flatMap(({ setup, tag }) => setup.plans.map((plan) => caller(tag, plan))),
		]);
	} catch (error) {
		await n8n.dispose();
		throw error;
	}
	context.log(`  realsize: n8n user folder ready in ${elapsed(started)} (package, credentials, workflows imported)`);
	return n8n;
}

/**
 * One n8n process (`n8n start`) in the setup's binary data mode runs the setup's plans, each from its webhook. The
 * sub-workflows and the setup's callers are published once n8n is up; in the tiny run, where one folder serves every
 * setup (see runSetups), they are unpublished after the runs, so that the next process starts as the first did.
 */
async function runSetup(
	context: BenchContext,
	sim: SimulatorProcess,
	n8n: BenchN8n,
	setup: Setup,
	tag: string,
	results: Measured[],
): Promise<void> {
	let started = performance.now();
	const main = await n8n.instance.start({
		env: {
			N8N_DEFAULT_BINARY_DATA_MODE: setup.mode,
			...(setup.heapMb ? { NODE_OPTIONS: `--max-old-space-size=${setup.heapMb}` } : {}),
		},
	});
	try {
		const rest = new N8nRestClient(n8n.instance.url);
		await rest.ensureOwner();
		await rest.createApiKey();
		// n8n 2.x runs a called workflow only in its published version.
		const published = [
			SUB_QUIET,
			SUB_SAVING,
			...setup.plans.map((plan) => workflowId(`bench realsize ${tag} ${plan.key}`)),
		];
		for (const id of published) await rest.activateWorkflow(id);
		context.log(
			`  realsize ${setup.mode}${setup.heapMb ? `, heap ${setup.heapMb} MB` : ''}: n8n started, workflows published ` +
				`in ${elapsed(started)}`,
		);
		const pid = main.pid!;
		const n8nProcess = {
			pid,
			mode: setup.heapMb ? `${setup.mode}, heap ${setup.heapMb} MB` : setup.mode,
			idleMb: processMemory(pid)?.rssMb ?? NaN,
		};
		// The first plan warms n8n up (lazy loading, JIT) and runs again, counted.
		for (const [index, plan] of [setup.plans[0], ...setup.plans].entries()) {
			const measured = await runPlan(sim, n8n, n8nProcess, plan, path(tag, plan));
			context.log(
				`  realsize ${measured.mode} ${plan.key}${index === 0 ? ' (warm-up)' : ''}: ${(measured.wallMs / 1000).toFixed(1)} s, ` +
					`peak RSS ${measured.peakMb.toFixed(0)} MB (before ${measured.rssBeforeMb.toFixed(0)}), disk +${measured.diskMb.toFixed(0)} MB, ` +
					`${measured.streams} stream requests`,
			);
			if (index > 0) results.push(measured);
		}
		if (context.tiny) for (const id of published) await rest.deactivateWorkflow(id);
	} finally {
		started = performance.now();
		await main.stop();
		context.log(`  realsize: n8n stopped in ${elapsed(started)}`);
	}
}

/** One webhook call of a plan's workflow, with the peak RSS of the n8n process that ran it and what the run left. */
async function runPlan(
	sim: SimulatorProcess,
	n8n: BenchN8n,
	{ pid, mode, idleMb }: { pid: number; mode: string; idleMb: number },
	plan: Plan,
	webhookPath: string,
): Promise<Measured> {
	const diskBefore = folderMb(n8n.instance.userFolder);
	const streamsBefore = await streamRequests(sim);
	const rssBeforeMb = processMemory(pid)?.rssMb ?? NaN;
	if (plan.linkBytesPerSecond) await sim.setFaults({ linkBytesPerSecond: plan.linkBytesPerSecond });
	writeFileSync(`/proc/${pid}/clear_refs`, '5');
	const started = performance.now();
	let response: Response;
	let text: string;
	try {
		response = await fetch(`${n8n.instance.url}/webhook/${webhookPath}`, {
			method: 'POST',
			signal: AbortSignal.timeout(4 * 60 * 60_000),
		});
		text = await response.text();
	} finally {
		if (plan.linkBytesPerSecond) await sim.setFaults({ linkBytesPerSecond: 0 });
	}
	const wallMs = performance.now() - started;
	const peakMb = processMemory(pid)?.hwmMb ?? NaN;
	if (response.status !== 200) throw new Error(`${plan.key} answered ${response.status}: ${text.slice(0, 300)}`);
	const items = JSON.parse(text) as Array<Record<string, unknown>>;
	// Parts of the File output carry the records of the whole run (totalRecords), one file its recordCount.
	const delivered = Number(items[0]?.totalRecords ?? items[0]?.records ?? items[0]?.recordCount);
	if (plan.records !== undefined && delivered !== plan.records) {
		throw new Error(`${plan.key}: ${delivered} records, expected ${plan.records} (${text.slice(0, 300)})`);
	}
	return {
		plan,
		mode,
		wallMs,
		peakMb,
		rssBeforeMb,
		idleMb,
		diskMb: folderMb(n8n.instance.userFolder) - diskBefore,
		streams: (await streamRequests(sim)) - streamsBefore,
		items: items.length,
	};
}

/**
 * Runs the setups in order, each in its own n8n process. The full run gives each setup a fresh user folder, so that
 * no setup's database holds another's executions; the tiny run imports once into one folder for all of them (each
 * import is a cold start of n8n's CLI, and a fresh folder's first one creates its database).
 */
async function runSetups(
	context: BenchContext,
	sim: SimulatorProcess,
	setups: Setup[],
	tag: string,
	results: Measured[],
): Promise<void> {
	const tagged = setups.map((setup, index) => ({ setup, tag: `${tag}-${index}` }));
	const groups = context.tiny ? [tagged] : tagged.map((entry) => [entry]);
	for (const group of groups) {
		const n8n = await prepareFolder(context, sim, group);
		try {
			for (const { setup, tag: setupTag } of group) await runSetup(context, sim, n8n, setup, setupTag, results);
		} finally {
			await n8n.dispose();
		}
	}
}

/** The n8n processes to start (one per setup) and the runs of each: those with a target, or all; only the named. */
function setupsFor(memory: Plan[], outputs: Plan[], targetsOnly: boolean, runs?: string[]): Setup[] {
	const defaultEvery = outputs.find((plan) => plan.key.startsWith('sub every'))!;
	const files = outputs.filter((plan) => plan.key.startsWith('file'));
	const compares = outputs.filter((plan) => plan.key.startsWith('compare'));
	const setups: Setup[] = targetsOnly
		? [
				{ mode: 'filesystem', plans: [...files, defaultEvery, ...compares] },
				{ mode: 'database', plans: files },
			]
		: [
				{
					mode: 'filesystem',
					plans: [...memory, ...outputs.filter((plan) => !memory.some((m) => m.key === plan.key))],
				},
				// Over the link once: in the filesystem mode.
				{ mode: 'database', plans: outputs.filter((plan) => !plan.linkBytesPerSecond) },
				// The recommended setting: the default batch of every field too, last (the same key once).
				{
					mode: 'filesystem',
					heapMb: 512,
					plans: unique([memory[0], memory[memory.length - 1], memory[memory.length - 2], defaultEvery]),
				},
			];
	// --runs: the runs named, each in the modes it runs in; a mode left without a run starts no n8n.
	const named = (plan: Plan) => !runs || runs.some((run) => plan.key.startsWith(run));
	const chosen = setups
		.map((setup) => ({ ...setup, plans: setup.plans.filter(named) }))
		.filter((setup) => setup.plans.length > 0);
	if (chosen.length === 0)
		throw new Error(`--runs names none of the runs: ${setups[0].plans.map((plan) => plan.key).join(', ')}`);
	return chosen;
}

export async function realSize(context: BenchContext): Promise<SectionResult> {
	const unavailable = await n8nAvailable(context);
	if (unavailable) return { id: 'realsize', title: TITLE, figures: [], details: [], pending: [unavailable] };
	const records = context.size ?? (context.tiny ? 300 : REAL_SIZE);
	const targetsOnly = context.targetsOnly === true;
	const { memory, outputs } = plansFor(records, !targetsOnly);
	// Before any snapshot is made or read: a --runs that names no run fails at once.
	const setups = setupsFor(memory, outputs, targetsOnly, context.runs);
	const tag = `${process.pid}`;
	const sim = await context.simulators.start({ domains: records });
	const results: Measured[] = [];
	const readerMs: ReaderTimes = new Map();
	try {
		const datasets = (await (
			await fetch(`${sim.url}/json/api/v1/historical/domain`, { headers: { authorization: `Bearer ${KEYS.pro}` } })
		).json()) as { datasets: Array<{ label: string }> };
		const labels = datasets.datasets.slice(0, 2).map((dataset) => dataset.label);
		for (const [reads, link] of [
			[1, 0],
			[2, 0],
			[2, LINK_BYTES_PER_SECOND],
		]) {
			await sim.setFaults({ linkBytesPerSecond: link });
			const started = performance.now();
			for (const label of labels.slice(0, reads)) {
				await fastestCount(`${sim.url}/json/api/v1/historical/domain/${label}?fields=${SNAPSHOT_FIELDS.join(',')}`);
			}
			readerMs.set(readerKey(reads, link), performance.now() - started);
		}
		await sim.setFaults({ linkBytesPerSecond: 0 });
		await runSetups(context, sim, setups, tag, results);
	} finally {
		await sim.close();
	}
	return report(
		records,
		results,
		readerMs,
		outputs.map((plan) => plan.key),
		context.runs,
	);
}

/** `outputs`: the keys of the runs of issue 27's list (every output in both modes), one figure each. */
function report(
	records: number,
	results: Measured[],
	readerMs: ReaderTimes,
	outputs: string[],
	runs?: string[],
): SectionResult {
	const seconds = (ms: number) => (ms / 1000).toFixed(1);
	const mb = (value: number) => value.toFixed(0);
	const find = (mode: string, key: string) => results.find((run) => run.mode === mode && run.plan.key === key);
	const figures: Figure[] = [];
	for (const mode of ['filesystem', 'database']) {
		for (const run of results.filter((entry) => entry.mode === mode && outputs.includes(entry.plan.key))) {
			const reader = readerFor(readerMs, run.plan);
			const ratio = run.wallMs / reader;
			const time = `${seconds(run.wallMs)} s vs ${seconds(reader)} s (${ratio.toFixed(2)} ×)`;
			if (run.plan.key.startsWith('compare')) {
				// Compare's target is its time against reading both snapshots once, over the same link.
				const target = run.plan.linkBytesPerSecond ? TIME_TARGETS.compareLink : TIME_TARGETS.compareLoopback;
				figures.push({
					what: `${mode} mode, ${run.plan.key}, ${formatNumber(records)} every-field records: time vs fastest reader reading both snapshots once${run.plan.linkBytesPerSecond ? ' over the same link' : ''}; peak RSS of n8n`,
					value: `${time}; ${mb(run.peakMb)} MB`,
					target: `≤ ${target} ×`,
					met: ratio <= target,
				});
				continue;
			}
			// The target is for the default batch; batches of 10,000 show what a larger batch costs.
			const targeted =
				run.plan.parameters.batchSize === undefined || run.plan.parameters.batchSize === DEFAULT_BATCH_SIZE;
			figures.push({
				what: `${mode} mode, ${run.plan.key}, ${formatNumber(records)} every-field records: peak RSS of n8n, time vs fastest reader`,
				value: `${mb(run.peakMb)} MB; ${time}`,
				target: targeted ? 'peak RSS ≤ 1,024 MB' : undefined,
				met: targeted ? run.peakMb <= 1024 : undefined,
			});
		}
	}
	for (const key of ['file', 'file gzip']) {
		const [filesystem, database] = [find('filesystem', key), find('database', key)];
		if (!filesystem || !database) continue;
		const ratio = database.wallMs / filesystem.wallMs;
		figures.push({
			what: `${key}, ${formatNumber(records)} every-field records: time in the database mode vs the filesystem mode`,
			value: `${seconds(database.wallMs)} s vs ${seconds(filesystem.wallMs)} s (${ratio.toFixed(2)} ×)`,
			target: `≤ ${TIME_TARGETS.file} ×`,
			met: ratio <= TIME_TARGETS.file,
		});
	}
	const sweep = results.filter((run) => run.mode === 'filesystem' && run.plan.key.startsWith('sub '));
	const quiet = (fields: string) =>
		sweep
			.filter((run) => run.plan.fields === fields && !run.plan.key.includes('saving'))
			.map((run) => `${formatNumber(Number(run.plan.parameters.batchSize))}: ${mb(run.peakMb)}`)
			.join(', ');
	for (const [fields, named] of [
		['default', 'default fields'],
		['every', 'every field'],
	]) {
		const value = quiet(fields);
		if (!value) continue;
		figures.push({
			what: `Sub-Workflow, ${formatNumber(records)} records, peak RSS of n8n (MB) by batch size, ${named}`,
			value,
		});
	}
	const saving = sweep.find((run) => run.plan.key.includes('saving'));
	const same = saving && find('filesystem', saving.plan.key.replace(' saving', ''));
	if (saving && same) {
		figures.push({
			what: `the same, batch ${formatNumber(Number(saving.plan.parameters.batchSize))}, every field: sub-workflow saving no successful execution vs n8n's default (saving them)`,
			value: `${mb(same.peakMb)} MB vs ${mb(saving.peakMb)} MB`,
		});
	}
	const rows = results.map((run) => [
		run.mode,
		run.plan.key,
		run.plan.parameters.batchSize === undefined ? '–' : formatNumber(Number(run.plan.parameters.batchSize)),
		run.plan.fields,
		seconds(run.wallMs),
		`${(run.wallMs / readerFor(readerMs, run.plan)).toFixed(1)} ×`,
		mb(run.idleMb),
		mb(run.rssBeforeMb),
		mb(run.peakMb),
		mb(run.peakMb - run.idleMb),
		mb(run.diskMb),
		String(run.streams),
		String(run.items),
	]);
	const details = [
		`Real n8n 2.8.4 from the packed package (\`n8n start\`, regular mode, SQLite), ${formatNumber(records)} records of the ` +
			"simulator's newest snapshot (Compare: the two newest), one webhook call per run, runs in the order of the table in one n8n " +
			'process per mode (the first run of each process is repeated, the first time uncounted). Fields: "every" is all 17 (about ' +
			'1.2 KB a line), "default" none chosen (the service\'s default, name to tld1). Sub-Workflow: "When Executed by Another Workflow" → ' +
			'No Operation, saving no successful execution, except the row marked "saving" (n8n\'s default settings: each sub-execution is ' +
			"saved with its items). Idle n8n RSS: the process right after it started (workflows active, nothing run yet). Peak RSS: n8n's VmHWM, reset just before the run; RSS before: just before; the growth is the peak over the idle RSS. Disk: what the run added to " +
			"n8n's user folder (binary data files, or the SQLite database that holds them in the database mode). Stream requests: seen by the " +
			`simulator. Fastest reader: ${seconds(readerMs.get(readerKey(1))!)} s for one snapshot, ${seconds(readerMs.get(readerKey(2))!)} s ` +
			`for two, ${seconds(readerMs.get(readerKey(2, LINK_BYTES_PER_SECOND))!)} s for two over the 50 MB/s link (the loop of ` +
			'bench/baselines.ts, counting the records). "over 50 MB/s": the simulator caps each stream at 50,000,000 bytes a second ' +
			'(its link speed, test/simulator/link.ts), for the run and for the reader it is measured against. Compare compares ' +
			'every field: the simulator moves every rank a little each week, as the service does, so every domain changes ' +
			'and the output is about as large as a snapshot; "without rank" compares every other field (a few percent of ' +
			'the domains change; the rest are byte for byte the older lines).' +
			(results.some((run) => run.mode.includes('heap'))
				? " The last mode's rows run n8n with `--max-old-space-size=512`."
				: ' Only the runs with a target (`--targets`).') +
			(runs ? ` Only the runs named by \`--runs "${runs.join(',')}"\`.` : ''),
		markdownTable(
			[
				'binary data mode',
				'run',
				'batch',
				'fields',
				'seconds',
				'vs fastest reader',
				'idle n8n RSS MB',
				'RSS before MB',
				'peak RSS MB',
				'peak RSS growth over idle n8n MB',
				'disk MB',
				'stream requests',
				'items out',
			],
			rows,
		),
	];
	return { id: 'realsize', title: TITLE, figures, details };
}
