/**
 * Installs one n8n version into the cache, once: `ensureN8n('2.8.4')` returns the installation folder.
 *
 *   npx ts-node --transpile-only scripts/n8n/install.ts [version ...]     (default: 2.8.4)
 *
 * - n8n goes into its own folder, `<cacheRoot>/n8n-<version>`, never into the package's node_modules: it is
 *   2.3 GB and its dependency tree must not mix with ours.
 * - n8n-nodes-base points `xlsx` at a download URL that cannot be reached, so the folder's package.json
 *   overrides it with the registry's `xlsx@0.18.5`.
 * - That folder has its own .npmrc with `ignore-scripts=false`: our repository's .npmrc (and the
 *   `npm_config_ignore_scripts` that `npm run` exports) turns install scripts off, but sqlite3 compiles
 *   from source in one.
 * - Atomic: the install runs in `<cacheRoot>/.n8n-<version>.partial-<pid>`, is verified (the n8n version and
 *   the compiled sqlite3 binding load), gets a marker file, and only then is renamed to its final name. A
 *   killed install leaves a partial folder that the next run deletes; it never leaves a half cache.
 * - n8n 1.x on Node 20: n8n 1.123.81 depends on isolated-vm 6.2 (through @n8n/expression-runtime), whose
 *   native build needs Node 22, so `npm install n8n@1.123.81` fails on Node 20 although n8n's engines allow
 *   it. n8n 1.x loads isolated-vm only for its "vm" expression engine, so there the install runs with
 *   `--ignore-scripts` and then builds just sqlite3 (`npm rebuild sqlite3`), and the processes run with
 *   `N8N_EXPRESSION_ENGINE=legacy` (see versionEnv in instance.ts). On Node 22 both steps are skipped.
 * - A lock folder (`n8n-<version>.lock`, holding the owner's pid) lets several processes (jest's global
 *   set-up, the demo, a benchmark) ask at the same time: one installs, the others wait for it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { DEFAULT_N8N_VERSION, cacheRoot, n8nBin, n8nInstallDir } from './paths';

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

/** Installs n8n `version` into the cache unless it is there already; returns the installation folder. */
export async function ensureN8n(version = DEFAULT_N8N_VERSION, options: EnsureN8nOptions = {}): Promise<string> {
	const log = options.log ?? ((line: string) => console.log(line));
	const dir = n8nInstallDir(version);
	if (isN8nInstalled(version)) return dir;

	mkdirSync(cacheRoot(), { recursive: true });
	const release = await acquireLock(`${dir}.lock`, options.lockTimeoutMs ?? 40 * 60_000, log);
	try {
		if (isN8nInstalled(version)) return dir; // another process finished it while we waited
		removeDeadPartials(version);
		if (existsSync(dir)) {
			// A folder without the marker: installed by hand or by an older script. Keep it when it verifies.
			if (await verifyInstallation(dir, version)) {
				writeMarker(dir, version, 'adopted an existing installation');
				log(`n8n ${version}: adopted the existing installation in ${dir}`);
				return dir;
			}
			log(`n8n ${version}: ${dir} is incomplete; installing again`);
			rmSync(dir, { recursive: true, force: true });
		}
		await installInto(dir, version, log);
		return dir;
	} finally {
		release();
	}
}

async function installInto(dir: string, version: string, log: (line: string) => void): Promise<void> {
	const partial = join(cacheRoot(), `.n8n-${version}.partial-${process.pid}`);
	rmSync(partial, { recursive: true, force: true });
	mkdirSync(partial, { recursive: true });
	writeFileSync(
		join(partial, 'package.json'),
		JSON.stringify({
			name: `n8n-${version.replace(/\./g, '-')}-cache`,
			private: true,
			dependencies: { n8n: version },
			overrides: { xlsx: '0.18.5' },
		}, null, 2) + '\n',
	);
	writeFileSync(join(partial, '.npmrc'), 'ignore-scripts=false\nfund=false\naudit=false\nupdate-notifier=false\n');

	const logFile = join(partial, 'install.log');
	log(`n8n ${version}: installing into ${dir} (once; 2.3 GB, about 4 to 8 minutes; progress in ${logFile})`);
	const started = Date.now();
	const buildOnly = nativeBuildsOnly(version);
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
	const installArgs = ['install', '--no-audit', '--no-fund', '--loglevel=warn', ...(buildOnly ? ['--ignore-scripts'] : [])];
	// npm prints nothing for minutes: say now and then that it is still at work.
	const heartbeat = setInterval(() => {
		log(`n8n ${version}: still installing (${Math.round((Date.now() - started) / 60_000)} min so far)`);
	}, 60_000);
	let code: number;
	try {
		code = await runLogged('npm', installArgs, partial, logFile);
		if (code === 0 && buildOnly) code = await runLogged('npm', ['rebuild', ...buildOnly], partial, logFile);
	} finally {
		clearInterval(heartbeat);
	}
	if (code !== 0) fail(`npm install n8n@${version} failed with exit code ${code}`);
	if (!(await verifyInstallation(partial, version))) {
		fail(`n8n ${version} installed but does not load (n8n version or sqlite3 binding)`);
	}
	writeMarker(partial, version, buildOnly ? `installed with --ignore-scripts, then npm rebuild ${buildOnly.join(' ')}` : 'installed');
	renameSync(partial, dir);
	log(`n8n ${version}: installed in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** For n8n 1.x on Node < 22: the only native module n8n needs built (see the note at the top). */
function nativeBuildsOnly(version: string): string[] | undefined {
	const nodeMajor = Number(process.versions.node.split('.')[0]);
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

function runLogged(command: string, args: string[], cwd: string, logFile: string): Promise<number> {
	return new Promise((resolvePromise, reject) => {
		writeFileSync(logFile, `$ ${command} ${args.join(' ')}\n`, { flag: 'a' });
		const child = spawn(command, args, { cwd, env: cleanNpmEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
		const append = (chunk: Buffer) => writeFileSync(logFile, chunk, { flag: 'a' });
		child.stdout.on('data', append);
		child.stderr.on('data', append);
		child.on('error', reject);
		child.on('close', (code) => resolvePromise(code ?? 1));
	});
}

/** The n8n package has the asked version and the compiled sqlite3 binding loads with this Node. */
async function verifyInstallation(dir: string, version: string): Promise<boolean> {
	try {
		const installed = JSON.parse(readFileSync(join(dir, 'node_modules', 'n8n', 'package.json'), 'utf8')) as {
			version: string;
		};
		if (installed.version !== version || !existsSync(n8nBinIn(dir))) return false;
	} catch {
		return false;
	}
	const script = `require(require.resolve('sqlite3', { paths: [${JSON.stringify(join(dir, 'node_modules', 'n8n'))}] }));`;
	const code = await new Promise<number>((resolvePromise) => {
		const child = spawn(process.execPath, ['-e', script], { cwd: dir, stdio: 'ignore' });
		child.on('error', () => resolvePromise(1));
		child.on('close', (exit) => resolvePromise(exit ?? 1));
	});
	return code === 0;
}

function n8nBinIn(dir: string): string {
	return join(dir, 'node_modules', 'n8n', 'bin', 'n8n');
}

function writeMarker(dir: string, version: string, how: string): void {
	writeFileSync(
		join(dir, INSTALL_MARKER),
		JSON.stringify({ version, how, node: process.version, at: new Date().toISOString() }, null, 2) + '\n',
	);
}

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/** Partial folders of installs whose process is gone (killed mid-install) only take disk space. */
function removeDeadPartials(version: string): void {
	const prefix = `.n8n-${version}.partial-`;
	for (const name of readdirSync(cacheRoot())) {
		if (!name.startsWith(prefix)) continue;
		const pid = Number(name.slice(prefix.length));
		if (!Number.isInteger(pid) || !isAlive(pid)) rmSync(join(cacheRoot(), name), { recursive: true, force: true });
	}
}

async function acquireLock(lockDir: string, timeoutMs: number, log: (line: string) => void): Promise<() => void> {
	const deadline = Date.now() + timeoutMs;
	let announced = false;
	for (;;) {
		try {
			mkdirSync(lockDir);
			writeFileSync(join(lockDir, 'pid'), String(process.pid));
			return () => rmSync(lockDir, { recursive: true, force: true });
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
		}
		let owner = NaN;
		try {
			owner = Number(readFileSync(join(lockDir, 'pid'), 'utf8'));
		} catch {
			// the owner has created the folder but not yet written its pid: wait a moment
		}
		if (Number.isInteger(owner) && owner > 0 && !isAlive(owner)) {
			rmSync(lockDir, { recursive: true, force: true });
			continue;
		}
		if (Date.now() > deadline) throw new Error(`Timed out waiting for ${lockDir} (held by pid ${owner})`);
		if (!announced) {
			log(`waiting for another process (pid ${owner}) that is installing n8n (${lockDir})`);
			announced = true;
		}
		await new Promise((r) => setTimeout(r, 2000));
	}
}

if (require.main === module) {
	const versions = process.argv.slice(2);
	Promise.all((versions.length ? versions : [DEFAULT_N8N_VERSION]).map((version) => ensureN8n(version)))
		.then((dirs) => dirs.forEach((dir, i) => console.log(`${n8nBin(versions[i] ?? DEFAULT_N8N_VERSION)}  (${dir})`)))
		.catch((error: Error) => {
			console.error(error.message);
			process.exit(1);
		});
}
