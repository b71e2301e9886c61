/**
 * `npm run lint` is only worth running if it fails where n8n's verification would: for every shipped source
 * file and for package.json, each rule n8n's scanner (@n8n/scan-community-package, the same rule set as
 * `n8n-node lint` with n8n Cloud support) enables must be enabled by our eslint.config.mjs, at the same or a
 * higher severity and with the same options. Our config may be stricter, never looser.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

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

describe('npm run lint keeps errors in one module and the layers pointing one way', () => {
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

	it('refuses imports of actions/ below it, of transport internals outside transport/, and anything but ./errors in the bottom layer', () => {
		const results = lintPlanted([
			{ filePath: 'nodes/DomainData/transport/planted.ts', code: "export { readLimit } from '../actions/common';\n" },
			{
				filePath: 'nodes/DomainData/helpers/planted.ts',
				code: "import { readLimit } from '../actions/common';\nexport const r = readLimit;\n",
			},
			{
				filePath: 'nodes/DomainData/helpers/planted.ts',
				code: "import { statusError } from '../transport/errors';\nexport const r = statusError;\n",
			},
			{
				filePath: 'nodes/DomainData/actions/domain/planted.ts',
				code: "import { statusError } from '../../transport/errors';\nexport const r = statusError;\n",
			},
			{
				filePath: 'nodes/DomainDataTrigger/planted.ts',
				code: "import { RETRY_TIMING } from '../DomainData/transport/retry';\nexport const r = RETRY_TIMING;\n",
			},
			{
				filePath: 'nodes/DomainData/parameters.ts',
				code: "import { apiRequest } from './transport';\nexport const r = apiRequest;\n",
			},
			{
				filePath: 'nodes/DomainData/errors.ts',
				code: "import { RETRY_TIMING } from './transport/retry';\nexport const r = RETRY_TIMING;\n",
			},
			{
				filePath: 'nodes/DomainData/parameters.ts',
				code: "import { operationError } from './errors';\nexport const r = operationError;\n",
			},
			{
				filePath: 'nodes/DomainData/actions/domain/planted.ts',
				code: "import { apiRequest } from '../../transport';\nexport const r = apiRequest;\n",
			},
		]);
		const restricted = (rules: string[]) => rules.includes('no-restricted-imports');
		expect(results.map(({ rules }) => restricted(rules))).toEqual([
			true,
			true,
			true,
			true,
			true,
			true,
			true,
			false,
			false,
		]);
	}, 120_000);

	it("puts the trigger on DomainData's layers: editor definitions of actions/ only, and DomainData never imports it", () => {
		const planted = (filePath: string, from: string) => ({
			filePath,
			code: `import * as x from '${from}';\nexport const r = x;\n`,
		});
		const trigger = 'nodes/DomainDataTrigger/planted.ts';
		const results = lintPlanted([
			planted(trigger, '../DomainData/actions/dataset/stream.operation'),
			planted(trigger, '../DomainData/actions/dataset/Dataset.resource'),
			planted(trigger, '../DomainData/actions/router'),
			planted(trigger, '../DomainData/actions/perItem'),
			planted(trigger, '../DomainData/actions/dataset/sharedParameters'),
			planted(trigger, '../DomainData/transport/idle'),
			planted('nodes/DomainData/actions/dataset/planted.ts', '../../../DomainDataTrigger/pollState'),
			planted('nodes/DomainData/helpers/planted.ts', '../../DomainDataTrigger/DomainDataTrigger.node'),
			planted('nodes/DomainData/transport/planted.ts', '../../DomainDataTrigger/description'),
			planted(trigger, '../DomainData/actions/common'),
			planted(trigger, '../DomainData/actions/dataset/fieldOptions'),
			planted(trigger, '../DomainData/actions/dataset/output'),
			planted(trigger, '../DomainData/helpers/snapshotReader'),
			planted(trigger, '../DomainData/transport'),
			planted(trigger, './pollState'),
		]);
		const restricted = results.map(({ rules }) => rules.includes('no-restricted-imports'));
		expect(restricted).toEqual([...Array(9).fill(true), ...Array(6).fill(false)]);
	}, 120_000);
});
