import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The n8n the package is developed and tested against (the newest that runs on Node 20). */
export const DEFAULT_N8N_VERSION = '2.8.4';

/** The newest n8n 1.x: the package is smoke-tested on it too. */
export const N8N_1X_VERSION = '1.123.81';

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

/** The n8n CLI script of an installation (run it with `process.execPath`, so the same Node runs n8n). */
export function n8nBin(version: string): string {
	return join(n8nInstallDir(version), 'node_modules', 'n8n', 'bin', 'n8n');
}
