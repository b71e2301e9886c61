/**
 * Runs the simulator until SIGINT/SIGTERM:
 *   npx ts-node --transpile-only test/simulator/cli.ts --port 8787 --domains 100000 [--seed N] [--snapshots N] [--latency MS] [--link-bytes-per-second N] [--host H]
 * (npm run simulator -- --port 8787 --domains 100000). Prints the base URL and the keys.
 */
import { KEYS, PLANS, startSimulator, type SimulatorOptions } from './index';

const USAGE =
	'usage: cli.ts [--port N] [--host H] [--domains N] [--seed N] [--snapshots N] [--latency MS] [--link-bytes-per-second N]';

function parseArguments(argv: string[]): SimulatorOptions {
	const options: SimulatorOptions = { port: 8787 };
	for (let i = 0; i < argv.length; i++) {
		const flag = argv[i];
		if (flag === '--help' || flag === '-h') {
			console.log(USAGE);
			process.exit(0);
		}
		const value = argv[++i];
		if (value === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
		const number = Number(value);
		const needNumber = () => {
			if (!Number.isInteger(number) || number < 0)
				throw new Error(`${flag} must be a non-negative integer, got "${value}"`);
			return number;
		};
		switch (flag) {
			case '--port':
				options.port = needNumber();
				break;
			case '--host':
				options.host = value;
				break;
			case '--domains':
				options.domains = needNumber();
				break;
			case '--seed':
				options.seed = needNumber();
				break;
			case '--snapshots':
				options.snapshots = needNumber();
				break;
			case '--latency':
				options.latencyMs = needNumber();
				break;
			case '--link-bytes-per-second':
				options.linkBytesPerSecond = needNumber();
				break;
			default:
				throw new Error(`unknown option ${flag}\n${USAGE}`);
		}
	}
	return options;
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
