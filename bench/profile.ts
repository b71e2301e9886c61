/**
 * Profiles an operation in a fresh process (V8's CPU profiler, what `node --cpu-prof` records, started right
 * before the operation and stopped right after it) and says where its time goes; for the stream, side by side
 * with the same profile of the fastest hand-written reader, so the gap shows by area.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { request } from 'undici';

import { KEYS } from '../test/simulator';
import type { ChildRequest } from './children/run-operation';
import type { OperationChildren } from './lib/child';
import { streamParameters, type StreamOutput } from './lib/operation';
import { profileMarkdown, summarizeProfile, type ProfileSummary } from './lib/profile';
import { markdownTable } from './lib/report';
import { formatNumber, median } from './lib/stats';

const SAMPLING = 'V8 CPU profile (what `node --cpu-prof` records, sampled every 200 µs)';

async function capture(
	children: OperationChildren,
	request: Omit<ChildRequest, 'apiKey' | 'profileFile'>,
): Promise<{ summary: ProfileSummary; records: number } | string> {
	const directory = mkdtempSync(join(tmpdir(), 'dd-bench-profile-'));
	try {
		const profileFile = join(directory, 'operation.cpuprofile');
		const result = await children.run({ ...request, apiKey: KEYS.pro, profileFile });
		if (result.error) return `The profiled run failed: ${result.error}`;
		if (!existsSync(profileFile)) return 'The profiler wrote no profile.';
		return { summary: summarizeProfile(profileFile), records: result.records };
	} finally {
		rmSync(directory, { recursive: true, force: true });
	}
}

export async function profileOperation(
	children: OperationChildren,
	baseUrl: string,
	parameters: INodeParameters,
	output: StreamOutput | undefined,
	repeat: number,
	input?: IDataObject[],
): Promise<string[]> {
	const captured = await capture(children, { baseUrl, parameters, output, repeat, input });
	if (typeof captured === 'string') return [captured];
	return [
		`${SAMPLING} of ${repeat} run(s) (${formatNumber(captured.records)} records or items each) in one fresh process, ` +
			'from just before the operation to its end.',
		...profileMarkdown(captured.summary),
	];
}

/**
 * Node's TextDecoder, measured on the snapshot's own bytes in the chunks the network delivered: decode(chunk)
 * against decode(chunk, { stream: true }) (the same text when chunks end at line ends).
 */
async function decodeModes(baseUrl: string, records: number): Promise<{ plainMs: number; streamMs: number }> {
	const response = await request(`${baseUrl}/json/api/v1/historical/domain/latest`, {
		headers: { authorization: `Bearer ${KEYS.pro}` },
	});
	const chunks: Uint8Array[] = [];
	for await (const chunk of response.body as AsyncIterable<Uint8Array>) chunks.push(chunk);
	const time = (options?: TextDecodeOptions) => {
		const decoder = new TextDecoder();
		const started = performance.now();
		for (const chunk of chunks) decoder.decode(chunk, options);
		return ((performance.now() - started) / records) * 1000;
	};
	const plain: number[] = [];
	const streaming: number[] = [];
	for (let round = 0; round < 5; round++) {
		plain.push(time());
		streaming.push(time({ stream: true }));
	}
	return { plainMs: median(plain), streamMs: median(streaming) };
}

const READING_CODE = 'the reading code itself: our node (nodes/) or the hand-written loop; JSON.parse included';

/** Self time by area, with our node's code and the hand-written loop under one name so that they line up. */
function areaTimes(summary: ProfileSummary): Map<string, number> {
	const times = new Map<string, number>();
	for (const row of summary.byArea) {
		const area =
			row.area === 'our node (nodes/)' || row.area === 'hand-written reader (bench/baselines.ts)'
				? READING_CODE
				: row.area;
		times.set(area, (times.get(area) ?? 0) + row.selfMs);
	}
	return times;
}

/**
 * The stream operation, the fastest reader, and the fastest reader's loop over n8n's HTTP helper, each profiled
 * alone over the same snapshot, so that the gap shows by area and splits into n8n's part and the node's part.
 */
export async function profileStream(
	children: OperationChildren,
	baseUrl: string,
	output: StreamOutput,
	records: number,
): Promise<string[]> {
	const repeat = records >= 100_000 ? 3 : 1;
	const parameters = streamParameters(output, {}, records);
	const requests: Array<Omit<ChildRequest, 'apiKey' | 'profileFile'>> = [
		{ baseUrl, parameters, output, repeat },
		{ baseUrl, parameters, baseline: 'fastest-over-helper', repeat },
		{ baseUrl, parameters, baseline: 'fastest', repeat },
	];
	// One at a time, so that no profile shares the client's core with another.
	const captured: Array<Awaited<ReturnType<typeof capture>>> = [];
	for (const request of requests) captured.push(await capture(children, request));
	const failure = captured.find((entry): entry is string => typeof entry === 'string');
	if (failure) return [failure];
	const [ours, overHelper, fastest] = captured as Array<Exclude<Awaited<ReturnType<typeof capture>>, string>>;

	const perThousand = (ms: number) => (ms / ((records * repeat) / 1000)).toFixed(2);
	const columns = [ours, overHelper, fastest].map((captured) => areaTimes(captured.summary));
	const areas = [...new Set(columns.flatMap((times) => [...times.keys()]))];
	const at = (column: number, area: string) => columns[column].get(area) ?? 0;
	const rows = areas
		.map((area) => ({ area, ours: at(0, area), overHelper: at(1, area), fastest: at(2, area) }))
		.sort((a, b) => b.ours - b.fastest - (a.ours - a.fastest));
	const total = (column: number) =>
		[...columns[column].entries()].filter(([area]) => !area.startsWith('idle')).reduce((sum, [, ms]) => sum + ms, 0);
	const largest = rows[0];
	const slowest = ours.summary.bySelf.find((row) => / nodes\//.test(row.name));
	const decoder = ours.summary.bySelf.find((row) => row.name.startsWith('decode '));
	const decodeCallers = ours.summary.callers.decode ?? [];
	const modes = await decodeModes(baseUrl, records);
	const decodingNote =
		`**Decoding:** on this machine, Node ${process.version}'s \`TextDecoder.decode(chunk)\` takes ${modes.plainMs.toFixed(2)} ms per 1,000 records' ` +
		`bytes and \`decode(chunk, { stream: true })\` ${modes.streamMs.toFixed(2)} ms (${(modes.plainMs / modes.streamMs).toFixed(2)} ×; ` +
		'medians of 5 over the same chunks). Both give the same text for bytes that end at a line end. In our node, decoding is called from: ' +
		(decodeCallers.length
			? decodeCallers
					.slice(0, 3)
					.map((caller) => `\`${caller.name}\` (${caller.ms.toFixed(0)} ms)`)
					.join(', ')
			: 'nowhere in the samples') +
		'; our node (`nodes/DomainData/transport/ndjson.ts`) and the fastest reader both decode with `{ stream: true }`.';
	return [
		`**Where the gap is:** CPU (idle excluded) per 1,000 records: our node ${perThousand(total(0))} ms, the fastest reader's loop over ` +
			`n8n's HTTP helper ${perThousand(total(1))} ms, the fastest reader ${perThousand(total(2))} ms. So reading through n8n's helper ` +
			`accounts for ${perThousand(total(1) - total(2))} ms and the node's own code for ${perThousand(total(0) - total(1))} ms. ` +
			`The largest single difference is "${largest.area}" (${perThousand(largest.ours - largest.fastest)} ms)` +
			(slowest
				? `; in our code, \`${slowest.name}\` has the most self time (${(slowest.share * 100).toFixed(1)} % of the samples; JSON.parse counts there)`
				: '') +
			(decoder
				? `; \`TextDecoder.decode\` takes ${(decoder.share * 100).toFixed(1)} % (see the note on decoding below).`
				: '.'),
		`${SAMPLING}: each contender ${repeat} run(s) of ${formatNumber(records)} records in its own fresh process. Milliseconds ` +
			'(self time) per 1,000 records, by area, largest difference between our node and the fastest reader first. V8 builtins ' +
			'such as JSON.parse count as self time of the JavaScript function that calls them.',
		markdownTable(
			[
				'area',
				`our node (${output}) ms / 1,000 records`,
				"fastest reader's loop over n8n's helper",
				'fastest reader',
				'our node − fastest reader',
			],
			rows.map((row) => [
				row.area,
				perThousand(row.ours),
				perThousand(row.overHelper),
				perThousand(row.fastest),
				perThousand(row.ours - row.fastest),
			]),
		),
		decodingNote,
		'Our node in detail:',
		...profileMarkdown(ours.summary).slice(3),
		'The fastest reader in detail (functions with the most self time):',
		markdownTable(
			['function (file:line)', 'self time', 'share'],
			fastest.summary.bySelf
				.slice(0, 8)
				.map((row) => [row.name, `${row.selfMs.toFixed(0)} ms`, `${(row.share * 100).toFixed(1)} %`]),
		),
	];
}
