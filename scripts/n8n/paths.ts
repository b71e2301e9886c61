import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

import { NODE20_N8N_VERSION } from './versions';

/**
 * The n8n that in-process tools default to (benchmarks, `createInstance` outside the e2e matrix): the newest
 * that runs on Node 20, like the n8n-core and n8n-workflow the package develops against. The test matrix and
 * the demo's default are in versions.ts.
 */
export const DEFAULT_N8N_VERSION = NODE20_N8N_VERSION;

/** The repository root (this file is scripts/n8n/paths.ts). */
export const REPO_ROOT = resolve(__dirname, '..', '..');

/**
 * Where n8n installations (and the demo's n8n data) are kept between runs: `$N8N_DOMAIN_DATA_CACHE`, else
 * `$XDG_CACHE_HOME/n8n-domain-data`, else `~/.cache/n8n-domain-data`. Outside the repository on purpose:
 * one installation is 2.3 GB and must survive `git clean`.
 */
export function cacheRoot(): string {
	if (process.env.N8N_DOMAIN_DATA_CACHE) return resolve(process.env.N8N_DOMAIN_DATA_CACHE);
	const base = process.env.XDG_CACHE_HOME ? resolve(process.env.XDG_CACHE_HOME) : join(homedir(), '.cache');
	return join(base, 'n8n-domain-data');
}

/** The folder one n8n version is installed in: `<cacheRoot>/n8n-<version>`. */
export function n8nInstallDir(version: string): string {
	return join(cacheRoot(), `n8n-${version}`);
}

/** The n8n CLI script of an installation (run it with the version's Node: `n8nRuntime(version)` in install.ts). */
export function n8nBin(version: string): string {
	return join(n8nInstallDir(version), 'node_modules', 'n8n', 'bin', 'n8n');
}
