/** CPU time of another process (the simulator), to tell whether a run was bound by the server or by the client. */
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** User + system CPU milliseconds the process has used so far; NaN where /proc is not available. */
export function processCpuMs(pid: number): number {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		// The fields after the command name (which is in parentheses and may hold spaces).
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
	} catch {
		return NaN;
	}
}
