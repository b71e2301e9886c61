/**
 * What several processes need to fill the cache safely at the same time (jest's global set-up, the editor
 * test, the demo, a benchmark): a lock folder holding its owner's pid, and the removal of partial folders
 * that a killed install left behind.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/** Partial folders (`<prefix><pid>` in `dir`) of installs whose process is gone only take disk space. */
export function removeDeadPartials(dir: string, prefix: string): void {
	for (const name of readdirSync(dir)) {
		if (!name.startsWith(prefix)) continue;
		const pid = Number(name.slice(prefix.length));
		if (!Number.isInteger(pid) || !isAlive(pid)) rmSync(join(dir, name), { recursive: true, force: true });
	}
}

/**
 * Takes the lock folder `lockDir` (waiting while a live process holds it; a dead owner's lock is taken
 * over) and returns its release function.
 */
export async function acquireLock(
	lockDir: string,
	timeoutMs: number,
	log: (line: string) => void,
): Promise<() => void> {
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
			log(`waiting for another process (pid ${owner}) that holds ${lockDir}`);
			announced = true;
		}
		await new Promise((r) => setTimeout(r, 2000));
	}
}
