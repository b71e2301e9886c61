/**
 * Dataset → Stream, Sub-Workflow output, with a sub-workflow slower than the service's patience: the selection is
 * spooled into n8n's binary data storage (n8n-core's real BinaryDataService, filesystem mode) at the service's pace,
 * then fed batch by batch. Behind a proxy that cuts an answer not read for 2 s, and with an Idle Timeout shorter than
 * a batch, the run makes one stream request and downloads the snapshot once.
 */
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import * as core from 'n8n-core';
import type {
	ExecuteWorkflowOptions,
	IExecuteWorkflowInfo,
	INodeParameters,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { binaryDataFiles, runNode } from '../../harness/n8n';
import { type ImpatientProxy, startImpatientProxy } from '../../harness/impatientProxy';
import { useSimulator } from '../../harness/simulator';
import { KEYS } from '../../simulator';

const DOMAINS = 60_000;
const NEWEST = '2025-06-30';
/** Wide records, so that a paused answer fills the socket buffers and the proxy's patience runs out. */
const FIELDS = ['name', 'rank', 'title', 'meta_description', 'categories', 'technologies', 'meta_keywords', 'dns'];
const BATCH = 10_000;
/** Longer than the proxy's patience (2 s) and than the Idle Timeout of the second test (1 s). */
const BATCH_MS = 2300;
const sim = useSimulator({ domains: DOMAINS });

type ExecuteWorkflow = IWorkflowExecuteAdditionalData['executeWorkflow'];

/** A sub-workflow that takes `delayMs` per batch and keeps the names it received, in order. */
function slowSubWorkflow(delayMs: number) {
	const names: string[] = [];
	let runs = 0;
	const executeWorkflow = async (_info: IExecuteWorkflowInfo, _data: unknown, options: ExecuteWorkflowOptions) => {
		runs++;
		for (const item of options.inputData ?? []) names.push(String(item.json.name));
		await new Promise((resolve) => setTimeout(resolve, delayMs));
		return { executionId: String(runs), data: [[]] };
	};
	return { names, runs: () => runs, executeWorkflow: executeWorkflow as unknown as ExecuteWorkflow };
}

/** Stream of the newest snapshot (the fields above), Output Sub-Workflow in batches of BATCH, plus `parameters`. */
const STREAM = { resource: 'dataset', operation: 'stream', label: 'latest', fields: FIELDS, returnAll: true };
const SUB_WORKFLOW = {
	output: 'subWorkflow',
	workflowId: { __rl: true, mode: 'id', value: 'slowWf' },
	batchSize: BATCH,
};

/** Runs the node; the names the sub-workflow got must be the snapshot's from `from` on, each once and in order. */
async function run(
	baseUrl: string,
	sub: ReturnType<typeof slowSubWorkflow>,
	parameters: INodeParameters = {},
	from = 0,
) {
	const credentials = { apiKey: KEYS.pro, baseUrl };
	const all = { ...STREAM, ...SUB_WORKFLOW, ...parameters };
	const result = await runNode({ parameters: all, credentials, executeWorkflow: sub.executeWorkflow });
	expect(result.error).toBeUndefined();
	expect(sub.names).toEqual(namesOf(from, typeof parameters.limit === 'number' ? parameters.limit : DOMAINS));
	return result;
}

function namesOf(from: number, to: number): string[] {
	const names = [];
	for (let position = from; position < to; position++) names.push(sim().index.lineAt(position, NEWEST, 'name'));
	return names.map((line) => (JSON.parse(line) as { name: string }).name);
}

/** The bytes of one whole read of the stream the node asked for (the first request it made, read directly). */
async function snapshotBytes(path: string): Promise<number> {
	const answer = await fetch(`${sim.url}/json/api/v1${path}`, { headers: { authorization: `Bearer ${KEYS.pro}` } });
	return (await answer.arrayBuffer()).byteLength;
}

describe('Sub-Workflow output through a spool: a slow sub-workflow costs no extra requests', () => {
	let proxy: ImpatientProxy;
	beforeEach(async () => {
		proxy = await startImpatientProxy(sim.url, 2000);
	});
	afterEach(async () => {
		await proxy.close();
	});

	it('behind a proxy that cuts an answer not read for 2 s: every record once, one stream request, one snapshot', async () => {
		const sub = slowSubWorkflow(BATCH_MS);
		const filesBefore = binaryDataFiles().length;
		const logged = jest.spyOn(Container.get(Logger), 'info');
		const lines: string[] = [];
		logged.mockImplementation((message) => void lines.push(String(message)));
		const result = await run(proxy.url, sub).finally(() => logged.mockRestore());
		expect(sub.runs()).toBe(DOMAINS / BATCH);
		expect(proxy.streams()).toBeLessThanOrEqual(2);
		const once = await snapshotBytes(proxy.paths.find((path) => path.startsWith('/historical/domain/'))!);
		expect(proxy.streamBytes()).toBeLessThanOrEqual(once * 1.05);
		// The spool is n8n binary data of the execution, never part of the output.
		const [summary] = result.items;
		expect(summary.binary).toBeUndefined();
		expect(summary.json).toMatchObject({ records: DOMAINS, batches: 6, progress: 'batch 6 of 6' });
		expect(summary.json.spoolFiles).toBe(binaryDataFiles().length - filesBefore);
		expect(summary.json.spooledBytes).toBeGreaterThan(0);
		// Where a long run is, in n8n's log: the spool, then about every 5 % of the batches (here each one).
		expect(lines[0]).toMatch(
			/^Domain Data: dataset "2025-06-30": 60,000 records \([\d.]+ MB\) spooled into \d+ files; feeding 6 batches/,
		);
		expect(lines.slice(1)).toEqual(
			[1, 2, 3, 4, 5, 6].map(
				(batch) =>
					`Domain Data: dataset "2025-06-30": batch ${batch} of 6 done by the sub-workflow (${batch * 10},000 records)`,
			),
		);
	}, 60_000);

	it('with an Idle Timeout (1 s) shorter than a batch: every record once, one stream request', async () => {
		await run(sim.url, slowSubWorkflow(1500), { options: { idleTimeout: 1 } });
		expect(sim.calls('stream')).toHaveLength(1);
	}, 60_000);

	it('a run resumed with Skip Records spools from the stream again, leaving out the skipped records', async () => {
		const result = await run(proxy.url, slowSubWorkflow(0), { options: { skipRecords: 25_000 } }, 25_000);
		expect(proxy.streams()).toBeLessThanOrEqual(2);
		expect(result.items[0].json).toMatchObject({ records: DOMAINS - 25_000, skippedRecords: 25_000, batches: 4 });
	}, 60_000);

	it('when n8n keeps binary data in memory: no spool, every record once', async () => {
		const service = Container.get(core.BinaryDataService) as unknown as { mode: string };
		const mode = service.mode;
		service.mode = 'default';
		try {
			const filesBefore = binaryDataFiles().length;
			const result = await run(sim.url, slowSubWorkflow(0), { returnAll: false, limit: 30_000, batchSize: 5000 });
			expect(binaryDataFiles().length).toBe(filesBefore);
			expect(result.items[0].json.spoolFiles).toBeUndefined();
		} finally {
			service.mode = mode;
		}
	}, 60_000);
});
