/** What the figures were measured on: they mean nothing without it. */
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

export interface Machine {
	cpu: string;
	cores: number;
	memoryGb: number;
	node: string;
	platform: string;
}

export function describeMachine(): Machine {
	const list = cpus();
	return {
		cpu: list[0]?.model.trim() ?? 'unknown',
		cores: list.length,
		memoryGb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
		node: process.version,
		platform: `${process.platform} ${process.arch}`,
	};
}

/** VmRSS and VmHWM (the kernel's exact peak of RSS) of a process, in MB; undefined off Linux or once it exited. */
export function processMemory(pid: number): { rssMb: number; hwmMb: number } | undefined {
	try {
		const status = readFileSync(`/proc/${pid}/status`, 'utf8');
		const read = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
		return { rssMb: read('VmRSS'), hwmMb: read('VmHWM') };
	} catch {
		return undefined;
	}
}
