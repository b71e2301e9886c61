/**
 * The package under test, exactly as users get it: `npm run build`, `npm pack`, and the tarball unpacked
 * where n8n's community-nodes installer puts packages: `<userFolder>/.n8n/nodes/node_modules/<name>`.
 */
import { execFile } from 'node:child_process';
import {
	cpSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { cleanNpmEnv } from './install';
import { REPO_ROOT } from './paths';

const run = promisify(execFile);

export const PACKAGE_NAME = 'n8n-nodes-domain-data';

/** Node and credential type names as n8n knows them once the package is installed. */
export const NODE_TYPES = {
	domainData: `${PACKAGE_NAME}.domainData`,
	domainDataTrigger: `${PACKAGE_NAME}.domainDataTrigger`,
} as const;
export const CREDENTIAL_TYPE = 'domainDataApi';

export interface PackedPackage {
	/** The .tgz file `npm pack` wrote. */
	tarball: string;
	/** The tarball unpacked (its `package/` folder): copy this into an n8n user folder. */
	dir: string;
	version: string;
	/** The files the tarball holds, as `npm pack --json` lists them. */
	files: string[];
}

export interface PackOptions {
	/** Where the tarball and its unpacked copy go (default: a new temporary folder). */
	outDir?: string;
	/** Skip `npm run build` (the caller built already); 'if-current': skip it when dist/ is newer than the sources. */
	skipBuild?: boolean | 'if-current';
	log?: (line: string) => void;
}

/**
 * Builds the package and packs it. Our .npmrc sets ignore-scripts, so `prepack` would not build: the build
 * runs explicitly first.
 */
export async function buildAndPack(options: PackOptions = {}): Promise<PackedPackage> {
	const log = options.log ?? (() => undefined);
	const outDir = options.outDir ?? mkdtempSync(join(tmpdir(), 'dd-pack-'));
	mkdirSync(outDir, { recursive: true });
	const env = cleanNpmEnv();
	if (options.skipBuild === 'if-current' && isBuildCurrent()) {
		log('dist/ is newer than the sources: packing it without a build');
	} else if (options.skipBuild !== true) {
		log('building the package (npm run build)');
		try {
			await run('npm', ['run', 'build', '--silent'], { cwd: REPO_ROOT, env, maxBuffer: 64 * 1024 * 1024 });
		} catch (error) {
			const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
			throw new Error(`npm run build failed:\n${stdout}${stderr}`.trim());
		}
	}
	log('packing the package (npm pack)');
	const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', outDir], {
		cwd: REPO_ROOT,
		env,
		maxBuffer: 64 * 1024 * 1024,
	});
	const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{
		filename: string;
		version: string;
		files: Array<{ path: string }>;
	}>;
	const tarball = join(outDir, packed.filename);
	const dir = join(outDir, 'unpacked');
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	await run('tar', ['-xzf', tarball, '-C', dir]);
	return { tarball, dir: join(dir, 'package'), version: packed.version, files: packed.files.map((f) => f.path) };
}

/** Newest modification time of the files below a path (0 when it does not exist). */
function newestMtime(path: string): number {
	if (!existsSync(path)) return 0;
	const stats = statSync(path);
	if (!stats.isDirectory()) return stats.mtimeMs;
	let newest = stats.mtimeMs;
	for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
	return newest;
}

/**
 * Whether dist/ was built after the last change to what the build reads (tsc rewrites every output, so
 * the compiled node file tells when the build ran).
 */
export function isBuildCurrent(): boolean {
	const built = newestMtime(join(REPO_ROOT, 'dist', 'nodes', 'DomainData', 'DomainData.node.js'));
	if (built === 0) return false;
	const inputs = [
		'nodes',
		'credentials',
		'package.json',
		'tsconfig.json',
		'tsconfig.build.json',
		'gulpfile.js',
		'index.js',
	];
	return inputs.every((input) => newestMtime(join(REPO_ROOT, input)) < built);
}

/** The folder n8n loads the package from, inside a user folder (`N8N_USER_FOLDER`). */
export function installedPackageDir(userFolder: string): string {
	return join(userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME);
}

/**
 * Copies the unpacked tarball into the user folder the way n8n's community-nodes installer lays it out
 * (`.n8n/nodes/package.json` lists it as a dependency). Replaces an older copy.
 */
export function installPackage(userFolder: string, packed: PackedPackage): string {
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const target = installedPackageDir(userFolder);
	rmSync(target, { recursive: true, force: true });
	mkdirSync(join(nodesDir, 'node_modules'), { recursive: true });
	cpSync(packed.dir, target, { recursive: true });
	const manifest = join(nodesDir, 'package.json');
	const current: { dependencies?: Record<string, string>; [key: string]: unknown } = existsSync(manifest)
		? JSON.parse(readFileSync(manifest, 'utf8'))
		: { name: 'installed-nodes', private: true };
	const next = { ...current, dependencies: { ...(current.dependencies ?? {}), [PACKAGE_NAME]: packed.version } };
	writeFileSync(manifest, JSON.stringify(next, null, 2) + '\n');
	return target;
}
