/**
 * The documentation a user reads: README.md is the front door (short, linking to the reference in docs/),
 * and every link between README.md and the docs/ pages leads to a file and a section that exist, so that
 * a page moved or a heading renamed cannot leave a dead link behind. Measured figures have one source,
 * docs/benchmarks.md (written by `npm run bench`): another page quotes only figures it holds. Every other figure
 * with a unit (a size, a share, a time, a count of records or changes) is held by benchmarks.md, by the service's
 * interface (docs/service-interface.md), or by the code: a generated table, or ALLOWED below, tied to the code.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import { IMPORTED_LIMITS } from '../../../scripts/docs/limits';
import { figuresHeld, headingAnchors, localLinks, measuredFigures } from '../../harness/markdown';
import { generatedFigures, unitFigures, unitFiguresHeld } from './figures';

const REPO_ROOT = resolve(__dirname, '../../..');
const DOCS = join(REPO_ROOT, 'docs');
/** The pages users read: the README and the pages of docs/ (drafts in docs/pending/ are not published). */
const PAGES = [
	join(REPO_ROOT, 'README.md'),
	...readdirSync(DOCS)
		.filter((file) => file.endsWith('.md'))
		.map((file) => join(DOCS, file)),
];
const BENCHMARKS = join(DOCS, 'benchmarks.md');
/**
 * The pages whose measured figures must come from docs/benchmarks.md: every page but the report itself and
 * development.md, whose timings are of the tooling (installing n8n, running the tests) and whose figures are test
 * parameters, neither measured by the bench. CHANGELOG.md is history: it keeps what a change measured when it
 * was made (the old code against the new, run in turn), which no later run can hold; it is not read here.
 */
const QUOTING_PAGES = PAGES.filter((page) => page !== BENCHMARKS && page !== join(DOCS, 'development.md'));

/**
 * The pages that are a source of figures besides benchmarks.md, and what of them: the service's interface (the
 * service's own figures, such as a snapshot's size), and the section of performance.md that benchmarks.md refers
 * to for Compare's memory per domain (measured by bench/compare-memory.ts).
 */
const SOURCES: Array<{ page: string; section?: string }> = [
	{ page: join(DOCS, 'service-interface.md') },
	{ page: join(DOCS, 'performance.md'), section: "## Compare's memory per domain" },
];

/** The part of a page that is a source (a section: from its heading to the next heading of its level). */
function sourceText(source: { page: string; section?: string }): string {
	const text = readFileSync(source.page, 'utf8');
	if (!source.section) return text;
	const start = text.indexOf(`${source.section}\n`);
	const end = text.indexOf('\n## ', start + source.section.length);
	return text.slice(start, end === -1 ? undefined : end);
}

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const toolRecords = IMPORTED_LIMITS.TOOL_MAX_RECORDS;
const waitMs = IMPORTED_LIMITS['RETRY_TIMING.baseDelayMs'];
/**
 * Figures with a unit that the code (or a file the docs describe) holds, though no generated table does; each with
 * what holds it, checked here, so that a figure changed in the code fails until the pages say the new one.
 */
const ALLOWED: Record<string, { heldBy: string; holds: () => boolean }> = {
	'records:20': { heldBy: 'TOOL_MAX_RECORDS: records a tool answer holds', holds: () => toolRecords === 20 },
	'changes:20': { heldBy: 'TOOL_MAX_RECORDS: changes a tool answer holds', holds: () => toolRecords === 20 },
	'records:21': {
		heldBy: 'TOOL_MAX_RECORDS + 1: what the tool reads to know of more',
		holds: () => toolRecords === 20,
	},
	'changes:21': {
		heldBy: 'TOOL_MAX_RECORDS + 1: what the tool reads to know of more',
		holds: () => toolRecords === 20,
	},
	'records:5000000': {
		heldBy: "COMPARE_LIMITS.maxDomains: Compare's bound",
		holds: () => IMPORTED_LIMITS['COMPARE_LIMITS.maxDomains'] === 5_000_000,
	},
	's:0.25': { heldBy: 'RETRY_TIMING.baseDelayMs: the first wait, from half of it', holds: () => waitMs === 500 },
	's:0.5': { heldBy: 'RETRY_TIMING.baseDelayMs: the first wait, up to it', holds: () => waitMs === 500 },
	's:30': {
		heldBy: 'RETRY_TIMING.maxDelayMs: the longest wait',
		holds: () => IMPORTED_LIMITS['RETRY_TIMING.maxDelayMs'] === 30_000,
	},
	'records:2000': {
		heldBy: "examples/snapshot-to-postgres.json: the example's Batch Size",
		holds: () => read('examples/snapshot-to-postgres.json').includes('"batchSize": 2000'),
	},
	'KB:40': {
		heldBy: 'test/unit/tool.answers.test.ts: the 40,000-character description agents.md describes',
		holds: () => read('test/unit/tool.answers.test.ts').includes("'x'.repeat(40_000)"),
	},
	'GB:2.9': {
		heldBy: "docs/development.md: the demo's n8n install, which README's quick start quotes",
		holds: () => read('docs/development.md').includes('2.9 GB'),
	},
};

describe('the documentation', () => {
	it('keeps README.md a front door of under 400 lines', () => {
		expect(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThan(400);
	});

	it('links only to files and sections that exist', () => {
		const dead: string[] = [];
		for (const page of PAGES) {
			for (const link of localLinks(readFileSync(page, 'utf8'))) {
				const [path, anchor] = link.split('#');
				const target = path ? resolve(dirname(page), path) : page;
				const where = `${relative(REPO_ROOT, page)} → ${link}`;
				if (!existsSync(target)) dead.push(`${where} (no such file)`);
				else if (anchor && target.endsWith('.md') && !headingAnchors(readFileSync(target, 'utf8')).has(anchor)) {
					dead.push(`${where} (no such section)`);
				}
			}
		}
		expect(dead).toEqual([]);
	});

	it('links every page of docs/ from the README', () => {
		const linked = new Set(
			localLinks(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')).map((link) => link.split('#')[0]),
		);
		const unlinked = PAGES.slice(1)
			.map((page) => relative(REPO_ROOT, page))
			.filter((page) => !linked.has(page));
		expect(unlinked).toEqual([]);
	});

	it('counts as measured figures the numbers with a unit only a measurement gives, not configuration', () => {
		const keys = (text: string) => measuredFigures(text).map((figure) => figure.key);
		expect(keys('20 calls, 1.19 s; 0.81 × (by CPU: 0.82×); 35,761 records/s; 17.0 ms; 0.1 µs a line')).toEqual([
			'×:0.81',
			'×:0.82',
			'/s:35761',
			'ms:17',
			'µs:0.1',
			's:1.19',
		]);
		expect(keys('peak RSS +21 MB then −9 MB; it rises by about 200-320 MB')).toEqual([
			'ΔMB:+21',
			'ΔMB:-9',
			'ΔMB:+200',
			'ΔMB:+320',
		]);
		const configuration =
			'100 names a call, 512 MiB, 64 KB, 8 MB files, default 60 s, at most 2,147,483 s, 15 minutes, waits of ' +
			'0.25–0.5 s, File output + 20 × N, 14 × 2.5 GB, (2× HTTP 503), 84 % of the lines, `1.5 s` in code';
		expect(keys(configuration)).toEqual([]);
		expect(keys('```\n{ "durationMs": 1.5 s }\n```')).toEqual([]);
	});

	it('quotes only measured figures that docs/benchmarks.md holds (see measuredFigures for what counts)', () => {
		const held = figuresHeld(readFileSync(BENCHMARKS, 'utf8'));
		const unheld: string[] = [];
		for (const page of QUOTING_PAGES) {
			for (const figure of measuredFigures(readFileSync(page, 'utf8'))) {
				if (!held.has(figure.key))
					unheld.push(`${relative(REPO_ROOT, page)}:${figure.line} ${figure.key} in "${figure.text}"`);
			}
		}
		expect(unheld).toEqual([]);
	});

	it("states Compare's memory per domain in one place, docs/performance.md, which the others link to", () => {
		const examples = join(REPO_ROOT, 'examples');
		const places = [
			...PAGES,
			join(REPO_ROOT, 'CHANGELOG.md'),
			...readdirSync(examples)
				.filter((file) => file.endsWith('.json'))
				.map((file) => join(examples, file)),
		];
		const stating = places.filter((place) => /\d\s*bytes (?:a|per|for each) domain/.test(readFileSync(place, 'utf8')));
		expect(stating.map((place) => relative(REPO_ROOT, place))).toEqual(['docs/performance.md']);
	});

	it('counts every figure with a unit: sizes, shares, times, and counts of records or changes', () => {
		const keys = (text: string) => unitFigures(text).map((figure) => figure.key);
		expect(keys('84 % of 1,120 changes; 1.8 to 1.9 GB; 203 → 274 MB; 64 KB, 8 MiB; 60 s, 17 ms, 2 seconds')).toEqual([
			'%:84',
			'changes:1120',
			'GB:1.8',
			'GB:1.9',
			'MB:203',
			'MB:274',
			'KB:64',
			'MB:8',
			's:60',
			'ms:17',
			's:2',
		]);
		expect(
			keys('879,000 records; records/s; 5 sites; 2^53 records; `1.5 s`; *3 changes in all*\n> 15,000 records'),
		).toEqual(['records:879000']);
		expect(keys('<!-- generated: x -->\n| 64 MB |\n<!-- /generated -->\n```\n1 GB\n```')).toEqual([]);
	});

	it('states a figure with a unit only where benchmarks.md, the service interface or the code holds it', () => {
		const held = unitFiguresHeld(readFileSync(BENCHMARKS, 'utf8'));
		for (const source of SOURCES)
			for (const key of unitFigures(sourceText(source)).map((figure) => figure.key)) held.add(key);
		for (const page of PAGES) for (const key of generatedFigures(readFileSync(page, 'utf8'))) held.add(key);
		expect(
			Object.entries(ALLOWED)
				.filter(([, entry]) => !entry.holds())
				.map(([key, entry]) => `${key}: ${entry.heldBy}`),
		).toEqual([]);
		const unheld: string[] = [];
		for (const page of QUOTING_PAGES.filter(
			(page) => !SOURCES.some((source) => source.page === page && !source.section),
		)) {
			const text = readFileSync(page, 'utf8');
			const own = SOURCES.find((source) => source.page === page);
			const checked = own ? text.replace(sourceText(own), (section) => section.replace(/[^\n]/g, '')) : text;
			for (const figure of unitFigures(checked)) {
				if (!held.has(figure.key) && !ALLOWED[figure.key])
					unheld.push(`${relative(REPO_ROOT, page)}:${figure.line} ${figure.key} in "${figure.text}"`);
			}
		}
		expect(unheld).toEqual([]);
	});
});
