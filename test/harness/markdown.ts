/** What the documentation tests read of a Markdown file: its headings' anchors and its links. */

/** GitHub's anchor for a Markdown heading. */
export function githubSlug(heading: string): string {
	return heading
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\s_-]/gu, '')
		.replace(/\s/g, '-');
}

/** The lines of a Markdown text outside fenced code blocks. */
function proseLines(markdown: string): string[] {
	let fenced = false;
	return markdown.split('\n').filter((line) => {
		if (/^\s*```/.test(line)) fenced = !fenced;
		return !fenced && !/^\s*```/.test(line);
	});
}

/** The anchors GitHub gives the headings of a Markdown text (a repeated heading gets -1, -2...). */
export function headingAnchors(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	for (const line of proseLines(markdown)) {
		const heading = /^#{1,6} (.*)$/.exec(line);
		if (!heading) continue;
		const slug = githubSlug(heading[1]);
		const count = seen.get(slug) ?? 0;
		seen.set(slug, count + 1);
		anchors.add(count === 0 ? slug : `${slug}-${count}`);
	}
	return anchors;
}

/** The targets of the Markdown links and images of a text that stay in the repository (no scheme). */
export function localLinks(markdown: string): string[] {
	const links: string[] = [];
	for (const line of proseLines(markdown)) {
		for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
			if (!/^[a-z][a-z0-9+.-]*:/i.test(match[1])) links.push(match[1]);
		}
	}
	return links;
}

/**
 * A measured figure as the docs test finds it: a number with a unit that only a measurement gives. Configuration
 * (defaults, limits, sizes: "100 names a call", "512 MiB", "60 s", "20 records") has none of these units:
 * - a ratio: `1.41 ×`, `0.81×` (not a product such as `20 × N` or `14 × 2.5 GB`, nor a count such as `3× HTTP 503`);
 * - a throughput: `35,761 records/s`, `146,406/s`, `rec/s`, `MB/s`, `records a second`;
 * - a memory delta: signed (`+289 MB`, `−9 MB`, `+200-320 MB`: both ends), or after "grew by", "rises by" (about);
 * - a time in milliseconds or microseconds (`17.0 ms`, `0.1 µs`), or in seconds with a decimal part (`1.19 s`);
 *   whole seconds and minutes are how timeouts and waits are set (`60 s`, `2,147,483 s`, `15 minutes`), and are left
 *   out, as is a range written with an en dash (`0.25–0.5 s`, the retry backoff).
 * Fenced code and inline code are left out (example outputs and literals). `key` is the unit and the value, so that
 * `17 ms` and `17.0 ms` are the same figure and `0.9 s` is not `0.9 ×`.
 */
export interface MeasuredFigure {
	text: string;
	key: string;
	line: number;
}

const NUMBER = String.raw`\d[\d,]*(?:\.\d+)?`;
const FIGURE_PATTERNS: Array<[unit: string, pattern: RegExp]> = [
	['×', new RegExp(String.raw`(?<![\w.,])(${NUMBER})(?:\s×|×(?!\s[a-zA-Z]))(?!\s?(?:\d|[A-Z]\b))`, 'gu')],
	['/s', new RegExp(String.raw`(?<![\w.,])(${NUMBER})\s?(?:records\/s|rec\/s|\/s|records a second)`, 'gu')],
	['MB/s', new RegExp(String.raw`(?<![\w.,])(${NUMBER})\s?MB\/s`, 'gu')],
	[
		'ΔMB',
		new RegExp(
			String.raw`(?:(?<![\w.,])(?=[+−-])|(?:rises|rose|grows|grew|grown) by (?:about )?)` +
				String.raw`([+−-]?${NUMBER})(?:\s?(?:-|–|to)\s?([+−-]?${NUMBER}))?\s?MB\b(?!\/)`,
			'gu',
		),
	],
	['ms', new RegExp(String.raw`(?<![\w.,])(${NUMBER})(?:\s?(?:-|to)\s?(${NUMBER}))?\s?ms\b`, 'gu')],
	['µs', new RegExp(String.raw`(?<![\w.,])(${NUMBER})(?:\s?(?:-|to)\s?(${NUMBER}))?\s?µs\b`, 'gu')],
	[
		's',
		new RegExp(String.raw`(?<![\w.,–-])(\d[\d,]*\.\d+)(?:\s?(?:-|to)\s?(${NUMBER}))?\s?(?:s|seconds)\b(?![–-])`, 'gu'),
	],
];

/** The value of a figure as a key: unit and number, thousands separators dropped (a memory delta keeps its sign). */
function figureKey(unit: string, value: string): string {
	const number = Number(value.replace(/,/g, '').replace('−', '-').replace('+', ''));
	return `${unit}:${unit === 'ΔMB' && number >= 0 ? '+' : ''}${number}`;
}

/** The text of a line that the docs test reads: inline code left out. */
function withoutInlineCode(line: string): string {
	return line.replace(/`[^`]*`/g, ' ');
}

export function measuredFigures(markdown: string): MeasuredFigure[] {
	const figures: MeasuredFigure[] = [];
	let fenced = false;
	markdown.split('\n').forEach((raw, index) => {
		if (/^\s*```/.test(raw)) fenced = !fenced;
		if (fenced || /^\s*```/.test(raw)) return;
		const line = withoutInlineCode(raw);
		for (const [unit, pattern] of FIGURE_PATTERNS) {
			for (const match of line.matchAll(pattern)) {
				for (const value of match.slice(1)) {
					if (value !== undefined) figures.push({ text: match[0], key: figureKey(unit, value), line: index + 1 });
				}
			}
		}
	});
	return figures;
}

/** The unit a column of a generated table gives its numbers, from its header (undefined: none). */
function columnUnit(header: string): string | undefined {
	if (/records\/s/.test(header)) return '/s';
	if (/ratio|÷/.test(header)) return '×';
	if (/\bms\b/.test(header)) return 'ms';
	if (/µs/.test(header)) return 'µs';
	if (/\bs\b|seconds/.test(header)) return 's';
	if (/\bMB\b/.test(header) && /growth|−|Δ/.test(header)) return 'ΔMB';
	return undefined;
}

/**
 * Every figure a generated report holds: the figures of its prose (as `measuredFigures` finds them), and each number
 * of a table cell under a header that names a unit (`records/s (median)`, `wall s`, `node ms`, `ratio to raw loop`,
 * `peak RSS growth MB`: a growth, so `596` there is `+596 MB`).
 */
export function figuresHeld(markdown: string): Set<string> {
	const held = new Set(measuredFigures(markdown).map((figure) => figure.key));
	for (const { header, cell } of tableCells(markdown)) {
		const unit = columnUnit(header);
		if (unit === undefined) continue;
		for (const value of cell.match(new RegExp(`[+−-]?${NUMBER}`, 'g')) ?? []) held.add(figureKey(unit, value));
	}
	return held;
}

/** Each cell of a Markdown table's rows below its header (the separator row included), with its column's header. */
export function* tableCells(markdown: string): Generator<{ header: string; cell: string }> {
	let header: string[] | undefined;
	for (const line of markdown.split('\n')) {
		if (!line.startsWith('|')) {
			header = undefined;
			continue;
		}
		const cells = line
			.split('|')
			.slice(1, -1)
			.map((cell) => cell.trim());
		if (header === undefined) header = cells;
		else for (const [column, cell] of cells.entries()) yield { header: header[column] ?? '', cell };
	}
}
