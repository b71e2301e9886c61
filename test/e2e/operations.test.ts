/**
 * Every operation of the Domain Data node, run by n8n 2.8.4 itself (`n8n execute-batch` and
 * `n8n execute --rawOutput`) from the packed tarball installed as a community package, against the
 * simulator. The tests read n8n's output items, and failures as n8n reports them (message, HTTP code).
 *
 * One `execute-batch` process runs the workflows that must succeed (one cold start for all of them);
 * the ones that must fail run through `execute`, which prints the whole error. All n8n runs happen in
 * beforeAll; each test then checks one workflow's result against the simulator's data and request log.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { N8nInstance, WorkflowImport } from '../../scripts/n8n/instance';
import type { ExecutionResult, OutputItem } from '../../scripts/n8n/run-data';
import {
	chain,
	domainData,
	manualTrigger,
	node,
	setJson,
	splitOut,
	workflow,
	workflowId,
} from '../../scripts/n8n/workflows';
import { KEYS, startSimulator, type DomainObject, type RequestLogEntry, type Simulator } from '../simulator';
import type { CredentialRef } from '../../scripts/n8n/workflows';
import { BAD_KEY, CREDENTIALS, createInstance, credentialImports, ownKeyCredential, withLimit } from './support';
import type { CredentialImport } from '../../scripts/n8n/instance';

const DOMAINS = 2000;
const NOT_INDEXED = 'not-in-the-index-e2e.com';

let sim: Simulator;
let n8n: N8nInstance;
const results = new Map<string, ExecutionResult>();
const timings: Record<string, number> = {};

/** Workflow ids by case. */
const WF = {
	getForms: workflowId('getForms'),
	getNotFoundItem: workflowId('getNotFoundItem'),
	searchFiltered: workflowId('searchFiltered'),
	searchAll: workflowId('searchAll'),
	bulk: workflowId('bulk'),
	bulkNotFound: workflowId('bulkNotFound'),
	enrich: workflowId('enrichLeads'),
	enrichContinue: workflowId('enrichContinue'),
	enrichErrorOutput: workflowId('enrichErrorOutput'),
	list: workflowId('datasetList'),
	streamItems: workflowId('streamItems'),
	streamFiltered: workflowId('streamFiltered'),
	streamBatches: workflowId('streamBatches'),
	streamFile: workflowId('streamFile'),
	// these must fail
	getNotFound: workflowId('errGetNotFound'),
	badKey: workflowId('errBadKey'),
	basicPlanStream: workflowId('errBasicStream'),
	noCredits: workflowId('errNoCredits'),
	badFilters: workflowId('errBadFilters'),
} as const;

const FAILING: string[] = [WF.getNotFound, WF.badKey, WF.basicPlanStream, WF.noCredits, WF.badFilters];

/** Each succeeding workflow calls with a key of its own, so the simulator's log tells whose call it was. */
const keys = new Map<string, string>();
const ownCredentials: CredentialImport[] = [];
function credentialFor(id: string): CredentialRef {
	const own = ownKeyCredential(sim, id);
	keys.set(id, own.key);
	ownCredentials.push(own.credential);
	return own.ref;
}

/** The simulator's log entries of one workflow (by its key), optionally for one endpoint. */
function callsOf(id: string, endpoint?: string): RequestLogEntry[] {
	const key = keys.get(id);
	return sim.calls(endpoint).filter((entry) => entry.key === key);
}

const BULK_RANKS = [1500, 1700, 1900];

interface Lead {
	company: string;
	contact: string;
}

/** 240 leads: 230 distinct indexed domains as URLs, emails and bare names, 5 repeats, 5 names not indexed. */
function leads(): Lead[] {
	const list: Lead[] = [];
	for (let rank = 1; rank <= 230; rank++) {
		const { name } = sim.index.domainAt(rank);
		const forms = [`https://www.${name}/about`, `sales@${name}`, name.toUpperCase()];
		list.push({ company: `Company ${rank}`, contact: forms[rank % 3] });
	}
	for (let rank = 1; rank <= 5; rank++) {
		list.push({ company: `Company ${rank} (again)`, contact: `info@${sim.index.domainAt(rank).name}` });
	}
	for (let k = 1; k <= 5; k++) list.push({ company: `Unknown ${k}`, contact: `https://not-indexed-e2e-${k}.com/` });
	return list;
}

function buildWorkflows(): WorkflowImport[] {
	const [n1, n2, n3] = BULK_RANKS.map((rank) => sim.index.domainAt(rank).name);
	const secondNewest = sim.datasets()[1].label;
	const pro = credentialFor;

	return [
		workflow(
			WF.getForms,
			'Get: a URL, an email and a bare name',
			chain(
				manualTrigger(),
				setJson('Values', {
					values: [
						`https://www.${sim.index.domainAt(1).name}/pricing?x=1`,
						`jane@${sim.index.domainAt(2).name}`,
						sim.index.domainAt(3).name.toUpperCase(),
					],
				}),
				splitOut('Split Out', 'values'),
				domainData('Get', { resource: 'domain', operation: 'get', domain: '={{ $json.values }}' }, pro(WF.getForms)),
			),
		),
		workflow(
			WF.getNotFoundItem,
			'Get: not found as an item',
			chain(
				manualTrigger(),
				domainData(
					'Get',
					{ resource: 'domain', operation: 'get', domain: NOT_INDEXED, options: { onNotFound: 'returnNotFound' } },
					pro(WF.getNotFoundItem),
				),
			),
		),
		workflow(
			WF.searchFiltered,
			'Search: German sites, 25 in pages of 10',
			chain(
				manualTrigger(),
				domainData(
					'Search',
					{
						resource: 'domain',
						operation: 'search',
						returnAll: false,
						limit: 25,
						filters: JSON.stringify({ language: 'de' }),
						options: { pageSize: 10 },
					},
					pro(WF.searchFiltered),
				),
			),
		),
		workflow(
			WF.searchAll,
			'Search: return all of a small filter',
			chain(
				manualTrigger(),
				domainData(
					'Search',
					{
						resource: 'domain',
						operation: 'search',
						returnAll: true,
						filters: JSON.stringify({ maxRank: 35 }),
						options: { pageSize: 10 },
					},
					pro(WF.searchAll),
				),
			),
		),
		workflow(
			WF.bulk,
			'Bulk: names in a text field',
			chain(
				manualTrigger(),
				domainData(
					'Bulk',
					{ resource: 'domain', operation: 'bulk', domains: `${n1}, ${n2}\n${n3} ${NOT_INDEXED} https://${n1}/` },
					pro(WF.bulk),
				),
			),
		),
		workflow(
			WF.bulkNotFound,
			'Bulk: include not found',
			chain(
				manualTrigger(),
				domainData(
					'Bulk',
					{
						resource: 'domain',
						operation: 'bulk',
						domains: `${NOT_INDEXED}, ${n3}, ${n2}`,
						options: { includeNotFound: true },
					},
					pro(WF.bulkNotFound),
				),
			),
		),
		workflow(
			WF.enrich,
			'Enrich 240 leads',
			chain(
				manualTrigger(),
				setJson('Leads', { leads: leads() }),
				splitOut('Split Out', 'leads'),
				domainData(
					'Enrich',
					{ resource: 'domain', operation: 'enrich', domainField: 'contact', destinationField: 'domainData' },
					pro(WF.enrich),
				),
			),
		),
		...(['continueRegularOutput', 'continueErrorOutput'] as const).map((onError) => {
			const id = onError === 'continueRegularOutput' ? WF.enrichContinue : WF.enrichErrorOutput;
			return workflow(
				id,
				`Enrich with bad rows, ${onError}`,
				chain(
					manualTrigger(),
					setJson('Rows', {
						rows: [
							{ website: sim.index.domainAt(7).name },
							{ nothing: 'here' },
							{ website: 'not a domain at all' },
							{ website: sim.index.domainAt(8).name },
						],
					}),
					splitOut('Split Out', 'rows'),
					domainData(
						'Enrich',
						{ resource: 'domain', operation: 'enrich', domainField: 'website', destinationField: 'company.data' },
						pro(id),
						{ onError },
					),
				),
			);
		}),
		workflow(
			WF.list,
			'Dataset: list',
			chain(
				manualTrigger(),
				domainData('List', { resource: 'dataset', operation: 'list', returnAll: true }, pro(WF.list)),
			),
		),
		workflow(
			WF.streamItems,
			'Stream: latest, 50 records, three fields',
			chain(
				manualTrigger(),
				domainData(
					'Stream',
					{
						resource: 'dataset',
						operation: 'stream',
						label: 'latest',
						fields: ['name', 'rank', 'country_code'],
						returnAll: false,
						limit: 50,
						output: 'items',
					},
					pro(WF.streamItems),
				),
			),
		),
		workflow(
			WF.streamFiltered,
			'Stream: every German site of the latest snapshot',
			chain(
				manualTrigger(),
				domainData(
					'Stream',
					{
						resource: 'dataset',
						operation: 'stream',
						label: 'latest',
						fields: ['name', 'rank', 'country_code'],
						returnAll: true,
						output: 'items',
						filters: { countryCodes: 'DE' },
					},
					pro(WF.streamFiltered),
				),
			),
		),
		workflow(
			WF.streamBatches,
			'Stream: batches of an older snapshot',
			chain(
				manualTrigger(),
				domainData(
					'Stream',
					{
						resource: 'dataset',
						operation: 'stream',
						label: secondNewest,
						fields: ['name', 'rank'],
						returnAll: true,
						output: 'batches',
						batchSize: 750,
					},
					pro(WF.streamBatches),
				),
			),
		),
		workflow(
			WF.streamFile,
			'Stream: whole snapshot to a file on disk',
			chain(
				manualTrigger(),
				domainData(
					'Stream',
					{ resource: 'dataset', operation: 'stream', label: 'latest', returnAll: true, output: 'file' },
					pro(WF.streamFile),
				),
				node('Write File', 'n8n-nodes-base.readWriteFile', 1, {
					operation: 'write',
					fileName: `={{ ${JSON.stringify(n8n.filesDir + '/')} + $json.fileName }}`,
					dataPropertyName: 'data',
					options: {},
				}),
			),
		),
		// These must fail.
		workflow(
			WF.getNotFound,
			'Error: get a name that is not indexed',
			chain(
				manualTrigger(),
				domainData('Get', { resource: 'domain', operation: 'get', domain: NOT_INDEXED }, pro(WF.getNotFound)),
			),
		),
		workflow(
			WF.badKey,
			'Error: wrong API key',
			chain(
				manualTrigger(),
				domainData(
					'Get',
					{ resource: 'domain', operation: 'get', domain: sim.index.domainAt(1).name },
					CREDENTIALS.badKey,
				),
			),
		),
		workflow(
			WF.basicPlanStream,
			'Error: stream on a plan without history',
			chain(
				manualTrigger(),
				domainData(
					'Stream',
					{ resource: 'dataset', operation: 'stream', label: 'latest', returnAll: false, limit: 5, output: 'items' },
					CREDENTIALS.basic,
				),
			),
		),
		workflow(
			WF.noCredits,
			'Error: no credits left',
			chain(
				manualTrigger(),
				domainData(
					'Bulk',
					{ resource: 'domain', operation: 'bulk', domains: sim.index.domainAt(1).name },
					CREDENTIALS.exhausted,
				),
			),
		),
		workflow(
			WF.badFilters,
			'Error: filters that are not JSON',
			chain(
				manualTrigger(),
				domainData(
					'Search',
					{ resource: 'domain', operation: 'search', returnAll: false, limit: 5, filters: '{language: de' },
					pro(WF.badFilters),
				),
			),
		),
	];
}

function result(id: string): ExecutionResult {
	const found = results.get(id);
	if (!found) throw new Error(`no result for workflow ${id}`);
	return found;
}

/** The items of a node in a workflow that must have succeeded (fails with n8n's error otherwise). */
function itemsOf(id: string, nodeName: string): OutputItem[] {
	const run = result(id);
	if (!run.ok) throw new Error(`workflow ${id} failed in n8n: ${run.describe()}`);
	return run.items(nodeName);
}

function pairedIndex(item: OutputItem): number | undefined {
	const paired = Array.isArray(item.pairedItem) ? item.pairedItem[0] : item.pairedItem;
	return typeof paired === 'number' ? paired : paired?.item;
}

/** What the simulator's search answers (asked directly, before n8n runs, with the pro key). */
async function directSearch(body: Record<string, unknown>): Promise<DomainObject[]> {
	const found: DomainObject[] = [];
	let searchAfter: unknown;
	for (let page = 0; page < 100; page++) {
		const response = await fetch(`${sim.url}/json/api/v1/domain/search`, {
			method: 'POST',
			headers: { authorization: `Bearer ${KEYS.pro}`, 'content-type': 'application/json' },
			body: JSON.stringify({ ...body, pageSize: 1000, ...(searchAfter ? { searchAfter } : {}) }),
		});
		const answer = (await response.json()) as { results: DomainObject[]; search_after?: unknown };
		found.push(...answer.results);
		searchAfter = answer.search_after;
		if (!searchAfter) break;
	}
	return found;
}

const expected: { german: DomainObject[]; top35: DomainObject[] } = { german: [], top35: [] };

beforeAll(async () => {
	let started = Date.now();
	sim = await startSimulator({ domains: DOMAINS, snapshots: 4 });
	expected.german = await directSearch({ language: 'de' });
	expected.top35 = await directSearch({ maxRank: 35 });
	sim.clearLog();
	n8n = await createInstance(sim, { credentials: false });
	const workflows = buildWorkflows();
	await n8n.importCredentials([...credentialImports(sim), ...ownCredentials]);
	await n8n.importWorkflows(workflows);
	timings.setupMs = Date.now() - started;

	started = Date.now();
	const succeeding = workflows.map((wf) => wf.id).filter((id) => !FAILING.includes(id));
	const [batch, ...failing] = await withLimit(2, [
		async () => await n8n.executeBatch(succeeding, { concurrency: 4 }),
		...FAILING.map((id) => async () => new Map([[id, await n8n.execute(id)]])),
	]);
	for (const map of [batch, ...failing]) for (const [id, run] of map) results.set(id, run);
	timings.runMs = Date.now() - started;
}, 15 * 60_000);

afterAll(async () => {
	await n8n?.dispose();
	await sim?.close();
	console.log(`operations e2e: set-up ${timings.setupMs} ms, n8n runs ${timings.runMs} ms`);
});

describe('Domain → Get', () => {
	test('a URL, an email address and an upper-case name each give that domain, paired to its item', () => {
		const items = itemsOf(WF.getForms, 'Get');
		expect(items.map((item) => item.json)).toEqual([1, 2, 3].map((rank) => sim.index.domainAt(rank)));
		expect(items.map(pairedIndex)).toEqual([0, 1, 2]);
		const asked = callsOf(WF.getForms, 'get').map((entry) => decodeURIComponent(entry.path.split('/').pop()!));
		expect(asked.sort()).toEqual([1, 2, 3].map((rank) => sim.index.domainAt(rank).name).sort());
	});

	test('"Return Not-Found Item" gives { name, found: false }', () => {
		expect(itemsOf(WF.getNotFoundItem, 'Get').map((item) => item.json)).toEqual([{ name: NOT_INDEXED, found: false }]);
	});

	test('a name that is not indexed fails the node with a 404 that names it', () => {
		const run = result(WF.getNotFound);
		expect(run.ok).toBe(false);
		expect(run.error?.node?.name).toBe('Get');
		expect(String(run.error?.httpCode)).toBe('404');
		expect(run.error?.message).toContain(NOT_INDEXED);
	});
});

describe('Domain → Search', () => {
	test('Limit 25 with page size 10: the first 25 German sites in rank order, in three calls', () => {
		const items = itemsOf(WF.searchFiltered, 'Search');
		expect(items.map((item) => item.json)).toEqual(expected.german.slice(0, 25));
		const calls = callsOf(WF.searchFiltered, 'search');
		expect(calls.every((entry) => (entry.body as { language?: string }).language === 'de')).toBe(true);
		expect(calls.map((entry) => (entry.body as { pageSize: number }).pageSize)).toEqual([10, 10, 5]);
	});

	test('Return All follows the cursor to the last page', () => {
		const items = itemsOf(WF.searchAll, 'Search');
		expect(items.map((item) => item.json)).toEqual(expected.top35);
		expect(items).toHaveLength(35);
		expect(callsOf(WF.searchAll, 'search')).toHaveLength(4);
	});

	test('filters that are not JSON stop the node before any call, with a message that says so', () => {
		const run = result(WF.badFilters);
		expect(run.ok).toBe(false);
		expect(run.error?.message).toMatch(/Filters must be a JSON object/);
		expect(callsOf(WF.badFilters)).toHaveLength(0);
	});
});

describe('Domain → Bulk Get', () => {
	test('one item per domain found, in the order asked; duplicates once, not-found left out; one call', () => {
		const [n1, n2, n3] = BULK_RANKS.map((rank) => sim.index.domainAt(rank));
		expect(itemsOf(WF.bulk, 'Bulk').map((item) => item.json)).toEqual([n1, n2, n3]);
		const calls = callsOf(WF.bulk, 'bulk').map((entry) => [...(entry.body as { domains: string[] }).domains].sort());
		expect(calls).toEqual([[n1.name, n2.name, n3.name, NOT_INDEXED].sort()]);
	});

	test('"Include Not Found" puts { name, found: false } in its place', () => {
		const [, n2, n3] = BULK_RANKS.map((rank) => sim.index.domainAt(rank));
		expect(itemsOf(WF.bulkNotFound, 'Bulk').map((item) => item.json)).toEqual([
			{ name: NOT_INDEXED, found: false },
			n3,
			n2,
		]);
	});

	test("a key without credits fails with the 402 and the service's message", () => {
		const run = result(WF.noCredits);
		expect(run.ok).toBe(false);
		expect(String(run.error?.httpCode)).toBe('402');
		expect(`${run.error?.message} ${run.error?.description}`).toMatch(/credit/i);
	});
});

describe('Domain → Enrich Items', () => {
	test('240 leads: every lead keeps its fields and gets its domain under the destination field', () => {
		const input = leads();
		const items = itemsOf(WF.enrich, 'Enrich');
		expect(items).toHaveLength(input.length);
		items.forEach((item, index) => {
			expect(pairedIndex(item)).toBe(index);
			const { domainData: data, ...rest } = item.json as { domainData: unknown };
			expect(rest).toEqual(input[index]);
			if (index < 230) expect(data).toEqual(sim.index.domainAt(index + 1));
			else if (index < 235) expect(data).toEqual(sim.index.domainAt(index - 229));
			else expect(data).toEqual({ name: `not-indexed-e2e-${index - 234}.com`, found: false });
		});
	});

	test('235 distinct names are asked once each, in three bulk calls of at most 100', () => {
		const calls = callsOf(WF.enrich, 'bulk').map((entry) => (entry.body as { domains: string[] }).domains);
		expect(calls).toHaveLength(3);
		expect(calls.every((domains) => domains.length <= 100)).toBe(true);
		const asked = calls.flat();
		expect(asked).toHaveLength(235);
		expect(new Set(asked).size).toBe(235);
		expect(callsOf(WF.enrich).filter((entry) => entry.endpoint !== 'bulk')).toHaveLength(0);
	});

	const good = () =>
		[7, 8].map((rank) => ({ website: sim.index.domainAt(rank).name, company: { data: sim.index.domainAt(rank) } }));

	test('On Error "Continue": bad rows keep their fields plus an error, in their place; the good rows are enriched', () => {
		const items = itemsOf(WF.enrichContinue, 'Enrich');
		expect(items.map(pairedIndex)).toEqual([0, 1, 2, 3]);
		expect(items[0].json).toEqual(good()[0]);
		expect(items[1].json).toEqual({ nothing: 'here', error: expect.stringMatching(/no field "website"/) });
		expect(items[2].json).toEqual({
			website: 'not a domain at all',
			error: expect.stringContaining('not a domain at all'),
		});
		expect(items[3].json).toEqual(good()[1]);
		expect(callsOf(WF.enrichContinue, 'bulk')).toHaveLength(1);
	});

	test('On Error "Continue (using error output)": bad rows go to the error output with their fields', () => {
		const run = result(WF.enrichErrorOutput);
		expect(run.ok).toBe(true);
		expect(run.json('Enrich', { output: 0 })).toEqual(good());
		const failed = run.items('Enrich', { output: 1 });
		expect(failed.map(pairedIndex)).toEqual([1, 2]);
		expect(failed[0].json).toEqual({ nothing: 'here', error: expect.stringMatching(/no field "website"/) });
		expect(failed[1].json).toEqual({ website: 'not a domain at all', error: expect.any(String) });
	});

	test("a wrong API key fails with the 401 and the service's message", () => {
		const run = result(WF.badKey);
		expect(run.ok).toBe(false);
		expect(String(run.error?.httpCode)).toBe('401');
		expect(`${run.error?.message} ${run.error?.description}`).toContain('Invalid API key');
		expect(JSON.stringify(run.run)).not.toContain(BAD_KEY);
	});
});

describe('Dataset → List', () => {
	test('one item per dataset, newest first', () => {
		expect(itemsOf(WF.list, 'List').map((item) => item.json)).toEqual(
			sim.datasets().map(({ label, value }) => ({ label, value })),
		);
	});
});

describe('Dataset → Stream', () => {
	test('Items: 50 records of the latest snapshot with the chosen fields and the concrete label', () => {
		const newest = sim.datasets()[0].label;
		const items = itemsOf(WF.streamItems, 'Stream');
		expect(items.map((item) => item.json)).toEqual(
			Array.from({ length: 50 }, (_, i) => ({
				...JSON.parse(sim.index.lineAt(i, newest, 'name,rank,country_code')),
				label: newest,
			})),
		);
		expect(callsOf(WF.streamItems, 'stream').map((entry) => entry.query)).toEqual([
			expect.objectContaining({ limit: '50', fields: expect.stringMatching(/name/) }),
		]);
	});

	test('Items with a filter: every German site of the snapshot, in rank order', () => {
		const newest = sim.datasets()[0].label;
		const german: Array<Record<string, unknown>> = [];
		for (let position = 0; position < DOMAINS; position++) {
			const record = JSON.parse(sim.index.lineAt(position, newest, 'name,rank,country_code')) as Record<
				string,
				unknown
			>;
			if (record.country_code === 'DE') german.push({ ...record, label: newest });
		}
		expect(german.length).toBeGreaterThan(0);
		expect(itemsOf(WF.streamFiltered, 'Stream').map((item) => item.json)).toEqual(german);
	});

	test('Batches: { label, batch, records } of 750 records from an older snapshot', () => {
		const label = sim.datasets()[1].label;
		const items = itemsOf(WF.streamBatches, 'Stream');
		expect(items.map((item) => [item.json.label, item.json.batch, (item.json.records as unknown[]).length])).toEqual([
			[label, 1, 750],
			[label, 2, 750],
			[label, 3, 500],
		]);
		const records = items.flatMap((item) => item.json.records as unknown[]);
		expect(records).toEqual(
			Array.from({ length: DOMAINS }, (_, i) => JSON.parse(sim.index.lineAt(i, label, 'name,rank'))),
		);
	});

	test("File: the whole snapshot as NDJSON, written to disk by n8n's Write File node", () => {
		const newest = sim.datasets()[0].label;
		const [item] = itemsOf(WF.streamFile, 'Stream');
		expect(item.json).toMatchObject({ label: newest, fileName: `${newest}.ndjson`, recordCount: DOMAINS });
		expect(item.binary?.data).toMatchObject({ mimeType: 'application/x-ndjson', fileName: `${newest}.ndjson` });
		const written = readFileSync(join(n8n.filesDir, `${newest}.ndjson`), 'utf8');
		const lines = Array.from({ length: DOMAINS }, (_, i) => sim.index.lineAt(i, newest));
		expect(written).toBe(lines.join('\n') + '\n');
		expect(item.json.sizeBytes).toBe(Buffer.byteLength(written));
	});

	test('a plan without historical data fails with the 403 and says why', () => {
		const run = result(WF.basicPlanStream);
		expect(run.ok).toBe(false);
		expect(String(run.error?.httpCode)).toBe('403');
		expect(`${run.error?.message} ${run.error?.description}`).toMatch(/historical/i);
	});
});
