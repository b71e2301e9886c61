/**
 * Measures the stream endpoint: starts the simulator in a child process (so its memory is measured
 * alone), streams a whole snapshot through undici counting lines, samples the child's VmRSS/VmHWM from
 * /proc during the stream, and prints records/s and memory at start, peak and end.
 *
 *   npx ts-node --transpile-only test/simulator/measure-stream.ts --domains 1000000 [--fields a,b] [--label latest]
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { KEYS } from './auth';

interface Options {
	domains: number;
	fields?: string;
	label: string;
}

function parseArguments(argv: string[]): Options {
	const options: Options = { domains: 1_000_000, label: 'latest' };
	for (let i = 0; i < argv.length; i += 2) {
		const [flag, value] = [argv[i], argv[i + 1]];
		if (value === undefined) throw new Error(`${flag} needs a value`);
		if (flag === '--domains') options.domains = Number(value);
		else if (flag === '--fields') options.fields = value;
		else if (flag === '--label') options.label = value;
		else throw new Error(`unknown option ${flag}`);
	}
	return options;
}

/** VmRSS and VmHWM of a process in MB (Linux /proc). */
function memoryOf(pid: number): { rssMb: number; hwmMb: number } {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	const read = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
	return { rssMb: read('VmRSS'), hwmMb: read('VmHWM') };
}

async function main(): Promise<void> {
	const options = parseArguments(process.argv.slice(2));
	const cli = join(__dirname, 'cli.ts');
	// node -r ts-node/register directly (not npx), so the child pid is the simulator process itself.
	const child = spawn(
		process.execPath,
		['-r', 'ts-node/register/transpile-only', cli, '--port', '0', '--domains', String(options.domains)],
		{
			stdio: ['ignore', 'pipe', 'inherit'],
		},
	);
	try {
		const baseUrl = await new Promise<string>((resolve, reject) => {
			let output = '';
			child.stdout.on('data', (chunk: Buffer) => {
				output += chunk.toString();
				const match = /listening on (http:\/\/\S+)/.exec(output);
				if (match) resolve(match[1]);
			});
			child.once('exit', (code) => reject(new Error(`simulator exited early (${code}): ${output}`)));
		});
		const pid = child.pid as number;
		const atStart = memoryOf(pid);
		const query = new URLSearchParams(options.fields ? { fields: options.fields } : {});
		const url = `${baseUrl}/json/api/v1/historical/domain/${options.label}${options.fields ? `?${query}` : ''}`;

		let peakRssMb = atStart.rssMb;
		const sampler = setInterval(() => {
			peakRssMb = Math.max(peakRssMb, memoryOf(pid).rssMb);
		}, 100);
		const started = performance.now();
		const response = await request(url, { headers: { authorization: `Bearer ${KEYS.pro}` } });
		if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}: ${await response.body.text()}`);
		let lines = 0;
		let bytes = 0;
		for await (const chunk of response.body as AsyncIterable<Buffer>) {
			bytes += chunk.length;
			for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
		}
		const seconds = (performance.now() - started) / 1000;
		clearInterval(sampler);
		const atEnd = memoryOf(pid);
		peakRssMb = Math.max(peakRssMb, atEnd.rssMb);

		const mb = (n: number) => `${n.toFixed(1)} MB`;
		console.log(
			`command: npx ts-node --transpile-only test/simulator/measure-stream.ts ${process.argv.slice(2).join(' ')}`,
		);
		console.log(`stream: ${url}`);
		console.log(
			`records: ${lines} (expected ${options.domains}), bytes: ${(bytes / 1e6).toFixed(1)} MB, ${(bytes / lines).toFixed(0)} B/record`,
		);
		console.log(
			`time: ${seconds.toFixed(2)} s, ${Math.round(lines / seconds).toLocaleString('en-US')} records/s, ${(bytes / 1e6 / seconds).toFixed(1)} MB/s`,
		);
		console.log(`simulator RSS at start: ${mb(atStart.rssMb)} (VmHWM ${mb(atStart.hwmMb)}, includes ts-node start-up)`);
		console.log(`simulator RSS peak during stream (sampled every 100 ms): ${mb(peakRssMb)}`);
		console.log(`simulator RSS at end: ${mb(atEnd.rssMb)}, VmHWM at end: ${mb(atEnd.hwmMb)}`);
		if (lines !== options.domains) process.exitCode = 1;
	} finally {
		child.kill('SIGTERM');
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
