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
