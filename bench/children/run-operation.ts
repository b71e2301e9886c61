/**
 * Runs operations of our node through the in-process harness, one request at a time as they come in on stdin (one
 * JSON `ChildRequest` a line), and prints what each cost as one line `RESULT {json}` on stdout; it ends when stdin
 * ends. Used for memory (a fresh heap per measurement: bench/lib/child.ts starts a process per run, except in the
 * tiny run) and for CPU profiles of the operation alone (V8's profiler through node:inspector, started right before
 * it runs).
 *
 *   node -r ts-node/register/transpile-only bench/children/run-operation.ts < requests (one JSON object a line)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createInterface } from 'node:readline';

import type { IDataObject, INodeParameters, IWorkflowExecuteAdditionalData } from 'n8n-workflow';

import { fastestReader, parseNdjson, straightforwardScript } from '../baselines';
import { countStreamRecords, type StreamOutput } from '../lib/operation';
import { collectGarbage } from '../lib/stats';

export interface ChildRequest {
	baseUrl: string;
	apiKey: string;
	parameters: INodeParameters;
	/** How to count the records of a Stream output; absent: count items. */
	output?: StreamOutput;
	/** Runs in a row (a profile wants several); memory figures cover all of them. */
	repeat?: number;
	/** Input items' JSON (default: one empty item). */
	input?: IDataObject[];
	/** Write a V8 CPU profile (.cpuprofile) of the runs to this file. */
	profileFile?: string;
	/**
	 * Run this hand-written reader of the `latest` stream instead of the node (for a profile to compare with);
	 * `fastest-over-helper`: the fastest reader's loop over the body of n8n's HTTP helper.
	 */
	baseline?: 'fastest' | 'straightforward' | 'fastest-over-helper';
	/** Sub-Workflow output: a sub-workflow that waits this long per batch and counts the records it receives. */
	subWorkflowDelayMs?: number;
}

export interface ChildResult {
	records: number;
	wallMs: number;
	cpuMs: number;
	/** RSS after loading n8n-core and the node, before the operation ran. */
	rssBeforeMb: number;
	/** The kernel's peak RSS (VmHWM, reset just before the operation ran). */
	peakRssMb: number;
	/** The largest RSS seen by a 10 ms sampler, as a cross-check of VmHWM. */
	sampledPeakRssMb: number;
	/**
	 * The largest JavaScript heap in use plus memory outside it (Buffers), seen by the same sampler: what the
	 * operation holds, which RSS can hide when the heap had room left from loading the code.
	 */
	sampledPeakHeapMb: number;
	heapUsedAfterMb: number;
	error?: string;
}

function status(field: string): number {
	const text = readFileSync('/proc/self/status', 'utf8');
	return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) / 1024;
}

/** What n8n's CLI does for a sub-workflow run, played by a sub-workflow that only waits `delayMs` per batch. */
function slowSubWorkflow(delayMs: number) {
	let records = 0;
	const executeWorkflow = async (_info: unknown, _data: unknown, options: { inputData?: unknown[] }) => {
		records += options.inputData?.length ?? 0;
		await new Promise((resolve) => setTimeout(resolve, delayMs));
		return { executionId: 'bench', data: [[]] };
	};
	return {
		records: () => records,
		executeWorkflow: executeWorkflow as unknown as IWorkflowExecuteAdditionalData['executeWorkflow'],
	};
}

let harness: Promise<typeof import('../../test/harness/n8n')> | undefined;

async function run(request: ChildRequest): Promise<ChildResult> {
	const input = request.input?.map((json) => ({ json }));
	// The harness reads N8N_USER_FOLDER when it loads; the parent gives each child its own (and removes it).
	harness ??= import('../../test/harness/n8n');
	const { createExecuteContext, runNode } = await harness;
	const credentials = { apiKey: request.apiKey, baseUrl: request.baseUrl };
	collectGarbage();
	const rssBeforeMb = status('VmRSS');
	// Resets VmHWM to the current RSS (Linux >= 4.0), so the peak excludes ts-node's compile of the code.
	writeFileSync('/proc/self/clear_refs', '5');
	let sampledPeak = process.memoryUsage.rss();
	const heapNow = () => {
		const usage = process.memoryUsage();
		return usage.heapUsed + usage.external;
	};
	let heapPeak = heapNow();
	const sampler = setInterval(() => {
		sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss());
		heapPeak = Math.max(heapPeak, heapNow());
	}, 10);
	const session = request.profileFile ? new Session() : undefined;
	if (session) {
		session.connect();
		await session.post('Profiler.enable');
		await session.post('Profiler.setSamplingInterval', { interval: 200 });
		await session.post('Profiler.start');
	}
	const cpuBefore = process.cpuUsage();
	const started = performance.now();
	let records = 0;
	let error: string | undefined;
	for (let i = 0; i < (request.repeat ?? 1); i++) {
		const url = `${request.baseUrl}/json/api/v1/historical/domain/latest`;
		if (request.baseline === 'fastest-over-helper') {
			const { context } = await createExecuteContext({ parameters: request.parameters, credentials });
			const body = (await context.helpers.httpRequestWithAuthentication.call(context, 'domainDataApi', {
				method: 'GET',
				url,
				encoding: 'stream',
				json: false,
			})) as AsyncIterable<Uint8Array>;
			records = (await parseNdjson(body)).length;
			continue;
		}
		if (request.baseline) {
			const read = request.baseline === 'fastest' ? fastestReader : straightforwardScript;
			records = (await read(url, request.apiKey)).length;
			continue;
		}
		const sub = request.subWorkflowDelayMs === undefined ? undefined : slowSubWorkflow(request.subWorkflowDelayMs);
		const result = await runNode({
			parameters: request.parameters,
			credentials,
			input,
			executeWorkflow: sub?.executeWorkflow,
		});
		if (result.error) {
			error = result.error.message;
			break;
		}
		records = sub
			? sub.records()
			: request.output
				? countStreamRecords(result.items, request.output)
				: result.items.length;
	}
	const wallMs = performance.now() - started;
	const cpu = process.cpuUsage(cpuBefore);
	clearInterval(sampler);
	if (session) {
		const { profile } = await session.post('Profiler.stop');
		writeFileSync(request.profileFile!, JSON.stringify(profile));
		session.disconnect();
	}
	return {
		records,
		wallMs,
		cpuMs: (cpu.user + cpu.system) / 1000,
		rssBeforeMb,
		peakRssMb: status('VmHWM'),
		sampledPeakRssMb: Math.max(sampledPeak, process.memoryUsage.rss()) / 2 ** 20,
		sampledPeakHeapMb: Math.max(heapPeak, heapNow()) / 2 ** 20,
		heapUsedAfterMb: process.memoryUsage().heapUsed / 2 ** 20,
		error,
	};
}

async function main(): Promise<void> {
	for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
		if (!line.trim()) continue;
		let answer: ChildResult | { error: string };
		try {
			answer = await run(JSON.parse(line) as ChildRequest);
		} catch (error) {
			answer = { error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
		}
		process.stdout.write(`RESULT ${JSON.stringify(answer)}\n`);
	}
}

// n8n-core keeps process-wide handles open once loaded: the child ends with its input.
main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
		process.exit(1);
	},
);
