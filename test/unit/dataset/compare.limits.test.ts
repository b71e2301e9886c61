/**
 * The memory bounds of Dataset → Compare (helpers/compare/refusals.ts): the kept older records, exact past 2,048
 * chunks and bounded in bytes, and the domains of a snapshot. The data structure with small chunks and a small
 * bound; the operation over HTTP with the bounds lowered (restored after each test).
 */
import type { INodeParameters } from 'n8n-workflow';

import { KeptRecords } from '../../../nodes/DomainData/helpers/compare/domainTable';
import { COMPARE_LIMITS } from '../../../nodes/DomainData/helpers/compare/refusals';
import { runNode } from '../../harness/n8n';
import { startLocalService } from '../../harness/localService';

const NEW = '2025-06-30';
const OLD = '2025-06-23';
const defaults = { ...COMPARE_LIMITS };
afterEach(() => Object.assign(COMPARE_LIMITS, defaults));

describe('KeptRecords', () => {
	it('keeps every record exactly across more than 2,048 chunks (a chunk index is no longer shifted into 32 bits)', () => {
		const tooLarge = () => new Error('too large');
		const kept = new KeptRecords(5000, { maxBytes: 1 << 30, tooLarge, chunkBytes: 64 });
		const json = (ordinal: number) =>
			JSON.stringify({ name: `site-${ordinal}.example`, title: 'x'.repeat(ordinal % 50) });
		for (let ordinal = 0; ordinal < 5000; ordinal++) kept.set(ordinal, json(ordinal));
		expect(kept.size).toBe(5000);
		for (let ordinal = 0; ordinal < 5000; ordinal++) expect(kept.get(ordinal)).toBe(json(ordinal));
		for (let ordinal = 0; ordinal < 5000; ordinal += 2) kept.delete(ordinal);
		kept.compact();
		expect(kept.ordinals()).toHaveLength(2500);
		for (let ordinal = 1; ordinal < 5000; ordinal += 2) expect(kept.get(ordinal)).toBe(json(ordinal));
	});

	it("refuses with the owner's error past its bound in bytes, and keeps what it held", () => {
		const kept = new KeptRecords(100, { maxBytes: 1024, tooLarge: () => new Error('kept too much'), chunkBytes: 256 });
		const record = JSON.stringify({ name: 'a.example', title: 'y'.repeat(40) });
		let stored = 0;
		expect(() => {
			for (; stored < 100; stored++) kept.set(stored, record);
		}).toThrow('kept too much');
		expect(kept.byteLength).toBeLessThanOrEqual(1024);
		expect(stored).toBeGreaterThanOrEqual(4);
		for (let ordinal = 0; ordinal < stored; ordinal++) expect(kept.get(ordinal)).toBe(record);
	});
});

/** Compare of NEW with OLD against a local service serving `newer` and `older` (lines). */
async function compare(newer: string[], older: string[], parameters: INodeParameters = {}) {
	const service = await startLocalService((request) => {
		if (request.path === '/historical/domain') {
			return { body: { datasets: [NEW, OLD].map((label) => ({ label, value: `snap-${label}` })) } };
		}
		const lines = request.path === `/historical/domain/${OLD}` ? older : newer;
		return { body: lines.join('\n') + '\n' };
	});
	try {
		return await runNode({
			parameters: {
				resource: 'dataset',
				operation: 'compare',
				label: NEW,
				baseLabel: OLD,
				fields: ['title'],
				returnAll: true,
				...parameters,
			},
			credentials: { apiKey: 'local-test-key', baseUrl: service.url },
		});
	} finally {
		await service.close();
	}
}

const snapshot = (count: number, title: (index: number) => string) =>
	Array.from({ length: count }, (_, index) => JSON.stringify({ name: `site-${index}.example`, title: title(index) }));

describe('Compare over HTTP with its bounds lowered', () => {
	it('refuses to keep more older records than its bound in bytes, with the File output too', async () => {
		COMPARE_LIMITS.maxKeptBytes = 2 * 1024 * 1024;
		const older = snapshot(3000, (index) => `old ${index} ${'o'.repeat(1000)}`);
		const newer = snapshot(3000, (index) => `new ${index}`);
		const result = await compare(newer, older, { output: 'file' });
		expect(result.error?.message).toBe(
			`The comparison of "${NEW}" with "${OLD}" needs to keep more than 2 MB of older records for its changes`,
		);
		expect(result.error?.description).toContain('Compare fewer fields, add filters, set a Limit');
		COMPARE_LIMITS.maxKeptBytes = defaults.maxKeptBytes;
		const fits = await compare(newer, older, { output: 'file' });
		expect(fits.error).toBeUndefined();
		expect(fits.items[0].json).toMatchObject({ changed: 3000 });
	});

	it('refuses a snapshot with more domains than its bound, on either side, naming the number', async () => {
		COMPARE_LIMITS.maxDomains = 1000;
		const big = snapshot(1001, (index) => `t${index}`);
		const small = snapshot(10, (index) => `t${index}`);
		const newer = await compare(big, small);
		expect(newer.error?.message).toBe(
			`The dataset "${NEW}" has more than 1,000 records, more than Dataset → Compare can hold`,
		);
		expect(newer.error?.description).toContain('use Dataset → Stream with the File or Sub-Workflow output');
		const older = await compare(small, big);
		expect(older.error?.message).toBe(
			`The dataset "${OLD}" has more than 1,000 records, more than Dataset → Compare can hold`,
		);
		const fits = await compare(snapshot(1000, String), small);
		expect(fits.error).toBeUndefined();
	});
});
