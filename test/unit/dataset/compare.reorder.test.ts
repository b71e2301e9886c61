/**
 * Compare reads through the same resumable source as Stream: when the older snapshot's stream drops after
 * 1,000 of 3,000 records and comes again in another order, the comparison stops with the clear error
 * instead of a diff built from records read twice and others never read (a local service, real HTTP).
 */
import { runNode } from '../../harness/n8n';
import { startLocalServer, type LocalServer } from '../../harness/localServer';

const NEW = '2025-06-30';
const OLD = '2025-06-23';
const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ name: `site-${i}.com`, rank: i + 1 }) + '\n');

let server: LocalServer;
const streams: string[] = [];

async function serve(second: 'same' | 'reversed'): Promise<void> {
	streams.length = 0;
	server = await startLocalServer((req, res) => {
		const label = /\/historical\/domain\/([^/?]+)/.exec(req.url ?? '')?.[1];
		if (!label) {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ datasets: [NEW, OLD].map((value) => ({ label: value, value: `snap-${value}` })) }));
			return;
		}
		streams.push(label);
		res.writeHead(200, { 'content-type': 'application/x-ndjson' });
		if (label === OLD && streams.filter((seen) => seen === OLD).length === 1) {
			res.write(lines.slice(0, 1000).join(''), () => setTimeout(() => res.socket?.destroy(), 50));
			return;
		}
		res.end((label === OLD && second === 'reversed' ? [...lines].reverse() : lines).join(''));
	});
}

afterEach(async () => {
	await server.close();
});

const compare = () =>
	runNode({
		parameters: {
			resource: 'dataset',
			operation: 'compare',
			label: NEW,
			baseLabel: OLD,
			fields: ['rank'],
			returnAll: true,
		},
		credentials: { apiKey: 'compare-key', baseUrl: server.url },
	});

test("the older snapshot's stream resumed in another order: a clear error, not a wrong diff", async () => {
	await serve('reversed');
	const result = await compare();
	expect(result.error?.message).toBe(
		`The dataset "${OLD}" came back in another order after a dropped connection: its first 1,000 lines are not the 1,000 lines read before the connection dropped`,
	);
	expect(streams.filter((label) => label === OLD)).toHaveLength(2);
});

test('resumed unchanged: no change found (the snapshots are the same)', async () => {
	await serve('same');
	const result = await compare();
	expect(result.error).toBeUndefined();
	expect(result.items).toEqual([]);
	expect(streams.filter((label) => label === OLD)).toHaveLength(2);
});
