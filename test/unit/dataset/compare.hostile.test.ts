/**
 * Dataset → Compare against a hostile local service (test/harness/localService.ts) over HTTP: a second read of
 * the newer snapshot that differs from the first, malformed lines read with "Skip and Count", ranks a 32-bit
 * integer cannot hold, a name listed twice in the older snapshot only, and a "Changes" list of many bad values.
 * Each answer is either the exact diff or a clear error, never a silently wrong one.
 */
import type { INodeParameters } from 'n8n-workflow';

import { DomainData } from '../../../nodes/DomainData/DomainData.node';
import { createExecuteContext, readBinary } from '../../harness/n8n';
import { startLocalService } from '../../harness/localService';
import { withBinaryDataInMemory } from './compareSupport';

// The second read exists with binary data in memory only (elsewhere pass 1 is spooled: compare.spool.test.ts).
withBinaryDataInMemory();

const NEW = '2025-06-30';
const OLD = '2025-06-23';
const line = (record: object) => JSON.stringify(record);

interface Snapshots {
	newer: string[];
	older: string[];
	/** The newer snapshot's lines on its second request (default: the same as the first). */
	second?: string[];
}

/** Runs Compare of NEW with OLD against a local service that serves `snapshots`; returns items, error, hints. */
async function compare(snapshots: Snapshots, parameters: INodeParameters = {}) {
	let newerRequests = 0;
	const service = await startLocalService((request) => {
		if (request.path === '/historical/domain') {
			return { body: { datasets: [NEW, OLD].map((label) => ({ label, value: `snap-${label}` })) } };
		}
		if (request.path === `/historical/domain/${OLD}`) return { body: snapshots.older.join('\n') + '\n' };
		newerRequests++;
		const lines = newerRequests === 2 && snapshots.second ? snapshots.second : snapshots.newer;
		return { body: lines.join('\n') + '\n' };
	});
	try {
		const { context } = await createExecuteContext({
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
		const hints = () => (context as unknown as { hints: Array<{ message: string }> }).hints.map((hint) => hint.message);
		try {
			const [items] = await new DomainData().execute.call(context);
			return { items, json: items.map((item) => item.json), hints: hints(), error: undefined, newerRequests };
		} catch (error) {
			return { items: [], json: [], hints: hints(), error: error as Error & { description?: string }, newerRequests };
		}
	} finally {
		await service.close();
	}
}

/** Lines `{ name, title }` from `name:title` entries. */
const snapshotOf = (entries: string[]) =>
	entries.map((entry) => {
		const [name, title] = entry.split(':');
		return line({ name, title });
	});
const newer = snapshotOf(['a.com:A2', 'b.com:B', 'c.com:C2', 'n.com:N', 'z.com:Z']);
const older = snapshotOf(['gone.com:G', 'a.com:A1', 'b.com:B', 'c.com:C1', 'z.com:Z']);

describe('Compare checks the second read of the newer snapshot against the first', () => {
	const differently = `The service sent the dataset "${NEW}" differently on the second read`;

	it('gives the exact diff when both reads agree', async () => {
		const result = await compare({ newer, older });
		expect(result.error).toBeUndefined();
		expect(result.json.map((change) => `${change.change as string} ${change.name as string}`)).toEqual([
			'removed gone.com',
			'changed a.com',
			'changed c.com',
			'added n.com',
		]);
	});

	it('a changed record left out of the second read is an error, not a lost change', async () => {
		const result = await compare({ newer, older, second: newer.filter((text) => !text.includes('c.com')) });
		expect(result.error?.message).toBe(`${differently}: 1 record of the first read was not in it`);
		expect(result.error?.description).toContain('Run the node again');
		expect(result.error?.constructor.name).toBe('NodeApiError');
	});

	it('a second read that ends early (before a domain new to the index) is an error', async () => {
		const result = await compare({ newer, older, second: newer.slice(0, 3) });
		expect(result.error?.message).toBe(`${differently}: 1 record of the first read was not in it`);
	});

	it('a record with another value on the second read is an error, not a change with no difference', async () => {
		const second = [...newer];
		second[0] = line({ name: 'a.com', title: 'A1' });
		const result = await compare({ newer, older, second });
		expect(result.error?.message).toBe(`${differently}: "a.com" has other values`);
	});

	it("a second read that goes on past the first one's end is stopped there, not read to its end", async () => {
		const filler = Array.from({ length: 50_000 }, (_, index) => line({ name: `filler-${index}.com`, title: 'F' }));
		const result = await compare({ newer, older, second: [...newer, ...filler] });
		expect(result.error?.message).toBe(`${differently}: more than the 5 lines of the first read`);
	});

	it('a record the first read did not have, in another shape, is an error', async () => {
		const second = [...newer];
		second[3] = '{ "title": "N", "name": "other.com" }';
		const result = await compare({ newer, older, second });
		expect(result.error?.message).toBe(`${differently}: it holds "other.com", which it did not`);
	});
});

describe('With On Malformed Line = Skip, a skipped line leaves its domain out of the diff (unknown, not gone)', () => {
	const skip = { options: { onMalformedLine: 'skip' } };

	it('a skipped line of the newer snapshot: its domain is not "removed"', async () => {
		const damaged = [...newer];
		damaged[1] = '{"name":"b.com","ti';
		const result = await compare({ newer: damaged, older }, skip);
		expect(result.error).toBeUndefined();
		expect(result.json.map((change) => change.name)).toEqual(['gone.com', 'a.com', 'c.com', 'n.com']);
		expect(result.hints).toContain(
			'Left out 1 domain whose line could not be read (skipped as malformed): unknown, neither added nor removed',
		);
	});

	it('a skipped line of the older snapshot: its domain is not "added", also with the name in another shape', async () => {
		const damaged = [...older];
		damaged[3] = '{ "title": "C1", "name" : "c.com", }';
		const extra = [...newer, line({ name: 'm.com', title: 'M' })];
		const result = await compare({ newer: extra, older: [...damaged, '{"name":"m.com","title":"M",'] }, skip);
		expect(result.error).toBeUndefined();
		expect(result.json.map((change) => change.name)).toEqual(['gone.com', 'a.com', 'n.com']);
		expect(result.hints[result.hints.length - 1]).toMatch(/^Left out 2 domains whose lines could not be read/);
	});

	it('a skipped line without a readable name is said, and counted in the File summary', async () => {
		const damaged = [...older];
		damaged[2] = '{"title":"B","nam';
		const result = await compare({ newer, older: damaged }, { ...skip, output: 'file' });
		expect(result.error).toBeUndefined();
		expect(result.json[0]).toMatchObject({ added: 2, removed: 1, changed: 2, unreadableDomains: 0, namelessLines: 1 });
		const names = (await readBinary(result.items[0]))
			.toString('utf8')
			.trim()
			.split('\n')
			.map((text) => JSON.parse(text).name);
		expect(names).toEqual(['gone.com', 'a.com', 'b.com', 'c.com', 'n.com']);
		expect(result.hints).toContain(
			'1 skipped line has no readable domain name: a domain of such a line may show as added or removed',
		);
	});
});

describe('With Skip and Count, a needed line malformed only on the second read', () => {
	const skip = { options: { onMalformedLine: 'skip' } };
	const second = [...newer];
	second[2] = '{"title":"C2"'; // c.com changed; the line now holds no readable name

	it('leaves its domain out, unknown, and says so', async () => {
		const result = await compare({ newer, older, second }, skip);
		expect(result.error).toBeUndefined();
		expect(result.json.map((change) => change.name)).toEqual(['gone.com', 'a.com', 'n.com']);
		expect(result.hints.slice(-2)).toEqual([
			'Left out 1 domain whose line could not be read (skipped as malformed): unknown, neither added nor removed',
			'1 skipped line has no readable domain name: a domain of such a line may show as added or removed',
		]);
	});

	it('but a second read with another number of lines is an error', async () => {
		const result = await compare({ newer, older, second: [...second, line({ name: 'late.com', title: 'L' })] }, skip);
		expect(result.error?.message).toBe(
			`The service sent the dataset "${NEW}" differently on the second read: more than the 5 lines of the first read`,
		);
	});
});

describe('Rank is compared exactly', () => {
	it('the same rank beyond 2^31, or a fractional one, is no change; a rank that appears is one', async () => {
		const ranks = (values: Array<number | null>) =>
			values.map((rank, index) => line({ name: `r${index}.com`, ...(rank === null ? {} : { rank }) }));
		const result = await compare(
			{ newer: ranks([3_000_000_000, 2.5, 7, -1]), older: ranks([3_000_000_000, 3.4, 7, null]) },
			{ fields: ['rank'] },
		);
		expect(result.error).toBeUndefined();
		expect(result.json).toEqual([
			expect.objectContaining({ change: 'changed', name: 'r3.com', changes: { rank: { from: null, to: -1 } } }),
		]);
	});
});

describe('A name listed twice is refused on either side', () => {
	it('twice in the older snapshot only (gone from the newer)', async () => {
		const result = await compare({ newer, older: [...older, line({ name: 'gone.com', title: 'G' })] });
		expect(result.error?.message).toBe(`The dataset "${OLD}" lists the domain "gone.com" more than once`);
	});

	it('twice in the newer snapshot, and twice in both', async () => {
		const twice = [...newer, line({ name: 'a.com', title: 'A2' })];
		const result = await compare({ newer: twice, older });
		expect(result.error?.message).toBe(`The dataset "${NEW}" lists 1 domain name more than once`);
		expect(result.error?.description).toContain('each name must occur once in each snapshot');
		const both = await compare({ newer, older: [...older, line({ name: 'a.com', title: 'A1' })] });
		expect(both.error?.message).toBe(`The dataset "${OLD}" lists the domain "a.com" more than once`);
	});

	it('twice in the older snapshot, both times byte for byte as the newer one has it', async () => {
		const result = await compare({ newer, older: [...older, line({ name: 'b.com', title: 'B' })] });
		expect(result.error?.message).toBe(`The dataset "${OLD}" lists the domain "b.com" more than once`);
	});
});

describe('Lines of the older snapshot that are the newer ones byte for byte are known without parsing', () => {
	it('the same values in another shape (key order, spaces) are no change, other values are', async () => {
		const reshaped = [
			'{"title":"B","name":"b.com"}',
			'{ "name": "z.com", "title": "Z" }',
			line({ name: 'c.com', title: 'C1' }),
		];
		const result = await compare({ newer, older: [...snapshotOf(['gone.com:G', 'a.com:A1']), ...reshaped] });
		expect(result.error).toBeUndefined();
		const changes = result.json.map((change) => `${change.change} ${change.name}`);
		expect(changes).toEqual(['removed gone.com', 'changed a.com', 'changed c.com', 'added n.com']);
	});
});

describe('The "Changes" parameter', () => {
	it('names a few unknown values and counts the rest', async () => {
		const result = await compare({ newer, older }, { changes: '={{ "added, v1, v2, v3, v4, v5, v6, v7" }}' });
		expect(result.error?.message).toBe(
			'The parameter "Changes" has unknown values: "v1", "v2", "v3", "v4", "v5" and 2 more',
		);
		expect(result.newerRequests).toBe(0);
	});
});
