/**
 * A resumed stream in real n8n (`n8n execute` with the packed package): a proxy in front of the simulator
 * drops the first stream of the snapshot after 1,000 of its 3,000 records and sends the second in another
 * order, or with records missing. The interface does not promise the same order twice: the execution must
 * fail with the clear error, never output records twice or leave some out; sent again unchanged, the
 * output is exact.
 */
import type { N8nInstance } from '../../scripts/n8n/instance';
import { CREDENTIAL_TYPE } from '../../scripts/n8n/package';
import type { ExecutionResult } from '../../scripts/n8n/run-data';
import { chain, domainData, manualTrigger, workflow, workflowId } from '../../scripts/n8n/workflows';
import { startLocalServer, type LocalServer } from '../harness/localServer';
import { startSimulator, type Simulator } from '../simulator';
import { createInstance, e2eVersion, ownKeyCredential } from './support';

const DOMAINS = 3000;
const DROP_AFTER = 1000;
type Second = 'same' | 'reversed' | 'missing';
const SECONDS: Second[] = ['same', 'reversed', 'missing'];

let sim: Simulator;
let proxy: LocalServer;
let n8n: N8nInstance;
/** How the proxy sends the next resumed stream, and the stream requests it has seen. */
let second: Second = 'same';
let streams = 0;
const runs = new Map<Second, { result: ExecutionResult; streams: number }>();

async function startProxy(target: string): Promise<LocalServer> {
	return await startLocalServer((req, res) => {
		const isStream = /\/historical\/domain\/[^/?]+/.test(req.url ?? '');
		const count = isStream ? ++streams : 0;
		void fetch(target + req.url, { headers: { authorization: String(req.headers.authorization ?? '') } })
			.then(async (answer) => {
				const body = await answer.text();
				res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
				if (!isStream || !answer.ok) return void res.end(body);
				const lines = body.split('\n').slice(0, -1);
				if (count === 1) {
					res.write(lines.slice(0, DROP_AFTER).join('\n') + '\n', () => setTimeout(() => res.socket?.destroy(), 50));
					return;
				}
				const sent =
					second === 'reversed'
						? lines.reverse()
						: second === 'missing'
							? lines.filter((_, i) => i < 500 || i >= 510)
							: lines;
				res.end(sent.join('\n') + '\n');
			})
			.catch(() => res.destroy());
	});
}

beforeAll(async () => {
	sim = await startSimulator({ domains: DOMAINS, snapshots: 1 });
	proxy = await startProxy(sim.url);
	const own = ownKeyCredential(sim, 'reorder');
	n8n = await createInstance(sim, { credentials: false });
	await n8n.importCredentials([
		{ ...own.credential, type: CREDENTIAL_TYPE, data: { apiKey: own.key, baseUrl: proxy.url } },
	]);
	const stream = domainData(
		'Stream',
		{
			resource: 'dataset',
			operation: 'stream',
			label: 'latest',
			fields: ['name', 'rank'],
			returnAll: true,
			output: 'items',
		},
		own.ref,
	);
	const id = (kind: Second) => workflowId(`streamResumed${kind}`);
	await n8n.importWorkflows(
		SECONDS.map((kind) => workflow(id(kind), `Stream resumed, ${kind}`, chain(manualTrigger(), stream))),
	);
	for (const kind of SECONDS) {
		second = kind;
		streams = 0;
		runs.set(kind, { result: await n8n.execute(id(kind)), streams });
	}
}, 10 * 60_000);

afterAll(async () => {
	await n8n?.dispose();
	await proxy?.close();
	await sim?.close();
});

const label = () => sim.datasets()[0].label;

test(`sent again in another order: the execution fails with the clear error (n8n ${e2eVersion()})`, () => {
	const { result, streams: requests } = runs.get('reversed')!;
	expect(result.ok).toBe(false);
	expect(result.error?.message).toBe(
		`The dataset "${label()}" came back in another order after a dropped connection: its first 1,000 lines are not the 1,000 lines read before the connection dropped`,
	);
	expect(requests).toBe(2);
});

test(`sent again with records missing: the same error (n8n ${e2eVersion()})`, () => {
	const { result, streams: requests } = runs.get('missing')!;
	expect(result.error?.message).toContain('came back in another order after a dropped connection');
	expect(requests).toBe(2);
});

test(`sent again unchanged: every record once, in order (n8n ${e2eVersion()})`, () => {
	const { result, streams: requests } = runs.get('same')!;
	if (!result.ok) throw new Error(result.describe());
	const names = result.json('Stream').map((item) => item.name);
	expect(names).toEqual(
		Array.from({ length: DOMAINS }, (_, i) => JSON.parse(sim.index.lineAt(i, label(), 'name')).name),
	);
	expect(requests).toBe(2);
});
