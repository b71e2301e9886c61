/**
 * Fast NDJSON lines for the stream. A line is exactly JSON.stringify of the record reduced to the
 * selected fields in canonical order (tests check this against DomainIndex.recordAt), but only the
 * selected fields are generated and each value is serialised on its own, which keeps the stream fast.
 */
import type { DomainFacts, DomainGenerator } from './generator';
import { DEFAULT_RECORD_FIELDS, FIELD_ALIASES, RECORD_FIELDS, type DomainRecord, type RecordField } from './types';

export type ValueWriter = (generator: DomainGenerator, facts: DomainFacts, rank: number) => string;

const WRITERS: Record<RecordField, ValueWriter> = {
	// Names, tld1 and codes are plain ASCII without quotes or backslashes: no escaping needed.
	name: (_g, f) => `"${f.identity.name}"`,
	rank: (_g, _f, rank) => `${rank}`,
	// Texts are built from vocabulary that needs no JSON escaping (a test checks it): quoting is enough.
	title: (g, f) => `"${g.title(f)}"`,
	meta_description: (g, f) => {
		const description = g.metaDescription(f);
		return description === undefined ? 'null' : `"${description}"`;
	},
	country_code: (_g, f) => `"${f.locale.country}"`,
	language_code: (_g, f) => `"${f.locale.language}"`,
	categories: (g, f) => g.categories(f).json,
	technologies: (g, f) => {
		const list = g.technologies(f);
		return list.length === 0 ? '[]' : `["${list.join('","')}"]`;
	},
	tld1: (_g, f) => `"${f.identity.tld1}"`,
	meta_keywords: (g, f) => JSON.stringify(g.metaKeywords(f)),
	canonical: (g, f) => JSON.stringify(g.canonical(f)),
	icon: (g, f) => JSON.stringify(g.icon(f)),
	status: (g, f) => String(g.status(f)),
	dns: (g, f) => JSON.stringify(g.dns(f)),
	first_published_at: (g, f) => JSON.stringify(g.firstPublishedAt(f)),
	redirects_to: (g, f) => JSON.stringify(g.redirectsTo(f)),
	contact_information: (g, f) => JSON.stringify(g.contactInformation(f)),
};

/** The JSON text writer of one field. */
export function stringWriterFor(field: RecordField): ValueWriter {
	return WRITERS[field];
}

export type FieldSelection = { ok: true; fields: RecordField[] } | { ok: false; message: string };

/**
 * Parses the `fields` query value: comma-separated canonical names or aliases (domain, tld, country,
 * language); blanks around names are ignored, duplicates collapse, the result is in canonical order.
 */
export function parseFields(raw: string | undefined): FieldSelection {
	if (raw === undefined) return { ok: true, fields: [...DEFAULT_RECORD_FIELDS] };
	const names = raw
		.split(',')
		.map((name) => name.trim())
		.filter((name) => name.length > 0);
	if (names.length === 0) return { ok: false, message: 'fields is empty: give a comma-separated list of field names.' };
	const chosen = new Set<RecordField>();
	for (const name of names) {
		const canonical = (RECORD_FIELDS as readonly string[]).includes(name) ? (name as RecordField) : FIELD_ALIASES[name];
		if (!canonical) {
			return {
				ok: false,
				message: `Unknown field "${name}" in fields. Allowed: ${RECORD_FIELDS.join(', ')} (aliases: ${Object.keys(FIELD_ALIASES).join(', ')}).`,
			};
		}
		chosen.add(canonical);
	}
	return { ok: true, fields: RECORD_FIELDS.filter((field) => chosen.has(field)) };
}

/** Builds lines for one field selection: (key, rank, snapshot salt) -> JSON text without line ending. */
export function lineBuilder(
	generator: DomainGenerator,
	fields: readonly RecordField[],
): (key: number, rank: number, snapshotSalt?: number) => string {
	const writers = fields.map((field) => WRITERS[field]);
	const prefixes = fields.map((field, index) => `${index === 0 ? '{' : ','}"${field}":`);
	const count = fields.length;
	return (key, rank, snapshotSalt) => {
		const facts = generator.facts(key, snapshotSalt);
		let line = '';
		for (let i = 0; i < count; i++) line += prefixes[i] + writers[i](generator, facts, rank);
		return `${line}}`;
	};
}

/** The reference form of a line: the record reduced to the fields (used by tests and by recordLine). */
export function pickFields(record: DomainRecord, fields: readonly RecordField[]): Partial<DomainRecord> {
	const picked: Record<string, unknown> = {};
	for (const field of fields) picked[field] = record[field];
	return picked as Partial<DomainRecord>;
}
