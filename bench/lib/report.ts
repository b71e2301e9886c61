/** The shapes every section returns, and their rendering as a console table and as Markdown. */
import type { OperationChildren } from './child';
import type { Simulators } from './simulator-process';

export interface Figure {
	/** What was measured, e.g. "batches output: records/s". */
	what: string;
	/** The figure as shown, e.g. "0.97 of the fastest reader". */
	value: string;
	/** The target in words, when the issue set one. */
	target?: string;
	/** undefined: no target, or not measurable (see `pending`). */
	met?: boolean;
}

export interface SectionResult {
	id: string;
	title: string;
	figures: Figure[];
	/** Markdown: how it was measured, the raw medians, per-run figures, notes. */
	details: string[];
	/** Why the section (or part of it) could not run, e.g. the operation is still a stub. */
	pending?: string[];
	/** Markdown: where the time goes, when a target was missed. */
	profile?: string[];
}

export interface BenchContext {
	tiny: boolean;
	/** Whether the parts that run real n8n run (always in the full run; with --n8n in the tiny one). */
	n8n: boolean;
	/**
	 * Whether to profile where a target is missed (the full run), or everywhere a section can profile (--profile,
	 * so that the tiny run exercises the profiling too).
	 */
	profile: 'missed' | 'always' | 'never';
	log: (message: string) => void;
	/** Where the sections run an operation in a child process (a fresh one per run, or in the tiny run one for all). */
	children: OperationChildren;
	/** Where the sections start the simulator (a fresh one each time, or in the tiny run one kept per options). */
	simulators: Simulators;
	/** Records per run for the sections that take a size (--size), instead of their own. */
	size?: number;
	/** Only the runs that have a target (--targets), in the sections that can leave the others out. */
	targetsOnly?: boolean;
	/** Only the runs whose name starts with one of these (--runs), in the sections that name their runs. */
	runs?: string[];
}

/** Whether a section profiles, given whether its target was missed. */
export function shouldProfile(context: BenchContext, missed: boolean): boolean {
	return context.profile === 'always' || (context.profile === 'missed' && missed);
}

export function markdownTable(header: string[], rows: string[][]): string {
	const escape = (cell: string) => cell.replace(/\|/g, '\\|').replace(/\n/g, ' ');
	return [
		`| ${header.map(escape).join(' | ')} |`,
		`|${header.map(() => '---').join('|')}|`,
		...rows.map((row) => `| ${row.map(escape).join(' | ')} |`),
	].join('\n');
}

function verdict(figure: Figure): string {
	if (!figure.target) return '';
	if (figure.met === undefined) return 'not measured';
	return figure.met ? 'met' : 'NOT MET';
}

export function summaryRows(sections: SectionResult[]): string[][] {
	const rows: string[][] = [];
	for (const section of sections) {
		for (const figure of section.figures) {
			rows.push([section.title, figure.what, figure.value, figure.target ?? '', verdict(figure)]);
		}
		for (const reason of section.pending ?? []) rows.push([section.title, 'pending', reason, '', 'not measured']);
	}
	return rows;
}

export const SUMMARY_HEADER = ['Section', 'Measure', 'Figure', 'Target', 'Verdict'];

/** A fixed-width table for the terminal. */
export function consoleTable(header: string[], rows: string[][]): string {
	const widths = header.map((cell, i) =>
		Math.min(70, Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length))),
	);
	const line = (cells: string[]) =>
		cells
			.map((cell, i) => (cell.length > widths[i] ? cell.slice(0, widths[i] - 1) + '…' : cell.padEnd(widths[i])))
			.join('  ');
	return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
