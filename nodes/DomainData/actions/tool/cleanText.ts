/**
 * Texts for a model (tool answers and their errors): without the characters that can hide or reorder text, line
 * breaks as spaces, cut between characters as a reader sees them. What writing needs stays: emoji joined by ZWJ (a
 * family, the rainbow flag), emoji tag sequences (the flag of England), and ZWJ and ZWNJ between letters of the
 * scripts that write with them (Persian, Hindi).
 */

/** Scripts whose words need ZWJ and ZWNJ between their letters (Persian, Arabic, Indic half forms and conjuncts). */
const JOINING_SCRIPTS = 'Arab Syrc Nkoo Mong Deva Beng Guru Gujr Orya Taml Telu Knda Mlym Sinh'.split(' ');
const JOINING = `[${JOINING_SCRIPTS.map((script) => `\\p{scx=${script}}`).join('')}]`;
const LETTER = '[\\p{L}\\p{M}]';
/** Sequences kept whole although they hold characters removed elsewhere: matched first, given back as they are. */
const JOINED = [
	// An emoji tag sequence (the flags of England, Scotland, Wales): a pictograph, tag characters, the cancel tag.
	'\\p{Extended_Pictographic}[\\u{E0020}-\\u{E007E}]+\\u{E007F}',
	// ZWJ between emoji (family, rainbow flag, a person with a skin tone and a job): one picture.
	'(?<=[\\p{Extended_Pictographic}\\p{Emoji_Modifier}\\uFE0F])\\u200D(?=\\p{Extended_Pictographic})',
	// ZWJ and ZWNJ between two letters of a script that writes with them.
	`(?<=${LETTER})(?<=${JOINING})[\\u200C\\u200D](?=${LETTER})(?=${JOINING})`,
];
/**
 * Characters a model may misread or a reader cannot see: C0 and C1 controls (NUL, ESC, NEL…) and DEL, the soft
 * hyphen, zero-width characters (ZWJ and ZWNJ outside the sequences above), bidirectional marks, embeddings,
 * overrides and isolates, invisible operators, interlinear annotations, the byte-order mark, tag characters
 * (U+E0000…U+E007F, outside emoji tag sequences) and lone surrogates (the `u` flag matches only unpaired ones).
 */
const HIDDEN_CHARACTERS =
	'[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\u00AD\\u061C\\u180E\\u200B-\\u200F\\u202A-\\u202E' +
	'\\u2060-\\u206F\\uFEFF\\uFFF9-\\uFFFB\\u{E0000}-\\u{E007F}\\uD800-\\uDFFF]';
const HIDDEN = new RegExp(`(${JOINED.join('|')})|${HIDDEN_CHARACTERS}`, 'gu');
/** Line breaks (also U+2028 and U+2029) and tabs: a space. */
const BREAKS = /[\t\n\r\u2028\u2029]+/g;
const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * `text` cut to at most `max` UTF-16 units, the last "…", at a boundary between characters as a reader sees them
 * (a flag, a family emoji, a letter with its accents stay whole or go whole).
 */
function cutText(text: string, max: number): string {
	if (text.length <= max) return text;
	let end = 0;
	for (const { segment } of GRAPHEMES.segment(text)) {
		if (end + segment.length > max - 1) break;
		end += segment.length;
	}
	return `${text.slice(0, end)}…`;
}

const visibleText = (text: string) =>
	text.replace(HIDDEN, (_hidden, joined?: string) => joined ?? '').replace(BREAKS, ' ');

/**
 * A website's text as a model reads it: without hidden characters, line breaks as spaces, cut at `max`. Of a long text
 * only its start can be shown, so a window of it is cleaned first: that gives the same start as the whole text,
 * since only the window's last characters can differ (a joiner or a tag sequence the window cuts) and the cut comes
 * well before them; a window mostly of hidden characters leaves too little, and the whole text is cleaned.
 */
export function cleanText(text: string, max: number): string {
	const window = max * 4 + 64;
	if (text.length > window) {
		const head = visibleText(text.slice(0, window));
		if (head.length > max + 16) return cutText(head, max);
	}
	return cutText(visibleText(text), max);
}
