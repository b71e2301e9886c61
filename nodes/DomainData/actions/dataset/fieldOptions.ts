/** The Fields dropdown of the dataset operations: every snapshot field with what it holds. */
import type { INodePropertyOptions } from 'n8n-workflow';

import { SNAPSHOT_FIELDS, type SnapshotField } from '../../helpers/snapshotFields';

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

/** The options of a `fields` multiOptions parameter; `except` leaves fields out. */
export function fieldOptions(except: readonly SnapshotField[] = []): INodePropertyOptions[] {
	return SNAPSHOT_FIELDS.filter((field) => !except.includes(field)).map((field) => ({
		name: field,
		value: field,
		description: FIELD_DESCRIPTIONS[field],
	}));
}
