/**
 * The documentation a user reads: README.md is the front door (short, linking to the reference in docs/),
 * and every link between README.md and the docs/ pages leads to a file and a section that exist, so that
 * a page moved or a heading renamed cannot leave a dead link behind. Measured figures have one source,
 * docs/benchmarks.md (written by `npm run bench`): another page quotes only figures it holds.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import { figuresHeld, headingAnchors, localLinks, measuredFigures } from '../../harness/markdown';

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
});
