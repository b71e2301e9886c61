/**
 * One n8n installation plus one user folder: CLI commands (import, execute) and long-running processes
 * (`n8n start`, `n8n worker`) that all share the folder's database and encryption key.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { n8nEnv } from './env';
import { n8nRuntime } from './install';
import { withRuntimePath, type NodeRuntime } from './node-runtime';
import { installPackage, type PackedPackage } from './package';
import { DEFAULT_N8N_VERSION, n8nBin } from './paths';
import { freePort } from './ports';
import { N8nRestClient } from './rest';
import { parseBatchSnapshot, parseExecuteOutput, type CommandResult, type ExecutionResult } from './run-data';

export interface N8nInstanceOptions {
	/** An installed n8n version (see ensureN8n); default DEFAULT_N8N_VERSION (2.8.4). */
	version?: string;
	/** Default: a new folder under the OS temp folder, removed by `dispose()`. */
	userFolder?: string;
	/** HTTP port of `n8n start`; default: a free port. */
	port?: number;
	/** Default: a fixed test key (the same folder must always get the same key). */
	encryptionKey?: string;
	/** More environment for every process (queue mode, PostgreSQL): see queueModeEnv. */
	env?: Record<string, string | undefined>;
	/** Unpacked tarball to install into the user folder (see buildAndPack). */
	package?: PackedPackage;
}

/** A credential as `n8n import:credentials` takes it: plain data, encrypted on import. */
export interface CredentialImport {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}

/** A workflow as `n8n import:workflow` takes it (the editor's export format). */
export interface WorkflowImport {
	id: string;
	name: string;
	nodes: Array<Record<string, unknown>>;
	connections: Record<string, unknown>;
	active?: boolean;
	settings?: Record<string, unknown>;
	pinData?: Record<string, unknown>;
	[key: string]: unknown;
}

const DEFAULT_ENCRYPTION_KEY = 'n8n-nodes-domain-data-test-key';

/** What n8n prints when a port it should listen on is in use (its task broker's: "port N is already in use"). */
const PORT_TAKEN = /EADDRINUSE|address already in use|port \d+ is already in use/i;

const liveProcesses = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * A free port other than `taken`: the instance's HTTP port is chosen free and released until n8n binds it, so the
 * operating system may offer it again (seen: n8n 2.41.1's task broker refused the port its HTTP server had).
 */
async function freePortBut(taken: number): Promise<number> {
	for (let attempt = 0; attempt < 10; attempt++) {
		const port = await freePort();
		if (port !== taken) return port;
	}
	throw new Error(`The operating system offered port ${taken} ten times in a row`);
}

/** A jest worker or the demo that dies must not leave n8n servers behind. */
function installExitHook(): void {
	if (exitHookInstalled) return;
	exitHookInstalled = true;
	process.on('exit', () => {
		for (const child of liveProcesses) killGroup(child, 'SIGKILL');
	});
}

/** Signals the child's process group (n8n and its task runners), also after n8n itself has exited. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		// the group is gone
	}
}

/**
 * n8n 1.123 evaluates expressions in isolated-vm by default (its "vm" expression engine), and isolated-vm 6
 * needs Node 22: on an older Node, n8n 1.x runs with the "legacy" engine (the one n8n 2.8 uses). See
 * install.ts for why isolated-vm is not even built there.
 */
function versionEnv(version: string, runtime: NodeRuntime): Record<string, string> {
	const nodeMajor = Number(runtime.version.split('.')[0]);
	return version.startsWith('1.') && nodeMajor < 22 ? { N8N_EXPRESSION_ENGINE: 'legacy' } : {};
}

/**
 * How long `n8n start` or `n8n worker` may take to be ready before it counts as failed: a bound, not an expectation
 * (4 to 20 s on an idle machine, over 120 s at load 30 on 2 cores); a process that exits ends the wait at once.
 */
const START_TIMEOUT_MS = 300_000;

export class N8nInstance {
	readonly version: string;
	readonly userFolder: string;
	readonly port: number;
	readonly encryptionKey: string;
	readonly url: string;
	/**
	 * The one folder workflows may read and write files in (`N8N_RESTRICT_FILE_ACCESS_TO`; n8n 2.x allows
	 * only `~/.n8n-files` by default): `<userFolder>/files`.
	 */
	readonly filesDir: string;
	/**
	 * The Node every process of this instance runs on: the one its n8n version was installed with (Node 24
	 * from the registry for n8n 2.36 and later on an older machine Node; see node-runtime.ts).
	 */
	get runtime(): NodeRuntime {
		return n8nRuntime(this.version);
	}

	private readonly extraEnv: Record<string, string | undefined>;
	private readonly ownsFolder: boolean;
	private readonly processes: N8nProcess[] = [];

	private constructor(
		options: Required<Pick<N8nInstanceOptions, 'version' | 'userFolder' | 'port' | 'encryptionKey'>> & {
			env: Record<string, string | undefined>;
			ownsFolder: boolean;
		},
	) {
		this.version = options.version;
		this.userFolder = options.userFolder;
		this.port = options.port;
		this.encryptionKey = options.encryptionKey;
		this.extraEnv = options.env;
		this.ownsFolder = options.ownsFolder;
		this.url = `http://127.0.0.1:${this.port}`;
		this.filesDir = join(this.userFolder, 'files');
		mkdirSync(this.filesDir, { recursive: true });
	}

	static async create(options: N8nInstanceOptions = {}): Promise<N8nInstance> {
		const ownsFolder = options.userFolder === undefined;
		const userFolder = options.userFolder ?? mkdtempSync(join(tmpdir(), 'dd-n8n-'));
		mkdirSync(userFolder, { recursive: true });
		const instance = new N8nInstance({
			version: options.version ?? DEFAULT_N8N_VERSION,
			userFolder,
			port: options.port ?? (await freePort()),
			encryptionKey: options.encryptionKey ?? DEFAULT_ENCRYPTION_KEY,
			env: options.env ?? {},
			ownsFolder,
		});
		if (options.package) installPackage(userFolder, options.package);
		return instance;
	}

	/** The environment of a process of this instance; each process gets its own broker port. */
	async env(extra: Record<string, string | undefined> = {}): Promise<NodeJS.ProcessEnv> {
		const env = n8nEnv({
			userFolder: this.userFolder,
			encryptionKey: this.encryptionKey,
			port: this.port,
			brokerPort: await freePortBut(this.port),
			extra: {
				...versionEnv(this.version, this.runtime),
				N8N_RESTRICT_FILE_ACCESS_TO: this.filesDir,
				...this.extraEnv,
				...extra,
			},
		});
		// The runtime's `node` first on PATH: n8n starts its task runners and other helpers through it.
		return withRuntimePath(this.runtime, env);
	}

	/** Runs an n8n CLI command to its end (`n8n <args>`), collecting its output. */
	async command(
		args: string[],
		options: { timeoutMs?: number; env?: Record<string, string> } = {},
	): Promise<CommandResult> {
		const env = await this.env(options.env);
		const started = Date.now();
		return await new Promise((resolvePromise, reject) => {
			const child = spawn(this.runtime.execPath, [n8nBin(this.version), ...args], {
				cwd: this.userFolder,
				env,
				stdio: ['ignore', 'pipe', 'pipe'],
				detached: true,
			});
			installExitHook();
			liveProcesses.add(child);
			const out: Buffer[] = [];
			const err: Buffer[] = [];
			child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
			child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
			let timedOut = false;
			const timer = setTimeout(() => {
				timedOut = true;
				killGroup(child, 'SIGKILL');
			}, options.timeoutMs ?? 180_000);
			child.on('error', reject);
			child.on('close', (code, signal) => {
				clearTimeout(timer);
				liveProcesses.delete(child);
				resolvePromise({
					code: code ?? (signal ? 128 : 1),
					signal: signal ?? undefined,
					timedOut,
					stdout: Buffer.concat(out).toString('utf8'),
					stderr: Buffer.concat(err).toString('utf8') + (signal ? `\n(killed by ${signal})` : ''),
					durationMs: Date.now() - started,
				});
			});
		});
	}

	/** A command that must succeed: throws with its output otherwise. */
	async mustRun(args: string[], options: { timeoutMs?: number } = {}): Promise<CommandResult> {
		const result = await this.command(args, options);
		if (result.code !== 0) {
			throw new Error(`n8n ${args.join(' ')} exited with ${result.code}\n${tail(result.stdout + result.stderr)}`);
		}
		return result;
	}

	/** `n8n import:credentials` (the data is encrypted with this instance's key). */
	async importCredentials(credentials: CredentialImport[]): Promise<void> {
		const file = join(this.userFolder, `credentials-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
		writeFileSync(file, JSON.stringify(credentials, null, 2));
		try {
			await this.mustRun(['import:credentials', `--input=${file}`]);
		} finally {
			rmSync(file, { force: true });
		}
	}

	/** `n8n import:workflow --separate` in one process for any number of workflows (ids are kept). */
	async importWorkflows(workflows: WorkflowImport[]): Promise<void> {
		const dir = mkdtempSync(join(this.userFolder, 'import-'));
		try {
			for (const workflow of workflows) {
				writeFileSync(join(dir, `${workflow.id}.json`), JSON.stringify(workflow, null, 2));
			}
			await this.mustRun(['import:workflow', '--separate', `--input=${dir}`]);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}

	/** `n8n execute --id=<id> --rawOutput`: the run data of one imported workflow, also when a node failed. */
	async execute(workflowId: string, options: { timeoutMs?: number } = {}): Promise<ExecutionResult> {
		const result = await this.command(['execute', `--id=${workflowId}`, '--rawOutput'], options);
		return parseExecuteOutput(result);
	}

	/**
	 * `n8n execute-batch` for several workflows in one process (one cold start instead of one per workflow).
	 * Run data comes back for workflows that succeeded; a failed one has only n8n's one-line error (use
	 * `execute` for the full error).
	 */
	async executeBatch(
		workflowIds: string[],
		options: { concurrency?: number; timeoutMs?: number } = {},
	): Promise<Map<string, ExecutionResult>> {
		const dir = mkdtempSync(join(this.userFolder, 'batch-'));
		const snapshots = join(dir, 'snapshots');
		mkdirSync(snapshots);
		const output = join(dir, 'summary.json');
		try {
			const result = await this.command(
				[
					'execute-batch',
					`--ids=${workflowIds.join(',')}`,
					`--concurrency=${options.concurrency ?? 4}`,
					'--retries=0',
					`--snapshot=${snapshots}`,
					`--output=${output}`,
				],
				{ timeoutMs: options.timeoutMs ?? 300_000 },
			);
			return parseBatchSnapshot(result, output, snapshots, workflowIds);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}

	/**
	 * Starts `n8n start` (the editor and REST API on 127.0.0.1:port) and waits until REST answers. Tries
	 * once more when a port was taken in the moment between choosing it and n8n binding it.
	 */
	async start(options: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<N8nProcess> {
		for (let attempt = 1; ; attempt++) {
			const server = await this.spawnProcess('main', ['start'], options.env);
			try {
				await new N8nRestClient(this.url).waitUntilReady({
					timeoutMs: options.timeoutMs ?? START_TIMEOUT_MS,
					failIf: () => (server.exited ? `n8n start exited (${server.exitCode})\n${tail(server.output())}` : undefined),
				});
				return server;
			} catch (error) {
				await server.stop();
				if (attempt < 2 && PORT_TAKEN.test(server.output())) continue;
				throw error;
			}
		}
	}

	/** Starts `n8n worker` (queue mode) and waits until it says it is ready for jobs. */
	async startWorker(
		options: { env?: Record<string, string>; timeoutMs?: number; attempt?: number } = {},
	): Promise<N8nProcess> {
		const worker = await this.spawnProcess(`worker-${this.processes.length}`, ['worker', '--concurrency=5'], {
			QUEUE_HEALTH_CHECK_ACTIVE: 'false',
			...options.env,
		});
		try {
			await worker.waitForOutput(/n8n worker is now ready/i, options.timeoutMs ?? START_TIMEOUT_MS);
		} catch (error) {
			await worker.stop();
			const attempt = options.attempt ?? 1;
			if (attempt < 2 && PORT_TAKEN.test(worker.output()))
				return await this.startWorker({ ...options, attempt: attempt + 1 });
			throw error;
		}
		return worker;
	}

	private async spawnProcess(role: string, args: string[], env: Record<string, string> = {}): Promise<N8nProcess> {
		const processEnv = await this.env(env);
		const child = spawn(this.runtime.execPath, [n8nBin(this.version), ...args], {
			cwd: this.userFolder,
			env: processEnv,
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true,
		});
		installExitHook();
		liveProcesses.add(child);
		const logFile = join(this.userFolder, `n8n-${role}.log`);
		const n8nProcess = new N8nProcess(role, child, createWriteStream(logFile, { flags: 'a' }), logFile);
		this.processes.push(n8nProcess);
		return n8nProcess;
	}

	/** Stops every process this instance started (workers first) and removes a temporary user folder. */
	async dispose(options: { keepFolder?: boolean } = {}): Promise<void> {
		const ordered = [...this.processes].reverse();
		for (const running of ordered) await running.stop();
		this.processes.length = 0;
		if (this.ownsFolder && !options.keepFolder && !process.env.N8N_E2E_KEEP) {
			rmSync(this.userFolder, { recursive: true, force: true });
		}
	}
}

/** A running `n8n start` or `n8n worker`; its output goes to `<userFolder>/n8n-<role>.log` and to `output()`. */
export class N8nProcess {
	exited = false;
	exitCode: number | null = null;
	private buffer = '';
	private readonly listeners = new Set<(text: string) => void>();
	private readonly closed: Promise<void>;

	constructor(
		readonly role: string,
		readonly child: ChildProcess,
		private readonly log: WriteStream,
		readonly logFile: string,
	) {
		const onData = (chunk: Buffer) => {
			const text = chunk.toString('utf8');
			this.log.write(chunk);
			this.buffer += text;
			if (this.buffer.length > 4_000_000) this.buffer = this.buffer.slice(-2_000_000);
			for (const listener of this.listeners) listener(text);
		};
		child.stdout?.on('data', onData);
		child.stderr?.on('data', onData);
		this.closed = new Promise((resolvePromise) => {
			child.on('close', (code) => {
				this.exited = true;
				this.exitCode = code;
				liveProcesses.delete(child);
				this.log.end();
				resolvePromise();
			});
		});
	}

	get pid(): number | undefined {
		return this.child.pid;
	}

	/** Everything the process printed so far (the last 2-4 MB). */
	output(): string {
		return this.buffer;
	}

	/** Resolves when the output (from the start) matches; rejects on timeout or exit. */
	waitForOutput(pattern: RegExp, timeoutMs: number): Promise<void> {
		return new Promise((resolvePromise, reject) => {
			if (pattern.test(this.buffer)) return resolvePromise();
			const timer = setTimeout(() => {
				cleanup();
				reject(new Error(`n8n ${this.role}: no ${pattern} within ${timeoutMs} ms\n${tail(this.buffer)}`));
			}, timeoutMs);
			const listener = () => {
				if (pattern.test(this.buffer)) {
					cleanup();
					resolvePromise();
				}
			};
			const onClose = () => {
				cleanup();
				reject(new Error(`n8n ${this.role} exited (${this.exitCode}) before ${pattern}\n${tail(this.buffer)}`));
			};
			const cleanup = () => {
				clearTimeout(timer);
				this.listeners.delete(listener);
				this.child.off('close', onClose);
			};
			this.listeners.add(listener);
			this.child.once('close', onClose);
		});
	}

	/** SIGTERM (n8n shuts down gracefully: finishes executions, stops its task runner), SIGKILL after a grace time. */
	async stop(graceMs = 20_000): Promise<void> {
		if (this.exited) return;
		killGroup(this.child, 'SIGTERM');
		const timer = setTimeout(() => killGroup(this.child, 'SIGKILL'), graceMs);
		await this.closed;
		clearTimeout(timer);
		// Task runners of the group that outlived their parent.
		killGroup(this.child, 'SIGKILL');
	}
}

export function tail(text: string, lines = 40): string {
	return text.split('\n').slice(-lines).join('\n');
}
