/**
 * The File output in parts in real n8n from the packed package, with binary data in n8n's database and its limit per
 * file lowered to 4 MiB (N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE), so that a snapshot of 9,000 domains (8 MB) spans
 * several parts at Max File Size 3 MB (gzip at 2 MB, the least): Stream → File plain and gzip, and Compare → File. n8n's Write File node writes
 * each part to disk (read back from the database); decoded, the parts hold every record or change exactly once, in
 * order, against the simulator's snapshot and the brute-force diff (test/harness/bruteForceDiff.ts); none is over
 * the limit, and Compare asks for each snapshot once (pass 3 replays pass 1's spool). Compare → Items spools in files
 * of 8 MB: n8n refuses the first one, and the spool follows the limit it names. In queue mode (main and worker,
 * PostgreSQL and Redis) the worker runs Compare → File: its parts answer the webhook, checked by their counts and
 * first and last names against the brute-force diff.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

import type { N8nInstance, WorkflowImport } from '../../scripts/n8n/instance';
import type { ExecutionResult } from '../../scripts/n8n/run-data';
import * as wf from '../../scripts/n8n/workflows';
import {
	chain,
	domainData,
	manualTrigger,
	node,
	noOp as noOpNode,
	workflow,
	workflowId,
} from '../../scripts/n8n/workflows';
import { bruteForce, rawSnapshot } from '../harness/bruteForceDiff';
import { SNAPSHOT_FIELDS } from '../../nodes/DomainData/helpers/snapshotFields';
import { dropDatabase } from '../../scripts/n8n/services';
import { startSimulator, type Simulator } from '../simulator';
import { type QueueMode, queueTarget, startQueueMode, stopQueueMode } from './subworkflowSupport';
import { createInstance, ownKeyCredential, postWebhook } from './support';

/**
 * About 8.2 MB of NDJSON with every field (1.4 MB gzipped), and 10 MB of changes: 3 plain parts, 4 of changes, and
 * 2 gzip parts of 2 MB (a gzip part keeps 1 MB free). Compare → Items spools the newer snapshot, over the 4 MiB limit.
 * Sizes only as large as "several parts" needs; how fast large files go is the benchmark's question.
 */
const DOMAINS = 9_000;
const NEWEST = '2025-06-30';
const PREVIOUS = '2025-06-23';
const LIMIT_MIB = 4;
const MAX_FILE_MB = 3;
/** The least Max File Size: about 1 MB of gzip per part. */
const GZIP_MAX_FILE_MB = 2;
const FIELDS = [...SNAPSHOT_FIELDS];
const COMPARED = FIELDS.filter((field) => field !== 'name');
const WF = {
	plain: workflowId('partsPlain'),
	gzip: workflowId('partsGzip'),
	compare: workflowId('partsCompare'),
	compareItems: workflowId('partsCompareItems'),
};
/** Compare → Items without the rank moves inside the simulator's blocks of 32: the changes of the other fields. */
const ITEMS_QUESTION = { fields: COMPARED, minRankMove: 100 };

let sim: Simulator;
let n8n: N8nInstance;
let runs: Map<string, ExecutionResult>;
let keys: Record<keyof typeof WF, string>;
/** Databases of queue mode, dropped at the end. */
const created: string[] = [];

/** The workflow: the Domain Data node with `parameters`, then Write File for each part, named after the workflow. */
function partsWorkflow(
	id: string,
	stem: string,
	parameters: Record<string, unknown>,
	credential: { id: string; name: string },
) {
	return workflow(
		id,
		`parts: ${stem}`,
		chain(
			manualTrigger(),
			domainData(
				'Data',
				{ resource: 'dataset', returnAll: true, output: 'file', maxFileSize: MAX_FILE_MB, ...parameters },
				credential,
			),
			node('Write File', 'n8n-nodes-base.readWriteFile', 1, {
				operation: 'write',
				fileName: `={{ ${JSON.stringify(`${n8n.filesDir}/${stem}-`)} + $json.fileName }}`,
				dataPropertyName: 'data',
				options: {},
			}),
		),
	);
}

/** The block "a run that fails in part 3": 6,000 records, a malformed line at record 5,000, Max File Size 2 MB. */
const FAILING_LIMIT = 6000;
const BAD_LINE = 5000;
const FAILING = { stop: workflowId('partsStopOnError'), routed: workflowId('partsErrorOutput') };
let stopCredential: { id: string; name: string };

/** Its two workflows (stops on the error; the error output), imported with the others in one n8n command. */
function failingWorkflows(): WorkflowImport[] {
	const read = (onError?: string) =>
		domainData(
			'Data',
			{
				resource: 'dataset',
				operation: 'stream',
				label: NEWEST,
				fields: FIELDS,
				limit: FAILING_LIMIT,
				output: 'file',
				maxFileSize: 2,
			},
			stopCredential,
			onError ? { onError } : {},
		);
	const writeFile = (stem: string) =>
		node('Write File', 'n8n-nodes-base.readWriteFile', 1, {
			operation: 'write',
			fileName: `={{ ${JSON.stringify(`${n8n.filesDir}/${stem}-`)} + $json.fileName }}`,
			dataPropertyName: 'data',
			options: {},
		});
	const routedGraph = chain(manualTrigger(), read('continueErrorOutput'), writeFile('routed'));
	routedGraph.nodes.push(noOpNode('Failed'));
	routedGraph.connections.Data = {
		main: [[{ node: 'Write File', type: 'main', index: 0 }], [{ node: 'Failed', type: 'main', index: 0 }]],
	};
	return [
		workflow(FAILING.stop, 'parts: stops on an error', chain(manualTrigger(), read(), writeFile('stop'))),
		workflow(FAILING.routed, 'parts: error output', routedGraph),
	];
}

beforeAll(async () => {
	sim = await startSimulator({ domains: DOMAINS, snapshots: 2 });
	const own = {
		plain: ownKeyCredential(sim, 'partsPlain'),
		gzip: ownKeyCredential(sim, 'partsGzip'),
		compare: ownKeyCredential(sim, 'partsCompare'),
		compareItems: ownKeyCredential(sim, 'partsCompareItems'),
		stop: ownKeyCredential(sim, 'partsStop'),
	};
	keys = { plain: own.plain.key, gzip: own.gzip.key, compare: own.compare.key, compareItems: own.compareItems.key };
	stopCredential = own.stop.ref;
	n8n = await createInstance(sim, {
		env: { N8N_DEFAULT_BINARY_DATA_MODE: 'database', N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE: String(LIMIT_MIB) },
		credentials: Object.values(own).map((entry) => entry.credential),
	});
	await n8n.importWorkflows([
		...failingWorkflows(),
		partsWorkflow(WF.plain, 'plain', { operation: 'stream', label: NEWEST, fields: FIELDS }, own.plain.ref),
		partsWorkflow(
			WF.gzip,
			'gzip',
			{
				operation: 'stream',
				label: NEWEST,
				fields: FIELDS,
				maxFileSize: GZIP_MAX_FILE_MB,
				options: { compression: 'gzip' },
			},
			own.gzip.ref,
		),
		partsWorkflow(
			WF.compare,
			'compare',
			{ operation: 'compare', label: NEWEST, baseLabel: PREVIOUS, fields: COMPARED },
			own.compare.ref,
		),
		workflow(
			WF.compareItems,
			'parts: compare items',
			chain(
				manualTrigger(),
				domainData(
					'Data',
					{
						resource: 'dataset',
						operation: 'compare',
						label: NEWEST,
						baseLabel: PREVIOUS,
						returnAll: true,
						fields: ITEMS_QUESTION.fields,
						options: { minRankMove: ITEMS_QUESTION.minRankMove },
					},
					own.compareItems.ref,
				),
			),
		),
	]);
	runs = await n8n.executeBatch(Object.values(WF), { concurrency: 1, timeoutMs: 15 * 60_000 });
}, 20 * 60_000);

afterAll(async () => {
	await n8n?.dispose();
	await sim?.close();
});

function ran(id: string): ExecutionResult {
	const run = runs.get(id)!;
	if (!run.ok) throw new Error(`workflow ${id} failed: ${run.describe()}`);
	return run;
}

/** The lines of every part as Write File wrote them, checked against what each part's item tells. */
function partLines(id: string, stem: string, gzip: boolean, maxFileMb = MAX_FILE_MB): string[] {
	const parts = ran(id).json('Data');
	expect(parts.length).toBeGreaterThanOrEqual(2);
	const all: string[] = [];
	for (const [index, part] of parts.entries()) {
		const bytes = readFileSync(join(n8n.filesDir, `${stem}-${part.fileName as string}`));
		expect(bytes.length).toBe(part.sizeBytes);
		expect(bytes.length).toBeLessThanOrEqual(maxFileMb * 1024 * 1024);
		const lines = (gzip ? gunzipSync(bytes) : bytes).toString('utf8').split('\n');
		expect(lines.pop()).toBe('');
		const names = lines.map((line) => (JSON.parse(line) as { name: string }).name);
		expect(part).toMatchObject({
			fileName: expect.stringMatching(
				new RegExp(`\\.part-${String(index + 1).padStart(4, '0')}\\.ndjson${gzip ? '\\.gz' : ''}$`),
			),
			part: index + 1,
			parts: parts.length,
			recordCount: lines.length,
			firstRecord: all.length + 1,
			firstName: names[0],
			lastName: names[names.length - 1],
		});
		all.push(...lines);
	}
	return all;
}

const snapshotLines = () => Array.from({ length: DOMAINS }, (_, at) => sim.index.lineAt(at, NEWEST, FIELDS.join(',')));
const streamRequests = (key: string) => sim.calls('stream').filter((call) => call.key === key).length;

test('Stream → File, plain: every record once across the parts, none over the limit, one request', () => {
	expect(partLines(WF.plain, 'plain', false)).toEqual(snapshotLines());
	expect(streamRequests(keys.plain)).toBe(1);
});

test('Stream → File, gzip: each part a complete .gz, every record once, none over the limit', () => {
	expect(partLines(WF.gzip, 'gzip', true, GZIP_MAX_FILE_MB)).toEqual(snapshotLines());
	expect(streamRequests(keys.gzip)).toBe(1);
});

test('Compare → File: every change of the brute-force diff once across the parts, two stream requests', async () => {
	const expected = bruteForce(
		await rawSnapshot(sim.url, NEWEST),
		await rawSnapshot(sim.url, PREVIOUS),
		{ label: NEWEST, baseLabel: PREVIOUS },
		{ fields: COMPARED },
	);
	const changes = partLines(WF.compare, 'compare', false).map((line) => JSON.parse(line) as Record<string, unknown>);
	// The file's changes are the items' changes (label and baseLabel included).
	expect(changes).toEqual(expected);
	expect(streamRequests(keys.compare)).toBe(2);
});

test('Compare → Items: its spool (8 MB files) follows the limit n8n names, two stream requests, the brute-force diff', async () => {
	// A kept-alive connection the simulator closed while idle after the previous test may fail once: read again.
	const read = async (label: string) => {
		try {
			return await rawSnapshot(sim.url, label);
		} catch {
			return await rawSnapshot(sim.url, label);
		}
	};
	const expected = bruteForce(
		await read(NEWEST),
		await read(PREVIOUS),
		{ label: NEWEST, baseLabel: PREVIOUS },
		ITEMS_QUESTION,
	);
	expect(expected.length).toBeGreaterThan(0);
	expect(ran(WF.compareItems).json('Data')).toEqual(expected);
	expect(streamRequests(keys.compareItems)).toBe(2);
});

describe('a run that fails in part 3 (a malformed line at record 5,000 of 6,000, Max File Size 2 MB)', () => {
	let stopped: ExecutionResult;
	let again: ExecutionResult;
	let routed: ExecutionResult;

	beforeAll(async () => {
		sim.setFaults({ streams: [{ malformedLineAt: BAD_LINE }] });
		stopped = await n8n.execute(FAILING.stop);
		// The message's advice, followed: the same node run again, Skip Records left as it was.
		sim.resetFaults();
		again = await n8n.execute(FAILING.stop);
		sim.setFaults({ streams: [{ malformedLineAt: BAD_LINE }] });
		routed = await n8n.execute(FAILING.routed);
		sim.resetFaults();
	}, 10 * 60_000);

	test('without Continue On Fail: no part reaches Write File, and the message says to run again as it is', () => {
		expect(stopped.ok).toBe(false);
		expect(stopped.nodes()).not.toContain('Write File');
		const description = String(stopped.nodeError('Data')?.description);
		expect(description).toMatch(/Parts 1-2 are complete \([\d,]+ records\), but a node that stops on an error/);
		expect(description).toContain('run it again with "Skip Records" left at 0');
	});

	test('run again as the message says: Write File gets every record exactly once', () => {
		expect(again.describe()).toBe('ok');
		expect(again.json('Write File')).toHaveLength(again.json('Data').length);
		const written = again.json('Data').flatMap((part) => {
			const bytes = readFileSync(join(n8n.filesDir, `stop-${part.fileName as string}`));
			return bytes.toString('utf8').trimEnd().split('\n');
		});
		expect(written).toEqual(snapshotLines().slice(0, FAILING_LIMIT));
	});

	test('Continue (using error output): the error item on the error output, only parts on the success output', () => {
		expect(routed.describe()).toBe('ok');
		const parts = routed.json('Data', { output: 0 });
		expect(parts.length).toBe(2);
		for (const part of parts)
			expect(part).toMatchObject({ fileName: expect.stringMatching(/\.part-000[12]\.ndjson$/) });
		const [failure] = routed.json('Data', { output: 1 });
		const done = (parts[0].recordCount as number) + (parts[1].recordCount as number);
		// Only `error` (n8n routes nothing else there), with where to go on.
		expect(failure).toEqual({
			error: expect.stringMatching(new RegExp(`^Line ${BAD_LINE} of the dataset .*"Skip Records" set to ${done}\\.$`)),
		});
		expect(routed.json('Failed')).toHaveLength(1);
		expect(routed.json('Write File')).toHaveLength(2);
	});
});

describe('queue mode (the worker runs Compare → File)', () => {
	const suffix = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
	const hookPath = `dd-e2e-parts-${suffix}`;
	const target = queueTarget('parts', suffix);
	let queue: QueueMode | undefined;
	let key = '';

	beforeAll(async () => {
		const own = ownKeyCredential(sim, 'partsQueue');
		key = own.key;
		const caller = workflow(
			workflowId('partsQueueCaller'),
			'parts: Compare → File on the worker',
			chain(
				wf.webhook('Webhook', hookPath),
				domainData(
					'Data',
					{
						resource: 'dataset',
						operation: 'compare',
						label: NEWEST,
						baseLabel: PREVIOUS,
						fields: COMPARED,
						returnAll: true,
						output: 'file',
						maxFileSize: MAX_FILE_MB,
					},
					own.ref,
				),
			),
			{ settings: { executionOrder: 'v1' } },
		);
		const env = { N8N_DEFAULT_BINARY_DATA_MODE: 'database', N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE: String(LIMIT_MIB) };
		created.push(target.database);
		queue = await startQueueMode(sim, target, [own.credential], [{ caller }], env);
	}, 10 * 60_000);

	afterAll(async () => {
		await stopQueueMode(queue, target);
		for (const database of created.splice(0)) await dropDatabase(database).catch(() => undefined);
	}, 120_000);

	test(
		'every change of the brute-force diff in the parts, none over the limit, two stream requests',
		async () => {
			const expected = bruteForce(
				await rawSnapshot(sim.url, NEWEST),
				await rawSnapshot(sim.url, PREVIOUS),
				{ label: NEWEST, baseLabel: PREVIOUS },
				{ fields: COMPARED },
			);
			const parts = (await postWebhook(queue!.n8n.url, hookPath, {}, 15 * 60_000)) as Array<Record<string, number>>;
			expect(parts.length).toBeGreaterThanOrEqual(2);
			let next = 1;
			for (const [index, part] of parts.entries()) {
				expect(part.sizeBytes).toBeLessThanOrEqual(MAX_FILE_MB * 1024 * 1024);
				expect(part).toMatchObject({
					part: index + 1,
					parts: parts.length,
					firstRecord: next,
					lastRecord: next + part.recordCount - 1,
					firstName: expected[next - 1].name,
					lastName: expected[next + part.recordCount - 2].name,
					totalRecords: expected.length,
				});
				next += part.recordCount;
			}
			expect(next - 1).toBe(expected.length);
			expect(sim.calls('stream').filter((call) => call.key === key)).toHaveLength(2);
		},
		20 * 60_000,
	);
});
