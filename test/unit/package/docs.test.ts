/**
 * The documentation a user reads: README.md is the front door (short, linking to the reference in docs/),
 * and every link between README.md and the docs/ pages leads to a file and a section that exist, so that
 * a page moved or a heading renamed cannot leave a dead link behind.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import { headingAnchors, localLinks } from '../../harness/markdown';

const REPO_ROOT = resolve(__dirname, '../../..');
const DOCS = join(REPO_ROOT, 'docs');
/** The pages users read: the README and the pages of docs/ (drafts in docs/pending/ are not published). */
const PAGES = [
	join(REPO_ROOT, 'README.md'),
	...readdirSync(DOCS)
		.filter((file) => file.endsWith('.md'))
		.map((file) => join(DOCS, file)),
];

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
});
