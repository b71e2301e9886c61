/** A snapshot record's fields (interface section 2.2) and their aliases, mapped here: the rest says canonical names. */
import type { INodePropertyOptions } from 'n8n-workflow';

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

const FIELD_ALIASES: Readonly<Record<string, SnapshotField>> = {
	domain: 'name',
	tld: 'tld1',
	country: 'country_code',
	language: 'language_code',
};

type FieldNamesResult = { ok: true; fields: SnapshotField[] } | { ok: false; unknown: string[]; message: string };

/** Field names (an array, or text with commas) as canonical names in the service's order: same choice, same request. */
export function toCanonicalFields(value: unknown): FieldNamesResult {
	const raw: unknown[] = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
	const chosen = new Set<SnapshotField>();
	const unknown: string[] = [];
	for (const entry of raw) {
		const name = typeof entry === 'string' ? entry.trim() : String(entry);
		if (name.length === 0) continue;
		const lower = name.toLowerCase();
		if ((SNAPSHOT_FIELDS as readonly string[]).includes(lower)) chosen.add(lower as SnapshotField);
		else if (Object.hasOwn(FIELD_ALIASES, lower)) chosen.add(FIELD_ALIASES[lower]);
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

const FIELD_DESCRIPTIONS: Record<SnapshotField, string> = {
	name: 'Domain name',
	rank: 'Traffic rank; 1 is the highest traffic',
	title: 'Page title of the website',
	meta_description: 'Meta description, or null',
	country_code: 'Country, ISO 3166-1 alpha-2 (e.g. DE)',
	language_code: 'Primary language, ISO 639-1 (e.g. de)',
	categories: 'Content categories as paths, e.g. /Shopping/Apparel',
	technologies: 'Technologies detected on the site (empty when none)',
	tld1: 'Registrable domain of the name',
	meta_keywords: 'Meta keywords',
	canonical: 'Canonical URL',
	icon: 'Icon URL',
	status: 'HTTP status of the home page',
	dns: 'DNS records',
	first_published_at: 'When the site was first seen',
	redirects_to: 'Where the home page redirects',
	contact_information: 'Emails, phones and social profiles found on the site',
};

/** The Fields dropdown of Stream, Compare and the trigger: each field with what it holds, but those in `except`. */
export function fieldOptions(except: readonly SnapshotField[] = []): INodePropertyOptions[] {
	return SNAPSHOT_FIELDS.filter((field) => !except.includes(field)).map((field) => ({
		name: field,
		value: field,
		description: FIELD_DESCRIPTIONS[field],
	}));
}
