/** Command-line arguments of bench/run.ts. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const SECTION_NAMES = [
	'stream',
	'memory',
	'enrich',
	'search',
	'trigger',
	'compare',
	'subworkflow',
	'spool',
	'agent',
	'lists',
	'realsize',
] as const;

/** Sections left out of a full run (hours at their size): they run only when named with --only. */
export const ONLY_WHEN_NAMED: ReadonlyArray<(typeof SECTION_NAMES)[number]> = ['realsize'];

/** Where the full run writes its figures; the tiny run never writes there unless told to. */
export const COMMITTED_REPORT = resolve(__dirname, '..', 'docs', 'benchmarks.md');

export interface Arguments {
	tiny: boolean;
	/** Run the parts that need real n8n (always in the full run; the tiny run only with --n8n). */
	n8n: boolean;
	out: string;
	only: string[];
	/** Profile every section that can, also where its target is met. */
	profile: boolean;
	/** Records per run for the sections that take a size (realsize). */
	size?: number;
	/** Only the runs that have a target, in the sections that can leave the others out (realsize). */
	targetsOnly?: boolean;
	/** Only the runs whose name starts with one of these (realsize: `file`, `compare without rank`, `sub every`). */
	runs?: string[];
}

const USAGE = `Usage: npm run bench -- [--tiny [--n8n]] [--profile] [--out file.md] [--only ${SECTION_NAMES.join(',')}] [--size records] [--targets] [--runs name,name]`;

export function parseArguments(argv: string[]): Arguments {
	const known = ['--tiny', '--n8n', '--profile', '--out', '--only', '--size', '--targets', '--runs'];
	const takesValue = ['--out', '--only', '--size', '--runs'];
	for (let i = 0; i < argv.length; i++) {
		if (!known.includes(argv[i])) throw new Error(`Unknown argument ${argv[i]}. ${USAGE}`);
		if (takesValue.includes(argv[i])) {
			const value = argv[i + 1];
			if (value === undefined || value.startsWith('--')) throw new Error(`${argv[i]} needs a value. ${USAGE}`);
			i++;
		}
	}
	const value = (flag: string) => {
		const index = argv.indexOf(flag);
		return index === -1 ? undefined : argv[index + 1];
	};
	const tiny = argv.includes('--tiny');
	const byDefault = SECTION_NAMES.filter((name) => !ONLY_WHEN_NAMED.includes(name));
	const only = (value('--only') ?? byDefault.join(',')).split(',').filter(Boolean);
	for (const name of only) {
		if (!(SECTION_NAMES as readonly string[]).includes(name)) {
			throw new Error(`Unknown section ${name}; known: ${SECTION_NAMES.join(', ')}`);
		}
	}
	const sizeText = value('--size');
	const size = sizeText === undefined ? undefined : Number(sizeText);
	if (size !== undefined && !(Number.isInteger(size) && size >= 10)) {
		throw new Error(`--size needs a whole number of records, 10 or more (got ${sizeText}). ${USAGE}`);
	}
	const runs = value('--runs')
		?.split(',')
		.map((run) => run.trim())
		.filter(Boolean);
	if (runs?.length === 0) throw new Error(`--runs needs one or more run names. ${USAGE}`);
	const given = value('--out');
	const out = given
		? resolve(given)
		: tiny
			? join(mkdtempSync(join(tmpdir(), 'dd-bench-')), 'benchmarks.md')
			: COMMITTED_REPORT;
	return {
		tiny,
		n8n: !tiny || argv.includes('--n8n'),
		out,
		only,
		profile: argv.includes('--profile'),
		...(argv.includes('--targets') ? { targetsOnly: true } : {}),
		...(size === undefined ? {} : { size }),
		...(runs === undefined ? {} : { runs }),
	};
}
