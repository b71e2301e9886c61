/** Command-line arguments of bench/run.ts. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

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

const OPTIONS = {
	tiny: { type: 'boolean' },
	n8n: { type: 'boolean' },
	profile: { type: 'boolean' },
	targets: { type: 'boolean' },
	out: { type: 'string' },
	only: { type: 'string' },
	size: { type: 'string' },
	runs: { type: 'string' },
} as const;

/** The flags of `argv`; a bad one fails in the bench's words (unknown argument, needs a value), with the usage. */
function readFlags(argv: string[]) {
	try {
		return parseArgs({ args: argv, options: OPTIONS, strict: true }).values;
	} catch (error) {
		const { code, message } = error as NodeJS.ErrnoException;
		// parseArgs quotes the argument first: "Unknown option '--fast'", "Option '--out <value>' argument missing".
		const argument = /'([^' ]+)/.exec(message)?.[1];
		if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
			throw new Error(`Unknown argument ${argument}. ${USAGE}`);
		}
		if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
			const what = message.includes('does not take an argument') ? 'takes no value' : 'needs a value';
			throw new Error(`${argument} ${what}. ${USAGE}`);
		}
		throw error;
	}
}

export function parseArguments(argv: string[]): Arguments {
	const values = readFlags(argv);
	const tiny = values.tiny === true;
	const byDefault = SECTION_NAMES.filter((name) => !ONLY_WHEN_NAMED.includes(name));
	const only = (values.only ?? byDefault.join(',')).split(',').filter(Boolean);
	for (const name of only) {
		if (!(SECTION_NAMES as readonly string[]).includes(name)) {
			throw new Error(`Unknown section ${name}; known: ${SECTION_NAMES.join(', ')}`);
		}
	}
	const sizeText = values.size;
	const size = sizeText === undefined ? undefined : Number(sizeText);
	if (size !== undefined && !(Number.isInteger(size) && size >= 10)) {
		throw new Error(`--size needs a whole number of records, 10 or more (got ${sizeText}). ${USAGE}`);
	}
	const runs = values.runs
		?.split(',')
		.map((run) => run.trim())
		.filter(Boolean);
	if (runs?.length === 0) throw new Error(`--runs needs one or more run names. ${USAGE}`);
	const given = values.out;
	const out = given
		? resolve(given)
		: tiny
			? join(mkdtempSync(join(tmpdir(), 'dd-bench-')), 'benchmarks.md')
			: COMMITTED_REPORT;
	return {
		tiny,
		n8n: !tiny || values.n8n === true,
		out,
		only,
		profile: values.profile === true,
		...(values.targets ? { targetsOnly: true } : {}),
		...(size === undefined ? {} : { size }),
		...(runs === undefined ? {} : { runs }),
	};
}
