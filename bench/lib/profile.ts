/** Reads a V8 .cpuprofile (node --cpu-prof) and says where the time goes: by function, and by area. */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

import { markdownTable } from './report';

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
	children?: number[];
}

interface CpuProfile {
	nodes: ProfileNode[];
	startTime: number;
	endTime: number;
	samples: number[];
	timeDeltas: number[];
}

export interface ProfileSummary {
	totalMs: number;
	bySelf: Array<{ name: string; selfMs: number; share: number }>;
	ours: Array<{ name: string; totalMs: number; selfMs: number; share: number }>;
	byArea: Array<{ area: string; selfMs: number; share: number }>;
	/** For each watched function name: the functions that called it, by the watched function's self time. */
	callers: Record<string, Array<{ name: string; ms: number }>>;
}

const ROOT = relative('/', process.cwd());

const sources = new Map<string, string[]>();

/**
 * The line of a TypeScript file where `name` is declared. V8 counts lines of the JavaScript that ts-node compiled
 * (comments and types removed), which are not the lines of the .ts file: the declaration is looked up in the source,
 * the first at or after V8's line (the compiled code is never longer). Undefined when it is not found (anonymous):
 * then the compiled line is named as such.
 */
function sourceLine(path: string, name: string, compiledLine: number): number | undefined {
	if (!path.endsWith('.ts') || name === '' || !/^[\w$]+$/.test(name)) return undefined;
	if (!sources.has(path)) {
		try {
			sources.set(path, readFileSync(path, 'utf8').split('\n'));
		} catch {
			sources.set(path, []);
		}
	}
	const declares = new RegExp(
		`(function\\*?\\s*|^\\s*(?:(?:export|const|let|private|public|static|async|readonly|get)\\s+)*\\*?)${name}\\s*[(<=:]`,
	);
	const lines = sources.get(path) ?? [];
	const found = lines.findIndex((text, index) => index >= compiledLine && declares.test(text));
	const first = found === -1 ? lines.findIndex((text) => declares.test(text)) : found;
	return first === -1 ? undefined : first + 1;
}

function location(url: string, line: number, name: string): string {
	if (!url) return '';
	const path = url.replace(/^file:\/\//, '');
	const short = path.includes('node_modules/')
		? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)
		: path.replace(`/${ROOT}/`, '');
	if (!path.endsWith('.ts')) return `${short}:${line + 1}`;
	const declared = sourceLine(path, name, line);
	return declared === undefined ? `${short} (line ${line + 1} once compiled)` : `${short}:${declared}`;
}

function functionKey(node: ProfileNode): string {
	const name = node.callFrame.functionName || '(anonymous)';
	const where = location(node.callFrame.url, node.callFrame.lineNumber, node.callFrame.functionName);
	return where ? `${name} ${where}` : name;
}

/** Which part of the stack a function belongs to; the areas are what someone would fix. */
function areaOf(node: ProfileNode): string {
	const url = node.callFrame.url;
	const name = node.callFrame.functionName;
	if (name === '(garbage collector)') return 'garbage collection';
	if (name === '(idle)') return 'idle (waiting for the network)';
	if (name === '(program)') return 'V8 and native code outside JS functions';
	if (name === 'decode' && (!url || url === 'node:internal/encoding')) return 'TextDecoder (UTF-8 decoding)';
	if (/\/nodes\/DomainData/.test(url)) return 'our node (nodes/)';
	if (/\/bench\/baselines\.ts/.test(url)) return 'hand-written reader (bench/baselines.ts)';
	if (/node_modules\/(axios|follow-redirects|form-data|proxy-from-env)/.test(url)) return "n8n's HTTP helper (axios)";
	if (/node_modules\/(n8n-core|n8n-workflow|@n8n)/.test(url)) return 'n8n-core / n8n-workflow';
	if (/node_modules\/(typescript|ts-node|source-map)/.test(url)) return 'ts-node start-up';
	if (url.startsWith('node:')) return 'Node.js streams, sockets, events';
	if (!url) return 'native code called from JavaScript (builtins, bindings)';
	if (/\/(bench|test)\//.test(url)) return 'bench and harness';
	if (/node_modules\//.test(url)) return 'other libraries';
	return 'other JavaScript';
}

export function summarizeProfile(file: string, top = 12, watch: string[] = ['decode']): ProfileSummary {
	const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const parent = new Map<number, number>();
	for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

	const self = new Map<string, number>();
	const inclusive = new Map<string, number>();
	const areas = new Map<string, number>();
	const callers = new Map<string, Map<string, number>>(watch.map((name) => [name, new Map()]));
	let total = 0;
	for (let i = 0; i < profile.samples.length; i++) {
		const delta = (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000;
		const node = byId.get(profile.samples[i]);
		if (!node) continue;
		total += delta;
		const key = functionKey(node);
		self.set(key, (self.get(key) ?? 0) + delta);
		const area = areaOf(node);
		areas.set(area, (areas.get(area) ?? 0) + delta);
		const watched = callers.get(node.callFrame.functionName);
		if (watched) {
			// The first caller that is not the same function (a builtin called through its JS wrapper).
			let up = parent.get(node.id);
			while (up !== undefined && byId.get(up)!.callFrame.functionName === node.callFrame.functionName)
				up = parent.get(up);
			const caller = up === undefined ? '(none)' : functionKey(byId.get(up)!);
			watched.set(caller, (watched.get(caller) ?? 0) + delta);
		}
		// Inclusive time counts each function once per sample, also when it recurses.
		const seen = new Set<string>();
		for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
			const frame = byId.get(id)!;
			if (!/\/nodes\/DomainData/.test(frame.callFrame.url)) continue;
			const frameKey = functionKey(frame);
			if (seen.has(frameKey)) continue;
			seen.add(frameKey);
			inclusive.set(frameKey, (inclusive.get(frameKey) ?? 0) + delta);
		}
	}
	const share = (ms: number) => (total ? ms / total : 0);
	return {
		totalMs: total,
		bySelf: [...self.entries()]
			.sort((a, b) => b[1] - a[1])
			.slice(0, top)
			.map(([name, ms]) => ({ name, selfMs: ms, share: share(ms) })),
		ours: [...inclusive.entries()]
			.sort((a, b) => b[1] - a[1])
			.slice(0, top)
			.map(([name, ms]) => ({ name, totalMs: ms, selfMs: self.get(name) ?? 0, share: share(ms) })),
		byArea: [...areas.entries()]
			.sort((a, b) => b[1] - a[1])
			.map(([area, ms]) => ({ area, selfMs: ms, share: share(ms) })),
		callers: Object.fromEntries(
			[...callers.entries()].map(([name, byCaller]) => [
				name,
				[...byCaller.entries()].sort((a, b) => b[1] - a[1]).map(([caller, ms]) => ({ name: caller, ms })),
			]),
		),
	};
}

const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
const ms = (value: number) => `${value.toFixed(0)} ms`;

export function profileMarkdown(summary: ProfileSummary): string[] {
	return [
		`Sampled time: ${ms(summary.totalMs)} (idle included).`,
		'By area (self time):',
		markdownTable(
			['area', 'self time', 'share'],
			summary.byArea.map((row) => [row.area, ms(row.selfMs), percent(row.share)]),
		),
		'Functions with the most self time:',
		markdownTable(
			['function (file:line)', 'self time', 'share'],
			summary.bySelf.map((row) => [row.name, ms(row.selfMs), percent(row.share)]),
		),
		...(summary.ours.length
			? [
					'Our functions (nodes/) by total time (their callees included):',
					markdownTable(
						['function (file:line)', 'total', 'self', 'share of all'],
						summary.ours.map((row) => [row.name, ms(row.totalMs), ms(row.selfMs), percent(row.share)]),
					),
				]
			: []),
	];
}
