/**
 * Byte-level line assembly for the stream's hot path.
 *
 * Building lines as JavaScript strings and encoding them costs more than generating them: V8 has to
 * flatten the concatenated strings and encode UTF-16 to UTF-8 (slow for strings with characters past
 * U+00FF, which most lines have). Here every piece whose bytes can be known in advance (template
 * literals, brand words, topics, categories, technologies, emoji) is encoded once and copied; the
 * ASCII pieces (names, codes, numbers) are written byte by byte. The bytes are identical to
 * Buffer.from(lineBuilder(...)) (tests check it); fields without a byte writer fall back to that.
 */
import type { DomainFacts, DomainGenerator, TextChoice } from './generator';
import { FIRST_CAPITALISED, SECOND_CAPITALISED } from './names';
import { stringWriterFor } from './record-lines';
import { BRAND_SLOT, EMOJI_BYTES, TOPIC_SLOT } from './texts';
import type { RecordField } from './types';
import { TECHNOLOGIES } from './vocabulary';

/** A growable output buffer; `take()` hands the bytes written so far to the socket and starts a new one. */
export class ByteChunk {
	private buffer: Buffer;
	private offset = 0;

	constructor(private readonly capacity: number) {
		this.buffer = Buffer.allocUnsafe(capacity);
	}

	get length(): number {
		return this.offset;
	}

	ensure(extra: number): void {
		if (this.offset + extra <= this.buffer.length) return;
		const bigger = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.offset + extra));
		this.buffer.copy(bigger, 0, 0, this.offset);
		this.buffer = bigger;
	}

	/** Writes a string known to be ASCII (no encoding needed). */
	ascii(text: string): void {
		this.ensure(text.length);
		const buffer = this.buffer;
		let offset = this.offset;
		for (let i = 0; i < text.length; i++) buffer[offset++] = text.charCodeAt(i);
		this.offset = offset;
	}

	byte(value: number): void {
		this.ensure(1);
		this.buffer[this.offset++] = value;
	}

	bytes(source: Uint8Array): void {
		const length = source.length;
		this.ensure(length);
		const buffer = this.buffer;
		let offset = this.offset;
		if (length > 48) {
			buffer.set(source, offset);
			offset += length;
		} else {
			for (let i = 0; i < length; i++) buffer[offset++] = source[i];
		}
		this.offset = offset;
	}

	utf8(text: string): void {
		this.ensure(text.length * 3);
		this.offset += this.buffer.write(text, this.offset, 'utf8');
	}

	/** The bytes written so far; the chunk continues in a fresh buffer (the old one belongs to the socket now). */
	take(): Buffer {
		const full = this.buffer.subarray(0, this.offset);
		this.buffer = Buffer.allocUnsafe(this.capacity);
		this.offset = 0;
		return full;
	}
}

type ByteWriter = (generator: DomainGenerator, facts: DomainFacts, rank: number, out: ByteChunk) => void;

const QUOTE = 0x22;
const SPACE = 0x20;
const FIRST_BYTES = FIRST_CAPITALISED.map((word) => Buffer.from(word));
const SECOND_BYTES = SECOND_CAPITALISED.map((word) => Buffer.from(word));
/** `"Shopify"` etc.: technology names need no escaping. */
const TECHNOLOGY_BYTES = TECHNOLOGIES.map((name) => Buffer.from(JSON.stringify(name)));
const NULL_BYTES = Buffer.from('null');

function writeText(choice: TextChoice, facts: DomainFacts, out: ByteChunk, emojiFirst: boolean): void {
	out.byte(QUOTE);
	if (emojiFirst && choice.emoji >= 0) {
		out.bytes(EMOJI_BYTES[choice.emoji]);
		out.byte(SPACE);
	}
	for (const part of choice.template.byteParts) {
		if (part === BRAND_SLOT) {
			out.bytes(FIRST_BYTES[facts.identity.firstIndex]);
			out.byte(SPACE);
			out.bytes(SECOND_BYTES[facts.identity.secondIndex]);
		} else if (part === TOPIC_SLOT) {
			out.bytes(facts.texts.topicBytes[facts.topicIndex]);
		} else {
			out.bytes(part);
		}
	}
	if (!emojiFirst && choice.emoji >= 0) {
		out.byte(SPACE);
		out.bytes(EMOJI_BYTES[choice.emoji]);
	}
	out.byte(QUOTE);
}

function quotedAscii(text: string, out: ByteChunk): void {
	out.byte(QUOTE);
	out.ascii(text);
	out.byte(QUOTE);
}

const BYTE_WRITERS: Partial<Record<RecordField, ByteWriter>> = {
	name: (_g, f, _r, out) => quotedAscii(f.identity.name, out),
	rank: (_g, _f, rank, out) => out.ascii(`${rank}`),
	title: (g, f, _r, out) => writeText(g.titleChoice(f), f, out, false),
	meta_description: (g, f, _r, out) => {
		const choice = g.descriptionChoice(f);
		if (choice) writeText(choice, f, out, true);
		else out.bytes(NULL_BYTES);
	},
	country_code: (_g, f, _r, out) => quotedAscii(f.locale.country, out),
	language_code: (_g, f, _r, out) => quotedAscii(f.locale.language, out),
	categories: (g, f, _r, out) => out.bytes(g.categories(f).bytes),
	technologies: (g, f, _r, out) => {
		const indexes = g.technologyIndexes(f);
		out.byte(0x5b); // [
		for (let i = 0; i < indexes.length; i++) {
			if (i > 0) out.byte(0x2c); // ,
			out.bytes(TECHNOLOGY_BYTES[indexes[i]]);
		}
		out.byte(0x5d); // ]
	},
	tld1: (_g, f, _r, out) => quotedAscii(f.identity.tld1, out),
};

/** (key, rank, out, snapshot salt) -> appends the line (without line ending) for this field selection to `out`. */
export function chunkLineWriter(
	generator: DomainGenerator,
	fields: readonly RecordField[],
): (key: number, rank: number, out: ByteChunk, snapshotSalt?: number) => void {
	const writers: ByteWriter[] = fields.map((field) => {
		const fast = BYTE_WRITERS[field];
		if (fast) return fast;
		const slow = stringWriterFor(field);
		return (g, f, rank, out) => out.utf8(slow(g, f, rank));
	});
	const prefixes = fields.map((field, index) => Buffer.from(`${index === 0 ? '{' : ','}"${field}":`));
	const count = fields.length;
	return (key, rank, out, snapshotSalt) => {
		const facts = generator.facts(key, snapshotSalt);
		for (let i = 0; i < count; i++) {
			out.bytes(prefixes[i]);
			writers[i](generator, facts, rank, out);
		}
		out.byte(0x7d); // }
	};
}
