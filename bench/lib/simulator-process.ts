/**
 * The simulator in a child process, so that it never shares the event loop or the CPU time slices of the
 * client being measured. On Linux with `taskset`, the simulator is pinned to the last core and the client
 * (this process, and the children it starts for memory runs) to the others: one core each on a 2-core box.
 * Control goes through the simulator's own /__sim endpoints (log, faults, snapshots).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';

import { request } from 'undici';

import type { Faults, RequestLogEntry } from '../../test/simulator';

const CLI = join(__dirname, '..', '..', 'test', 'simulator', 'cli.ts');

export interface CorePlan {
	/** Cores (taskset list) for the simulator, undefined when pinning is not possible. */
	simulator?: string;
	/** Cores for the measured client. */
	client?: string;
	description: string;
}

let corePlan: CorePlan | undefined;

/** Decides once which cores the simulator and the client get, and pins this process to the client's. */
export function pinCores(): CorePlan {
	if (corePlan) return corePlan;
	const count = cpus().length;
	const hasTaskset = process.platform === 'linux' && spawnSync('taskset', ['-V']).status === 0;
	if (!hasTaskset || count < 2) {
		corePlan = { description: `not pinned (${hasTaskset ? `${count} core` : 'no taskset'})` };
		return corePlan;
	}
	const simulator = String(count - 1);
	const client = count === 2 ? '0' : `0-${count - 2}`;
	// -a: every thread of this process (V8's GC and compiler threads too), not only the main one.
	spawnSync('taskset', ['-a', '-p', '-c', client, String(process.pid)]);
	corePlan = {
		simulator,
		client,
		description: `simulator on core ${simulator}, client on core(s) ${client} (taskset)`,
	};
	return corePlan;
}

/** The command prefix that starts a process on the client's cores. */
export function clientCommand(argv: string[]): [string, string[]] {
	const plan = pinCores();
	return plan.client ? ['taskset', ['-c', plan.client, ...argv]] : [argv[0], argv.slice(1)];
}

export interface SimulatorProcessOptions {
	domains: number;
	latencyMs?: number;
	snapshots?: number;
}

export class SimulatorProcess {
	/** Whether a section holds this simulator (between `start` and `close`). */
	private held = true;

	private constructor(
		readonly url: string,
		readonly child: ChildProcess,
		/** Where `close` gives a kept simulator back (see Simulators); without it, `close` ends the process. */
		private readonly keep?: (sim: SimulatorProcess) => void,
	) {}

	static async start(
		options: SimulatorProcessOptions,
		keep?: (sim: SimulatorProcess) => void,
	): Promise<SimulatorProcess> {
		const plan = pinCores();
		const argv = [
			process.execPath,
			'-r',
			'ts-node/register/transpile-only',
			CLI,
			'--port',
			'0',
			'--domains',
			String(options.domains),
			'--latency',
			String(options.latencyMs ?? 0),
			...(options.snapshots === undefined ? [] : ['--snapshots', String(options.snapshots)]),
		];
		const [command, args] = plan.simulator ? ['taskset', ['-c', plan.simulator, ...argv]] : [argv[0], argv.slice(1)];
		const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
		const url = await new Promise<string>((resolve, reject) => {
			let output = '';
			const collect = (chunk: Buffer) => {
				output += chunk.toString();
				const match = /listening on (http:\/\/\S+)/.exec(output);
				if (match) resolve(match[1]);
			};
			child.stdout!.on('data', collect);
			child.stderr!.on('data', collect);
			child.once('exit', (code) => reject(new Error(`The simulator exited early (code ${code}): ${output}`)));
		});
		child.stdout!.resume();
		child.stderr!.resume();
		return new SimulatorProcess(url, child, keep);
	}

	/** A kept simulator handed to a section again. */
	hold(): this {
		this.held = true;
		return this;
	}

	get pid(): number {
		return this.child.pid as number;
	}

	private async control<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
		const response = await request(`${this.url}/__sim${path}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.body.text();
		if (response.statusCode >= 300) throw new Error(`/__sim${path}: ${response.statusCode} ${text}`);
		return JSON.parse(text) as T;
	}

	async calls(endpoint?: string): Promise<RequestLogEntry[]> {
		const query = endpoint ? `?endpoint=${encodeURIComponent(endpoint)}` : '';
		return (await this.control<{ entries: RequestLogEntry[] }>('GET', `/log${query}`)).entries;
	}

	async clearLog(): Promise<void> {
		await this.control('DELETE', '/log');
	}

	async setFaults(faults: Partial<Faults>): Promise<void> {
		await this.control('POST', '/faults', faults);
	}

	async addSnapshot(label?: string): Promise<{ label: string; value: string }> {
		return await this.control('POST', '/snapshots', label ? { label } : {});
	}

	async reset(): Promise<void> {
		await this.control('POST', '/reset');
	}

	/** The section is done with the simulator: a kept one goes back, reset to its start state; another one ends. */
	async close(): Promise<void> {
		if (!this.keep) return await this.end();
		if (!this.held) return;
		this.held = false;
		await this.reset();
		this.keep(this);
	}

	async end(): Promise<void> {
		if (this.child.exitCode !== null || this.child.signalCode !== null) return;
		const exited = new Promise((resolve) => this.child.once('exit', resolve));
		this.child.kill('SIGTERM');
		await exited;
	}
}

/**
 * The simulators of a bench run. The full run starts a fresh one for each section. The tiny run keeps one when a
 * section closes it, reset to its start state (snapshots, log, faults with the latency it started with, credits),
 * and hands it to the next section that asks for the same options: each start costs about a second of CPU.
 */
export class Simulators {
	private readonly kept = new Map<string, SimulatorProcess[]>();
	private readonly started: SimulatorProcess[] = [];

	constructor(private readonly reuse: boolean) {}

	async start(options: SimulatorProcessOptions): Promise<SimulatorProcess> {
		if (!this.reuse) return await SimulatorProcess.start(options);
		const key = JSON.stringify([options.domains, options.latencyMs ?? 0, options.snapshots ?? null]);
		const free = this.kept.get(key)?.pop();
		if (free) return free.hold();
		const sim = await SimulatorProcess.start(options, (closed) =>
			this.kept.set(key, [...(this.kept.get(key) ?? []), closed]),
		);
		this.started.push(sim);
		return sim;
	}

	/** Ends every simulator this run kept. */
	async close(): Promise<void> {
		await Promise.all(this.started.map((sim) => sim.end()));
	}
}
