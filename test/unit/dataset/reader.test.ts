/**
 * The shared snapshot reader (`readSnapshot`, also used by the trigger) called directly with a real n8n
 * execute context against the simulator: batches, limits, filters, statistics, and that stopping early
 * closes the connection instead of downloading the rest.
 */
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { createReadStats, readSnapshot } from '../../../nodes/DomainData/helpers/snapshotReader';
import { createExecuteContext } from '../../harness/n8n';
import { useSimulator } from '../../harness/simulator';
import { KEYS, RECORD_FIELDS } from '../../simulator';

const DOMAINS = 20_000;
/** About 1 KB a line: 20 MB in all, far more than sockets buffer, so an early close shows on the server. */
const ALL_FIELDS = [...RECORD_FIELDS];
const NEWEST = '2025-06-30';
const sim = useSimulator({ domains: DOMAINS });

async function context() {
	const { context: ctx } = await createExecuteContext({
		parameters: { resource: 'dataset', operation: 'stream' },
		credentials: { apiKey: KEYS.pro, baseUrl: sim.url },
	});
	return ctx;
}

async function collect(iterable: AsyncIterable<IDataObject[]>) {
	const batches: IDataObject[][] = [];
	for await (const batch of iterable) batches.push(batch);
	return batches;
}

/** Waits (bounded) until the simulator has finished answering the stream request `index`. */
async function streamOutcome(index: number) {
	for (let tries = 0; tries < 200 && sim.calls('stream')[index]?.lines === undefined; tries++) await sleep(10);
	return sim.calls('stream')[index];
}

describe('readSnapshot', () => {
	it('yields batches of batchSize records of the label, and fills in the statistics', async () => {
		const stats = createReadStats();
		const batches = await collect(
			readSnapshot.call(await context(), {
				label: NEWEST,
				fields: ['domain', 'rank'],
				limit: 2500,
				batchSize: 1000,
				stats,
			}),
		);
		expect(batches.map((batch) => batch.length)).toEqual([1000, 1000, 500]);
		expect(batches.flat()).toEqual(
			Array.from({ length: 2500 }, (_, position) => JSON.parse(sim.index.lineAt(position, NEWEST, 'name,rank'))),
		);
		expect(stats).toEqual({
			label: NEWEST,
			requestedFields: ['name', 'rank'],
			lines: 2500,
			records: 2500,
			skippedLines: 0,
			skippedLineNumbers: [],
			reconnects: 0,
			complete: true,
		});
		expect(sim.calls('stream')).toHaveLength(1);
		expect(sim.calls('stream')[0].query).toEqual({ fields: 'name,rank', limit: '2500' });
	});

	it('counts reconnects and skipped lines', async () => {
		sim.setFaults({ streams: [{ dropAfterLines: 1000, malformedLineAt: 10 }] });
		const stats = createReadStats();
		const batches = await collect(
			readSnapshot.call(await context(), { label: NEWEST, fields: ['name'], limit: 3000, onMalformed: 'skip', stats }),
		);
		expect(batches.flat()).toHaveLength(2999);
		expect(stats).toMatchObject({
			lines: 3000,
			records: 2999,
			skippedLines: 1,
			skippedLineNumbers: [10],
			reconnects: 1,
			complete: true,
		});
		expect(sim.calls('stream')).toHaveLength(2);
	});

	it('stops at `limit` matching records and closes the connection instead of reading the rest', async () => {
		const stats = createReadStats();
		const batches = await collect(
			readSnapshot.call(await context(), {
				label: NEWEST,
				fields: ALL_FIELDS,
				limit: 3,
				filter: { maxRank: 1000 },
				stats,
			}),
		);
		expect(batches.flat()).toEqual([0, 1, 2].map((position) => sim.index.recordAt(position, NEWEST)));
		expect(stats.records).toBe(3);
		expect(stats.lines).toBeLessThan(DOMAINS);
		const call = await streamOutcome(0);
		expect(call.query).toEqual({ fields: ALL_FIELDS.join(',') });
		// The simulator stopped writing when the client went away: far from the 20,000 lines.
		expect(call.lines).toBeLessThan(DOMAINS);
	});

	it('closes the connection when the caller stops iterating', async () => {
		const stats = createReadStats();
		for await (const batch of readSnapshot.call(await context(), {
			label: NEWEST,
			fields: ALL_FIELDS,
			batchSize: 100,
			stats,
		})) {
			expect(batch).toHaveLength(100);
			break;
		}
		expect(stats.complete).toBe(false);
		expect((await streamOutcome(0)).lines).toBeLessThan(DOMAINS);
	});

	it('removes fields that only the filter needed', async () => {
		const batches = await collect(
			readSnapshot.call(await context(), {
				label: NEWEST,
				fields: ['name'],
				limit: 5,
				filter: { technologies: ['Shopify', 'WordPress', 'Nginx'] },
			}),
		);
		for (const record of batches.flat()) expect(Object.keys(record)).toEqual(['name']);
		expect(batches.flat()).toHaveLength(5);
	});

	it('hands each line to `wanted` before parsing it: a declined line is read (and resumed past) but is no record', async () => {
		// Declines the lines whose name has an even number of characters, read from the raw text (`{"name":"`
		// comes first); a line without the name's closing quote is wanted, so that the reader judges it.
		const wanted = (text: string, start: number, end: number) => {
			const close = text.indexOf('"', start + 9);
			return close === -1 || close >= end || (close - start - 9) % 2 === 1;
		};
		// Line 7 comes damaged (cut in half) in the first answer; two drops make the reader resume twice.
		sim.setFaults({ streams: [{ dropAfterLines: 1200, malformedLineAt: 7 }, { dropAfterLines: 2500 }] });
		const stats = createReadStats();
		const seen: string[] = [];
		const batches = await collect(
			readSnapshot.call(await context(), {
				label: NEWEST,
				fields: ['name'],
				limit: 2000,
				onMalformed: 'skip',
				wanted: (text, start, end) => {
					seen.push(text.slice(start, end));
					return wanted(text, start, end);
				},
				stats,
			}),
		);
		const lines = Array.from({ length: DOMAINS }, (_, position) => sim.index.lineAt(position, NEWEST, 'name'));
		const expected = lines.filter((line, index) => index !== 6 && wanted(line, 0, line.length)).slice(0, 2000);
		expect(batches.flat()).toEqual(expected.map((line) => JSON.parse(line)));
		// Every line was shown once and in order (none again after the drops), the damaged one as it came.
		expect(seen).toEqual(lines.slice(0, stats.lines).map((line, index) => (index === 6 ? seen[6] : line)));
		expect(seen[6]).toBe(lines[6].slice(0, Math.floor(lines[6].length / 2)));
		expect(stats).toMatchObject({
			records: 2000,
			skippedLines: 1,
			skippedLineNumbers: [7],
			reconnects: 2,
			complete: true,
		});
		expect(sim.calls('stream')).toHaveLength(3);
		// With a selector, the service's `limit` would count declined lines too: it is not sent.
		expect(sim.calls('stream').map((call) => call.query)).toEqual(Array(3).fill({ fields: 'name' }));
	});

	it('refuses unknown fields before any call', async () => {
		await expect(collect(readSnapshot.call(await context(), { label: NEWEST, fields: ['nom'] }))).rejects.toThrow(
			'Unknown field name "nom"',
		);
		expect(sim.log).toHaveLength(0);
	});
});
