/**
 * README's promises about the reference: docs/operations.md lists "every limit", docs/troubleshooting.md "every
 * message". The code's limits are its numeric constants (each either in the generated limits table or named as no
 * limit in scripts/docs/limits.ts); its messages are the errors' messages and the hints of nodes/ and the
 * credential, read from the TypeScript sources (scripts/docs/messages.ts). A message with values is found by its
 * words: each fixed part of its first sentence, in order, in one line of troubleshooting.md.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { IMPORTED_LIMITS, limitRows, NOT_LIMITS } from '../../../scripts/docs/limits';
import { sourceMessages, type SourceMessage } from '../../../scripts/docs/messages';
import { constantReader, sourceConstants } from '../../../scripts/docs/sourceFacts';

const REPO_ROOT = join(__dirname, '../../..');
const page = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');

/** A text as the docs test compares it with a message: no Markdown emphasis or code marks, quotes straight. */
function plain(text: string): string {
	return text
		.replace(/[*`\\]/g, '')
		.replace(/[“”„]/g, '"')
		.replace(/[‘’]/g, "'")
		.replace(/\s+/g, ' ');
}

/** The fixed parts of a message's first sentence (a message may go on in words the page sums up). */
function headParts(message: SourceMessage): string[] {
	const parts: string[] = [];
	for (const part of message.parts) {
		const sentenceEnd = part.search(/[.:] (?=[A-Z])/);
		parts.push(plain(sentenceEnd === -1 ? part : part.slice(0, sentenceEnd)).trim());
		if (sentenceEnd !== -1 || /\.\s*$/.test(part)) break;
	}
	return parts.filter((part) => /\p{L}{3}/u.test(part));
}

/** Whether one line of `lines` holds every part, in order. */
function holds(lines: string[], parts: string[]): boolean {
	return lines.some((line) => {
		let from = 0;
		for (const part of parts) {
			const at = line.indexOf(part, from);
			if (at === -1) return false;
			from = at + part.length;
		}
		return true;
	});
}

/** Messages of the code that no user sees, each with the reason (a message here that the code lost fails). */
const NOT_SHOWN: Record<string, string> = {
	'The answer was not whole within …':
		"RequestDeadlineError's own text: transport/send.ts turns it into deadlineError's message before it leaves",
};

describe("README's promises about the reference", () => {
	it('README promises every limit in docs/operations.md and every message in docs/troubleshooting.md', () => {
		const readme = page('README.md');
		expect(readme).toContain('every limit: [docs/operations.md](docs/operations.md#limits)');
		expect(readme).toContain('every message, by where it shows:\n[docs/troubleshooting.md](docs/troubleshooting.md)');
	});

	it('docs/operations.md lists every limit of the code: each numeric constant of nodes/ is in it or no limit', () => {
		const read = constantReader();
		const used = new Set(Object.keys(IMPORTED_LIMITS));
		const rows = limitRows((name) => {
			used.add(name);
			return read(name);
		});
		const unclassified = sourceConstants()
			.filter((constant) => !constant.characterCode && !used.has(constant.name) && !NOT_LIMITS[constant.name])
			.map((constant) => `${constant.name} = ${constant.value} (${constant.file})`);
		expect(unclassified).toEqual([]);
		const limits = page('docs/operations.md');
		const missing = rows.filter((row) => !limits.includes(`| ${row.limit} | ${row.value} |`)).map((row) => row.limit);
		expect(missing).toEqual([]);
	});

	it('docs/troubleshooting.md holds every message and hint of the code', () => {
		const { messages } = sourceMessages();
		expect(messages.length).toBeGreaterThan(80);
		const lines = plain(page('docs/troubleshooting.md')).split('\n');
		const texts = new Set(messages.map((message) => message.text));
		expect(Object.keys(NOT_SHOWN).filter((text) => !texts.has(text))).toEqual([]);
		const missing = messages
			.filter((message) => !NOT_SHOWN[message.text] && !holds(lines, headParts(message)))
			.map((message) => `${message.kind} (${message.file}:${message.line}): ${message.text}`);
		expect(missing).toEqual([]);
	});
});
