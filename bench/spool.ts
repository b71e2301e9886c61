/**
 * 9. Sub-Workflow output through the spool: a whole snapshot through a sub-workflow that waits N ms per batch, for
 * two values of N, behind a proxy that cuts an answer not read for 2 s (as nginx's `send_timeout` does, shorter).
 * What must not depend on N: the stream requests and the bytes downloaded. What it costs: the total time against
 * the File output of the same snapshot plus the sub-workflow's own time (batches × N), as a ratio; and the peak
 * RSS growth of the process that runs the node. Each run is a fresh child process running the node through the
 * in-process harness (n8n-core, filesystem binary data mode); the proxy runs in the bench process.
 */
import type { INodeParameters } from 'n8n-workflow';

import { type ImpatientProxy, startImpatientProxy } from '../test/harness/impatientProxy';
import { KEYS } from '../test/simulator';
import type { ChildResult } from './children/run-operation';
import { streamParameters } from './lib/operation';
import { markdownTable, type BenchContext, type Figure, type SectionResult } from './lib/report';
import { formatNumber } from './lib/stats';

const TITLE = 'Sub-Workflow output through the spool';
const PATIENCE_MS = 2000;

interface Run {
	name: string;
	/** Waiting per batch; undefined: the File output. */
	delayMs?: number;
	result: ChildResult;
	streams: number;
	megabytes: number;
	batches: number;
}

function mb(bytes: number): number {
	return bytes / 2 ** 20;
}

async function measure(
	context: BenchContext,
	proxy: ImpatientProxy,
	parameters: INodeParameters,
	delayMs: number | undefined,
	batch: number,
): Promise<Omit<Run, 'name'>> {
	const streamsBefore = proxy.streams();
	const bytesBefore = proxy.streamBytes();
	const result = await context.children.run({
		baseUrl: proxy.url,
		apiKey: KEYS.pro,
		parameters,
		output: delayMs === undefined ? 'file' : undefined,
		subWorkflowDelayMs: delayMs,
	});
	if (result.error) throw new Error(`spool, ${delayMs === undefined ? 'file' : `N = ${delayMs} ms`}: ${result.error}`);
	const batches = delayMs === undefined ? 0 : Math.ceil(result.records / batch);
	return {
		delayMs,
		result,
		streams: proxy.streams() - streamsBefore,
		megabytes: mb(proxy.streamBytes() - bytesBefore),
		batches,
	};
}

export async function spool(context: BenchContext): Promise<SectionResult> {
	const records = context.tiny ? 2_000 : 1_000_000;
	const batch = context.tiny ? 500 : 50_000;
	const delays = context.tiny ? [0, 50] : [100, 3000];
	const sim = await context.simulators.start({ domains: records });
	const proxy = await startImpatientProxy(sim.url, PATIENCE_MS);
	const runs: Run[] = [];
	try {
		const file = await measure(context, proxy, streamParameters('file'), undefined, batch);
		runs.push({ name: 'File output', ...file });
		context.log(
			`  spool file: ${(file.result.wallMs / 1000).toFixed(1)} s, ${file.streams} requests, ${file.megabytes.toFixed(0)} MB`,
		);
		for (const delayMs of delays) {
			const parameters = streamParameters('items', {
				output: 'subWorkflow',
				workflowId: { __rl: true, mode: 'id', value: 'benchSpoolSub' },
				batchSize: batch,
			});
			const run = await measure(context, proxy, parameters, delayMs, batch);
			runs.push({ name: `Sub-Workflow, N = ${formatNumber(delayMs)} ms per batch`, ...run });
			context.log(
				`  spool N=${delayMs}: ${(run.result.wallMs / 1000).toFixed(1)} s, ${run.streams} requests, ${run.megabytes.toFixed(0)} MB`,
			);
		}
	} finally {
		await proxy.close();
		await sim.close();
	}
	const [file, ...subs] = runs;
	const figures: Figure[] = [];
	const same = subs.every((run) => run.streams === subs[0].streams && Math.abs(run.megabytes - subs[0].megabytes) < 1);
	figures.push({
		what: `stream requests and MB downloaded, ${formatNumber(records)} records, N = ${delays.join(' and ')} ms per batch`,
		value: subs
			.map((run) => `${run.streams} request${run.streams === 1 ? '' : 's'}, ${run.megabytes.toFixed(1)} MB`)
			.join('; '),
		target: `the same for every N, at most 2 requests and about one snapshot (File output: ${file.megabytes.toFixed(1)} MB)`,
		met: same && subs.every((run) => run.streams <= 2 && run.megabytes <= file.megabytes * 1.05),
	});
	for (const run of subs) {
		const floor = file.result.wallMs + run.batches * run.delayMs!;
		figures.push({
			what: `total time, N = ${formatNumber(run.delayMs!)} ms: against File output + ${run.batches} × N`,
			value: `${(run.result.wallMs / 1000).toFixed(1)} s against ${(floor / 1000).toFixed(1)} s (${(run.result.wallMs / floor).toFixed(2)} ×)`,
		});
	}
	const growth = (run: Run) => Math.max(0, run.result.peakRssMb - run.result.rssBeforeMb);
	figures.push({
		what: 'peak RSS growth of the process running the node',
		value: runs.map((run) => `${run.name}: ${growth(run).toFixed(0)} MB`).join('; '),
	});
	const rows = runs.map((run) => [
		run.name,
		formatNumber(run.result.records),
		String(run.streams),
		run.megabytes.toFixed(1),
		(run.result.wallMs / 1000).toFixed(1),
		run.delayMs === undefined ? '–' : ((run.batches * run.delayMs) / 1000).toFixed(1),
		growth(run).toFixed(0),
	]);
	const details = [
		`Dataset → Stream of the whole \`latest\` snapshot (${formatNumber(records)} records, default fields) from the simulator in a child ` +
			`process, through a proxy that cuts an answer not read for ${PATIENCE_MS / 1000} s. Sub-Workflow output in batches of ` +
			`${formatNumber(batch)}; the sub-workflow only waits N ms per batch (n8n's CLI part is played by the harness). The node spools the ` +
			"snapshot into n8n's binary data storage (filesystem mode) at the service's pace, then feeds the batches from the spool. One run per row, " +
			'each in a fresh process; peak RSS growth is VmHWM (reset before the run) minus the RSS before it.',
		markdownTable(
			['run', 'records', 'stream requests', 'MB downloaded', 'seconds', 'sub-workflow waiting s', 'peak RSS growth MB'],
			rows,
		),
	];
	return { id: 'spool', title: TITLE, figures, details };
}
