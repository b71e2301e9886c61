/**
 * A stream resumed after a drop must be the same stream: the interface does not promise the same order
 * twice. A local service drops the first answer after 1,000 of 3,000 records and sends the second in
 * another order, or with records missing: the node stops with a clear error instead of doubling and losing
 * records; sent again unchanged, the output is exact.
 */
import type { ServerResponse } from 'node:http';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { runNode } from '../../harness/n8n';
import { startLocalServer, type LocalServer } from '../../harness/localServer';

const LABEL = '2025-06-30';
const COUNT = 3000;
const DROP_AFTER = 1000;
const lines = Array.from({ length: COUNT }, (_, i) => JSON.stringify({ name: `site-${i}.com`, rank: i + 1 }) + '\n');

type Second = 'same' | 'reversed' | 'missing';
let server: LocalServer;
let streams = 0;

async function serve(second: Second): Promise<void> {
	streams = 0;
	server = await startLocalServer((req, res: ServerResponse) => {
		if (/\/historical\/domain\/?(\?|$)/.test(req.url ?? '')) {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ datasets: [{ label: LABEL, value: 'snap-1' }] }));
			return;
		}
		res.writeHead(200, { 'content-type': 'application/x-ndjson' });
		if (++streams === 1) {
			res.write(lines.slice(0, DROP_AFTER).join(''), () => setTimeout(() => res.socket?.destroy(), 50));
			return;
		}
		const body =
			second === 'reversed'
				? [...lines].reverse()
				: second === 'missing'
					? lines.filter((_, i) => i < 500 || i >= 510)
					: lines;
		res.end(body.join(''));
	});
}

afterEach(async () => {
	await server.close();
});

const namesOf = (items: INodeExecutionData[]) =>
	items
		.flatMap(({ json }) => (Array.isArray(json.records) ? (json.records as IDataObject[]) : [json]))
		.map((r) => r.name);

function run(output: string) {
	return runNode({
		parameters: {
			resource: 'dataset',
			operation: 'stream',
			label: LABEL,
			returnAll: true,
			fields: ['name', 'rank'],
			output,
		},
		credentials: { apiKey: 'reorder-key', baseUrl: server.url },
	});
}

describe.each(['items', 'batches', 'file'])('a resumed stream, %s output', (output) => {
	test('sent again in another order: a clear error, two stream requests, nothing output', async () => {
		await serve('reversed');
		const result = await run(output);
		expect(result.error?.message).toBe(
			`The dataset "${LABEL}" came back in another order after a dropped connection: its first 1,000 lines are not the 1,000 lines read before the connection dropped`,
		);
		expect((result.error as { description?: string }).description).toContain(
			'no record was output twice and none was left out',
		);
		expect(streams).toBe(2);
	});

	test('sent again with records missing: the same error', async () => {
		await serve('missing');
		const result = await run(output);
		expect(result.error?.message).toContain('came back in another order after a dropped connection');
		expect(streams).toBe(2);
	});
});

test('sent again unchanged: every record once, in order', async () => {
	await serve('same');
	const result = await run('items');
	expect(result.error).toBeUndefined();
	expect(namesOf(result.items)).toEqual(lines.map((line) => JSON.parse(line).name));
	expect(streams).toBe(2);
});
