/**
 * The trigger's attached records when their stream drops and the service sends it again in another order,
 * over real HTTP (a local service): the poll fails with the clear error instead of attaching records twice
 * and leaving others out; sent again unchanged, the records are exact.
 */
import type { IDataObject } from 'n8n-workflow';

import { runPoll } from '../../harness/n8n';
import { startLocalServer, type LocalServer } from '../../harness/localServer';

const OLD = '2025-06-23';
const NEW = '2025-06-30';
const COUNT = 300;
const lines = Array.from({ length: COUNT }, (_, i) => JSON.stringify({ name: `site-${i}.com`, rank: i + 1 }) + '\n');

let server: LocalServer;
let listed = [OLD];
let streams = 0;

async function serve(second: 'same' | 'reversed'): Promise<void> {
	listed = [OLD];
	streams = 0;
	server = await startLocalServer((req, res) => {
		if (/\/historical\/domain\/?(\?|$)/.test(req.url ?? '')) {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ datasets: listed.map((label) => ({ label, value: `snap-${label}` })) }));
			return;
		}
		res.writeHead(200, { 'content-type': 'application/x-ndjson' });
		if (++streams === 1) {
			res.write(lines.slice(0, 100).join(''), () => setTimeout(() => res.socket?.destroy(), 50));
			return;
		}
		res.end((second === 'reversed' ? [...lines].reverse() : lines).join(''));
	});
}

afterEach(async () => {
	await server.close();
});

async function pollTwice(): Promise<unknown> {
	const staticData: IDataObject = {};
	const parameters = { event: 'newDataset', attachRecords: true, recordCount: COUNT, fields: ['name', 'rank'] };
	const poll = () => runPoll({ parameters, credentials: { apiKey: 'trigger-key', baseUrl: server.url }, staticData });
	await poll();
	listed = [NEW, OLD];
	return await poll();
}

test('sent again in another order: the poll fails with the clear error, after two stream requests', async () => {
	await serve('reversed');
	await expect(pollTwice()).rejects.toThrow(
		`The dataset "${NEW}" came back in another order after a dropped connection`,
	);
	expect(streams).toBe(2);
});

test('sent again unchanged: the records are attached once each, in order', async () => {
	await serve('same');
	const events = (await pollTwice()) as Array<Array<{ json: IDataObject }>>;
	expect(events[0][0].json.records).toEqual(lines.map((line) => JSON.parse(line)));
	expect(streams).toBe(2);
});
