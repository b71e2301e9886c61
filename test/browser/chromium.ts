/**
 * The browser for the editor tests: Debian's Chromium (`apt-get install chromium`, no browser download of
 * its own), driven by playwright-core. A fresh machine installs it here; CI runs as root with apt, so there
 * the test never skips.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
	// Docker gives containers (CI runs in one) a 64 MB /dev/shm, too small for the editor: use /tmp instead.
	'--disable-dev-shm-usage',
];

export type ChromiumAvailability = { ok: true } | { ok: false; reason: string };

function hasCommand(command: string): boolean {
	return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/**
 * Installs Chromium with apt when it is missing. Only a machine without apt (or without the rights to use
 * it) is a reason to skip; a failing install is an error.
 */
export function ensureChromium(log: (line: string) => void = () => undefined): ChromiumAvailability {
	if (existsSync(CHROMIUM)) return { ok: true };
	if (!hasCommand('apt-get')) return { ok: false, reason: `${CHROMIUM} is missing and apt-get is not available` };
	const asRoot = process.getuid?.() === 0;
	if (!asRoot && !hasCommand('sudo')) {
		return { ok: false, reason: `${CHROMIUM} is missing and installing it needs root (no sudo)` };
	}
	const prefix = asRoot ? [] : ['sudo', '-n'];
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	for (const args of [
		['apt-get', 'update'],
		// fonts-liberation is the one recommended package that matters: the metric-compatible fonts pages expect.
		['apt-get', 'install', '-y', '--no-install-recommends', 'chromium', 'fonts-liberation'],
	]) {
		const command = [...prefix, ...args];
		log(`installing the browser: ${command.join(' ')}`);
		const result = spawnSync(command[0], command.slice(1), { env, encoding: 'utf8', timeout: 15 * 60_000 });
		if (result.status !== 0) {
			const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.split('\n').slice(-30).join('\n');
			if (!asRoot && /password is required|a terminal is required/i.test(output)) {
				return { ok: false, reason: `${CHROMIUM} is missing and sudo needs a password to install it` };
			}
			throw new Error(`${command.join(' ')} failed (${result.status ?? result.signal}):\n${output}`);
		}
	}
	if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium, but ${CHROMIUM} does not exist`);
	return { ok: true };
}

/**
 * A headless Chromium that never calls home. Playwright gives every launch a fresh temporary profile (its
 * own --user-data-dir, removed on close; it refuses the flag from us).
 */
export async function launchChromium(): Promise<Browser> {
	return await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}
