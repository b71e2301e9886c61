/**
 * The benchmark must never rot: run it at tiny sizes (`npm run bench -- --tiny`, seconds per section, no real
 * n8n) and check that every section measured something and that the report went where it was told to go,
 * never over the committed docs/benchmarks.md. The figures of a tiny run say nothing about speed: no
 * timing is asserted here.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { COMMITTED_REPORT, parseArguments } from '../../../bench/args';
import { DEFAULT_N8N_VERSION, n8nInstallDir } from '../../../scripts/n8n/paths';

const REPO_ROOT = join(__dirname, '../../..');

function run(command: string, args: string[]): Promise<{ code: number | null; output: string }> {
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
		let output = '';
		child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
		child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
		child.once('error', reject);
		child.once('close', (code) => resolve({ code, output }));
	});
}

describe('bench arguments', () => {
	it('writes the tiny run to a fresh temporary folder unless --out is given, and the full run to docs/benchmarks.md', () => {
		const tiny = parseArguments(['--tiny']);
		expect(tiny.out).not.toBe(COMMITTED_REPORT);
		expect(tiny.out.startsWith(tmpdir())).toBe(true);
		rmSync(dirname(tiny.out), { recursive: true, force: true });
		expect(tiny.n8n).toBe(false);
		expect(parseArguments(['--tiny', '--n8n']).n8n).toBe(true);

		const full = parseArguments([]);
		expect(full).toEqual({
			tiny: false,
			n8n: true,
			out: COMMITTED_REPORT,
			only: ['stream', 'memory', 'enrich', 'search', 'trigger', 'compare', 'subworkflow', 'spool', 'agent', 'lists'],
			profile: false,
		});
	});

	it('refuses unknown arguments and sections instead of running something else', () => {
		expect(() => parseArguments(['--tiny', '--fast'])).toThrow(/Unknown argument --fast/);
		expect(() => parseArguments(['--only', 'stream,speed'])).toThrow(/Unknown section speed/);
		expect(() => parseArguments(['--out'])).toThrow(/--out needs a value/);
		expect(() => parseArguments(['--only', 'realsize', '--size', '1e3x'])).toThrow(/--size needs a whole number/);
	});

	it('runs the real-size section only when named, at the size given', () => {
		expect(parseArguments([]).only).not.toContain('realsize');
		const named = parseArguments(['--only', 'realsize', '--size', '50000']);
		expect({ only: named.only, size: named.size }).toEqual({ only: ['realsize'], size: 50_000 });
		expect(named.targetsOnly).toBeUndefined();
		expect(parseArguments(['--only', 'realsize', '--targets']).targetsOnly).toBe(true);
		expect(parseArguments(['--only', 'realsize', '--runs', 'compare without rank, file']).runs).toEqual([
			'compare without rank',
			'file',
		]);
		expect(named.runs).toBeUndefined();
		expect(() => parseArguments(['--only', 'realsize', '--runs', ' , '])).toThrow(/--runs needs one or more/);
		expect(() => parseArguments(['--only', 'realsize', '--runs'])).toThrow(/--runs needs a value/);
	});
});

describe('npm run bench -- --tiny', () => {
	const folder = mkdtempSync(join(tmpdir(), 'dd-bench-test-'));
	const out = join(folder, 'benchmarks.md');
	let report = '';
	let output = '';
	let code: number | null = null;
	const committedBefore = existsSync(COMMITTED_REPORT) ? statSync(COMMITTED_REPORT).mtimeMs : undefined;

	beforeAll(async () => {
		// --profile: the profiles that a missed target brings in the full run are made here too, so they cannot rot either.
		({ code, output } = await run('npm', ['run', 'bench', '--', '--tiny', '--profile', '--out', out]));
		report = existsSync(out) ? readFileSync(out, 'utf8') : '';
	}, 600_000);

	afterAll(() => {
		rmSync(folder, { recursive: true, force: true });
	});

	it('ends without a failed section and writes its report to --out', () => {
		expect({ code, tail: code === 0 ? '' : output.slice(-3000) }).toEqual({ code: 0, tail: '' });
		expect(report).not.toContain('the section failed');
		expect(output).toContain(`written to `);
	});

	it('does not touch docs/benchmarks.md', () => {
		expect(existsSync(COMMITTED_REPORT) ? statSync(COMMITTED_REPORT).mtimeMs : undefined).toBe(committedBefore);
	});

	it('tells the machine, the date and the command that reproduces it', () => {
		expect(report).toMatch(/^- Machine: .+, \d+ cores, [\d.]+ GB memory, .+, Node\.js v\d+/m);
		expect(report).toMatch(/^- Date: \d{4}-\d\d-\d\dT/m);
		expect(report).toContain(`- Reproduce: \`npm run bench -- --tiny --profile --out ${out}\``);
		expect(report).toContain('**Tiny run**');
	});

	it('measures every section against its baseline', () => {
		const summary = report.slice(report.indexOf('## Summary'), report.indexOf('## Stream throughput'));
		const rows = summary.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| Section'));
		const measured = (section: string) =>
			rows.filter((row) => row.startsWith(`| ${section} |`) && !row.includes('| pending |'));
		expect(measured('Stream throughput').map((row) => row.split(' | ')[1])).toEqual([
			'batches output: records/s vs fastest reader',
			'items output: records/s vs fastest reader',
			"fastest reader's loop over n8n's HTTP helper: records/s",
			'straightforward script: records/s',
			'fastest reader: records/s',
		]);
		expect(measured('Memory').map((row) => row.split(' | ')[1])).toEqual([
			'file mode: peak RSS 1,000 → 2,000 records',
			'filter mode: peak RSS 1,000 → 2,000 records',
		]);
		expect(measured('Search').map((row) => row.split(' | ')[1])).toEqual([
			'harness: time vs raw undici loop, 0 ms latency (1,000 results)',
			"harness: time vs the same loop over n8n's HTTP helper, 0 ms latency (the node's own overhead)",
			'harness: time vs raw undici loop, 50 ms latency (1,000 results)',
			"harness: time vs the same loop over n8n's HTTP helper, 50 ms latency (the node's own overhead)",
		]);
		expect(measured('Trigger')).toHaveLength(2);
		expect(measured('Compare').map((row) => row.split(' | ')[1])).toEqual([
			'time to compare two 2,000-record snapshots vs reading both with the fastest reader',
			'peak RSS 1,000 → 2,000 records a side (File output)',
		]);
		expect(measured('Lists of domains').map((row) => row.split(' | ').slice(1, 3))).toEqual([
			['Compare of two 2,000-record snapshots, 100-name list vs none: time', expect.stringMatching(/ s vs .* ×$/)],
			['the same: peak RSS', expect.stringMatching(/^\d+ MB vs \d+ MB$/)],
			// Source Snapshot: the dataset list call that resolves "latest", and one stream read; lookups: 100 names a call.
			['Enrich of 600 rows (300 distinct): requests, snapshot vs lookups', '2 vs 3'],
			['the same: time at 50 ms per answer, snapshot vs lookups', expect.stringMatching(/ s vs [\d.]+ s$/)],
		]);
		// Real n8n is left out of the tiny run, and the report says so.
		expect(report).toContain('the tiny run skips real n8n unless given --n8n');
	});

	it('profiles the stream, the search and the compare, and says where the time goes', () => {
		const section = (title: string) =>
			report.slice(report.indexOf(`## ${title}`), report.indexOf('\n## ', report.indexOf(`## ${title}`) + 1));
		const stream = section('Stream throughput');
		expect(stream).toContain('### Where the time goes');
		expect(stream).toMatch(/\*\*Where the gap is:\*\* CPU \(idle excluded\) per 1,000 records: our node [\d.]+ ms/);
		expect(stream).toMatch(
			/\| the reading code itself: our node \(nodes\/\) or the hand-written loop; JSON\.parse included \| [\d.]+ \|/,
		);
		expect(stream).toMatch(
			/\*\*Decoding:\*\* on this machine, Node v[\d.]+'s `TextDecoder\.decode\(chunk\)` takes [\d.]+ ms/,
		);
		const search = section('Search');
		expect(search).toContain('#### Search through the harness, no latency');
		expect(search).toMatch(/\| our node \(nodes\/\) \| \d+ ms \|/);
		const compare = report.slice(report.indexOf('## Compare'));
		expect(compare).toContain('### Where the time goes');
		expect(compare).toMatch(
			/\| (compareSnapshots|indexNewer|readOlder|outputNewer) nodes\/DomainData\/helpers\/compare\/\w+\.ts:\d+ \| \d+ ms \|/,
		);
	});

	it('counts calls from the simulator log: the search pages and the trigger polls', () => {
		expect(report).toMatch(/harness: time vs raw undici loop, 0 ms latency \(1,000 results\) \| .*, 10 calls each/);
		expect(report).toMatch(/calls per poll, no new snapshot \| mean 1\.00, max 1 \(2 polls\)/);
	});
});

describe('npm run bench -- --tiny --n8n --only realsize --size 300', () => {
	const folder = mkdtempSync(join(tmpdir(), 'dd-bench-realsize-'));
	const out = join(folder, 'benchmarks.md');
	const installed = existsSync(n8nInstallDir(DEFAULT_N8N_VERSION));
	let report = '';
	let output = '';
	let code: number | null = null;

	beforeAll(async () => {
		({ code, output } = await run('npm', [
			'run',
			'bench',
			'--',
			'--tiny',
			'--n8n',
			'--only',
			'realsize',
			'--size',
			'300',
			'--out',
			out,
		]));
		report = existsSync(out) ? readFileSync(out, 'utf8') : '';
	}, 1_200_000);

	afterAll(() => {
		rmSync(folder, { recursive: true, force: true });
	});

	it('measures every output in both binary data modes and the batch sizes, in real n8n', () => {
		expect({ code, tail: code === 0 ? '' : output.slice(-3000) }).toEqual({ code: 0, tail: '' });
		if (!installed) {
			// The tiny run never installs n8n: it says why the section is pending.
			expect(report).toContain(`n8n ${DEFAULT_N8N_VERSION} is not installed`);
			return;
		}
		const rows = report
			.split('\n')
			.filter((line) => /^\| (filesystem|database)/.test(line))
			.map((line) => line.split(' | ').slice(0, 2).join(' | '));
		expect(rows).toEqual([
			'| filesystem | sub default 60',
			'| filesystem | sub every 60',
			'| filesystem | sub every 60 saving',
			'| filesystem | file',
			'| filesystem | file gzip',
			'| filesystem | compare',
			'| filesystem | compare over 50 MB/s',
			'| filesystem | compare without rank',
			'| filesystem | compare without rank over 50 MB/s',
			'| database | file',
			'| database | file gzip',
			'| database | sub every 60',
			'| database | compare',
			'| database | compare without rank',
			'| filesystem, heap 512 MB | sub default 60',
			'| filesystem, heap 512 MB | sub every 60 saving',
			'| filesystem, heap 512 MB | sub every 60',
		]);
		// Each snapshot is asked for once: one stream request per Stream run, two for Compare.
		const streams = report
			.split('\n')
			.filter((line) => /^\| (filesystem|database)/.test(line))
			.map((line) => line.split(' | ')[11]);
		expect(streams).toEqual(['1', '1', '1', '1', '1', '2', '2', '2', '2', '1', '1', '1', '2', '2', '1', '1', '1']);
		expect(report).toMatch(/peak RSS of n8n \(MB\) by batch size, every field \| 60: \d+ \|/);
	});
});
