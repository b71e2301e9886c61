/**
 * The fields a snapshot record can hold (interface section 2.2) and the names users may type for them. The service
 * accepts the aliases too; mapped here, filters, outputs and error messages speak canonical names only.
 */
import { quoteFew } from '../errors';

/** Every selectable field, in the order the service writes them. */
export const SNAPSHOT_FIELDS = [
	'name',
	'rank',
	'title',
	'meta_description',
	'country_code',
	'language_code',
	'categories',
	'technologies',
	'tld1',
	'meta_keywords',
	'canonical',
	'icon',
	'status',
	'dns',
	'first_published_at',
	'redirects_to',
	'contact_information',
] as const;

export type SnapshotField = (typeof SNAPSHOT_FIELDS)[number];

/** What the service streams when no `fields` are asked for: `name` to `tld1`. */
export const DEFAULT_SNAPSHOT_FIELDS: SnapshotField[] = SNAPSHOT_FIELDS.slice(0, SNAPSHOT_FIELDS.indexOf('tld1') + 1);

export const FIELD_ALIASES: Readonly<Record<string, SnapshotField>> = {
	domain: 'name',
	tld: 'tld1',
	country: 'country_code',
	language: 'language_code',
};

type FieldNamesResult = { ok: true; fields: SnapshotField[] } | { ok: false; unknown: string[]; message: string };

const CANONICAL = new Set<string>(SNAPSHOT_FIELDS);

/** Field names (an array, or text with commas) as canonical names in the service's order: same choice, same request. */
export function toCanonicalFields(value: unknown): FieldNamesResult {
	const raw: unknown[] = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
	const names = raw
		.map((entry) => (typeof entry === 'string' ? entry.trim() : String(entry)))
		.filter((entry) => entry.length > 0);
	const chosen = new Set<SnapshotField>();
	const unknown: string[] = [];
	for (const name of names) {
		const lower = name.toLowerCase();
		if (CANONICAL.has(lower)) chosen.add(lower as SnapshotField);
		else if (FIELD_ALIASES[lower]) chosen.add(FIELD_ALIASES[lower]);
		else unknown.push(name);
	}
	if (unknown.length > 0) {
		const aliases = Object.entries(FIELD_ALIASES).map(([alias, canonical]) => `${alias} = ${canonical}`);
		const names = `name${unknown.length > 1 ? 's' : ''} ${quoteFew(unknown)}`;
		const message = `Unknown field ${names}. Allowed: ${SNAPSHOT_FIELDS.join(', ')} (aliases: ${aliases.join(', ')})`;
		return { ok: false, unknown, message };
	}
	if (chosen.size === 0) {
		const message = `No field selected. Choose at least one of: ${SNAPSHOT_FIELDS.join(', ')}`;
		return { ok: false, unknown: [], message };
	}
	return { ok: true, fields: SNAPSHOT_FIELDS.filter((field) => chosen.has(field)) };
}

/** A Fields parameter: none selected (an empty list or text) means `defaults`, as the editor preselects them. */
export function selectedFields(value: unknown, defaults: readonly SnapshotField[]): FieldNamesResult {
	const result = toCanonicalFields(value);
	return result.ok || result.unknown.length > 0 ? result : { ok: true, fields: [...defaults] };
}

/** `fields` plus the ones in `extra`, in the service's order. */
export function withFields(fields: readonly SnapshotField[], extra: readonly SnapshotField[]): SnapshotField[] {
	const all = new Set<SnapshotField>([...fields, ...extra]);
	return SNAPSHOT_FIELDS.filter((field) => all.has(field));
}
