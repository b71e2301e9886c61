/**
 * The Domains filter of Dataset → Stream and Dataset → Compare over HTTP against the simulator: names, URLs and
 * email addresses read as Domain → Get reads them; Compare with a list gives exactly the brute-force diff restricted
 * to the listed names and indexes only their lines; names no snapshot holds and entries that are no domain are
 * counted and named in hints and summaries; a list of a million names in the memory the README states. Names the
 * service spells otherwise (`Example.COM`, `example.org.`, `münchen.de`) are served by a local service.
 */
import type {
	ExecuteWorkflowOptions,
	IDataObject,
	INodeExecutionData,
	INodeParameters,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { compareSnapshots, createCompareStats, type DomainChange } from '../../../nodes/DomainData/helpers/compare';
import { DomainSet } from '../../../nodes/DomainData/helpers/domainSet';
import { listedLines, readDomainList } from '../../../nodes/DomainData/helpers/domainsFilter';
import { parseRecordFilter } from '../../../nodes/DomainData/helpers/recordFilter';
import { bruteForce, rawSnapshot, type Record_ } from '../../harness/bruteForceDiff';
import { startLocalService } from '../../harness/localService';
import { createExecuteContext, readBinary } from '../../harness/n8n';
import { useSimulator } from '../../harness/simulator';
import { KEYS } from '../../simulator';

const DOMAINS = 3000;
const NEWEST = '2025-06-30';
const PREVIOUS = '2025-06-23';
const sim = useSimulator({ domains: DOMAINS });
type ExecuteWorkflow = IWorkflowExecuteAdditionalData['executeWorkflow'];

/** Runs the node in a real execute context; returns its items, error and the hints it left under the output. */
async function run(
	parameters: INodeParameters,
	input?: INodeExecutionData[],
	executeWorkflow?: ExecuteWorkflow,
	baseUrl = sim.url,
) {
	const { context, node } = await createExecuteContext({
		parameters: { resource: 'dataset', label: 'latest', returnAll: true, ...parameters },
		credentials: { apiKey: KEYS.pro, baseUrl },
		input,
		executeWorkflow,
	});
	const hints = () => (context as unknown as { hints: Array<{ message: string }> }).hints.map((hint) => hint.message);
	const { DomainData } = await import('../../../nodes/DomainData/DomainData.node');
	try {
		const output = await new DomainData().execute.call(context);
		return { items: output[0], json: output[0].map((item) => item.json), hints: hints(), error: undefined, node };
	} catch (error) {
		return { items: [], json: [], hints: hints(), error: error as Error & { description?: string }, node };
	}
}

/** Spellings of one name as a CRM holds them. */
const SPELLINGS = [
	(name: string) => name,
	(name: string) => `https://www.${name}/about?x=1`,
	(name: string) => `Sales@${name.toUpperCase()}`,
	(name: string) => `  ${name.toUpperCase()}.  `,
];
const spelled = (names: string[]) => names.map((name, index) => SPELLINGS[index % SPELLINGS.length](name));

let newer: Record_[];
let older: Record_[];
beforeAll(async () => {
	newer = await rawSnapshot(sim.url, NEWEST);
	older = await rawSnapshot(sim.url, PREVIOUS);
});

describe('Dataset → Stream with Domains', () => {
	it('a list from an expression (an array) gives exactly those records, in one stream request', async () => {
		const wanted = newer.filter((_, position) => position % 37 === 5).map((record) => record.name);
		const absent = ['not-in-the-index.example', 'nobody-here.example'];
		const list = [...spelled(wanted), ...absent, null, '', 'mailto:x@' + wanted[0]];
		sim.clearLog();
		const result = await run({ operation: 'stream', fields: ['name', 'title'], filters: { domains: list } });
		expect(result.error).toBeUndefined();
		const expected = newer
			.filter((record) => wanted.includes(record.name))
			.map((record) => ({ name: record.name, title: record.title, label: NEWEST }));
		expect(result.json).toEqual(expected);
		expect(sim.calls('stream')).toHaveLength(1);
		expect(result.hints).toEqual([
			`2 of the ${wanted.length + 2} listed domains are not in the dataset "${NEWEST}": ` +
				'"not-in-the-index.example", "nobody-here.example"',
		]);
	});

	it('as text (commas, spaces, new lines); the other filters still apply; the name need not be output', async () => {
		const candidates = newer.slice(0, 400);
		const country = candidates[0].country_code as string;
		const text = candidates.map((record) => record.name).join(',\n ');
		const result = await run({
			operation: 'stream',
			fields: ['title'],
			filters: { domains: text, countryCodes: country },
		});
		expect(result.error).toBeUndefined();
		expect(result.json).toEqual(
			candidates
				.filter((record) => record.country_code === country)
				.map((record) => ({ title: record.title, label: NEWEST })),
		);
		expect(result.hints).toEqual([]);
	});

	it('the File output: only the listed lines, and the summary tells the list', async () => {
		const wanted = newer.slice(100, 110).map((record) => record.name);
		const result = await run({
			operation: 'stream',
			output: 'file',
			filters: { domains: [...wanted, 'gone.example', 'n/a', 42] },
		});
		expect(result.error).toBeUndefined();
		const lines = (await readBinary(result.items[0])).toString('utf8').trim().split('\n');
		expect(lines.map((line) => (JSON.parse(line) as IDataObject).name)).toEqual(wanted);
		expect(result.json[0].domainList).toEqual({
			listed: 11,
			notFound: 1,
			notFoundExamples: ['gone.example'],
			rejected: 2,
			rejectedExamples: ['n/a', '42'],
		});
		expect(result.hints).toEqual([
			`1 of the 11 listed domains is not in the dataset "${NEWEST}": "gone.example"`,
			'Left out 2 entries of the filter "Domains" that are not a domain name: "n/a", "42"',
		]);
	});

	it('with a Limit that stops the read, no name is called missing', async () => {
		const wanted = newer.slice(0, 50).map((record) => record.name);
		const result = await run({
			operation: 'stream',
			returnAll: false,
			limit: 5,
			filters: { domains: [...wanted, 'gone.example'] },
		});
		expect(result.json.map((record) => record.name)).toEqual(wanted.slice(0, 5));
		expect(result.hints).toEqual([]);
	});

	it('a list without any domain is refused before any request, naming its entries', async () => {
		sim.clearLog();
		const cases: Array<[string | string[], string]> = [
			['n/a, -, 10.0.0.1', 'The filter "Domains" holds only entries that are not domain names: "n/a", "-", "10.0.0.1"'],
			['', 'The filter "Domains" holds no entry'],
			[[], 'The filter "Domains" holds no entry'],
		];
		for (const [domains, message] of cases) {
			const result = await run({ operation: 'stream', filters: { domains } });
			expect(result.error?.message).toBe(message);
			expect(result.error?.description).toContain('Remove the filter to read every record');
		}
		expect(sim.log).toHaveLength(0);
	});
});

describe('Dataset → Compare with Domains', () => {
	/** Names added, removed, changed and unchanged between PREVIOUS and NEWEST, and names in neither. */
	function listOfEveryKind() {
		const olderNames = new Set(older.map((record) => record.name));
		const newerNames = new Set(newer.map((record) => record.name));
		const added = newer.filter((record) => !olderNames.has(record.name)).map((record) => record.name);
		const removed = older.filter((record) => !newerNames.has(record.name)).map((record) => record.name);
		const both = newer.filter((record) => olderNames.has(record.name)).map((record) => record.name);
		expect(added.length).toBeGreaterThan(3);
		expect(removed.length).toBeGreaterThan(3);
		const names = [...added.slice(0, 10), ...removed.slice(0, 10), ...both.filter((_, index) => index % 9 === 0)];
		return { names, neither: ['never-indexed.example', 'also-never.example'] };
	}

	it('gives exactly the brute-force diff restricted to the listed names (names, URLs and emails)', async () => {
		const { names, neither } = listOfEveryKind();
		const listed = new Set(names);
		const question = { fields: ['title', 'technologies', 'country_code', 'rank'], minRankMove: 1 };
		const expected = bruteForce(
			newer.filter((record) => listed.has(record.name)),
			older.filter((record) => listed.has(record.name)),
			{ label: NEWEST, baseLabel: PREVIOUS },
			question,
		);
		expect(expected.length).toBeGreaterThan(20);
		sim.clearLog();
		const result = await run({
			operation: 'compare',
			baseLabel: PREVIOUS,
			fields: question.fields,
			filters: { domains: [...spelled(names), ...neither].join('\n') },
		});
		expect(result.error).toBeUndefined();
		expect(result.json).toEqual(expected);
		expect(result.hints).toEqual([
			`2 of the ${names.length + 2} listed domains are in neither "${NEWEST}" nor "${PREVIOUS}": ` +
				'"never-indexed.example", "also-never.example"',
		]);
	});

	it('with another filter too, and the File output names what no snapshot holds', async () => {
		const { names, neither } = listOfEveryKind();
		const listed = new Set(names);
		const question = { fields: ['title', 'technologies'], filters: { maxRank: 1500 } };
		const expected = bruteForce(
			newer.filter((record) => listed.has(record.name)),
			older.filter((record) => listed.has(record.name)),
			{ label: NEWEST, baseLabel: PREVIOUS },
			question,
		);
		const result = await run({
			operation: 'compare',
			baseLabel: PREVIOUS,
			fields: question.fields,
			output: 'file',
			filters: { domains: [...names, ...neither, '-'], maxRank: 1500 },
		});
		expect(result.error).toBeUndefined();
		const lines = (await readBinary(result.items[0])).toString('utf8').trim().split('\n');
		expect(lines.map((line) => JSON.parse(line) as IDataObject)).toEqual(expected);
		expect(result.json[0].domainList).toEqual({
			listed: names.length + 2,
			notFound: 2,
			notFoundExamples: neither,
			rejected: 1,
			rejectedExamples: ['-'],
		});
	});

	it('the Sub-Workflow output: the changes of the listed names in its runs, and the list in its summary', async () => {
		const { names, neither } = listOfEveryKind();
		const listed = new Set(names);
		const expected = bruteForce(
			newer.filter((record) => listed.has(record.name)),
			older.filter((record) => listed.has(record.name)),
			{ label: NEWEST, baseLabel: PREVIOUS },
			{ fields: ['title'] },
		);
		const received: IDataObject[] = [];
		const executeWorkflow = async (_info: unknown, _data: unknown, options: ExecuteWorkflowOptions) => {
			for (const item of options.inputData ?? []) received.push(JSON.parse(JSON.stringify(item.json)) as IDataObject);
			return { executionId: String(received.length), data: [options.inputData ?? []] };
		};
		const result = await run(
			{
				operation: 'compare',
				baseLabel: PREVIOUS,
				fields: ['title'],
				output: 'subWorkflow',
				workflowId: { __rl: true, mode: 'list', value: 'subWf1', cachedResultName: 'Load batch' },
				batchSize: 10,
				filters: { domains: [...names, ...neither] },
			},
			undefined,
			executeWorkflow as unknown as ExecuteWorkflow,
		);
		expect(result.error).toBeUndefined();
		expect(received).toEqual(expected);
		expect(result.json[0].domainList).toEqual({ listed: names.length + 2, notFound: 2, notFoundExamples: neither });
	});

	it('indexes and parses only the listed lines (memory in proportion to the list, not to the snapshot)', async () => {
		const { names } = listOfEveryKind();
		const { context, node } = await createExecuteContext({
			parameters: { resource: 'dataset', operation: 'compare' },
			credentials: { apiKey: KEYS.pro, baseUrl: sim.url },
		});
		const filter = parseRecordFilter(node, { domains: names }, 0);
		const stats = createCompareStats();
		const changes: DomainChange[] = [];
		const spec = {
			label: NEWEST,
			baseLabel: PREVIOUS,
			fields: ['title' as const],
			kinds: new Set(['added', 'removed', 'changed'] as const),
			filter,
			minRankMove: 1,
			maxAttempts: 3,
			idleTimeoutMs: 30_000,
			itemIndex: 0,
		};
		for await (const change of compareSnapshots.call(context, spec, stats)) changes.push(change);
		const [newerRead, olderRead] = stats.reads;
		expect(newerRead.lines).toBe(newer.length);
		// Pass 1 indexes what it hands out: the listed names of the newer snapshot, nothing else.
		expect(newerRead.records).toBe(newer.filter((record) => names.includes(record.name)).length);
		expect(olderRead.records).toBeLessThanOrEqual(names.length);
		expect(changes.every((change) => names.includes(change.name))).toBe(true);
	});
});

/** The bytes of the typed arrays an object holds in its fields: for a DomainSet, all the memory its names take. */
const typedArrayBytes = (object: object) =>
	Object.values(object).reduce((sum: number, value) => sum + (ArrayBuffer.isView(value) ? value.byteLength : 0), 0);

describe('the compact set of names', () => {
	it('a list of 1,000,000 names: every name found, no other, within 30 bytes a name plus its length', () => {
		const names = Array.from({ length: 1_000_000 }, (_, index) => `account-${index}.example.com`);
		const list = readDomainList(names);
		const set = list.names;
		expect(set.size).toBe(1_000_000);
		expect(list.rejected.count).toBe(0);
		const characters = names.reduce((total, name) => total + name.length, 0);
		const perName = (typedArrayBytes(set) - characters) / set.size;
		expect(perName).toBeLessThanOrEqual(30);
		for (let index = 0; index < names.length; index += 997) expect(set.has(names[index])).toBe(true);
		for (let index = 0; index < 10_000; index++) expect(set.has(`account-${index}.example.org`)).toBe(false);
		expect(set.nameAt(123_456)).toBe('account-123456.example.com');
	});

	it('an exact check on a hit; a name inside a text found without a string; duplicates stored once', () => {
		const set = new DomainSet();
		for (const name of ['a.com', 'b.com', 'a.com', 'xn--mnchen-3ya.de']) set.add(name);
		expect(set.size).toBe(3);
		const text = '{"name":"b.com","rank":3}';
		expect(set.indexOf(text, 9, 14)).toBe(1);
		expect(set.indexOf(text, 9, 13)).toBe(-1);
		expect(readDomainList(['MÜNCHEN.de', 'https://www.b.com/x']).names.has('xn--mnchen-3ya.de')).toBe(true);
		set.markSeen(0);
		expect(set.unseen()).toEqual({ count: 2, examples: ['b.com', 'xn--mnchen-3ya.de'] });
	});
});

describe('names the service spells otherwise (issue 37, item 8)', () => {
	/** Runs the node against a local service that serves `snapshots` (label → lines) as they are written here. */
	async function runOn(snapshots: Record<string, string[]>, parameters: INodeParameters) {
		const service = await startLocalService((request) => {
			if (request.path === '/historical/domain') {
				return { body: { datasets: Object.keys(snapshots).map((label) => ({ label, value: `snap-${label}` })) } };
			}
			const lines = snapshots[decodeURIComponent(request.path.replace('/historical/domain/', ''))];
			return lines ? { body: lines.join('\n') + '\n' } : { status: 404, body: { error: 'not found' } };
		});
		try {
			return await run({ label: NEWEST, ...parameters }, undefined, undefined, service.url);
		} finally {
			await service.close();
		}
	}
	const line = (name: string, title: string) => JSON.stringify({ name, title });
	/** The escaped form JSON.stringify does not write: the raw line cannot be read, the parsed one can. */
	const escaped = '{"name":"b\\u00fccher.de","title":"Books"}';
	const newerLines = [
		line('Example.COM', 'Example'),
		line('other.com', 'Other'),
		line('example.org.', 'Org'),
		line('münchen.de', 'München'),
		escaped,
		line('Other.NET', 'Other net'),
		line('WWW.Plain.com', 'Not the listed one: www. is part of a record name'),
		line('plain.com', 'Plain'),
	];
	const list = 'example.com, Example.org, münchen.de, BÜCHER.de, plain.com, absent.example';

	it('Stream: listed names found in any spelling, as Get reads a name; the hint names only the absent one', async () => {
		const result = await runOn(
			{ [NEWEST]: newerLines },
			{ operation: 'stream', fields: ['name', 'title'], filters: { domains: list } },
		);
		expect(result.error).toBeUndefined();
		expect(result.json.map((record) => record.name)).toEqual([
			'Example.COM',
			'example.org.',
			'münchen.de',
			'bücher.de',
			'plain.com',
		]);
		expect(result.hints).toEqual([`1 of the 6 listed domains is not in the dataset "${NEWEST}": "absent.example"`]);
	});

	it('Stream, File output: the summary counts the same names as found', async () => {
		const result = await runOn(
			{ [NEWEST]: newerLines },
			{ operation: 'stream', output: 'file', filters: { domains: list } },
		);
		expect(result.error).toBeUndefined();
		const lines = (await readBinary(result.items[0])).toString('utf8').trim().split('\n');
		expect(lines).toEqual([newerLines[0], newerLines[2], newerLines[3], escaped, newerLines[7]]);
		expect(result.json[0].domainList).toEqual({ listed: 6, notFound: 1, notFoundExamples: ['absent.example'] });
	});

	it('Compare: the same rule on both sides; the hint names only the names in neither', async () => {
		const olderLines = [
			line('Example.COM', 'Example before'),
			line('example.org.', 'Org'),
			line('münchen.de', 'München before'),
			line('other.com', 'Other'),
			line('gone.example.', 'Gone'),
		];
		const result = await runOn(
			{ [NEWEST]: newerLines, [PREVIOUS]: olderLines },
			{
				operation: 'compare',
				baseLabel: PREVIOUS,
				fields: ['title'],
				filters: { domains: `${list}\ngone.example` },
			},
		);
		expect(result.error).toBeUndefined();
		expect(result.json.map((change) => `${change.change as string} ${change.name as string}`)).toEqual([
			'removed gone.example.',
			'changed Example.COM',
			'changed münchen.de',
			'added bücher.de',
			'added plain.com',
		]);
		expect(result.hints).toEqual([
			`1 of the 7 listed domains is in neither "${NEWEST}" nor "${PREVIOUS}": "absent.example"`,
		]);
	});

	it('the raw-line fast path: a plain name is judged unparsed, an odd one by its normal form', () => {
		const { names } = readDomainList('example.com, münchen.de');
		const select = listedLines(names);
		const judge = (text: string) => select(text, 0, text.length);
		expect(judge('{"name":"example.com","x":1}')).toBe(true);
		expect(judge('{"name":"EXAMPLE.com.","x":1}')).toBe(true);
		expect(judge('{"name":"M\u00dcNCHEN.DE","x":1}')).toBe(true);
		expect(judge('{"name":"example.net","x":1}')).toBe(false);
		expect(judge('{"name":"Example.NET.","x":1}')).toBe(false);
		expect(judge('{"name":"www.example.com","x":1}')).toBe(false);
		expect(judge('{"name":"example.co","x":1}')).toBe(false);
		// A name cut by the end of the range is not judged raw: it goes to the parser.
		expect(select('{"name":"example.net"}', 0, 15)).toBe(true);
		expect(names.has('EXAMPLE.com.')).toBe(true);
	});
});

describe('entries as exports hold them, and entries echoed (issue 37, item 11 and rough edge)', () => {
	it('names in quotes, parentheses, angle brackets and the Name <email> form are read; an object is described', async () => {
		const [a, b, c, d, e] = newer.slice(200, 205).map((record) => record.name);
		const text = `Jane Doe <jane@${a.toUpperCase()}>, "Doe, John" <john@${b}>; "${c}" (${d})\n<${e}>`;
		const result = await run({
			operation: 'stream',
			output: 'file',
			// An object from an expression, as a sheet's row can give it.
			filters: { domains: [text, { company: 'Acme' }, '<>'] } as unknown as INodeParameters,
		});
		expect(result.error).toBeUndefined();
		const lines = (await readBinary(result.items[0])).toString('utf8').trim().split('\n');
		expect(lines.map((line) => (JSON.parse(line) as IDataObject).name)).toEqual([a, b, c, d, e]);
		expect(result.json[0].domainList).toEqual({
			listed: 5,
			notFound: 0,
			notFoundExamples: [],
			rejected: 2,
			rejectedExamples: ['{"company":"Acme"}', '<>'],
		});
		expect(result.hints).toEqual([
			'Left out 2 entries of the filter "Domains" that are not a domain name: "{"company":"Acme"}", "<>"',
		]);
	});

	it('a 50 MB entry that is no domain is clipped in the summary, the hint and the error', async () => {
		const huge = 'n/a' + '/'.repeat(50_000_000);
		const wanted = newer[300].name;
		const result = await run({ operation: 'stream', output: 'file', filters: { domains: [wanted, huge] } });
		expect(result.error).toBeUndefined();
		const summary = result.json[0].domainList as IDataObject;
		expect(summary.rejected).toBe(1);
		const [shown] = summary.rejectedExamples as string[];
		expect(shown.length).toBeLessThanOrEqual(200);
		expect(shown.startsWith('n/a//')).toBe(true);
		expect(shown.endsWith('…')).toBe(true);
		expect(result.hints).toHaveLength(1);
		expect(result.hints[0].length).toBeLessThan(300);

		sim.clearLog();
		const refused = await run({ operation: 'stream', filters: { domains: [huge, huge] } });
		expect(refused.error?.message.length).toBeLessThan(600);
		expect(refused.error?.message).toContain(
			'The filter "Domains" holds only entries that are not domain names: "n/a//',
		);
		expect(sim.log).toHaveLength(0);
	});
});
