/** The command lines of the project's tools (the demo, the n8n scripts, the simulator), read one way. */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * `config`'s command line as node:util's parseArgs reads it (pass `strict: true`). A bad flag fails in parseArgs's
 * words (the flag and what is wrong with it: unknown, a value missing or given to a switch) followed by `usage`;
 * `--help` (an option `help` in `config`) prints the usage and exits.
 */
export function readCommandLine<T extends ParseArgsConfig>(config: T, usage: string): ReturnType<typeof parseArgs<T>> {
	let parsed: ReturnType<typeof parseArgs<T>>;
	try {
		parsed = parseArgs(config);
	} catch (error) {
		throw new Error(`${(error as Error).message}\n${usage}`);
	}
	if ((parsed.values as Record<string, unknown>).help === true) {
		console.log(usage);
		process.exit(0);
	}
	return parsed;
}
