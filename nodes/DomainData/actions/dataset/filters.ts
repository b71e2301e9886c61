/** The Filters collection of Dataset → Stream and Dataset → Compare (parsed by helpers/recordFilter.ts). */
import type { INodeProperties } from 'n8n-workflow';

/** `description` says what the filters do in the operation. */
export function filtersProperty(description: string): INodeProperties {
	return {
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		description,
		options: [
			{
				displayName: 'Category Prefix',
				name: 'categoryPrefix',
				type: 'string',
				default: '',
				placeholder: '/Shopping',
				description:
					'Keep records with a category that starts with this text (case-insensitive), e.g. /Shopping matches ' +
					'/Shopping/Apparel. Several prefixes: one per line.',
			},
			{
				displayName: 'Country Codes',
				name: 'countryCodes',
				type: 'string',
				default: '',
				placeholder: 'DE, AT, CH',
				description: 'Keep records whose country_code is one of these ISO 3166-1 alpha-2 codes',
			},
			{
				displayName: 'Language Codes',
				name: 'languageCodes',
				type: 'string',
				default: '',
				placeholder: 'de, en',
				description: 'Keep records whose language_code is one of these ISO 639-1 codes',
			},
			{
				displayName: 'Max Rank',
				name: 'maxRank',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 1000,
				description: 'Keep records with a rank up to this number (1 is the highest traffic)',
			},
			{
				displayName: 'Registrable Domains (Tld1)',
				name: 'tld1',
				type: 'string',
				default: '',
				placeholder: 'example.com, example.co.uk',
				description:
					'Keep records whose tld1 is one of these (a domain and all its subdomains); names in Unicode ' +
					'(münchen.de) and URLs work too',
			},
			{
				displayName: 'Technologies',
				name: 'technologies',
				type: 'string',
				default: '',
				placeholder: 'Shopify, WooCommerce',
				description: 'Keep records that use at least one of these technologies (comma-separated, case-insensitive)',
			},
		],
	};
}
