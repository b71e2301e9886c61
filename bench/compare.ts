/**
 * 6. Compare: Dataset → Compare of the two newest snapshots (`latest` against `previous`), File output.
 * Time: against reading both snapshots with the fastest hand-written reader (the same fields), interleaved in
 * one run. Memory: peak RSS of a fresh process comparing 100,000-record and 1,000,000-record snapshots.
 */
import type { INodeParameters } from 'n8n-workflow';

import { runNode } from '../test/harness/n8n';
import { KEYS } from '../test/simulator';
import { fastestReader } from './baselines';
import type { ChildResult } from './children/run-operation';
import { countStreamRecords } from './lib/operation';
import { markdownTable, shouldProfile, type BenchContext, type Figure, type SectionResult } from './lib/report';
import { formatNumber, interleave, median, warmUp } from './lib/stats';
import { profileOperation } from './profile';

const TIME_TARGET = 1.5;
const MEMORY_TARGET_MB = 100;
const FIELDS = ['title', 'country_code', 'language_code', 'categories', 'technologies'];
const OURS = 'Compare, File output (our node)';
const FASTEST = 'fastest hand-written reader, both snapshots in turn';

const PARAMETERS: INodeParameters = {
	resource: 'dataset',
	operation: 'compare',
	label: 'latest',
	fields: FIELDS,
	returnAll: true,
	output: 'file',
};

/** Runs of one round ran back to back: pair them, then take the median over rounds. */
function pairedRatio(ours: Run[], fastest: Run[], measure: (run: Run) => number): number {
	return median(ours.map((run, round) => measure(run) / measure(fastest[round])));
}

interface Run {
	wallMs: number;
	/** This process's CPU time (main thread and V8's helper threads): waiting for the simulator is not in it. */
	cpuMs: number;
	changes: number;
}

/** Runs `work`, timing its wall and CPU time. */
async function timed(work: () => Promise<number>): Promise<Run> {
	const cpuBefore = process.cpuUsage();
	const started = performance.now();
	const changes = await work();
	const cpu = process.cpuUsage(cpuBefore);
	return { wallMs: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000, changes };
}

export async function compare(context: BenchContext): Promise<SectionResult> {
	const sizes = context.tiny ? [1_000, 2_000] : [100_000, 1_000_000];
	const rounds = context.tiny ? 1 : 3;
	const memoryRuns = context.tiny ? 1 : 2;
	const memory = new Map<number, ChildResult[]>();
	let timing: Map<string, Run[]> | undefined;
	let profile: string[] | undefined;
	for (const size of sizes) {
		const sim = await context.simulators.start({ domains: size });
		try {
			for (let run = 0; run < memoryRuns; run++) {
				const result = await context.children.run({
					baseUrl: sim.url,
					apiKey: KEYS.pro,
					parameters: PARAMETERS,
					output: 'file',
				});
				if (result.error) throw new Error(`compare, ${formatNumber(size)} records: ${result.error}`);
				context.log(
					`  compare memory ${formatNumber(size)}: peak ${result.peakRssMb.toFixed(0)} MB (before ${result.rssBeforeMb.toFixed(0)} MB), ` +
						`${formatNumber(result.records)} changes, ${(result.wallMs / 1000).toFixed(1)} s`,
				);
				memory.set(size, [...(memory.get(size) ?? []), result]);
			}
			if (size !== sizes[sizes.length - 1]) continue;
			const datasets = (await (
				await fetch(`${sim.url}/json/api/v1/historical/domain`, { headers: { authorization: `Bearer ${KEYS.pro}` } })
			).json()) as {
				datasets: Array<{ label: string }>;
			};
			const [newest, previous] = datasets.datasets.map((dataset) => dataset.label);
			const fields = ['name', ...FIELDS].join(',');
			const url = (label: string) => `${sim.url}/json/api/v1/historical/domain/${label}?fields=${fields}`;
			const credentials = { apiKey: KEYS.pro, baseUrl: sim.url };
			const contenders = [
				{
					name: OURS,
					run: async (): Promise<Run> =>
						await timed(async () => {
							const result = await runNode({ parameters: PARAMETERS, credentials });
							if (result.error) throw result.error;
							return countStreamRecords(result.items, 'file');
						}),
				},
				{
					name: FASTEST,
					run: async (): Promise<Run> =>
						await timed(async () => {
							let records = 0;
							// One snapshot at a time, as a script would (holding both would need twice the memory).
							for (const label of [newest, previous]) records += (await fastestReader(url(label), KEYS.pro)).length;
							if (records !== 2 * size) throw new Error(`the reader read ${records} records, expected ${2 * size}`);
							return 0;
						}),
				},
			];
			const { ready, failed } = await warmUp(contenders);
			if (failed.length > 0) throw failed[0].error;
			context.log(`compare: ${formatNumber(size)} records a side, ${rounds} interleaved rounds`);
			timing = await interleave(ready, rounds, (name, round, run) =>
				context.log(`  round ${round} ${name}: ${(run.wallMs / 1000).toFixed(1)} s`),
			);
			if (
				shouldProfile(context, pairedRatio(timing.get(OURS)!, timing.get(FASTEST)!, (run) => run.wallMs) > TIME_TARGET)
			) {
				context.log('compare: profiling our node');
				profile = [
					'Our node alone (the fastest reader is in the table above), File output. Pass 1 (the newer snapshot into the ' +
						'table: `hashCompared`, `stageLine`, `DomainTable`), pass 2 (the older snapshot: `sameLineSelector` knows the ' +
						'unchanged lines by their hash, the others are parsed and looked up: `find`, `keep`) and pass 3 (the newer ' +
						'snapshot again: `lineSelector` decides on raw lines, `diffRecords` and the file output for the changes) share the ' +
						'reading code (`classifyLine` holds JSON.parse; `decode` is the TextDecoder).',
					...(await profileOperation(context.children, sim.url, PARAMETERS, 'file', 1)),
				];
			}
		} finally {
			await sim.close();
		}
	}

	const peaks = sizes.map((size) => median(memory.get(size)!.map((result) => result.peakRssMb)));
	const growth = peaks[1] - peaks[0];
	const ours = timing!.get(OURS)!;
	const fastest = timing!.get(FASTEST)!;
	const ratio = pairedRatio(ours, fastest, (run) => run.wallMs);
	const cpuRatio = pairedRatio(ours, fastest, (run) => run.cpuMs);
	const largest = sizes[sizes.length - 1];
	const figures: Figure[] = [
		{
			what: `time to compare two ${formatNumber(largest)}-record snapshots vs reading both with the fastest reader`,
			value: `${(median(ours.map((run) => run.wallMs)) / 1000).toFixed(1)} s vs ${(median(fastest.map((run) => run.wallMs)) / 1000).toFixed(1)} s = ${ratio.toFixed(2)} × (by client CPU time: ${cpuRatio.toFixed(2)} ×)`,
			target: `≤ ${TIME_TARGET} ×`,
			met: ratio <= TIME_TARGET,
		},
		{
			what: `peak RSS ${formatNumber(sizes[0])} → ${formatNumber(largest)} records a side (File output)`,
			value: `${peaks[0].toFixed(0)} → ${peaks[1].toFixed(0)} MB (${growth < 0 ? '−' : '+'}${Math.abs(growth).toFixed(1)} MB)`,
			target: `< ${MEMORY_TARGET_MB} MB between the sizes`,
			met: growth < MEMORY_TARGET_MB,
		},
	];
	const memoryRows = sizes.map((size) => {
		const list = memory.get(size)!;
		const m = (pick: (r: ChildResult) => number) => median(list.map(pick));
		return [
			formatNumber(size),
			formatNumber(m((r) => r.records)),
			m((r) => r.rssBeforeMb).toFixed(0),
			m((r) => r.peakRssMb).toFixed(0),
			(m((r) => r.peakRssMb) - m((r) => r.rssBeforeMb)).toFixed(0),
			m((r) => r.sampledPeakHeapMb).toFixed(0),
			(m((r) => r.wallMs) / 1000).toFixed(1),
		];
	});
	const details = [
		`The simulator's two newest snapshots (default: 4 weekly snapshots; about 3 % of the domains come and go between two, ` +
			`and a few percent change technologies, title, categories, country or language), compared on ${FIELDS.join(', ')}, ` +
			"all changes, File output (n8n's binary store in filesystem mode). Our node requests each snapshot once, keeping the " +
			"newer one in n8n's binary storage for its third pass (see docs/dataset.md, Dataset → Compare); its read of the older " +
			"one parses only the lines that are not the newer one's byte for byte, and its third pass only the lines of changes (the name is read from " +
			'the raw line); the reader reads each once with the same fields and keeps one ' +
			`snapshot's records at a time, as a script would. Time: ${rounds} interleaved rounds after a warm-up run of each, ` +
			'in this process; ratio = median over rounds of ' +
			"(our time ÷ the reader's time in the same round); the same by client CPU time, which leaves out waiting and moves less when " +
			'other processes take the cores.',
		markdownTable(
			['contender', 'wall s (median)', 'client CPU s (median)', 'wall s per round', 'client CPU s per round'],
			[...timing!.entries()].map(([name, runs]) => [
				name,
				(median(runs.map((run) => run.wallMs)) / 1000).toFixed(1),
				(median(runs.map((run) => run.cpuMs)) / 1000).toFixed(1),
				runs.map((run) => (run.wallMs / 1000).toFixed(1)).join(', '),
				runs.map((run) => (run.cpuMs / 1000).toFixed(1)).join(', '),
			]),
		),
		`Memory: each measurement is a fresh process (see Memory above for the method), medians of ${memoryRuns} run(s). What the ` +
			'node holds: per domain of the newer snapshot, typed arrays (hashes of the name, the compared values and the line, flags, ' +
			'a hash index of the names, the kept-record slots; how many bytes: docs/performance.md, "Compare\'s memory per domain", ' +
			'measured by bench/compare-memory.ts) and, between the second and third pass, the older records of the domains that changed ' +
			'(their compared and filter fields as UTF-8 JSON): these grow with the number of changes, not with the snapshot.',
		markdownTable(
			[
				'records a side',
				'changes',
				'RSS before MB',
				'peak RSS MB (VmHWM)',
				'peak − before MB',
				'peak JS heap + Buffers MB (sampled)',
				'wall s',
			],
			memoryRows,
		),
	];
	return { id: 'compare', title: 'Compare', figures, details, profile };
}
