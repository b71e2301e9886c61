/**
 * The memory bounds of Dataset → Compare (helpers/compare/refusals.ts): the kept older records, exact across chunks
 * and bounded in bytes, and the domains of a snapshot. The data structure with a small bound; the three passes over
 * HTTP with lowered bounds passed in (CompareSpec's `bounds`; the node's are COMPARE_LIMITS).
 */
import type { CompareSpec, DomainChange } from '../../../nodes/DomainData/helpers/compare';
import { CHANGE_KINDS, compareSnapshots } from '../../../nodes/DomainData/helpers/compare';
import { KeptRecords } from '../../../nodes/DomainData/helpers/compare/domainTable';
import { COMPARE_LIMITS, type CompareLimits } from '../../../nodes/DomainData/helpers/compare/refusals';
import { createExecuteContext } from '../../harness/n8n';
import { startLocalService } from '../../harness/localService';

const NEW = '2025-06-30';
const OLD = '2025-06-23';
const MB = 1024 * 1024;

describe('KeptRecords', () => {
	it('keeps every record exactly across its chunks, through deletes and compaction', () => {
		const tooLarge = () => new Error('too large');
		const kept = new KeptRecords(5000, { maxBytes: 1 << 30, tooLarge });
		const json = (ordinal: number) =>
			JSON.stringify({ name: `site-${ordinal}.example`, title: 'x'.repeat(1000 + (ordinal % 2000)) });
		for (let ordinal = 0; ordinal < 5000; ordinal++) kept.set(ordinal, json(ordinal));
		expect(kept.size).toBe(5000);
		// About 10 MB of records: ten chunks and more.
		expect(kept.byteLength).toBeGreaterThanOrEqual(10 * MB);
		for (let ordinal = 0; ordinal < 5000; ordinal++) expect(kept.get(ordinal)).toBe(json(ordinal));
		for (let ordinal = 0; ordinal < 5000; ordinal += 2) kept.delete(ordinal);
		kept.compact();
		expect(kept.ordinals()).toHaveLength(2500);
		for (let ordinal = 1; ordinal < 5000; ordinal += 2) expect(kept.get(ordinal)).toBe(json(ordinal));
	});

	it("refuses with the owner's error past its bound in bytes, and keeps what it held", () => {
		const kept = new KeptRecords(1000, { maxBytes: 3 * MB, tooLarge: () => new Error('kept too much') });
		const record = JSON.stringify({ name: 'a.example', title: 'y'.repeat(40_000) });
		let stored = 0;
		expect(() => {
			for (; stored < 1000; stored++) kept.set(stored, record);
		}).toThrow('kept too much');
		expect(kept.byteLength).toBeLessThanOrEqual(3 * MB);
		expect(stored).toBeGreaterThanOrEqual(4);
		for (let ordinal = 0; ordinal < stored; ordinal++) expect(kept.get(ordinal)).toBe(record);
	});
});

/**
 * Compare of NEW with OLD (every change, the title compared, no memory guard: as for the File output) against a local
 * service serving `newer` and `older` (lines), within `bounds`: the changes, and the error that stopped it.
 */
async function compare(newer: string[], older: string[], bounds: CompareLimits = COMPARE_LIMITS) {
	const service = await startLocalService((request) => {
		if (request.path === '/historical/domain') {
			return { body: { datasets: [NEW, OLD].map((label) => ({ label, value: `snap-${label}` })) } };
		}
		const lines = request.path === `/historical/domain/${OLD}` ? older : newer;
		return { body: lines.join('\n') + '\n' };
	});
	const changes: DomainChange[] = [];
	try {
		const { context } = await createExecuteContext({
			parameters: { resource: 'dataset', operation: 'compare' },
			credentials: { apiKey: 'local-test-key', baseUrl: service.url },
		});
		const spec: CompareSpec = {
			label: NEW,
			baseLabel: OLD,
			fields: ['title'],
			kinds: new Set(CHANGE_KINDS),
			minRankMove: 1,
			itemIndex: 0,
			bounds,
		};
		for await (const change of compareSnapshots.call(context, spec)) changes.push(change);
		return { changes, error: undefined };
	} catch (error) {
		return { changes, error: error as Error & { description?: string } };
	} finally {
		await service.close();
	}
}

const snapshot = (count: number, title: (index: number) => string) =>
	Array.from({ length: count }, (_, index) => JSON.stringify({ name: `site-${index}.example`, title: title(index) }));

describe('Compare over HTTP with its bounds lowered', () => {
	it('refuses to keep more older records than its bound in bytes, without a memory guard (the File output)', async () => {
		const older = snapshot(3000, (index) => `old ${index} ${'o'.repeat(1000)}`);
		const newer = snapshot(3000, (index) => `new ${index}`);
		const result = await compare(newer, older, { ...COMPARE_LIMITS, maxKeptBytes: 2 * MB });
		expect(result.error?.message).toBe(
			`The comparison of "${NEW}" with "${OLD}" needs to keep more than 2 MB of older records for its changes`,
		);
		expect(result.error?.description).toContain('Compare fewer fields, add filters, set a Limit');
		const fits = await compare(newer, older);
		expect(fits.error).toBeUndefined();
		expect(fits.changes.filter((change) => change.change === 'changed')).toHaveLength(3000);
	});

	it('refuses a snapshot with more domains than its bound, on either side, naming the number', async () => {
		const bounds = { ...COMPARE_LIMITS, maxDomains: 1000 };
		const big = snapshot(1001, (index) => `t${index}`);
		const small = snapshot(10, (index) => `t${index}`);
		const newer = await compare(big, small, bounds);
		expect(newer.error?.message).toBe(
			`The dataset "${NEW}" has more than 1,000 records, more than Dataset → Compare can hold`,
		);
		expect(newer.error?.description).toContain('use Dataset → Stream with the File or Sub-Workflow output');
		const older = await compare(small, big, bounds);
		expect(older.error?.message).toBe(
			`The dataset "${OLD}" has more than 1,000 records, more than Dataset → Compare can hold`,
		);
		const fits = await compare(snapshot(1000, String), small, bounds);
		expect(fits.error).toBeUndefined();
	});
});
