/**
 * What n8n's verification and a user's n8n see: the tarball `npm pack` makes from a clean build of the
 * sources. It must hold only what users need, load through n8n's own package loader with its codex
 * (categories, search aliases, documentation links) and icons, and pass n8n's scanner
 * (@n8n/scan-community-package) on both of the legs it lints: the compiled tarball and the source tree.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';

import { headingAnchors } from '../../harness/markdown';

const REPO_ROOT = resolve(__dirname, '../../..');
const PACKAGE_NAME = 'n8n-nodes-domain-data';
const SCANNER = join(REPO_ROOT, 'node_modules/@n8n/scan-community-package/scanner/scanner.mjs');
const README_URL = 'https://github.com/domain-data/n8n-nodes-domain-data';

interface ScanResult {
	passed: boolean;
	message?: string;
	details?: string;
}

interface PackedPackage {
	/** The copy of the sources the tarball was built from (what the scanner's source leg lints). */
	sourceDir: string;
	/** The unpacked tarball. */
	dir: string;
	/** Paths in the tarball, relative to its root. */
	files: string[];
	packageJson: Record<string, unknown>;
}

// Not copied: what the build makes, what git ignores, and the local n8n and scratch folders.
const NOT_COPIED = new Set(['node_modules', 'dist', '.git', 'tmp', 'coverage', 'test-output', '.cache']);

function run(command: string, args: string[], cwd: string): string {
	const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 240_000 });
	if (result.status !== 0) {
		throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
	}
	return result.stdout;
}

/**
 * `npm run build` then `npm pack` in a fresh copy of the working tree, so that the tarball holds exactly
 * what a clean build of today's sources makes (no stale files from an earlier dist/) and the build does
 * not race other suites that read dist/. Our .npmrc sets ignore-scripts, so prepack does not build.
 */
function packPackage(): PackedPackage {
	const work = mkdtempSync(join(tmpdir(), 'dd-pack-'));
	const sourceDir = join(work, 'source');
	cpSync(REPO_ROOT, sourceDir, {
		recursive: true,
		filter: (path) => {
			const top = relative(REPO_ROOT, path).split('/')[0];
			return !NOT_COPIED.has(top) && !path.endsWith('.tgz');
		},
	});
	symlinkSync(join(REPO_ROOT, 'node_modules'), join(sourceDir, 'node_modules'), 'dir');
	run('npm', ['run', 'build'], sourceDir);
	const [report] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], sourceDir)) as Array<{
		filename: string;
		files: Array<{ path: string }>;
	}>;
	const dir = join(work, 'package');
	mkdirSync(dir);
	run('tar', ['-xzf', join(work, basename(report.filename)), '-C', dir, '--strip-components=1'], work);
	return {
		sourceDir,
		dir,
		files: report.files.map((file) => file.path).sort(),
		packageJson: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>,
	};
}

/**
 * Jest sets NODE_ENV=test, and eslint-plugin-n8n-nodes-base then treats every file as "Test.node.ts" and as
 * both a regular and a trigger node (its own unit-test mode): a child process must not inherit it.
 */
function withoutJestEnv(): NodeJS.ProcessEnv {
	const env = { ...process.env };
	delete env.NODE_ENV;
	delete env.JEST_WORKER_ID;
	return env;
}

/** Runs the scanner's `analyzePackage` in its own Node process (it is an ES module with its own ESLint). */
function analyzePackage(dir: string, patterns?: 'source' | string[]): ScanResult {
	const script = `
		const scanner = await import(${JSON.stringify(SCANNER)});
		const arg = JSON.parse(process.argv[1]);
		const patterns = arg === 'source' ? scanner.SOURCE_FILE_PATTERNS : (arg ?? undefined);
		const { passed, message, details } = await scanner.analyzePackage(${JSON.stringify(dir)}, patterns);
		process.stdout.write(JSON.stringify({ passed, message, details }));
	`;
	const run = spawnSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(patterns ?? null)], {
		cwd: REPO_ROOT,
		encoding: 'utf8',
		timeout: 120_000,
		env: withoutJestEnv(),
	});
	if (run.status !== 0) throw new Error(`scanner process failed (${run.status}): ${run.stderr}`);
	return JSON.parse(run.stdout) as ScanResult;
}

/**
 * Loads the unpacked tarball with n8n-core's PackageDirectoryLoader (what n8n runs for an installed
 * community package) in a plain Node process, and returns what the editor receives.
 */
function loadWithN8n(packageDir: string) {
	const script = `
		process.env.N8N_USER_FOLDER = process.argv[2];
		const { PackageDirectoryLoader } = require('n8n-core');
		(async () => {
			const loader = new PackageDirectoryLoader(process.argv[1]);
			await loader.loadAll();
			process.stdout.write(JSON.stringify({
				known: loader.known,
				nodes: loader.types.nodes.map((d) => ({ name: d.name, displayName: d.displayName, group: d.group,
					iconUrl: d.iconUrl, codex: d.codex, credentials: d.credentials, usableAsTool: d.usableAsTool })),
				credentials: loader.types.credentials.map((c) => ({ name: c.name, iconUrl: c.iconUrl,
					documentationUrl: c.documentationUrl, supportedNodes: c.supportedNodes })),
			}));
		})().catch((error) => { console.error(error); process.exit(1); });
	`;
	const run = spawnSync(process.execPath, ['-e', script, packageDir, join(packageDir, '..', 'n8n-user')], {
		cwd: REPO_ROOT,
		encoding: 'utf8',
		timeout: 60_000,
		// n8n resolves the peer dependency n8n-workflow from its own installation; here, from ours.
		env: { ...withoutJestEnv(), NODE_PATH: join(REPO_ROOT, 'node_modules'), N8N_LOG_LEVEL: 'error' },
	});
	if (run.status !== 0) throw new Error(`loading the package with n8n-core failed: ${run.stderr}`);
	return JSON.parse(run.stdout) as {
		known: { nodes: Record<string, { className: string; sourcePath: string }>; credentials: Record<string, unknown> };
		nodes: Array<{
			name: string;
			displayName: string;
			group: string[];
			iconUrl?: { light: string; dark: string } | string;
			codex?: {
				categories?: string[];
				alias?: string[];
				resources?: { primaryDocumentation?: Array<{ url: string }>; credentialDocumentation?: Array<{ url: string }> };
			};
			usableAsTool?: boolean;
		}>;
		credentials: Array<{
			name: string;
			iconUrl?: { light: string; dark: string };
			documentationUrl?: string;
			supportedNodes?: string[];
		}>;
	};
}

describe('the packed tarball', () => {
	let packed: PackedPackage;

	beforeAll(() => {
		packed = packPackage();
	}, 300_000);

	it('holds only what users need: the compiled dist, package.json, README, LICENSE and CHANGELOG', () => {
		const files = packed.files;
		const unexpected = files.filter(
			(file) =>
				!['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'index.js'].includes(file) &&
				!file.startsWith('dist/'),
		);
		expect(unexpected).toEqual([]);
		expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'index.js']));

		// Under dist: compiled code, its source maps (n8n's node starter ships them too), icons and codex files.
		const distFiles = files.filter((file) => file.startsWith('dist/'));
		expect(distFiles.filter((file) => !/\.(js|js\.map|svg|png|node\.json)$/.test(file))).toEqual([]);
		// Nothing from the test tree, the simulator, the harness, scripts or benchmarks; no TypeScript sources.
		expect(files.filter((file) => /(^|\/)(test|tests|__tests__|simulator|harness|scripts|bench)\//.test(file))).toEqual(
			[],
		);
		expect(files.filter((file) => /\.ts$|\.tsbuildinfo$|\.test\./.test(file))).toEqual([]);
		// A map only where its compiled file is shipped.
		const orphanMaps = distFiles.filter(
			(file) => file.endsWith('.js.map') && !files.includes(file.slice(0, -'.map'.length)),
		);
		expect(orphanMaps).toEqual([]);
	});

	it('ships every node and credential package.json names, each node with its codex file and both icons', () => {
		const { n8n } = packed.packageJson as { n8n: { nodes: string[]; credentials: string[] } };
		expect(n8n.nodes).toEqual([
			'dist/nodes/DomainData/DomainData.node.js',
			'dist/nodes/DomainDataTrigger/DomainDataTrigger.node.js',
		]);
		expect(n8n.credentials).toEqual(['dist/credentials/DomainDataApi.credentials.js']);
		for (const file of [...n8n.nodes, ...n8n.credentials]) expect(packed.files).toContain(file);
		for (const node of n8n.nodes) expect(packed.files).toContain(node.replace(/\.js$/, '.json'));
		for (const icon of [
			'dist/nodes/DomainData/domainData.svg',
			'dist/nodes/DomainData/domainData.dark.svg',
			'dist/nodes/DomainDataTrigger/domainDataTrigger.svg',
			'dist/nodes/DomainDataTrigger/domainDataTrigger.dark.svg',
		]) {
			expect(packed.files).toContain(icon);
			const svg = readFileSync(join(packed.dir, icon), 'utf8');
			expect(svg).toMatch(/^<svg [^>]*viewBox="0 0 \d+ \d+"/);
			expect(svg).not.toMatch(/<script|<image|href="http|<foreignObject/i);
		}
	});

	it('loads through n8n-core the way n8n loads an installed community package: names, icons, codex', () => {
		const loaded = loadWithN8n(packed.dir);
		expect(Object.keys(loaded.known.nodes).sort()).toEqual(['domainData', 'domainDataTrigger']);
		expect(Object.keys(loaded.known.credentials)).toEqual(['domainDataApi']);

		const node = loaded.nodes.find((n) => n.name === 'domainData');
		const trigger = loaded.nodes.find((n) => n.name === 'domainDataTrigger');
		expect(node).toMatchObject({ displayName: 'Domain Data', usableAsTool: true });
		expect(trigger).toMatchObject({ displayName: 'Domain Data Trigger', group: ['trigger'] });
		expect(node?.iconUrl).toEqual({
			light: `icons/${PACKAGE_NAME}/dist/nodes/DomainData/domainData.svg`,
			dark: `icons/${PACKAGE_NAME}/dist/nodes/DomainData/domainData.dark.svg`,
		});
		expect(trigger?.iconUrl).toEqual({
			light: `icons/${PACKAGE_NAME}/dist/nodes/DomainDataTrigger/domainDataTrigger.svg`,
			dark: `icons/${PACKAGE_NAME}/dist/nodes/DomainDataTrigger/domainDataTrigger.dark.svg`,
		});

		// The codex is what the editor's node panel searches (alias) and links to (documentation).
		for (const described of [node, trigger]) {
			expect(described?.codex?.categories).toEqual(expect.arrayContaining(['Sales', 'Data & Storage']));
			expect(described?.codex?.resources?.credentialDocumentation).toEqual([{ url: `${README_URL}#credentials` }]);
		}
		expect(node?.codex?.alias).toEqual(expect.arrayContaining(['website', 'enrichment', 'domain', 'URL']));
		expect(node?.codex?.resources?.primaryDocumentation).toEqual([{ url: `${README_URL}#operations` }]);
		expect(trigger?.codex?.resources?.primaryDocumentation).toEqual([{ url: `${README_URL}#domain-data-trigger` }]);

		const credential = loaded.credentials.find((c) => c.name === 'domainDataApi');
		expect(credential?.documentationUrl).toBe(`${README_URL}#credentials`);
		expect(credential?.supportedNodes?.sort()).toEqual(['domainData', 'domainDataTrigger']);
		expect(credential?.iconUrl).toEqual(node?.iconUrl);
	});

	it('links only to README sections that exist', () => {
		const readme = readFileSync(join(packed.dir, 'README.md'), 'utf8');
		const anchors = headingAnchors(readme);
		const codexFiles = ['DomainData/DomainData.node.json', 'DomainDataTrigger/DomainDataTrigger.node.json'];
		const urls = codexFiles.flatMap((file) => {
			const codex = JSON.parse(readFileSync(join(packed.dir, 'dist/nodes', file), 'utf8')) as {
				resources: Record<string, Array<{ url: string }>>;
			};
			return Object.values(codex.resources).flatMap((links) => links.map((link) => link.url));
		});
		urls.push(`${README_URL}#credentials`);
		const missing = urls.map((url) => url.split('#')[1]).filter((anchor) => anchor && !anchors.has(anchor));
		expect(missing).toEqual([]);
	});

	it('passes n8n scanner: the tarball with its default file patterns and with the compiled-code leg', () => {
		const all = analyzePackage(packed.dir);
		expect(all.details ?? '').toBe('');
		expect(all).toMatchObject({ passed: true });

		const compiled = analyzePackage(packed.dir, ['**/*.js', 'package.json']);
		expect(compiled.details ?? '').toBe('');
		expect(compiled).toMatchObject({ passed: true });
	}, 180_000);

	it("passes n8n scanner's source leg: the full rule set on the TypeScript sources and package.json", () => {
		expect(existsSync(join(packed.sourceDir, 'nodes/DomainData/DomainData.node.ts'))).toBe(true);
		const source = analyzePackage(packed.sourceDir, 'source');
		expect(source.details ?? '').toBe('');
		expect(source).toMatchObject({ passed: true });
	}, 180_000);
});
