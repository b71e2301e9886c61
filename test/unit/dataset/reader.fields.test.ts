/**
 * Field names and record filters of the snapshot reader, on their own (no HTTP): the parts that decide
 * what is asked from the service and what is kept.
 */
import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	compileRecordFilter,
	fieldsReadBy,
	hasCriteria,
	parseRecordFilter,
} from '../../../nodes/DomainData/helpers/recordFilter';
import {
	DEFAULT_SNAPSHOT_FIELDS,
	SNAPSHOT_FIELDS,
	toCanonicalFields,
	withFields,
} from '../../../nodes/DomainData/helpers/snapshotFields';
import { DEFAULT_RECORD_FIELDS, FIELD_ALIASES, RECORD_FIELDS } from '../../simulator';

const node = { name: 'Domain Data', type: 'n8n-nodes-domain-data.domainData' } as INode;

describe('snapshot fields', () => {
	it('are the 17 names of the interface document, with its default selection and aliases', () => {
		// The simulator encodes the interface document; the node must agree with it.
		expect([...SNAPSHOT_FIELDS]).toEqual([...RECORD_FIELDS]);
		expect(DEFAULT_SNAPSHOT_FIELDS).toEqual([...DEFAULT_RECORD_FIELDS]);
		expect(SNAPSHOT_FIELDS).toHaveLength(17);
		for (const [alias, canonical] of Object.entries(FIELD_ALIASES)) {
			expect(toCanonicalFields([alias])).toEqual({ ok: true, fields: [canonical] });
		}
	});

	it('accept an array or a comma-separated string, map aliases, collapse duplicates and sort in the service order', () => {
		expect(toCanonicalFields('tld, domain , rank,name,country,language')).toEqual({
			ok: true,
			fields: ['name', 'rank', 'country_code', 'language_code', 'tld1'],
		});
		expect(toCanonicalFields(['contact_information', 'Name'])).toEqual({
			ok: true,
			fields: ['name', 'contact_information'],
		});
	});

	it('refuse unknown names, naming them and every allowed name', () => {
		const result = toCanonicalFields('name, ranking, titel');
		expect(result.ok).toBe(false);
		if (result.ok) return;
		expect(result.unknown).toEqual(['ranking', 'titel']);
		expect(result.message).toContain('"ranking", "titel"');
		for (const field of SNAPSHOT_FIELDS) expect(result.message).toContain(field);
		expect(result.message).toContain('domain = name');
	});

	it("refuse the names of an object's own properties, which no field or alias is", () => {
		for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
			expect(toCanonicalFields(`name, ${name}`)).toMatchObject({ ok: false, unknown: [name] });
		}
	});

	it('refuse an empty selection', () => {
		expect(toCanonicalFields([]).ok).toBe(false);
		expect(toCanonicalFields(' , ').ok).toBe(false);
	});

	it('add the fields a filter needs in the service order', () => {
		expect(withFields(['title', 'name'], ['rank', 'name'])).toEqual(['name', 'rank', 'title']);
	});
});

describe('record filters', () => {
	const record = {
		name: 'shop.example.de',
		rank: 120,
		country_code: 'DE',
		language_code: 'de',
		technologies: ['Shopify', 'Google Analytics'],
		categories: ['/Shopping', '/Shopping/Apparel'],
		tld1: 'example.de',
	};

	it('match when every criterion that is set matches (lists: any of)', () => {
		const match = (filter: Parameters<typeof compileRecordFilter>[0]) => compileRecordFilter(filter)!(record);
		expect(match({ maxRank: 120 })).toBe(true);
		expect(match({ maxRank: 119 })).toBe(false);
		expect(match({ countryCodes: ['AT', 'DE'] })).toBe(true);
		expect(match({ countryCodes: ['AT'] })).toBe(false);
		expect(match({ languageCodes: ['DE'] })).toBe(true);
		expect(match({ technologies: ['woocommerce', 'shopify'] })).toBe(true);
		expect(match({ technologies: ['WooCommerce'] })).toBe(false);
		expect(match({ categoryPrefixes: ['/shopping/app'] })).toBe(true);
		expect(match({ categoryPrefixes: ['/Arts'] })).toBe(false);
		expect(match({ tld1: ['EXAMPLE.de'] })).toBe(true);
		expect(match({ maxRank: 1000, countryCodes: ['DE'], technologies: ['Shopify'] })).toBe(true);
		expect(match({ maxRank: 1000, countryCodes: ['DE'], technologies: ['Wix'] })).toBe(false);
	});

	it('never match records that lack the field', () => {
		const test = compileRecordFilter({ technologies: ['Shopify'], maxRank: 10 })!;
		expect(test({ name: 'x.com' })).toBe(false);
		expect(compileRecordFilter({ categoryPrefixes: ['/S'] })!({ categories: null })).toBe(false);
	});

	it('compile to nothing without criteria', () => {
		expect(compileRecordFilter({})).toBeUndefined();
		expect(hasCriteria({})).toBe(false);
		expect(fieldsReadBy({ maxRank: 3, technologies: ['x'] }).sort()).toEqual(['rank', 'technologies']);
	});

	it('read the editor collection: lists from text or arrays, codes normalised, category prefixes get their slash', () => {
		expect(
			parseRecordFilter(
				node,
				{
					maxRank: 500,
					countryCodes: 'de, at;ch',
					languageCodes: ['DE', 'en'],
					technologies: 'Shopify, Google Analytics',
					categoryPrefix: 'Shopping',
					tld1: ' example.com  .example.org. ',
				},
				0,
			),
		).toEqual({
			maxRank: 500,
			countryCodes: ['DE', 'AT', 'CH'],
			languageCodes: ['de', 'en'],
			technologies: ['Shopify', 'Google Analytics'],
			categoryPrefixes: ['/Shopping'],
			tld1: ['example.com', 'example.org'],
		});
		expect(parseRecordFilter(node, { countryCodes: '', technologies: ' , ' }, 0)).toEqual({});
	});

	it('refuse values that cannot match, naming the filter and what to type', () => {
		const attempt = (parameters: Parameters<typeof parseRecordFilter>[1]) => () =>
			parseRecordFilter(node, parameters, 2);
		expect(attempt({ countryCodes: 'Germany, DE' })).toThrow(NodeOperationError);
		expect(attempt({ countryCodes: 'Germany, DE' })).toThrow(
			'"Country Codes" has values that are not two-letter country codes: "Germany"',
		);
		expect(attempt({ languageCodes: 'deu' })).toThrow('"Language Codes"');
		expect(attempt({ maxRank: 0 })).toThrow('"Max Rank" must be a whole number of 1 or more');
		expect(attempt({ maxRank: 2.5 })).toThrow('"Max Rank"');
	});
});
