/**
 * Finds the newest n8n that installs from the npm registry, by trying: for the newest releases first, npm
 * resolves the whole dependency tree (`npm install --package-lock-only --ignore-scripts`, nothing is
 * downloaded or built) in a temporary folder; the first that resolves is the answer. On 2026-11-22 the
 * `latest` tag, 2.41.3, failed with ETARGET (`@n8n/agents@0.26.2` is not on the registry) and 2.41.1
 * resolved: NEWEST_N8N_VERSION in versions.ts.
 *
 *   npm run n8n:newest [-- --major 2] [--tries 5]      (one to two minutes per version tried)
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { readCommandLine } from '../commandLine';

import { cleanNpmEnv } from './install';
import { compareVersions, NEWEST_N8N_VERSION } from './versions';

const run = promisify(execFile);

/** Release versions of n8n on the registry (no pre-releases), newest first. */
async function releases(major: number): Promise<string[]> {
	const { stdout } = await run('npm', ['view', 'n8n', 'versions', '--json'], {
		env: cleanNpmEnv(),
		maxBuffer: 64 * 1024 * 1024,
	});
	return (JSON.parse(stdout) as string[])
		.filter((version) => /^\d+\.\d+\.\d+$/.test(version) && version.startsWith(`${major}.`))
		.sort((a, b) => compareVersions(b, a));
}

/** Whether npm can resolve n8n `version` with its whole tree; the reason when not. */
async function resolves(version: string): Promise<{ ok: boolean; reason?: string }> {
	const dir = mkdtempSync(join(tmpdir(), 'dd-n8n-probe-'));
	try {
		writeFileSync(
			join(dir, 'package.json'),
			JSON.stringify({ name: 'probe', private: true, dependencies: { n8n: version }, overrides: { xlsx: '0.18.5' } }),
		);
		await run('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], {
			cwd: dir,
			env: cleanNpmEnv(),
			maxBuffer: 64 * 1024 * 1024,
		});
		return { ok: true };
	} catch (error) {
		const text = `${(error as { stderr?: string }).stderr ?? ''}`;
		const lines = text.split('\n');
		// npm's most telling line first ("No matching version found for @n8n/agents@0.26.2."), then its code.
		const reason =
			lines.find((line) => /No matching version|404 Not Found|Could not resolve/i.test(line)) ??
			lines.find((line) => /E404|ETARGET|ERESOLVE/i.test(line)) ??
			lines.filter(Boolean).pop();
		return { ok: false, reason: reason?.replace(/^npm error\s+(notarget\s+)?/, '') };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

const USAGE = 'usage: npm run n8n:newest [-- --major 2] [--tries 5]';

const FLAGS = { help: { type: 'boolean', short: 'h' }, major: { type: 'string' }, tries: { type: 'string' } } as const;

/** The major version to look in and how many of its newest releases to try. */
function parseArguments(argv: string[]): { major: number; tries: number } {
	const { values } = readCommandLine({ args: argv, options: FLAGS, strict: true }, USAGE);
	const whole = (flag: 'major' | 'tries', fallback: number, least: number): number => {
		const value = values[flag] === undefined ? fallback : Number(values[flag]);
		if (!Number.isInteger(value) || value < least) {
			throw new Error(`--${flag} needs a whole number of ${least} or more, not ${values[flag]}\n${USAGE}`);
		}
		return value;
	};
	return { major: whole('major', 2, 0), tries: whole('tries', 5, 1) };
}

async function main(): Promise<void> {
	const { major, tries } = parseArguments(process.argv.slice(2));
	const candidates = (await releases(major)).slice(0, tries);
	for (const version of candidates) {
		process.stdout.write(`n8n ${version}: `);
		const result = await resolves(version);
		if (result.ok) {
			console.log('installs');
			console.log(
				version === NEWEST_N8N_VERSION
					? `The newest installable n8n is ${version}, as scripts/n8n/matrix.json says.`
					: `The newest installable n8n is ${version}; scripts/n8n/matrix.json says ${NEWEST_N8N_VERSION}.`,
			);
			return;
		}
		console.log(`does not install (${result.reason})`);
	}
	throw new Error(`none of ${candidates.join(', ')} installs`);
}

main().catch((error: Error) => {
	console.error(error.message);
	process.exit(1);
});
