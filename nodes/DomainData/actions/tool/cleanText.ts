/**
 * Texts for a model: without the characters that can hide or reorder text, line breaks as spaces, cut between
 * characters as a reader sees them. What writing needs stays (emoji sequences, ZWJ and ZWNJ in Persian or Hindi).
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
 * Characters a model may misread or a reader cannot see: controls and DEL, the soft hyphen, zero-width and
 * bidirectional characters, invisible operators, annotations, the BOM, tag characters and lone surrogates (the `u` flag
 * matches only unpaired ones).
 */
const HIDDEN_CHARACTERS =
	'[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\u00AD\\u061C\\u180E\\u200B-\\u200F\\u202A-\\u202E' +
	'\\u2060-\\u206F\\uFEFF\\uFFF9-\\uFFFB\\u{E0000}-\\u{E007F}\\uD800-\\uDFFF]';
const HIDDEN = new RegExp(`(${JOINED.join('|')})|${HIDDEN_CHARACTERS}`, 'gu');
/** Line breaks (also U+2028 and U+2029) and tabs: a space. */
const BREAKS = /[\t\n\r\u2028\u2029]+/g;
const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** `text` cut to at most `max` UTF-16 units, the last "…", between characters as a reader sees them (graphemes). */
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
 * A website's text as a model reads it, cut at `max`. Of a long text only a window at its start is cleaned: only its
 * last characters can differ from the whole text's, and the cut comes well before; unless it is mostly hidden ones.
 */
export function cleanText(text: string, max: number): string {
	const window = max * 4 + 64;
	if (text.length > window) {
		const head = visibleText(text.slice(0, window));
		if (head.length > max + 16) return cutText(head, max);
	}
	return cutText(visibleText(text), max);
}
