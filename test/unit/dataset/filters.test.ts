/**
 * What the Filters and Fields of Dataset → Stream, Dataset → Compare and the trigger accept, over HTTP against
 * the simulator: the Tld1 filter reads a name the way Domain → Get does (the service writes tld1 in lower-case
 * ASCII, IDN labels in punycode), and a refused list names a few of its entries and counts the rest.
 */
import { domainToUnicode } from 'node:url';

import type { INodeParameters } from 'n8n-workflow';

import { runNode, runPoll } from '../../harness/n8n';
import { useSimulator } from '../../harness/simulator';
import { KEYS } from '../../simulator';

const DOMAINS = 2000;
const NEWEST = '2025-06-30';
const sim = useSimulator({ domains: DOMAINS });

function run(operation: 'stream' | 'compare', parameters: INodeParameters) {
	return runNode({
		parameters: { resource: 'dataset', operation, label: 'latest', returnAll: true, ...parameters },
		credentials: { apiKey: KEYS.pro, baseUrl: sim.url },
	});
}

/** A record of the newest snapshot whose registrable domain is an IDN (and that `also` holds), and that domain in Unicode. */
function idnRecord(also = NEWEST) {
	const inAlso = new Set(Array.from({ length: DOMAINS }, (_, position) => sim.index.recordAt(position, also).name));
	for (let position = 0; position < DOMAINS; position++) {
		const record = sim.index.recordAt(position, NEWEST);
		if (record.tld1.startsWith('xn--') && inAlso.has(record.name))
			return { record, unicode: domainToUnicode(record.tld1) };
	}
	throw new Error('The simulator generated no IDN');
}

describe('the Registrable Domains (Tld1) filter', () => {
	it('finds an IDN however it is spelled: in Unicode, in upper case, inside a URL, in punycode', async () => {
		const { record, unicode } = idnRecord();
		expect(unicode).not.toBe(record.tld1);
		const expected = [];
		for (let position = 0; position < DOMAINS; position++) {
			const each = sim.index.recordAt(position, NEWEST);
			if (each.tld1 === record.tld1) expected.push({ name: each.name, label: NEWEST });
		}
		for (const spelling of [
			unicode,
			unicode.toUpperCase(),
			`https://www.${unicode}/x?y=1`,
			record.tld1.toUpperCase(),
		]) {
			const result = await run('stream', { fields: ['name'], filters: { tld1: spelling } });
			expect({ spelling, error: result.error?.message, items: result.items.map((item) => item.json) }).toEqual({
				spelling,
				error: undefined,
				items: expected,
			});
		}
	});

	it('finds it in Dataset → Compare too', async () => {
		sim.addSnapshot('2025-07-07');
		const { record, unicode } = idnRecord('2025-07-07');
		sim.removeSnapshot('2025-07-07');
		sim.addSnapshot('2025-07-07', { records: { [record.name]: { title: 'A new title' } } });
		const result = await run('compare', {
			label: '2025-07-07',
			baseLabel: NEWEST,
			fields: ['title'],
			filters: { tld1: unicode },
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => [item.json.change, item.json.name])).toEqual([['changed', record.name]]);
	});

	it('refuses what is not a domain name before any call, naming it', async () => {
		const result = await run('stream', { filters: { tld1: 'example.com, com, 10.0.0.1' } });
		expect(result.error?.message).toBe(
			'The filter "Registrable Domains (Tld1)" has values that are not domain names: "com", "10.0.0.1"',
		);
		expect(sim.log).toHaveLength(0);
	});
});

describe('a long list refused names a few of its entries and counts the rest', () => {
	const many = (make: (index: number) => string) => Array.from({ length: 200_000 }, (_, index) => make(index));

	it('Fields of 200,000 unknown names, in Stream, Compare and the trigger: no call', async () => {
		const fields = many((index) => `field${index}`);
		const named = '"field0", "field1", "field2", "field3", "field4" and 199,995 more';
		for (const operation of ['stream', 'compare'] as const) {
			const { error } = await run(operation, { fields });
			expect(error?.message).toContain(`Unknown field names ${named}. Allowed: name, rank,`);
			expect(error!.message.length).toBeLessThan(600);
		}
		const trigger = await runPoll({
			parameters: { event: 'newDataset', attachRecords: true, recordCount: 5, fields: fields.join(',') },
			credentials: { apiKey: KEYS.pro, baseUrl: sim.url },
			staticData: {},
		}).then(
			() => undefined,
			(error: Error) => error,
		);
		expect(trigger?.message).toContain(`Unknown field names ${named}.`);
		expect(trigger!.message.length).toBeLessThan(600);
		expect(sim.calls('stream')).toHaveLength(0);
	});

	it.each([
		['countryCodes', 'Country Codes', 'two-letter country codes'],
		['languageCodes', 'Language Codes', 'two-letter language codes'],
		['tld1', 'Registrable Domains (Tld1)', 'domain names'],
	])('the %s filter with 200,000 wrong entries', async (key, name, what) => {
		const { error } = await run('stream', { filters: { [key]: many((index) => `wrong_${index}`).join(',') } });
		expect(error?.message).toBe(
			`The filter "${name}" has values that are not ${what}: "wrong_0", "wrong_1", "wrong_2", "wrong_3", "wrong_4" and 199,995 more`,
		);
		expect(sim.log).toHaveLength(0);
	});
});
