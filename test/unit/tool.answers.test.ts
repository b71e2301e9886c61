/**
 * The node run as a tool (`…domainDataTool`, as n8n names it) over real HTTP to the simulator: every operation's
 * answer is one item within 20 records and 48 KB whatever Return All, Limit and Output say, the paid calls are
 * bounded before they are made (simulator log), the summary says when there is more, and a failure is a short
 * text without the key: the answer `{ error }` for an agent's tool call (its input carries `toolCallId`), a thrown
 * error with that text otherwise (an MCP client).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { TOOL_MAX_BYTES, TOOL_MAX_RECORDS } from '../../nodes/DomainData/actions/tool/bounds';
import { answerBytes } from '../../nodes/DomainData/actions/tool/answer';
import { runNode } from '../harness/n8n';
import { useSimulator } from '../harness/simulator';
import { KEYS } from '../simulator';

const sim = useSimulator({ domains: 5000, snapshots: 3 });
const TOOL = 'n8n-nodes-domain-data.domainDataTool';
const AGENT_CALL = [{ json: { toolCallId: 'call_1' } }];

function asTool(
	parameters: Record<string, unknown>,
	options: { apiKey?: string; input?: Array<{ json: IDataObject }> } = {},
) {
	return runNode({
		parameters: parameters as INodeParameters,
		credentials: { apiKey: options.apiKey ?? KEYS.pro, baseUrl: sim.url },
		nodeTypeName: TOOL,
		input: options.input ?? AGENT_CALL,
	});
}

/** The one answer item of a tool call that succeeded. */
async function answerOf(parameters: Record<string, unknown>, apiKey?: string): Promise<IDataObject> {
	const { items, error } = await asTool(parameters, { apiKey });
	expect(error).toBeUndefined();
	expect(items).toHaveLength(1);
	expect(answerBytes(items[0].json)).toBeLessThanOrEqual(TOOL_MAX_BYTES);
	return items[0].json;
}

describe('Domain Data as a tool: bounded answers', () => {
	test('Search with Return All: one call of 20, the total and how to narrow', async () => {
		const answer = await answerOf({ resource: 'domain', operation: 'search', returnAll: true, filters: '{}' });
		expect(sim.calls('search').map((call) => call.body)).toEqual([{ pageSize: TOOL_MAX_RECORDS }]);
		expect(answer.domains).toHaveLength(TOOL_MAX_RECORDS);
		expect((answer.domains as IDataObject[])[0]).toEqual(sim.index.domainAt(1));
		expect(answer.summary).toMatch(
			/^20 of 5,000 domains shown\. There are more: .* To narrow, search with more filters/,
		);
	});

	test('Search with a Limit below the bound and a small page size: the Limit, in the pages it needs', async () => {
		const answer = await answerOf({
			resource: 'domain',
			operation: 'search',
			filters: '{}',
			limit: 5,
			options: { pageSize: 2 },
		});
		expect(sim.calls('search').map((call) => (call.body as IDataObject).pageSize)).toEqual([2, 2, 1]);
		expect(answer.domains).toHaveLength(5);
	});

	test('Bulk Get of 30 names: one call of the first 20, the others named as not looked up', async () => {
		const names = Array.from({ length: 30 }, (_, i) => sim.index.domainAt(i + 1).name);
		const answer = await answerOf({
			resource: 'domain',
			operation: 'bulk',
			domains: [...names, 'not-indexed-x.com'].join(', '),
		});
		expect(sim.calls('bulk').map((call) => (call.body as { domains: string[] }).domains.length)).toEqual([20]);
		expect(answer.domains).toHaveLength(20);
		expect(answer.summary).toContain(`not looked up (11): ${names[20]}`);
	});

	test('Bulk Get: a name not in the index comes back as found: false', async () => {
		const answer = await answerOf({
			resource: 'domain',
			operation: 'bulk',
			domains: `${sim.index.domainAt(1).name}, not-indexed-x.com`,
		});
		expect(answer.domains).toEqual([sim.index.domainAt(1), { name: 'not-indexed-x.com', found: false }]);
	});

	test('Get: the domain object itself, one call', async () => {
		const domain = sim.index.domainAt(3);
		expect(await answerOf({ resource: 'domain', operation: 'get', domain: domain.name })).toEqual(domain);
		expect(sim.calls()).toHaveLength(1);
	});

	test('Dataset → List: at most 20, newest first', async () => {
		const answer = await answerOf({ resource: 'dataset', operation: 'list', returnAll: true });
		expect(answer.datasets).toEqual(sim.datasets());
		expect(answer.summary).toBe('3 datasets shown.');
	});

	test('Dataset → Stream with Return All and Batches: a slice of 20, the label said once, more announced', async () => {
		const answer = await answerOf({
			resource: 'dataset',
			operation: 'stream',
			label: 'latest',
			returnAll: true,
			output: 'batches',
		});
		expect(answer.label).toBe(sim.datasets()[0].label);
		expect(answer.records).toHaveLength(TOOL_MAX_RECORDS);
		expect((answer.records as IDataObject[])[0].label).toBeUndefined();
		expect(answer.summary).toMatch(/^20 records shown\. There are more/);
		// The stream asked for one record more than is shown (that record tells that there are more).
		expect(sim.calls('stream').map((call) => call.query.limit)).toEqual([String(TOOL_MAX_RECORDS + 1)]);
	});

	test('Dataset → Compare: at most 20 changes with their counts per kind', async () => {
		const answer = await answerOf({
			resource: 'dataset',
			operation: 'compare',
			label: 'latest',
			baseLabel: 'previous',
			returnAll: true,
		});
		const changes = answer.changes as IDataObject[];
		expect(changes).toHaveLength(TOOL_MAX_RECORDS);
		expect(answer).toMatchObject({ label: sim.datasets()[0].label, baseLabel: sim.datasets()[1].label });
		const added = changes.filter((change) => change.change === 'added').length;
		expect(answer.summary).toContain(`20 changes shown (`);
		if (added) expect(answer.summary).toContain(`${added} added`);
		expect(answer.summary).toContain('There are more');
	});

	test('Compact records: the asked-about fields only, texts cut', async () => {
		const answer = await answerOf({
			resource: 'domain',
			operation: 'search',
			filters: '{}',
			limit: 3,
			toolRecords: 'compact',
		});
		const first = (answer.domains as IDataObject[])[0];
		expect(Object.keys(first)).not.toContain('id');
		expect(Object.keys(first)).not.toContain('tld1');
		expect(first.name).toBe(sim.index.domainAt(1).name);
		expect(answer.summary).toContain('Records are compact');
	});

	test('File and Sub-Workflow outputs are refused before any call, in words a model can pass on', async () => {
		for (const output of ['file', 'subWorkflow']) {
			const { items } = await asTool({ resource: 'dataset', operation: 'stream', label: 'latest', output });
			expect(items[0].json.error).toMatch(
				/^This tool is set to send its data to .*Tell the user to set Output to "Items"/,
			);
		}
		expect(sim.calls()).toHaveLength(0);
	});
});

describe('Domain Data as a tool: failures a model can act on', () => {
	test('a rejected key: the answer says so and what to do, without the key', async () => {
		const key = 'wrong-key-0123456789';
		const { items, error } = await asTool(
			{ resource: 'domain', operation: 'get', domain: 'example.com' },
			{ apiKey: key },
		);
		expect(error).toBeUndefined();
		expect(items[0].json.error).toMatch(
			/^The Domain Data service rejected the API key\. .*credential in n8n must be fixed/,
		);
		expect(JSON.stringify(items)).not.toContain(key);
	});

	test('a domain that is not in the index', async () => {
		const { items } = await asTool({ resource: 'domain', operation: 'get', domain: 'not-indexed-x.com' });
		expect(items[0].json.error).toMatch(/^The domain "not-indexed-x.com" is not in the index\. /);
	});

	test('a service that is down: try again later', async () => {
		sim.setFaults({ requests: [{ status: 503, count: 10 }] });
		const { items } = await asTool({
			resource: 'domain',
			operation: 'get',
			domain: 'example.com',
			options: { maxAttempts: 1 },
		});
		expect(items[0].json.error).toMatch(/failed with .*503.* try again in a few minutes/);
	});

	test('outside an agent (an MCP client): the same text, thrown', async () => {
		const { items, error } = await asTool(
			{ resource: 'domain', operation: 'get', domain: 'not-indexed-x.com' },
			{ input: [{ json: { domain: 'x' } }] },
		);
		expect(items).toHaveLength(0);
		expect(error?.message).toMatch(/^The domain "not-indexed-x.com" is not in the index\. /);
	});
});
