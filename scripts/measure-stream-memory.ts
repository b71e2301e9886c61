/**
 * Measures the memory of Dataset → Stream on big snapshots: the `file` output and a filter that keeps a
 * small share of the records, for 100,000 and 1,000,000 records.
 *
 *   npx ts-node --transpile-only scripts/measure-stream-memory.ts [--sizes 100000,1000000] [--modes file,filter,gzip]
 *
 * Layout, so that only the client's memory is measured:
 * - the simulator runs in a child process (test/simulator/cli.ts), one per size;
 * - each measurement runs in a fresh child process of this script (`--child`), which loads the harness,
 *   warms up with a 100-record run, collects garbage, then runs the node's own operation in-process
 *   through n8n-core (test/harness/n8n.ts `runNode`, real HTTP, binary data in filesystem mode) while it
 *   samples process.memoryUsage() every 20 ms;
 * - the parent prints baseline, peak and growth of RSS and heapUsed per run.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { INodeParameters } from 'n8n-workflow';

const ROOT = join(__dirname, '..');
const SIMULATOR_CLI = join(ROOT, 'test', 'simulator', 'cli.ts');
const PRO_KEY = 'sim-pro-key';
const SAMPLE_MS = 20;

/**
 * file: the whole snapshot as NDJSON; gzip: the same, compressed with the global CompressionStream;
 * filter: every Shopify site in Germany (about 0.6 % of the records), items output.
 */
const MODES: Record<string, INodeParameters> = {
	file: { output: 'file' },
	gzip: { output: 'file', options: { compression: 'gzip' } },
	filter: { output: 'items', filters: { countryCodes: 'DE', technologies: 'Shopify' } },
};

interface ChildResult {
	mode: string;
	records: number;
	outputItems: number;
	bytes?: number;
	seconds: number;
	baseline: { rss: number; heapUsed: number };
	peak: { rss: number; heapUsed: number };
	samples: number;
	error?: string;
}

const MB = 1024 * 1024;
const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;

function argument(flag: string): string | undefined {
	const index = process.argv.indexOf(flag);
	return index === -1 ? undefined : process.argv[index + 1];
}

// ---------------------------------------------------------------------------------------------------
// Child: one measurement.

async function runChild(mode: string, baseUrl: string): Promise<void> {
	// tsconfig.json sets ts-node's preferTsExts, so './DomainData.node' loads the .ts file, not the codex JSON.
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { runNode } = require('../test/harness/n8n') as typeof import('../test/harness/n8n');
	const credentials = { apiKey: PRO_KEY, baseUrl };
	const parameters: INodeParameters = { resource: 'dataset', operation: 'stream', label: 'latest', returnAll: true, ...MODES[mode] };

	// Warm-up: load every module and open the binary data folder, so the baseline holds them.
	const warm = await runNode({ parameters: { ...parameters, returnAll: false, limit: 100 }, credentials });
	if (warm.error) throw warm.error;
	const gc = (globalThis as { gc?: () => void }).gc;
	gc?.();
	gc?.();
	const baseline = process.memoryUsage();
	const peak = { rss: baseline.rss, heapUsed: baseline.heapUsed };
	let samples = 0;
	const sampler = setInterval(() => {
		const now = process.memoryUsage();
		peak.rss = Math.max(peak.rss, now.rss);
		peak.heapUsed = Math.max(peak.heapUsed, now.heapUsed);
		samples++;
	}, SAMPLE_MS);
	const started = performance.now();
	const result = await runNode({ parameters, credentials });
	const seconds = (performance.now() - started) / 1000;
	clearInterval(sampler);
	const end = process.memoryUsage();
	peak.rss = Math.max(peak.rss, end.rss);
	peak.heapUsed = Math.max(peak.heapUsed, end.heapUsed);

	const first = result.items[0]?.json ?? {};
	const report: ChildResult = {
		mode,
		records: parameters.output === 'file' ? Number(first.recordCount ?? 0) : result.items.length,
		outputItems: result.items.length,
		bytes: parameters.output === 'file' ? Number(first.sizeBytes ?? 0) : undefined,
		seconds,
		baseline: { rss: baseline.rss, heapUsed: baseline.heapUsed },
		peak,
		samples,
		error: result.error?.message,
	};
	process.stdout.write(`RESULT ${JSON.stringify(report)}\n`, () => {
		// n8n-core keeps process-wide handles open once loaded: leave explicitly.
		process.exit(0);
	});
}

// ---------------------------------------------------------------------------------------------------
// Parent: the simulator per size, one child per measurement.

async function startSimulator(domains: number) {
	const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', SIMULATOR_CLI, '--port', '0', '--domains', String(domains)], {
		stdio: ['ignore', 'pipe', 'inherit'],
		cwd: ROOT,
	});
	const url = await new Promise<string>((resolve, reject) => {
		let output = '';
		child.stdout.on('data', (chunk: Buffer) => {
			output += chunk.toString();
			const match = /listening on (http:\/\/\S+)/.exec(output);
			if (match) resolve(match[1]);
		});
		child.once('exit', (code) => reject(new Error(`simulator exited early (${code}): ${output}`)));
	});
	child.stdout.resume();
	return {
		url,
		stop: async () => {
			const exited = new Promise((resolve) => child.once('exit', resolve));
			child.kill('SIGTERM');
			await exited;
		},
	};
}

function measure(mode: string, baseUrl: string): ChildResult {
	const userFolder = mkdtempSync(join(tmpdir(), 'dd-measure-'));
	try {
		const run = spawnSync(
			process.execPath,
			['--expose-gc', '-r', 'ts-node/register/transpile-only', __filename, '--child', mode, '--url', baseUrl],
			{
				cwd: ROOT,
				encoding: 'utf8',
				maxBuffer: 16 * MB,
				env: { ...process.env, N8N_USER_FOLDER: userFolder, N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem', N8N_ENCRYPTION_KEY: 'measure' },
			},
		);
		const line = run.stdout.split('\n').find((entry) => entry.startsWith('RESULT '));
		if (!line) throw new Error(`measurement child failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
		return JSON.parse(line.slice('RESULT '.length)) as ChildResult;
	} finally {
		// The file output of a million records is ~400 MB on disk.
		rmSync(userFolder, { recursive: true, force: true });
	}
}

async function main(): Promise<void> {
	const child = argument('--child');
	if (child) return await runChild(child, argument('--url')!);

	const sizes = (argument('--sizes') ?? '100000,1000000').split(',').map(Number);
	const modes = (argument('--modes') ?? 'file,filter').split(',');
	for (const mode of modes) if (!MODES[mode]) throw new Error(`unknown mode ${mode}; known: ${Object.keys(MODES).join(', ')}`);
	console.log(`command: npx ts-node --transpile-only scripts/measure-stream-memory.ts ${process.argv.slice(2).join(' ')}`.trim());
	console.log(`node ${process.version}; simulator in a child process; each run in a fresh process, memoryUsage() sampled every ${SAMPLE_MS} ms`);
	console.log('');
	const rows: string[][] = [];
	for (const size of sizes) {
		const sim = await startSimulator(size);
		try {
			for (const mode of modes) {
				const result = measure(mode, sim.url);
				if (result.error) throw new Error(`${mode} ${size}: ${result.error}`);
				rows.push([
					size.toLocaleString('en-US'),
					mode,
					result.records.toLocaleString('en-US'),
					result.bytes === undefined ? '' : mb(result.bytes),
					result.seconds.toFixed(1),
					mb(result.baseline.rss),
					mb(result.peak.rss),
					mb(result.peak.rss - result.baseline.rss),
					mb(result.baseline.heapUsed),
					mb(result.peak.heapUsed),
					mb(result.peak.heapUsed - result.baseline.heapUsed),
				]);
				console.log(`${size} ${mode}: ${JSON.stringify(result)}`);
			}
		} finally {
			await sim.stop();
		}
	}
	const header = ['snapshot records', 'mode', 'records out', 'file size', 'seconds', 'RSS before', 'RSS peak', 'RSS growth', 'heap before', 'heap peak', 'heap growth'];
	console.log('');
	console.log(`| ${header.join(' | ')} |`);
	console.log(`|${header.map(() => '---').join('|')}|`);
	for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
