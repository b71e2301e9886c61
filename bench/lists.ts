/**
 * 10. Lists of domains. (1) Dataset → Compare of the two newest snapshots with Filters → Domains of 10,000 names
 * against the same Compare without a list: time and peak RSS, each run in a fresh process. (2) Domain → Enrich Items
 * of 100,000 rows naming 20,000 distinct domains, Source Lookup (bulk calls) against Source Snapshot (one stream read
 * of the newest snapshot): requests from the simulator's log, time and peak RSS, each run in a fresh process.
 */
import type { INodeParameters } from 'n8n-workflow';

import { KEYS } from '../test/simulator';
import type { ChildResult } from './children/run-operation';
import { domainNames, ENRICH_PARAMETERS, inputRows } from './enrich';
import type { OperationChildren } from './lib/child';
import { markdownTable, type BenchContext, type Figure, type SectionResult } from './lib/report';
import { SimulatorProcess } from './lib/simulator-process';
import { formatNumber, median } from './lib/stats';

const LATENCY_MS = 50;
const COMPARE_PARAMETERS: INodeParameters = {
	resource: 'dataset',
	operation: 'compare',
	label: 'latest',
	fields: ['title', 'country_code', 'language_code', 'categories', 'technologies'],
	returnAll: true,
	output: 'file',
};

interface Measured extends ChildResult {
	requests: number;
}

/** Runs `parameters` in a fresh process and counts the simulator's requests of that run. */
async function measure(
	children: OperationChildren,
	sim: SimulatorProcess,
	parameters: INodeParameters,
	input?: ReturnType<typeof inputRows>,
): Promise<Measured> {
	await sim.clearLog();
	const result = await children.run({
		baseUrl: sim.url,
		apiKey: KEYS.pro,
		parameters,
		output: parameters.operation === 'compare' ? 'file' : undefined,
		input,
	});
	if (result.error) throw new Error(`${String(parameters.operation)}: ${result.error}`);
	return { ...result, requests: (await sim.calls()).length };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mb = (value: number) => `${value.toFixed(0)} MB`;

export async function lists(context: BenchContext): Promise<SectionResult> {
	const size = context.tiny ? 2_000 : 1_000_000;
	const listed = context.tiny ? 100 : 10_000;
	const rows = context.tiny ? 600 : 100_000;
	const distinct = context.tiny ? 300 : 20_000;
	const rounds = context.tiny ? 1 : 2;
	const runs = new Map<string, Measured[]>();
	const record = (name: string, run: Measured) => {
		runs.set(name, [...(runs.get(name) ?? []), run]);
		context.log(
			`  ${name}: ${seconds(run.wallMs)}, peak ${mb(run.peakRssMb)}, ${formatNumber(run.requests)} requests, ` +
				`${formatNumber(run.records)} out`,
		);
	};
	const WITHOUT = `Compare, no list`;
	const WITH = `Compare, Domains of ${formatNumber(listed)} names`;
	const LOOKUP = 'Enrich, Source Lookup';
	const SNAPSHOT = 'Enrich, Source Snapshot';

	const compareSim = await context.simulators.start({ domains: size });
	try {
		const names = await domainNames(compareSim, listed);
		const withList = { ...COMPARE_PARAMETERS, filters: { domains: names } };
		for (let round = 0; round < rounds; round++) {
			record(WITHOUT, await measure(context.children, compareSim, COMPARE_PARAMETERS));
			record(WITH, await measure(context.children, compareSim, withList));
		}
	} finally {
		await compareSim.close();
	}

	const enrichSim = await context.simulators.start({ domains: size, latencyMs: LATENCY_MS });
	try {
		const input = inputRows(await domainNames(enrichSim, distinct), rows);
		const parameters = (source: string) => ({ ...ENRICH_PARAMETERS, options: { source } });
		for (let round = 0; round < rounds; round++) {
			record(LOOKUP, await measure(context.children, enrichSim, parameters('lookup'), input));
			record(SNAPSHOT, await measure(context.children, enrichSim, parameters('snapshot'), input));
		}
	} finally {
		await enrichSim.close();
	}

	const m = (name: string, pick: (run: Measured) => number) => median(runs.get(name)!.map(pick));
	const figures: Figure[] = [
		{
			what: `Compare of two ${formatNumber(size)}-record snapshots, ${formatNumber(listed)}-name list vs none: time`,
			value: `${seconds(m(WITH, (r) => r.wallMs))} vs ${seconds(m(WITHOUT, (r) => r.wallMs))} = ${(
				m(WITH, (r) => r.wallMs) / m(WITHOUT, (r) => r.wallMs)
			).toFixed(2)} ×`,
		},
		{
			what: 'the same: peak RSS',
			value: `${mb(m(WITH, (r) => r.peakRssMb))} vs ${mb(m(WITHOUT, (r) => r.peakRssMb))}`,
		},
		{
			what: `Enrich of ${formatNumber(rows)} rows (${formatNumber(distinct)} distinct): requests, snapshot vs lookups`,
			value: `${formatNumber(m(SNAPSHOT, (r) => r.requests))} vs ${formatNumber(m(LOOKUP, (r) => r.requests))}`,
		},
		{
			what: `the same: time at ${LATENCY_MS} ms per answer, snapshot vs lookups`,
			value: `${seconds(m(SNAPSHOT, (r) => r.wallMs))} vs ${seconds(m(LOOKUP, (r) => r.wallMs))}`,
		},
	];
	const row = (name: string) => [
		name,
		formatNumber(m(name, (r) => r.requests)),
		seconds(m(name, (r) => r.wallMs)),
		mb(m(name, (r) => r.peakRssMb)),
		mb(m(name, (r) => r.rssBeforeMb)),
		formatNumber(m(name, (r) => r.records)),
		runs
			.get(name)!
			.map((r) => seconds(r.wallMs))
			.join(', '),
	];
	const details = [
		`Our node through the in-process harness (n8n-core's execute context over real HTTP), each run in a fresh ` +
			`process (peak RSS: the kernel's high-water mark from just before the operation). Compare: the two newest of ` +
			`the simulator's ${formatNumber(size)}-domain snapshots, File output, the default compared fields, with and ` +
			`without Filters → Domains holding the first ${formatNumber(listed)} names by rank. Enrich: ${formatNumber(rows)} ` +
			`rows \`{ id, domain }\` naming ${formatNumber(distinct)} distinct domains, the simulator waiting ${LATENCY_MS} ms ` +
			`before every answer; Source Lookup (bulk calls of 100 names, two at a time) against Source Snapshot (one ` +
			`stream read of the newest snapshot, plus the dataset list call that resolves "latest"). ${rounds} round(s), ` +
			'alternating; medians.',
		markdownTable(
			['run', 'requests', 'time', 'peak RSS', 'RSS before', 'items out', 'time per round'],
			[WITHOUT, WITH, LOOKUP, SNAPSHOT].map(row),
		),
		"With a list, Compare parses and indexes only the listed names' lines (the others are declined from their raw " +
			'`{"name":"…"` prefix), so its memory follows the list, not the snapshot; it still reads both snapshots whole. ' +
			"The snapshot's data is as of its date; a lookup's is current.",
	];
	return { id: 'lists', title: 'Lists of domains', figures, details };
}
