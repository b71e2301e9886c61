/** The parameters that Dataset → Stream and Dataset → Compare read alike: label, fields, limit, filters. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { operationError } from '../../errors';
import { hasCriteria, parseRecordFilter, type RecordFilterParameters } from '../../helpers/recordFilter';
import { selectedFields, type SnapshotField } from '../../helpers/snapshotFields';
import { splitDomainList } from '../../helpers/domainName';
import { readCallLimits, readLimit } from '../common';
import type { ToolBounds } from '../perItem';

/** The `label` dropdown ("Latest" and the dated labels); `role` says which snapshot it is. */
export function datasetLabelProperty(role: string): INodeProperties {
	return {
		displayName: 'Dataset Name or ID',
		name: 'label',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getDatasetLabels' },
		default: '',
		required: true,
		// n8n's lint wants this exact description on a list from load options; what the field means is the hint.
		description:
			'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
		hint: `${role} "Latest" is resolved to the newest date label when the node runs, and that exact snapshot is read.`,
	};
}

/** The Filters collection (parsed by helpers/recordFilter.ts); `description` says what they do in the operation. */
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
				displayName: 'Domains',
				name: 'domains',
				type: 'string',
				typeOptions: { rows: 4 },
				default: '',
				placeholder: 'acme.com, https://www.globex.io/about, jane@initech.com',
				description:
					'Keep only the records of these domains: names, URLs or email addresses, read as Domain → Get reads ' +
					'them (case, "www.", Unicode names), separated by commas, spaces or new lines, or an array from an ' +
					'expression. No cap on their number: each name takes about 20 bytes plus its length (a million ' +
					'tested); records of other domains are not even parsed. Entries that are not a domain are left out ' +
					'and reported in the output (blank ones ignored), as are listed domains that no snapshot holds.',
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

/** Filters without a Domains filter that names nothing: a model that leaves it empty means every domain. */
function withoutEmptyDomains(filters: RecordFilterParameters): RecordFilterParameters {
	if (!filters || typeof filters !== 'object' || !('domains' in filters)) return filters;
	if (splitDomainList(filters.domains).length > 0) return filters;
	const { domains: _, ...others } = filters;
	return others;
}

/**
 * Reads and checks label, fields, Return All / Limit, filters and the read `options` of one item; within a tool's
 * bounds (`tool`), where an empty Domains filter means every domain.
 */
export function readSelectionParameters(
	this: IExecuteFunctions,
	itemIndex: number,
	defaultFields: SnapshotField[],
	options: IDataObject,
	tool?: ToolBounds,
) {
	const node = this.getNode();
	const label = String(this.getNodeParameter('label', itemIndex, '') ?? '').trim();
	if (!label) {
		throw operationError(node, 'The parameter "Dataset Name or ID" is empty', {
			itemIndex,
			description: 'Choose "Latest" or a date label (YYYY-MM-DD) from the list, or give one with an expression.',
		});
	}
	const fields = selectedFields(this.getNodeParameter('fields', itemIndex, defaultFields), defaultFields);
	if (!fields.ok) throw operationError(node, `The parameter "Fields" is not valid: ${fields.message}`, { itemIndex });
	const limit = readLimit.call(this, itemIndex, tool);
	const asSet = this.getNodeParameter('filters', itemIndex, {}) as RecordFilterParameters;
	const filterParameters = tool ? withoutEmptyDomains(asSet) : asSet;
	const filter = parseRecordFilter(node, filterParameters, itemIndex);
	return {
		label,
		fields: fields.fields,
		limit,
		filter: hasCriteria(filter) ? filter : undefined,
		limits: readCallLimits(node, options, itemIndex, true),
	};
}
