/**
 * What the AI Agent and the MCP tests ask the examples' tools beyond one call each, found in the simulator's data: a
 * domain whose only change between two snapshots is its rank, and the German Shopify shops a snapshot holds.
 */
import { TOOL_MAX_RECORDS } from '../../nodes/DomainData/actions/tool/answer';
import { bruteForce, rawSnapshot, type Record_ } from '../harness/bruteForceDiff';

/** What Compare compares when its Fields are left as they are (the examples' Compare Snapshots tool). */
export const DEFAULT_COMPARED = ['title', 'country_code', 'language_code', 'categories', 'technologies'];

/** The question whose guess is a search by country, which the search refuses with advice to follow. */
export const COUNTRY_GUESS = {
	question: 'Search for websites in country DE that use Shopify, ranked under 10,000',
	search: { filters: '{"country":"DE","technology":"Shopify","maxRank":10000}' },
	advised: { label: 'latest', countryCodes: 'DE', languageCodes: '', technologies: 'Shopify', maxRank: '10000' },
};

/** A domain in both snapshots whose compared fields are the same and whose rank moved: its name and both ranks. */
export async function rankOnlyChange(simUrl: string, label: string, baseLabel: string) {
	const newer = await rawSnapshot(simUrl, label);
	const older = new Map((await rawSnapshot(simUrl, baseLabel)).map((record) => [record.name, record]));
	const labels = { label, baseLabel };
	const changed = new Set(
		bruteForce(newer, [...older.values()], labels, { fields: DEFAULT_COMPARED }).map((c) => c.name),
	);
	const record = newer.find(
		({ name, rank }) => older.has(name) && !changed.has(name) && older.get(name)!.rank !== rank,
	);
	if (!record) throw new Error(`no domain whose only change is its rank between "${baseLabel}" and "${label}"`);
	return { name: record.name, rank: record.rank as number, baseRank: older.get(record.name)!.rank as number };
}

/**
 * The snapshot tool's answer to German Shopify shops ranked under 10,000: the first such records of the snapshot, in
 * its order, as many as an answer holds, every one DE; the snapshot named. Returns the records and how many exist.
 */
export async function expectGermanShopifyShops(simUrl: string, label: string, item: Record<string, unknown>) {
	const expected = (await rawSnapshot(simUrl, label)).filter(
		(record) =>
			record.country_code === 'DE' &&
			(record.technologies as string[] | undefined)?.includes('Shopify') &&
			(record.rank as number) <= 10_000,
	);
	expect(expected.length).toBeGreaterThan(0);
	const records = item.records as Record_[];
	expect(records.length).toBe(Math.min(expected.length, TOOL_MAX_RECORDS));
	expect(records.map((record) => record.name)).toEqual(expected.slice(0, records.length).map((r) => r.name));
	for (const record of records) expect(record.country_code).toBe('DE');
	expect(item.summary).toContain(`shown of the snapshot "${label}"`);
	return { records, matching: expected.length };
}

/** Compare's answer for a domain whose only change is rank: no change, the fields compared, rank not, both named. */
export function expectRankNotCompared(item: Record<string, unknown>, label: string, baseLabel: string): string {
	expect(item).toMatchObject({ label, baseLabel, changes: [] });
	const summary = String(item.summary);
	expect(summary).toContain(`No change found in ${DEFAULT_COMPARED.slice(0, -1).join(', ')} and technologies`);
	expect(summary).toContain(`between "${label}" and the older "${baseLabel}"`);
	expect(summary).toContain('Rank was not compared');
	return summary;
}
