/**
 * Runs operations in child processes of bench/children/run-operation.ts, on the client's cores: each run is one
 * request line on the child's stdin and one `RESULT {json}` line on its stdout.
 *
 * The full run starts a fresh process per run, so that a run's memory figures are one fresh process's own. The tiny
 * run checks that the measurements work, not what they say: its runs share one process, since each process spends
 * seconds of CPU loading n8n-core and compiling the sources before its first run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { ChildRequest, ChildResult } from '../children/run-operation';
import { clientCommand } from './simulator-process';

const CHILD = join(__dirname, '..', 'children', 'run-operation.ts');

/** One child process; `run` sends it one request and waits for its result. */
class OperationProcess {
	private stdout = '';
	private stderr = '';
	private readonly exited: Promise<number | null>;
	private onLine?: () => void;

	private constructor(
		private readonly child: ChildProcess,
		private readonly userFolder: string,
	) {
		child.stdout!.on('data', (chunk: Buffer) => {
			this.stdout += chunk.toString();
			this.onLine?.();
		});
		child.stderr!.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString()).slice(-20_000)));
		// A child that died is reported by `run`; writing to it must not fail the bench first.
		child.stdin!.on('error', () => undefined);
		// 'close', not 'exit': by then the child's last output has been read.
		this.exited = new Promise((resolve) => child.once('close', resolve));
	}

	static start(): OperationProcess {
		const userFolder = mkdtempSync(join(tmpdir(), 'dd-bench-child-'));
		const [command, args] = clientCommand([process.execPath, '-r', 'ts-node/register/transpile-only', CHILD]);
		const child = spawn(command, args, {
			stdio: ['pipe', 'pipe', 'pipe'],
			env: {
				...process.env,
				N8N_USER_FOLDER: userFolder,
				N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
				// DomainData.node.json (the codex file) sits next to DomainData.node.ts: make ts-node load the .ts.
				TS_NODE_PREFER_TS_EXTS: 'true',
			},
		});
		return new OperationProcess(child, userFolder);
	}

	async run(request: ChildRequest): Promise<ChildResult> {
		const line = new Promise<string | undefined>((resolve) => {
			const take = () => {
				const match = /^RESULT (.*)\n/m.exec(this.stdout);
				if (!match) return;
				this.stdout = this.stdout.slice(match.index + match[0].length);
				this.onLine = undefined;
				resolve(match[1]);
			};
			this.onLine = take;
			take();
			void this.exited.then(() => resolve(undefined));
		});
		this.child.stdin!.write(`${JSON.stringify(request)}\n`);
		const result = await line;
		if (result === undefined) {
			throw new Error(`The child run exited with ${await this.exited} and no result.\n${this.stderr.slice(-2000)}`);
		}
		return JSON.parse(result) as ChildResult;
	}

	/** Ends the child's input (it exits after its last run) and removes its user folder. */
	async close(): Promise<void> {
		this.child.stdin!.end();
		await this.exited;
		rmSync(this.userFolder, { recursive: true, force: true });
	}
}

/** The child processes of a bench run: a fresh one per run, or (`shared`) one for all runs; one run at a time. */
export class OperationChildren {
	private shared?: OperationProcess;
	private queue: Promise<unknown> = Promise.resolve();

	constructor(private readonly share: boolean) {}

	/** Runs `request` when the runs asked for before it have ended. */
	run(request: ChildRequest): Promise<ChildResult> {
		const next = this.queue.then(() => this.runNow(request));
		this.queue = next.catch(() => undefined);
		return next;
	}

	private async runNow(request: ChildRequest): Promise<ChildResult> {
		if (this.share) {
			this.shared ??= OperationProcess.start();
			return await this.shared.run(request);
		}
		const child = OperationProcess.start();
		try {
			return await child.run(request);
		} finally {
			await child.close();
		}
	}

	async close(): Promise<void> {
		await this.queue;
		await this.shared?.close();
		this.shared = undefined;
	}
}
