/**
 * Runs the simulator until SIGINT/SIGTERM:
 *   npx ts-node --transpile-only test/simulator/cli.ts --port 8787 --domains 100000 [--seed N] [--snapshots N] [--latency MS] [--link-bytes-per-second N] [--host H]
 * (npm run simulator -- --port 8787 --domains 100000). Prints the base URL and the keys.
 */
import { readCommandLine } from '../../scripts/commandLine';

import { KEYS, PLANS, startSimulator, type SimulatorOptions } from './index';

const USAGE =
	'usage: cli.ts [--port N] [--host H] [--domains N] [--seed N] [--snapshots N] [--latency MS] [--link-bytes-per-second N]';

const FLAGS = {
	help: { type: 'boolean', short: 'h' },
	port: { type: 'string' },
	host: { type: 'string' },
	domains: { type: 'string' },
	seed: { type: 'string' },
	snapshots: { type: 'string' },
	latency: { type: 'string' },
	'link-bytes-per-second': { type: 'string' },
} as const;

function parseArguments(argv: string[]): SimulatorOptions {
	const { values: flags } = readCommandLine({ args: argv, options: FLAGS, strict: true }, USAGE);
	/** A flag's whole number of 0 or more; undefined when the flag is not given. */
	const whole = (flag: keyof typeof FLAGS): number | undefined => {
		const value = flags[flag];
		if (typeof value !== 'string') return undefined;
		const number = Number(value);
		if (!Number.isInteger(number) || number < 0) {
			throw new Error(`--${flag} must be a non-negative integer, got "${value}"`);
		}
		return number;
	};
	// startSimulator takes an option left undefined as not given.
	return {
		port: whole('port') ?? 8787,
		host: flags.host,
		domains: whole('domains'),
		seed: whole('seed'),
		snapshots: whole('snapshots'),
		latencyMs: whole('latency'),
		linkBytesPerSecond: whole('link-bytes-per-second'),
	};
}

async function main(): Promise<void> {
	const options = parseArguments(process.argv.slice(2));
	const sim = await startSimulator(options);
	console.log(`Domain Data Service simulator listening on ${sim.url}`);
	console.log(`API base URL: ${sim.url}/json/api/v1   (control: ${sim.url}/__sim/...)`);
	console.log(
		`domains: ${sim.index.size}   seed: ${sim.index.seed}   datasets: ${
			sim
				.datasets()
				.map((d) => d.label)
				.join(', ') || '(none)'
		}`,
	);
	console.log(`keys: pro=${KEYS.pro} (pageSize <= ${PLANS.pro.maxPageSize}, historical)`);
	console.log(`      basic=${KEYS.basic} (pageSize <= ${PLANS.basic.maxPageSize}, no historical)`);
	console.log(`      exhausted=${KEYS.exhausted} (pro, 0 credits: 402)`);
	console.log(`pid: ${process.pid}`);
	const stop = (signal: string) => {
		console.log(`${signal}: stopping`);
		sim.close().then(() => process.exit(0));
	};
	process.once('SIGINT', () => stop('SIGINT'));
	process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	process.exit(1);
});
