/** Shapes shared by the simulator's modules (the wire shapes of the interface document). */

/** Domain object of lookup, search and bulk (interface section 2.1), keys in the document's order. */
export interface DomainObject {
	name: string;
	title: string;
	meta_description?: string;
	language: string;
	categories: string[];
	technologies?: string[];
	tld1: string;
	id: number;
	rank: number;
}

export interface ContactInformation {
	type: string;
	value: string;
	full_value: string;
}

export interface DnsRecords {
	a: string[];
	mx: string[];
	ns: string[];
}

/** A full snapshot record (interface section 2.2) with every selectable field, in canonical order. */
export interface DomainRecord {
	name: string;
	rank: number;
	title: string;
	meta_description: string | null;
	country_code: string;
	language_code: string;
	categories: string[];
	technologies: string[];
	tld1: string;
	meta_keywords: string | null;
	canonical: string | null;
	icon: string | null;
	status: number;
	dns: DnsRecords;
	first_published_at: string | null;
	redirects_to: string | null;
	contact_information: ContactInformation[];
}

export type RecordField = keyof DomainRecord;

/** Canonical field names in canonical (document) order. */
export const RECORD_FIELDS: readonly RecordField[] = [
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
];

/** The default selection of the stream endpoint. */
export const DEFAULT_RECORD_FIELDS: readonly RecordField[] = [
	'name',
	'rank',
	'title',
	'meta_description',
	'country_code',
	'language_code',
	'categories',
	'technologies',
	'tld1',
];

/** Aliases accepted in `fields` and the canonical name each stands for. */
export const FIELD_ALIASES: Readonly<Record<string, RecordField>> = {
	domain: 'name',
	tld: 'tld1',
	country: 'country_code',
	language: 'language_code',
};

/** Endpoint names used in the request log and in fault scopes. */
export type EndpointName = 'get' | 'search' | 'bulk' | 'datasets' | 'stream';

export interface Dataset {
	label: string;
	value: string;
}
