/**
 * `npm run lint` is only worth running if it fails where n8n's verification would: for every shipped source
 * file and for package.json, each rule n8n's scanner (@n8n/scan-community-package, the same rule set as
 * `n8n-node lint` with n8n Cloud support) enables must be enabled by our eslint.config.mjs, at the same or a
 * higher severity and with the same options. Our config may be stricter, never looser.
 *
 * It also runs knip (knip.jsonc: dead exports of shipped code, unused files and dependencies) and
 * dependency-cruiser (.dependency-cruiser.cjs: the layers of the shipped code, no import cycle in nodes/ and
 * scripts/). Both are proven here on small planted projects in a temporary folder, with the repository's own
 * configuration and the arguments of package.json's scripts, so that a rule that stops biting fails a test.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const REPO_ROOT = resolve(__dirname, '../../..');

interface Weakening {
	file: string;
	rule: string;
	scanner: unknown;
	ours: unknown;
}

/** Compares both effective configurations in a plain Node process (ESLint's API and the scanner are ES modules). */
function compareConfigs(): { files: string[]; weaker: Weakening[]; rules: number } {
	const script = `
		const { ESLint } = await import('eslint');
		const { default: glob } = await import('fast-glob');
		const scanner = await import('./node_modules/@n8n/scan-community-package/scanner/scanner.mjs');
		const ours = new ESLint({ cwd: process.cwd() });
		const theirs = new ESLint({ cwd: process.cwd(), overrideConfigFile: true, overrideConfig: await scanner.buildScanConfig() });
		const severity = (entry) => {
			const level = Array.isArray(entry) ? entry[0] : entry;
			return level === 'error' ? 2 : level === 'warn' ? 1 : level === 'off' || level === undefined ? 0 : level;
		};
		const files = ['package.json', ...glob.sync(['nodes/**/*.ts', 'credentials/**/*.ts']).sort()];
		const weaker = [];
		let rules = 0;
		for (const file of files) {
			const oursRules = (await ours.calculateConfigForFile(file))?.rules ?? {};
			const theirRules = (await theirs.calculateConfigForFile(file))?.rules ?? {};
			for (const [rule, entry] of Object.entries(theirRules)) {
				if (severity(entry) === 0) continue;
				// no-console means nothing in package.json, where the scanner applies it too.
				if (file === 'package.json' && rule === 'no-console') continue;
				rules++;
				const mine = oursRules[rule];
				const sameOptions = JSON.stringify((mine ?? []).slice(1)) === JSON.stringify(entry.slice(1));
				if (severity(mine) < severity(entry) || !sameOptions) weaker.push({ file, rule, scanner: entry, ours: mine ?? 'off' });
			}
		}
		process.stdout.write(JSON.stringify({ files, weaker, rules }));
	`;
	return runEslintScript(script, 'comparing the lint configurations') as {
		files: string[];
		weaker: Weakening[];
		rules: number;
	};
}

/** Runs an ES-module script against ESLint's API in a plain Node process in the repository; returns its JSON output. */
function runEslintScript(script: string, what: string): unknown {
	const env = { ...process.env };
	// Jest's NODE_ENV=test puts eslint-plugin-n8n-nodes-base into its own unit-test mode.
	delete env.NODE_ENV;
	const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
		cwd: REPO_ROOT,
		encoding: 'utf8',
		timeout: 120_000,
		env,
	});
	if (run.status !== 0) throw new Error(`${what} failed: ${run.stderr}`);
	return JSON.parse(run.stdout);
}

describe('npm run lint applies what n8n verification applies', () => {
	it("enables every rule of n8n's scanner on package.json and every shipped source file, as strictly", () => {
		const { files, weaker, rules } = compareConfigs();
		expect(files).toEqual(
			expect.arrayContaining([
				'package.json',
				'credentials/DomainDataApi.credentials.ts',
				'nodes/DomainData/DomainData.node.ts',
				'nodes/DomainDataTrigger/DomainDataTrigger.node.ts',
			]),
		);
		// The n8n Cloud set alone has more than 40 rules per file; a comparison of nothing proves nothing.
		expect(rules).toBeGreaterThan(40 * files.length);
		expect(weaker).toEqual([]);
	}, 120_000);
});

/** What our own rules (eslint.config.mjs) report for planted code at a given path, by rule. */
function lintPlanted(probes: Array<{ filePath: string; code: string }>): Array<{ filePath: string; rules: string[] }> {
	const script = `
		const { ESLint } = await import('eslint');
		const ours = new ESLint({ cwd: process.cwd() });
		const probes = ${JSON.stringify(probes)};
		const out = [];
		for (const { filePath, code } of probes) {
			const [result] = await ours.lintText(code, { filePath });
			out.push({ filePath, rules: result.messages.map((m) => m.ruleId ?? m.message) });
		}
		process.stdout.write(JSON.stringify(out));
	`;
	return runEslintScript(script, 'linting planted code') as Array<{ filePath: string; rules: string[] }>;
}

/** The files where no-restricted-syntax (the error-constructor rule) is off. */
function filesWithoutErrorRule(): string[] {
	const script = `
		const { ESLint } = await import('eslint');
		const { default: glob } = await import('fast-glob');
		const ours = new ESLint({ cwd: process.cwd() });
		const exempt = [];
		for (const file of glob.sync(['nodes/**/*.ts', 'credentials/**/*.ts']).sort()) {
			const rule = (await ours.calculateConfigForFile(file))?.rules?.['no-restricted-syntax'];
			if (!rule || rule[0] === 0 || rule[0] === 'off') exempt.push(file);
		}
		process.stdout.write(JSON.stringify(exempt));
	`;
	return runEslintScript(script, 'reading the error rule per file') as string[];
}

const CONSTRUCTS_ERRORS = [
	"import { NodeApiError, NodeOperationError } from 'n8n-workflow';",
	"import type { INode, JsonObject } from 'n8n-workflow';",
	"export const operation = (node: INode) => new NodeOperationError(node, 'x');",
	'export const api = (node: INode) => new NodeApiError(node, {} as JsonObject);',
	'',
].join('\n');

describe('npm run lint keeps the construction of n8n errors in one module', () => {
	it('refuses new NodeApiError / NodeOperationError in shipped code outside nodes/DomainData/errors.ts', () => {
		const results = lintPlanted([
			{ filePath: 'nodes/DomainData/actions/domain/planted.ts', code: CONSTRUCTS_ERRORS },
			{ filePath: 'nodes/DomainData/transport/planted.ts', code: CONSTRUCTS_ERRORS },
			{ filePath: 'nodes/DomainDataTrigger/planted.ts', code: CONSTRUCTS_ERRORS },
			{ filePath: 'credentials/Planted.credentials.ts', code: CONSTRUCTS_ERRORS },
			{ filePath: 'nodes/DomainData/errors.ts', code: CONSTRUCTS_ERRORS },
		]);
		const count = (rules: string[]) => rules.filter((rule) => rule === 'no-restricted-syntax').length;
		expect(results.map(({ filePath, rules }) => [filePath, count(rules)])).toEqual([
			['nodes/DomainData/actions/domain/planted.ts', 2],
			['nodes/DomainData/transport/planted.ts', 2],
			['nodes/DomainDataTrigger/planted.ts', 2],
			['credentials/Planted.credentials.ts', 2],
			['nodes/DomainData/errors.ts', 0],
		]);
	}, 120_000);

	it('exempts only the errors module', () => {
		expect(filesWithoutErrorRule()).toEqual(['nodes/DomainData/errors.ts']);
	}, 120_000);
});

/** A temporary project with the given files (path → text); removed after `use`. */
function withProject<T>(files: Record<string, string>, use: (root: string) => T): T {
	const root = mkdtempSync(join(tmpdir(), 'dd-lint-'));
	try {
		for (const [path, text] of Object.entries(files)) {
			mkdirSync(dirname(join(root, path)), { recursive: true });
			writeFileSync(join(root, path), text);
		}
		return use(root);
	} finally {
		rmSync(root, { recursive: true, force: true });
	}
}

function packageScripts(): Record<string, string> {
	return (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
		.scripts;
}

/** The arguments package.json's script `name` gives to `command` (`depcruise nodes ...` → `['nodes', ...]`). */
function scriptArguments(name: string, command: string): string[] {
	const [head, ...rest] = packageScripts()[name].split(' ');
	expect(head).toBe(command);
	return rest;
}

/** Runs a tool's command-line entry in `cwd`; returns its standard output. */
function runTool(bin: string, args: string[], cwd: string): string {
	const run = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules', bin), ...args], {
		cwd,
		encoding: 'utf8',
		timeout: 60_000,
	});
	if (run.error) throw run.error;
	return run.stdout;
}

const stub = (name: string) => `export const ${name} = 1;\n`;
const importing = (...from: string[]) =>
	from.map((path, i) => `import * as m${i} from '${path}';\n`).join('') +
	`export const planted = [${from.map((_, i) => `m${i}`).join(', ')}];\n`;

describe('npm run lint runs knip and dependency-cruiser', () => {
	it('runs both after eslint and Prettier', () => {
		expect(packageScripts().lint).toMatch(/prettier --check \. && npm run lint:unused && npm run lint:layers$/);
	});

	it('dependency-cruiser refuses imports against the layers, and import cycles in nodes/ and scripts/', () => {
		const trigger = 'nodes/DomainDataTrigger/planted.ts';
		const files: Record<string, string> = {
			'tsconfig.json': '{}',
			'credentials/Planted.credentials.ts': stub('credentials'),
			'nodes/DomainData/errors.ts': `import { NodeApiError } from 'n8n-workflow';\n${importing('./transport/retry')}`,
			'nodes/DomainData/parameters.ts': importing('./errors', './transport'),
			'nodes/DomainData/transport/index.ts': importing('./retry', './idle'),
			'nodes/DomainData/transport/retry.ts': stub('retry'),
			'nodes/DomainData/transport/idle.ts': stub('idle'),
			// A re-export is an import too.
			'nodes/DomainData/transport/planted.ts':
				"export * from '../actions/common';\nexport * from '../../DomainDataTrigger/description';\n",
			'nodes/DomainData/helpers/snapshotReader.ts': stub('reader'),
			'nodes/DomainData/helpers/planted.ts': importing(
				'../actions/common',
				'../transport/retry',
				'../transport',
				'../../DomainDataTrigger/DomainDataTrigger.node',
			),
			'nodes/DomainData/actions/common.ts': stub('common'),
			'nodes/DomainData/actions/router.ts': stub('router'),
			'nodes/DomainData/actions/perItem.ts': stub('perItem'),
			'nodes/DomainData/actions/dataset/output.ts': stub('output'),
			'nodes/DomainData/actions/dataset/stream.operation.ts': stub('stream'),
			'nodes/DomainData/actions/dataset/Dataset.resource.ts': stub('resource'),
			'nodes/DomainData/actions/domain/planted.ts': importing(
				'../../transport/retry',
				'../../transport',
				'../../../DomainDataTrigger/pollState',
			),
			'nodes/DomainDataTrigger/DomainDataTrigger.node.ts': stub('node'),
			'nodes/DomainDataTrigger/description.ts': stub('description'),
			'nodes/DomainDataTrigger/pollState.ts': stub('pollState'),
			[trigger]: importing(
				'../DomainData/actions/router',
				'../DomainData/actions/perItem',
				'../DomainData/actions/dataset/stream.operation',
				'../DomainData/actions/dataset/Dataset.resource',
				'../DomainData/transport/idle',
				'../DomainData/actions/common',
				'../DomainData/actions/dataset/output',
				'../DomainData/helpers/snapshotReader',
				'../DomainData/transport',
				'./pollState',
			),
			// A cycle in nodes/ (through a type-only import) and one in scripts/.
			'nodes/DomainData/helpers/cycleA.ts': "import { b } from './cycleB';\nexport const a = () => b;\n",
			'nodes/DomainData/helpers/cycleB.ts':
				"import type { a } from './cycleA';\nexport const b = (x?: typeof a) => x;\n",
			'scripts/cycleA.ts': "import { b } from './cycleB';\nexport const a = () => b;\n",
			'scripts/cycleB.ts': "import { a } from './cycleA';\nexport const b = () => a;\n",
			// Tests may reach past the transport's index.
			'test/planted.test.ts': importing('../nodes/DomainData/transport/retry'),
		};
		const args = scriptArguments('lint:layers', 'depcruise');
		const violations = withProject(files, (root) => {
			// n8n-workflow resolves from the repository's node_modules, as in the repository.
			symlinkSync(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
			const config = join(REPO_ROOT, '.dependency-cruiser.cjs');
			const output = runTool(
				'dependency-cruiser/bin/dependency-cruise.mjs',
				['--config', config, '--output-type', 'json', ...args],
				root,
			);
			const result = JSON.parse(output) as {
				summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> };
			};
			return result.summary.violations.map(({ rule, from, to }) => `${rule.name}: ${from} → ${to}`).sort();
		});
		expect(violations).toEqual(
			[
				'bottom-layer: nodes/DomainData/parameters.ts → nodes/DomainData/transport/index.ts',
				'bottom-layer: nodes/DomainData/errors.ts → nodes/DomainData/transport/retry.ts',
				'transport-through-index: nodes/DomainData/errors.ts → nodes/DomainData/transport/retry.ts',
				'actions-above-helpers-and-transport: nodes/DomainData/transport/planted.ts → nodes/DomainData/actions/common.ts',
				'domain-data-without-trigger: nodes/DomainData/transport/planted.ts → nodes/DomainDataTrigger/description.ts',
				'actions-above-helpers-and-transport: nodes/DomainData/helpers/planted.ts → nodes/DomainData/actions/common.ts',
				'transport-through-index: nodes/DomainData/helpers/planted.ts → nodes/DomainData/transport/retry.ts',
				'domain-data-without-trigger: nodes/DomainData/helpers/planted.ts → nodes/DomainDataTrigger/DomainDataTrigger.node.ts',
				'transport-through-index: nodes/DomainData/actions/domain/planted.ts → nodes/DomainData/transport/retry.ts',
				'domain-data-without-trigger: nodes/DomainData/actions/domain/planted.ts → nodes/DomainDataTrigger/pollState.ts',
				`trigger-shares-editor-definitions-only: ${trigger} → nodes/DomainData/actions/router.ts`,
				`trigger-shares-editor-definitions-only: ${trigger} → nodes/DomainData/actions/perItem.ts`,
				`trigger-shares-editor-definitions-only: ${trigger} → nodes/DomainData/actions/dataset/stream.operation.ts`,
				`trigger-shares-editor-definitions-only: ${trigger} → nodes/DomainData/actions/dataset/Dataset.resource.ts`,
				`transport-through-index: ${trigger} → nodes/DomainData/transport/idle.ts`,
				'no-circular: nodes/DomainData/helpers/cycleA.ts → nodes/DomainData/helpers/cycleB.ts',
				'no-circular: scripts/cycleA.ts → scripts/cycleB.ts',
			].sort(),
		);
	}, 120_000);

	it('knip refuses an export of shipped code that nothing imports, and a file nothing reaches', () => {
		const files: Record<string, string> = {
			// jest makes knip take test files as entries, as in the repository.
			'package.json': JSON.stringify({ name: 'planted', private: true, devDependencies: { jest: '29.7.0' } }),
			'nodes/X/X.node.ts': "import { b } from './b';\nexport class X {\n\tb = b;\n}\n",
			'nodes/X/a.ts': [
				'export const used = 1;',
				'export const testOnly = 2;',
				'export interface Unused {\n\ta: number;\n}',
				'export type ViaIndex = 3;',
				'export const unusedThing = 4;',
				'',
			].join('\n'),
			'nodes/X/index.ts': "export { type ViaIndex } from './a';\n",
			'nodes/X/b.ts':
				"import { used } from './a';\nimport type { ViaIndex } from '.';\nexport const b: ViaIndex = used as 3;\n",
			'nodes/X/orphan.ts': stub('orphan'),
			// An export that only a test imports is allowed, and the tooling's exports are not checked.
			'test/a.test.ts':
				"import { testOnly } from '../nodes/X/a';\nimport { tool } from '../scripts/tool';\nvoid [testOnly, tool];\n",
			'scripts/tool.ts': 'export const tool = 1;\nexport const unusedTool = 2;\n',
		};
		const args = scriptArguments('lint:unused', 'knip');
		const issues = withProject(files, (root) => {
			const output = runTool(
				'knip/bin/knip.js',
				[...args, '--config', join(REPO_ROOT, 'knip.jsonc'), '--no-config-hints', '--reporter', 'json'],
				root,
			);
			type Named = Array<{ name: string }>;
			const result = JSON.parse(output) as {
				issues: Array<{ file: string; files: Named; exports: Named; types: Named }>;
			};
			return result.issues.flatMap(({ file, files, exports, types }) => [
				...files.map(() => `file ${file}`),
				...exports.map(({ name }) => `export ${file} ${name}`),
				...types.map(({ name }) => `type ${file} ${name}`),
			]);
		});
		expect(issues.sort()).toEqual(
			['file nodes/X/orphan.ts', 'export nodes/X/a.ts unusedThing', 'type nodes/X/a.ts Unused'].sort(),
		);
	}, 120_000);
});
