/**
 * 2. Memory: peak RSS of Dataset → Stream over 100,000 and 1,000,000 records, in `file` output and with a
 * filter, each measurement in a fresh child process running the operation through the harness.
 */
import type { INodeParameters } from 'n8n-workflow';

import { KEYS } from '../test/simulator';
import type { ChildResult } from './children/run-operation';
import { isStub, streamParameters, type StreamOutput } from './lib/operation';
import { markdownTable, type BenchContext, type Figure, type SectionResult } from './lib/report';
import { formatNumber, median } from './lib/stats';

const TARGET_MB = 50;

interface Mode {
	name: string;
	parameters: INodeParameters;
	output: StreamOutput;
}

/**
 * Filter mode: items output with a filter that keeps a small share of the records (every Shopify site in
 * Germany: about 0.6 %), so what is measured is the reading of the whole snapshot, not the output.
 */
export const FILTER_PARAMETERS: INodeParameters = {
	filters: { countryCodes: 'DE', technologies: 'Shopify' },
};

const MODES: Mode[] = [
	{ name: 'file', parameters: streamParameters('file'), output: 'file' },
	{ name: 'filter', parameters: streamParameters('items', FILTER_PARAMETERS), output: 'items' },
];

export async function memory(context: BenchContext): Promise<SectionResult> {
	const sizes = context.tiny ? [1_000, 2_000] : [100_000, 1_000_000];
	const runs = context.tiny ? 1 : 3;
	const results = new Map<string, ChildResult[]>();
	const pending = new Set<string>();
	// One run at a time: a run's process must not share the client's core with another.
	const simulators = await Promise.all(sizes.map((size) => context.simulators.start({ domains: size })));
	try {
		const jobs = Array.from({ length: runs }, () =>
			sizes.flatMap((size, index) => MODES.map((mode) => ({ size, sim: simulators[index], mode }))),
		).flat();
		for (const { size, sim, mode } of jobs) {
			if (pending.has(mode.name)) continue;
			const result = await context.children.run({
				baseUrl: sim.url,
				apiKey: KEYS.pro,
				parameters: mode.parameters,
				output: mode.output,
			});
			if (result.error) {
				if (!isStub(new Error(result.error))) throw new Error(`memory, ${mode.name} mode: ${result.error}`);
				pending.add(mode.name);
				continue;
			}
			context.log(
				`  memory ${mode.name} ${formatNumber(size)}: peak ${result.peakRssMb.toFixed(0)} MB ` +
					`(before ${result.rssBeforeMb.toFixed(0)} MB), ${formatNumber(result.records)} records out, ${(result.wallMs / 1000).toFixed(1)} s`,
			);
			const key = `${mode.name} ${size}`;
			results.set(key, [...(results.get(key) ?? []), result]);
		}
	} finally {
		await Promise.all(simulators.map((sim) => sim.close()));
	}

	const figures: Figure[] = [];
	const rows: string[][] = [];
	for (const mode of MODES) {
		if (pending.has(mode.name)) continue;
		const peaks = sizes.map((size) => median(results.get(`${mode.name} ${size}`)!.map((r) => r.peakRssMb)));
		const growth = peaks[1] - peaks[0];
		figures.push({
			what: `${mode.name} mode: peak RSS ${formatNumber(sizes[0])} → ${formatNumber(sizes[1])} records`,
			value: `${peaks[0].toFixed(0)} → ${peaks[1].toFixed(0)} MB (${growth < 0 ? '−' : '+'}${Math.abs(growth).toFixed(1)} MB)`,
			target: `< ${TARGET_MB} MB between the sizes`,
			met: growth < TARGET_MB,
		});
		for (const size of sizes) {
			const list = results.get(`${mode.name} ${size}`)!;
			const m = (pick: (r: ChildResult) => number) => median(list.map(pick));
			rows.push([
				mode.name,
				formatNumber(size),
				formatNumber(m((r) => r.records)),
				m((r) => r.rssBeforeMb).toFixed(0),
				m((r) => r.peakRssMb).toFixed(0),
				m((r) => r.sampledPeakRssMb).toFixed(0),
				(m((r) => r.peakRssMb) - m((r) => r.rssBeforeMb)).toFixed(0),
				m((r) => r.sampledPeakHeapMb).toFixed(0),
				(m((r) => r.wallMs) / 1000).toFixed(1),
				list.map((r) => r.peakRssMb.toFixed(0)).join(', '),
			]);
		}
	}
	const details = [
		`Each measurement is a fresh Node.js process that loads n8n-core and the node through the harness, resets the kernel's ` +
			'peak-RSS counter (VmHWM, via /proc/self/clear_refs) and then runs the operation once over the whole `latest` snapshot ' +
			`(default fields); figures are medians of ${runs} run(s). \`file\`: the NDJSON goes to n8n's binary data store (filesystem mode, as on a server). ` +
			`\`filter\`: items output with ${JSON.stringify(FILTER_PARAMETERS)}, so the whole snapshot is read and only the matches are kept. ` +
			'"RSS before" is high because the process holds ts-node and the TypeScript compiler (the harness runs the sources); the heap they ' +
			'leave free can absorb what the operation allocates, so the JavaScript heap plus Buffers, sampled, is shown as well.',
		markdownTable(
			[
				'mode',
				'snapshot records',
				'records out',
				'RSS before MB',
				'peak RSS MB (VmHWM)',
				'peak RSS sampled every 10 ms MB',
				'peak − before MB',
				'peak JS heap + Buffers MB (sampled)',
				'wall s',
				'peak RSS per run MB',
			],
			rows,
		),
	];
	return {
		id: 'memory',
		title: 'Memory',
		figures,
		details,
		pending: [...pending].map((mode) => `Dataset → Stream is still a stub: ${mode} mode not measured`),
	};
}
