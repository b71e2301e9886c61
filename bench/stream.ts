/**
 * 1. Stream throughput: records per second of Dataset → Stream (`batches` and `items`), run through n8n's
 * real HTTP helper (the harness), against two hand-written readers, in one run, interleaved.
 */
import { KEYS } from '../test/simulator';
import { createExecuteContext, runNode } from '../test/harness/n8n';
import { fastestReader, parseNdjson, straightforwardScript } from './baselines';
import { processCpuMs } from './lib/cpu';
import { countStreamRecords, isStub, streamParameters, StubError, type StreamOutput } from './lib/operation';
import { profileStream } from './profile';
import { markdownTable, shouldProfile, type BenchContext, type Figure, type SectionResult } from './lib/report';
import { formatNumber, interleave, median, warmUp, type Contender } from './lib/stats';

interface Run {
	records: number;
	wallMs: number;
	/** This process's CPU time (main thread and V8's helper threads). */
	clientCpuMs: number;
	/** The simulator's CPU time while the run lasted. */
	serverCpuMs: number;
}

const OURS = { batches: 'Stream, batches output (our node)', items: 'Stream, items output (our node)' } as const;
const STRAIGHTFORWARD = 'straightforward script (undici, readline, JSON.parse)';
const FASTEST = 'fastest hand-written reader (undici, own newline split, JSON.parse)';
const FASTEST_OVER_HELPER = "the fastest reader's loop over n8n's HTTP helper stream (no node)";
const TARGETS = { batches: 0.9, items: 0.8 } as const;

export async function streamThroughput(context: BenchContext): Promise<SectionResult> {
	const records = context.tiny ? 2_000 : 200_000;
	const rounds = context.tiny ? 1 : 7;
	const sim = await context.simulators.start({ domains: records });
	const pending: string[] = [];
	try {
		const url = `${sim.url}/json/api/v1/historical/domain/latest`;
		const credentials = { apiKey: KEYS.pro, baseUrl: sim.url };

		const timed = (name: string, read: () => Promise<number>): Contender<Run> => ({
			name,
			run: async () => {
				const serverBefore = processCpuMs(sim.pid);
				const cpuBefore = process.cpuUsage();
				const started = performance.now();
				const count = await read();
				const wallMs = performance.now() - started;
				const cpu = process.cpuUsage(cpuBefore);
				if (count !== records) throw new Error(`${name} read ${count} records, expected ${records}`);
				return {
					records: count,
					wallMs,
					clientCpuMs: (cpu.user + cpu.system) / 1000,
					serverCpuMs: processCpuMs(sim.pid) - serverBefore,
				};
			},
		});
		const ours = (output: StreamOutput) =>
			timed(OURS[output as 'batches' | 'items'], async () => {
				const result = await runNode({ parameters: streamParameters(output, {}, records), credentials });
				if (result.error) throw isStub(result.error) ? new StubError('Dataset → Stream') : result.error;
				return countStreamRecords(result.items, output);
			});

		// Not a user's alternative: it tells apart what n8n's HTTP helper costs (axios, Node streams) from what the
		// node's own code costs, since a node must read through that helper.
		const overHelper = timed(FASTEST_OVER_HELPER, async () => {
			const { context } = await createExecuteContext({ parameters: streamParameters('batches'), credentials });
			const body = (await context.helpers.httpRequestWithAuthentication.call(context, 'domainDataApi', {
				method: 'GET',
				url,
				encoding: 'stream',
				json: false,
			})) as AsyncIterable<Uint8Array>;
			return (await parseNdjson(body)).length;
		});
		const baselines = [
			timed(STRAIGHTFORWARD, async () => (await straightforwardScript(url, KEYS.pro)).length),
			timed(FASTEST, async () => (await fastestReader(url, KEYS.pro)).length),
			overHelper,
		];
		const { ready: contenders, failed } = await warmUp([ours('batches'), ours('items'), ...baselines]);
		for (const { name, error } of failed) {
			if (!Object.values(OURS).includes(name as (typeof OURS)[keyof typeof OURS])) throw error;
			pending.push(`${name}: ${error instanceof StubError ? error.message : `fails: ${error.message}`}; not measured`);
		}
		context.log(`stream: ${records} records, ${rounds} interleaved rounds of ${contenders.length}`);
		const results = await interleave(contenders, rounds, (name, round, run) =>
			context.log(`  round ${round} ${name}: ${formatNumber((run.records / run.wallMs) * 1000)} records/s`),
		);

		const rate = (run: Run) => (run.records / run.wallMs) * 1000;
		const fastestRuns = results.get(FASTEST)!;
		const medianRate = (name: string) => median(results.get(name)!.map(rate));
		// Ratios pair the runs of one round (they ran back to back), then take the median over rounds.
		const ratioToFastest = (name: string) =>
			median(results.get(name)!.map((run, round) => rate(run) / rate(fastestRuns[round])));
		// The same comparison by CPU time per record (the fastest reader's ÷ the contender's): waiting does not count
		// in it, so it moves much less when other processes take the machine's cores for a while.
		const cpuPerRecord = (run: Run) => run.clientCpuMs / run.records;
		const cpuRatioToFastest = (name: string) =>
			median(results.get(name)!.map((run, round) => cpuPerRecord(fastestRuns[round]) / cpuPerRecord(run)));

		const figures: Figure[] = [];
		const missed: StreamOutput[] = [];
		for (const output of ['batches', 'items'] as const) {
			if (!results.has(OURS[output])) continue;
			const ratio = ratioToFastest(OURS[output]);
			const met = ratio >= TARGETS[output];
			if (!met) missed.push(output);
			figures.push({
				what: `${output} output: records/s vs fastest reader`,
				value: `${formatNumber(medianRate(OURS[output]))}/s = ${ratio.toFixed(2)} × (by CPU per record: ${cpuRatioToFastest(OURS[output]).toFixed(2)} ×)`,
				target: `≥ ${TARGETS[output]} ×`,
				met,
			});
		}
		if (results.has(FASTEST_OVER_HELPER)) {
			figures.push({
				what: "fastest reader's loop over n8n's HTTP helper: records/s",
				value: `${formatNumber(medianRate(FASTEST_OVER_HELPER))}/s = ${ratioToFastest(FASTEST_OVER_HELPER).toFixed(2)} × (by CPU per record: ${cpuRatioToFastest(FASTEST_OVER_HELPER).toFixed(2)} ×)`,
			});
		}
		figures.push(
			{
				what: 'straightforward script: records/s',
				value: `${formatNumber(medianRate(STRAIGHTFORWARD))}/s = ${ratioToFastest(STRAIGHTFORWARD).toFixed(2)} × (by CPU per record: ${cpuRatioToFastest(STRAIGHTFORWARD).toFixed(2)} ×)`,
			},
			{ what: 'fastest reader: records/s', value: `${formatNumber(medianRate(FASTEST))}/s` },
		);

		const rows = [...results.entries()].map(([name, runs]) => [
			name,
			formatNumber(median(runs.map(rate))),
			(median(runs.map((run) => run.wallMs)) / 1000).toFixed(2),
			formatNumber(median(runs.map((run) => (run.clientCpuMs * 1000) / run.records)), 1),
			`${formatNumber(median(runs.map((run) => (run.serverCpuMs / run.wallMs) * 100)))} %`,
			name === FASTEST ? '1.00' : ratioToFastest(name).toFixed(2),
			name === FASTEST ? '1.00' : cpuRatioToFastest(name).toFixed(2),
			runs.map((run) => formatNumber(rate(run))).join(', '),
		]);
		const details = [
			`${formatNumber(records)} records of the \`latest\` snapshot with the default fields (about 410 bytes a line), ` +
				`simulator in a child process; ${rounds} rounds, each running every contender once in the same order, ` +
				'after one untimed warm-up run of each; a full garbage collection before every run. Every contender keeps all records ' +
				"in memory, as the node keeps its output items. Ratio = median over rounds of (records/s ÷ the fastest reader's in the same round).",
			markdownTable(
				[
					'contender',
					'records/s (median)',
					'wall s',
					'client CPU µs/record',
					'simulator core busy',
					'ratio to fastest (records/s)',
					'ratio to fastest (CPU per record)',
					'records/s per round',
				],
				rows,
			),
			`"${FASTEST_OVER_HELPER}" is no user's alternative: it runs the fastest reader's loop over the body that n8n's HTTP helper ` +
				'(httpRequestWithAuthentication with encoding "stream", which a node must use) hands over, so that the cost of reading through ' +
				"n8n's helper (axios, Node.js streams) shows apart from the cost of the node's own code.",
			'"Simulator core busy" is the simulator\'s CPU time over the run\'s wall time: near 100 % means the simulator, not the ' +
				"client, set the pace, and the records/s ratio understates the client's own differences. The CPU ratio (the fastest reader's " +
				"CPU time per record ÷ the contender's, median over rounds) leaves waiting out, so other load on the machine moves it much less: " +
				'read it as the steadier of the two when the records/s per round vary widely.',
		];

		let profile: string[] | undefined;
		if (shouldProfile(context, missed.length > 0)) {
			profile = [];
			const outputs: StreamOutput[] = missed.length ? missed : ['batches'];
			for (const output of outputs) {
				context.log(`stream: profiling the ${output} output`);
				profile.push(
					`#### Stream, ${output} output`,
					...(await profileStream(context.children, sim.url, output, records)),
				);
			}
		}
		return { id: 'stream', title: 'Stream throughput', figures, details, pending, profile };
	} finally {
		await sim.close();
	}
}
