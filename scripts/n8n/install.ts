/**
 * Installs one n8n version into the cache, once, with the Node it needs: `ensureN8n('2.41.1')` returns the
 * installation folder.
 *
 *   npx ts-node --transpile-only scripts/n8n/install.ts [version ...]     (default: every version of the test matrix)
 *
 * - n8n goes into its own folder, `<cacheRoot>/n8n-<version>`, never into the package's node_modules: it is
 *   2.3 GB and its dependency tree must not mix with ours.
 * - The Node: n8n's `engines` decide (see node-runtime.ts). When the machine's Node is too old (n8n 2.10 and
 *   later on Node 20), Node 24 comes from the npm registry into the cache; the folder's .npmrc points npm's
 *   `nodedir` at its headers, its `bin` is first on PATH for the install, and the marker file records it so
 *   that every n8n process of that version (instance.ts) runs on it too.
 * - n8n-nodes-base points `xlsx` at a download URL that cannot be reached, so the folder's package.json
 *   overrides it with the registry's `xlsx@0.18.5`.
 * - That folder has its own .npmrc with `ignore-scripts=false`: our repository's .npmrc (and a user .npmrc,
 *   and the `npm_config_ignore_scripts` that `npm run` exports) turn install scripts off, but sqlite3
 *   compiles from source in one.
 * - Atomic: the install runs in `<cacheRoot>/.n8n-<version>.partial-<pid>`, is verified (the n8n version and
 *   the compiled native modules load with that Node), gets a marker file, and only then is renamed to its
 *   final name. A killed install leaves a partial folder that the next run deletes; it never leaves a half cache.
 * - Some installs build only the native modules n8n needs (`npm install --ignore-scripts`, then
 *   `npm rebuild <module>`): n8n 1.123.81 on Node 20 (it depends on isolated-vm 6.2, whose native build needs
 *   Node 22; n8n 1.x loads it only for its "vm" expression engine, so it runs with
 *   `N8N_EXPRESSION_ENGINE=legacy`, see versionEnv in instance.ts) builds sqlite3 only; an n8n on the
 *   registry Node (2.41.1) builds sqlite3 and isolated-vm, because the install script of
 *   `@confluentinc/kafka-javascript` (n8n's Kafka nodes) downloads zlib, OpenSSL and curl sources from the
 *   internet and fails without it.
 * - A lock folder (`n8n-<version>.lock`, holding the owner's pid) lets several processes (jest's global
 *   set-up, the demo, a benchmark) ask at the same time: one installs, the others wait for it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

import { readCommandLine } from '../commandLine';
import { acquireLock, removeDeadPartials } from './lock';
import { chooseRuntime, runtimeFromMarker, withRuntimePath, type NodeRuntime } from './node-runtime';
import { DEFAULT_N8N_VERSION, cacheRoot, n8nBin, n8nInstallDir } from './paths';
import { N8N_TEST_MATRIX } from './versions';

/** Written last, after verification: its presence means the installation is complete. */
export const INSTALL_MARKER = '.n8n-domain-data-installed.json';

export interface EnsureN8nOptions {
	/** Progress lines (default: console.log). */
	log?: (line: string) => void;
	/** How long to wait for another process's install before giving up (default 40 minutes). */
	lockTimeoutMs?: number;
}

export function isN8nInstalled(version: string): boolean {
	return existsSync(join(n8nInstallDir(version), INSTALL_MARKER));
}

/** The Node an installed n8n version runs on (the one it was installed with; see node-runtime.ts). */
export function n8nRuntime(version: string): NodeRuntime {
	return runtimeFromMarker(join(n8nInstallDir(version), INSTALL_MARKER));
}

/** Installs n8n `version` into the cache unless it is there already; returns the installation folder. */
export async function ensureN8n(version = DEFAULT_N8N_VERSION, options: EnsureN8nOptions = {}): Promise<string> {
	const log = options.log ?? ((line: string) => console.log(line));
	const dir = n8nInstallDir(version);
	if (isN8nInstalled(version)) return dir;

	mkdirSync(cacheRoot(), { recursive: true });
	const release = await acquireLock(`${dir}.lock`, options.lockTimeoutMs ?? 40 * 60_000, log);
	try {
		if (isN8nInstalled(version)) return dir; // another process finished it while we waited
		removeDeadPartials(cacheRoot(), `.n8n-${version}.partial-`);
		const runtime = await chooseRuntime(version, { env: cleanNpmEnv(), log, lockTimeoutMs: options.lockTimeoutMs });
		if (existsSync(dir)) {
			// A folder without the marker: installed by hand or by an older script. Keep it when it verifies.
			if (await verifyInstallation(dir, version, runtime)) {
				writeMarker(dir, version, runtime, 'adopted an existing installation');
				log(`n8n ${version}: adopted the existing installation in ${dir}`);
				return dir;
			}
			log(`n8n ${version}: ${dir} is incomplete; installing again`);
			rmSync(dir, { recursive: true, force: true });
		}
		await installInto(dir, version, runtime, log);
		return dir;
	} finally {
		release();
	}
}

/**
 * Installs several versions at once: as many as the machine has cores, and at least three (the test matrix),
 * because an install mostly waits for the network and the disk; only its native builds (2 to 3 minutes) use
 * a core. The first named starts first.
 */
export async function ensureN8nVersions(versions: string[], options: EnsureN8nOptions = {}): Promise<string[]> {
	const dirs: string[] = new Array(versions.length);
	let next = 0;
	const lanes = Array.from({ length: Math.min(versions.length, Math.max(3, availableParallelism())) }, async () => {
		while (next < versions.length) {
			const index = next++;
			dirs[index] = await ensureN8n(versions[index], options);
		}
	});
	await Promise.all(lanes);
	return dirs;
}

async function installInto(
	dir: string,
	version: string,
	runtime: NodeRuntime,
	log: (line: string) => void,
): Promise<void> {
	const partial = join(cacheRoot(), `.n8n-${version}.partial-${process.pid}`);
	rmSync(partial, { recursive: true, force: true });
	mkdirSync(partial, { recursive: true });
	writeFileSync(
		join(partial, 'package.json'),
		JSON.stringify(
			{
				name: `n8n-${version.replace(/\./g, '-')}-cache`,
				private: true,
				dependencies: { n8n: version },
				overrides: { xlsx: '0.18.5' },
			},
			null,
			2,
		) + '\n',
	);
	// `nodedir`: native modules compile against the headers of the Node that will run them (a user .npmrc
	// may point it elsewhere, e.g. at the system Node's /usr).
	const nodedir = runtime.headersDir ? `nodedir=${runtime.headersDir}\n` : '';
	writeFileSync(
		join(partial, '.npmrc'),
		`ignore-scripts=false\nfund=false\naudit=false\nupdate-notifier=false\n${nodedir}`,
	);

	const logFile = join(partial, 'install.log');
	log(
		`n8n ${version}: installing into ${dir} on Node ${runtime.version} (once; 2.3 to 3 GB, about 4 to 10 minutes; progress in ${logFile})`,
	);
	const started = Date.now();
	const buildOnly = nativeBuildsOnly(version, runtime);
	const fail = (message: string): never => {
		// Keep the log, drop the gigabytes.
		const kept = join(cacheRoot(), `n8n-${version}.failed-install.log`);
		try {
			renameSync(logFile, kept);
		} catch {
			// no log to keep
		}
		rmSync(partial, { recursive: true, force: true });
		throw new Error(`${message}; see ${kept}`);
	};
	const installArgs = [
		'install',
		'--no-audit',
		'--no-fund',
		'--loglevel=warn',
		...(buildOnly ? ['--ignore-scripts'] : []),
	];
	// npm prints nothing for minutes: say now and then that it is still at work.
	const heartbeat = setInterval(() => {
		log(`n8n ${version}: still installing (${Math.round((Date.now() - started) / 60_000)} min so far)`);
	}, 60_000);
	let code: number;
	let built: string[] = [];
	try {
		code = await runLogged('npm', installArgs, partial, logFile, runtime);
		if (code === 0 && buildOnly) {
			// Only the modules this n8n has (isolated-vm is not in every version's tree).
			built = buildOnly.filter((name) => existsSync(join(partial, 'node_modules', name, 'package.json')));
			log(
				`n8n ${version}: packages installed in ${Math.round((Date.now() - started) / 1000)} s; building ${built.join(' and ')}`,
			);
			code = await runLogged('npm', ['rebuild', '--ignore-scripts=false', ...built], partial, logFile, runtime);
		}
	} finally {
		clearInterval(heartbeat);
	}
	if (code !== 0) fail(`npm install n8n@${version} failed with exit code ${code}`);
	if (!(await verifyInstallation(partial, version, runtime))) {
		fail(`n8n ${version} installed but does not load on Node ${runtime.version} (n8n version or a native module)`);
	}
	writeMarker(
		partial,
		version,
		runtime,
		buildOnly ? `installed with --ignore-scripts, then npm rebuild ${built.join(' ')}` : 'installed',
	);
	renameSync(partial, dir);
	log(`n8n ${version}: installed in ${Math.round((Date.now() - started) / 1000)} s`);
}

/**
 * The native modules to build after an install without scripts, or undefined for a plain install (see the
 * note at the top).
 */
function nativeBuildsOnly(version: string, runtime: NodeRuntime): string[] | undefined {
	if (runtime.source === 'registry') return ['sqlite3', 'isolated-vm'];
	const nodeMajor = Number(runtime.version.split('.')[0]);
	return version.startsWith('1.') && nodeMajor < 22 ? ['sqlite3'] : undefined;
}

/** The environment for an npm that must behave as if started in its own folder, not under `npm run`. */
export function cleanNpmEnv(): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (/^npm_(config|package|lifecycle)_/i.test(key)) continue;
		env[key] = value;
	}
	return env;
}

function runLogged(
	command: string,
	args: string[],
	cwd: string,
	logFile: string,
	runtime: NodeRuntime,
): Promise<number> {
	return new Promise((resolvePromise, reject) => {
		writeFileSync(logFile, `$ ${command} ${args.join(' ')}  (Node ${runtime.version})\n`, { flag: 'a' });
		// npm itself and the build scripts it runs (node-gyp) run on the runtime's node: first on PATH.
		const child = spawn(command, args, {
			cwd,
			env: withRuntimePath(runtime, cleanNpmEnv()),
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		const append = (chunk: Buffer) => writeFileSync(logFile, chunk, { flag: 'a' });
		child.stdout.on('data', append);
		child.stderr.on('data', append);
		child.on('error', reject);
		child.on('close', (code) => resolvePromise(code ?? 1));
	});
}

/**
 * The n8n package has the asked version and its compiled native modules (sqlite3; isolated-vm where the
 * install built it) load with the runtime's Node.
 */
async function verifyInstallation(dir: string, version: string, runtime: NodeRuntime): Promise<boolean> {
	try {
		const installed = JSON.parse(readFileSync(join(dir, 'node_modules', 'n8n', 'package.json'), 'utf8')) as {
			version: string;
		};
		if (installed.version !== version || !existsSync(n8nBinIn(dir))) return false;
	} catch {
		return false;
	}
	const native = [
		'sqlite3',
		...(runtime.source === 'registry' && existsSync(join(dir, 'node_modules', 'isolated-vm')) ? ['isolated-vm'] : []),
	];
	const from = JSON.stringify(join(dir, 'node_modules', 'n8n'));
	const script = native
		.map((name) => `require(require.resolve(${JSON.stringify(name)}, { paths: [${from}] }));`)
		.join('\n');
	const code = await new Promise<number>((resolvePromise) => {
		const child = spawn(runtime.execPath, ['-e', script], {
			cwd: dir,
			stdio: 'ignore',
			env: withRuntimePath(runtime, process.env),
		});
		child.on('error', () => resolvePromise(1));
		child.on('close', (exit) => resolvePromise(exit ?? 1));
	});
	return code === 0;
}

function n8nBinIn(dir: string): string {
	return join(dir, 'node_modules', 'n8n', 'bin', 'n8n');
}

function writeMarker(dir: string, version: string, runtime: NodeRuntime, how: string): void {
	writeFileSync(
		join(dir, INSTALL_MARKER),
		JSON.stringify(
			{
				version,
				how,
				node: `v${runtime.version}`,
				runtime: { source: runtime.source, version: runtime.version },
				at: new Date().toISOString(),
			},
			null,
			2,
		) + '\n',
	);
}

const USAGE = 'usage: npm run n8n:install [-- version ...]   (default: every version of the test matrix)';

/** The versions named on the command line (none: every version of the test matrix). */
function versionsToInstall(argv: string[]): string[] {
	const options = { help: { type: 'boolean', short: 'h' } } as const;
	const { positionals } = readCommandLine({ args: argv, options, allowPositionals: true, strict: true }, USAGE);
	const bad = positionals.find((version) => !/^\d+\.\d+\.\d+$/.test(version));
	if (bad !== undefined) throw new Error(`${bad} is no n8n version such as ${DEFAULT_N8N_VERSION}\n${USAGE}`);
	return positionals.length ? positionals : N8N_TEST_MATRIX.map((entry) => entry.version);
}

if (require.main === module) {
	const install = async (): Promise<void> => {
		const versions = versionsToInstall(process.argv.slice(2));
		await ensureN8nVersions(versions);
		for (const version of versions) console.log(`${n8nBin(version)}  (Node ${n8nRuntime(version).version})`);
	};
	install().catch((error: Error) => {
		console.error(error.message);
		process.exit(1);
	});
}
