/**
 * Every figure with a unit in a page of the docs, as the docs tests read them: sizes (KB, MB, GB), shares (%),
 * times (s, ms) and counts of records or changes in prose. Where measuredFigures (test/harness/markdown.ts) finds
 * what only a measurement gives, this finds every such figure, configuration included: a page may state one only
 * when docs/benchmarks.md holds it, or when the code does (a generated table, or ALLOWED in docs.test.ts).
 */

import { tableCells } from '../../harness/markdown';

export interface UnitFigure {
	text: string;
	/** `unit:value`, thousands separators dropped, `seconds` as `s`, `MiB` as `MB`. */
	key: string;
	line: number;
}

const NUMBER = String.raw`\d[\d,]*(?:\.\d+)?`;
const UNITS = String.raw`%|KB|MB|GB|MiB|GiB|ms|s|seconds|records|changes`;
/** A number, or two joined as a range or a before → after (`0.5 to 2.5 GB`, `203 → 274 MB`), and its unit. */
const FIGURE = new RegExp(
	String.raw`(?<![\w.,^])[+−-]?(${NUMBER})(?:\s?(?:-|–|to|→)\s?[+−-]?(${NUMBER}))?\s?(${UNITS})(?![\w/])`,
	'gu',
);

function unitOf(written: string): string {
	return { seconds: 's', MiB: 'MB', GiB: 'GB' }[written] ?? written;
}

export function figureKey(unit: string, value: string): string {
	return `${unitOf(unit)}:${Number(value.replace(/,/g, ''))}`;
}

/** A match blanked out, its line breaks kept. */
const blank = (text: string) => text.replace(/[^\n]/g, ' ');

/**
 * The lines a figure is looked for in: fenced code, generated regions and quotations (`> ` lines) blanked, inline
 * code and *italics* (quoted messages and answers) too, also across a line break; line numbers kept.
 */
function readLines(markdown: string): string[] {
	let fenced = false;
	let generated = false;
	const lines = markdown.split('\n').map((raw) => {
		if (/^\s*```/.test(raw)) {
			fenced = !fenced;
			return '';
		}
		if (raw.startsWith('<!-- generated:')) generated = true;
		if (raw.startsWith('<!-- /generated -->')) generated = false;
		return fenced || generated || /^\s*>/.test(raw) ? '' : raw;
	});
	return lines
		.join('\n')
		.replace(/`[^`]*`/g, blank)
		.replace(/(?<![*\w])\*(?![*\s])(?:[^*\n]|\n(?!\n))+?\*(?!\*)/g, blank)
		.split('\n');
}

/** The figures with a unit of a page's prose and tables, outside code and generated regions. */
export function unitFigures(markdown: string): UnitFigure[] {
	const figures: UnitFigure[] = [];
	readLines(markdown).forEach((line, index) => {
		for (const match of line.matchAll(FIGURE)) {
			for (const value of [match[1], match[2]]) {
				if (value !== undefined) figures.push({ text: match[0], key: figureKey(match[3], value), line: index + 1 });
			}
		}
	});
	return figures;
}

/** The figures of the generated regions of a page (what the code states). */
export function generatedFigures(markdown: string): string[] {
	const regions = [...markdown.matchAll(/<!-- generated:[^\n]*\n([\s\S]*?)<!-- \/generated -->/g)];
	return regions.flatMap((region) => unitFigures(region[1]).map((figure) => figure.key));
}

/** The unit a table column gives its bare numbers, from its header. */
function columnUnit(header: string): string | undefined {
	if (/\bMB\b/.test(header)) return 'MB';
	if (/\bGB\b/.test(header)) return 'GB';
	if (/\bms\b/.test(header)) return 'ms';
	if (/\bs\b|seconds/.test(header)) return 's';
	if (/^(?:records|snapshot records|records a side|records out)$/.test(header)) return 'records';
	if (/^changes$/.test(header)) return 'changes';
	return undefined;
}

/** Every figure with a unit that a report holds: in its prose, and as bare numbers under a header that names one. */
export function unitFiguresHeld(markdown: string): Set<string> {
	const held = new Set(unitFigures(markdown).map((figure) => figure.key));
	for (const { header, cell } of tableCells(markdown)) {
		const unit = columnUnit(header);
		if (unit === undefined) continue;
		for (const value of cell.match(new RegExp(NUMBER, 'g')) ?? []) held.add(figureKey(unit, value));
	}
	return held;
}
