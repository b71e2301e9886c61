/**
 * 4. Search: 10,000 results in pages of 100. Our Domain → Search through the harness against a raw undici
 * loop over the same pages (the overhead of n8n's HTTP helper and of the node), and, in real n8n, against
 * the HTTP Request node's own pagination.
 */
import { request } from 'undici';

import { chain, domainData, manualTrigger, node, workflow, workflowId } from '../scripts/n8n/workflows';
import { KEYS } from '../test/simulator';
import { createExecuteContext, runNode } from '../test/harness/n8n';
import { BenchN8n, DOMAIN_DATA_CREDENTIAL, HEADER_AUTH_CREDENTIAL, n8nAvailable, type TimedExecution } from './lib/n8n';
import { isStub, StubError } from './lib/operation';
import { markdownTable, shouldProfile, type BenchContext, type Figure, type SectionResult } from './lib/report';
import { SimulatorProcess } from './lib/simulator-process';
import { formatNumber, interleave, median, warmUp, type Contender } from './lib/stats';
import { profileOperation } from './profile';

const PAGE_SIZE = 100;
const TARGET_OVERHEAD = 1.1;
const OURS = 'our Search (harness)';
const RAW = 'raw undici loop (connection kept open)';
const RAW_FRESH = 'raw undici loop, a new connection per call';
const HELPER = "loop over n8n's HTTP helper (httpRequestWithAuthentication), no node";
const SEARCH_NODE = 'Search (Domain Data)';
const HTTP_NODE = 'Search (HTTP Request, pagination)';

export const SEARCH_PARAMETERS = {
	resource: 'domain',
	operation: 'search',
	returnAll: true,
	options: { pageSize: PAGE_SIZE },
};

/**
 * What a script does: POST each page, pass the cursor back, until a page comes without one. With
 * `freshConnections`, every call closes its connection (as every request of n8n's HTTP helper does).
 */
export async function rawSearchLoop(
	baseUrl: string,
	apiKey: string,
	options: { freshConnections?: boolean } = {},
): Promise<unknown[]> {
	const results: unknown[] = [];
	let searchAfter: unknown;
	do {
		const response = await request(`${baseUrl}/json/api/v1/domain/search`, {
			method: 'POST',
			headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
			body: JSON.stringify({ pageSize: PAGE_SIZE, ...(searchAfter ? { searchAfter } : {}) }),
			reset: options.freshConnections === true,
		});
		if (response.statusCode !== 200)
			throw new Error(`search answered ${response.statusCode}: ${await response.body.text()}`);
		const page = (await response.body.json()) as { results: unknown[]; search_after?: unknown };
		for (const result of page.results) results.push(result);
		searchAfter = page.search_after;
	} while (searchAfter);
	return results;
}

interface Run {
	wallMs: number;
	calls: number;
}

/**
 * How many times the node asks n8n for its credential per API call. n8n's helper asks once per request
 * (n8n decrypts it every time, and a real n8n reads it from its database first); more is the node's own.
 */
async function credentialReadsPerCall(
	sim: SimulatorProcess,
	credentials: { apiKey: string; baseUrl: string },
): Promise<number> {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const core = require('n8n-core') as typeof import('n8n-core');
	let owner: { getCredentials: (...args: unknown[]) => unknown } = core.ExecuteContext
		.prototype as unknown as typeof owner;
	while (!Object.prototype.hasOwnProperty.call(owner, 'getCredentials')) owner = Object.getPrototypeOf(owner);
	const original = owner.getCredentials;
	let reads = 0;
	owner.getCredentials = function (this: unknown, ...args: unknown[]) {
		reads++;
		return original.apply(this, args);
	};
	try {
		await sim.clearLog();
		await runNode({ parameters: SEARCH_PARAMETERS, credentials });
		return reads / Math.max(1, (await sim.calls()).length);
	} finally {
		owner.getCredentials = original;
	}
}

/** The same loop through n8n's own HTTP helper in a real ExecuteContext: what any node pays per call, before its own code. */
async function helperLoop(baseUrl: string, apiKey: string): Promise<unknown[]> {
	const { context } = await createExecuteContext({ parameters: SEARCH_PARAMETERS, credentials: { apiKey, baseUrl } });
	const results: unknown[] = [];
	let searchAfter: unknown;
	do {
		const page = (await context.helpers.httpRequestWithAuthentication.call(context, 'domainDataApi', {
			method: 'POST',
			url: `${baseUrl}/json/api/v1/domain/search`,
			body: { pageSize: PAGE_SIZE, ...(searchAfter ? { searchAfter } : {}) },
			json: true,
		})) as { results: unknown[]; search_after?: unknown };
		for (const result of page.results) results.push(result);
		searchAfter = page.search_after;
	} while (searchAfter);
	return results;
}

/** One latency setting of the harness comparison: figures, a table, and whether a profile is wanted. */
async function harnessComparison(
	context: BenchContext,
	sim: SimulatorProcess,
	total: number,
	latencyMs: number,
	rounds: number,
): Promise<{ figures: Figure[]; details: string[]; pending: string[] }> {
	await sim.setFaults({ latencyMs });
	const credentials = { apiKey: KEYS.pro, baseUrl: sim.url };
	const timed = (name: string, read: () => Promise<number>): Contender<Run> => ({
		name,
		run: async () => {
			await sim.clearLog();
			const started = performance.now();
			const count = await read();
			const wallMs = performance.now() - started;
			if (count !== total) throw new Error(`${name} returned ${count} results, expected ${total}`);
			return { wallMs, calls: (await sim.calls()).length };
		},
	});
	const ours = timed(OURS, async () => {
		const result = await runNode({ parameters: SEARCH_PARAMETERS, credentials });
		if (result.error) throw isStub(result.error) ? new StubError('Domain → Search') : result.error;
		return result.items.length;
	});
	const raw = timed(RAW, async () => (await rawSearchLoop(sim.url, KEYS.pro)).length);
	const rawFresh = timed(
		RAW_FRESH,
		async () => (await rawSearchLoop(sim.url, KEYS.pro, { freshConnections: true })).length,
	);
	const helper = timed(HELPER, async () => (await helperLoop(sim.url, KEYS.pro)).length);

	const pending: string[] = [];
	const { ready, failed } = await warmUp([ours, raw, rawFresh, helper]);
	for (const { name, error } of failed) {
		if (name !== OURS) throw error;
		pending.push(
			`${error instanceof StubError ? error.message : `our Search fails: ${error.message}`}; our side not measured`,
		);
	}
	context.log(
		`search: ${total} results in pages of ${PAGE_SIZE}, latency ${latencyMs} ms, ${rounds} interleaved rounds`,
	);
	const results = await interleave(ready, rounds);
	const rawRuns = results.get(RAW)!;
	const ratio = (name: string) => median(results.get(name)!.map((r, i) => r.wallMs / rawRuns[i].wallMs));
	const rows = [...results.entries()].map(([name, runs]) => [
		name,
		formatNumber(median(runs.map((r) => r.calls))),
		formatNumber(median(runs.map((r) => r.wallMs))),
		name === RAW ? '1.00' : ratio(name).toFixed(2),
		runs.map((r) => formatNumber(r.wallMs)).join(', '),
	]);
	const details = [
		`**${latencyMs ? `${latencyMs} ms` : 'No'} latency added** ${latencyMs ? 'before every answer (a service across a network)' : "(so the client's own cost per call shows)"}: ` +
			`${rounds} rounds, alternating, after a warm-up run of each; ratio = median over rounds of (contender ÷ raw loop in the same round).`,
		markdownTable(['contender', 'calls', 'wall ms (median)', 'ratio to raw loop', 'wall ms per round'], rows),
	];
	if (!results.has(OURS)) return { figures: [], details, pending };
	const overhead = ratio(OURS);
	const perCall = (name: string) =>
		median(results.get(name)!.map((r) => r.wallMs)) / median(results.get(name)!.map((r) => r.calls));
	const ms = (value: number) => `${value.toFixed(1)} ms`;
	const plus = (value: number) => `${value < 0 ? '−' : '+'}${Math.abs(value).toFixed(1)} ms`;
	details.push(
		`Per call: raw loop ${ms(perCall(RAW))}; with a new connection per call ${ms(perCall(RAW_FRESH))} ` +
			`(${plus(perCall(RAW_FRESH) - perCall(RAW))}); through n8n's HTTP helper ${ms(perCall(HELPER))} ` +
			`(${plus(perCall(HELPER) - perCall(RAW_FRESH))} for axios and n8n-core's request handling); our node ${ms(perCall(OURS))} ` +
			`(${plus(perCall(OURS) - perCall(HELPER))} for the node's own code: parameters, credential, retries, error mapping, output items).`,
	);
	const overHelper = median(results.get(OURS)!.map((r, i) => r.wallMs / results.get(HELPER)![i].wallMs));
	const figure: Figure = {
		what: `harness: time vs raw undici loop, ${latencyMs} ms latency (${formatNumber(total)} results)`,
		value:
			`${formatNumber(median(results.get(OURS)!.map((r) => r.wallMs)))} ms vs ${formatNumber(median(rawRuns.map((r) => r.wallMs)))} ms = ` +
			`${overhead.toFixed(2)} ×, ${formatNumber(median(results.get(OURS)!.map((r) => r.calls)))} calls each`,
		target: `≤ ${TARGET_OVERHEAD} ×`,
		met: overhead <= TARGET_OVERHEAD,
	};
	const nodeOnly: Figure = {
		what: `harness: time vs the same loop over n8n's HTTP helper, ${latencyMs} ms latency (the node's own overhead)`,
		value: `${overHelper.toFixed(2)} ×`,
	};
	return { figures: [figure, nodeOnly], details, pending };
}

export async function search(context: BenchContext): Promise<SectionResult> {
	const total = context.tiny ? 1_000 : 10_000;
	const sim = await context.simulators.start({ domains: total });
	const pending: string[] = [];
	const figures: Figure[] = [];
	const details: string[] = [
		`${formatNumber(total)} results (the whole index of the simulator) in pages of ${PAGE_SIZE}: our node ` +
			`(\`${JSON.stringify(SEARCH_PARAMETERS)}\`) through the harness, i.e. n8n-core's real HTTP helper, against a script's loop ` +
			'(undici, which keeps its connection open between calls), the same loop opening a new connection for every call, as ' +
			"n8n's HTTP helper does (n8n-core 2.8 gives every request a new http.Agent, so no connection is reused), and the same loop " +
			"through n8n's HTTP helper in a real ExecuteContext (what any node pays per call before its own code runs). All keep every result.",
	];
	let profile: string[] | undefined;
	try {
		let missed = false;
		const reads = await credentialReadsPerCall(sim, { apiKey: KEYS.pro, baseUrl: sim.url });
		details.push(
			`Credential reads (\`getCredentials\`) per API call during our Search: ${reads.toFixed(1)} (n8n's HTTP helper itself makes one).`,
		);
		for (const [latencyMs, rounds] of [
			[0, context.tiny ? 1 : 7],
			[50, context.tiny ? 1 : 3],
		] as const) {
			const part = await harnessComparison(context, sim, total, latencyMs, rounds);
			figures.push(...part.figures);
			details.push(...part.details);
			pending.push(...part.pending.filter((reason) => !pending.includes(reason)));
			if (part.figures.some((figure) => figure.met === false)) missed = true;
		}
		await sim.setFaults({ latencyMs: 0 });
		if (shouldProfile(context, missed)) {
			context.log('search: profiling our Search');
			const nodeOwn = figures
				.filter((figure) => figure.what.includes("the node's own overhead"))
				.map((figure) => parseFloat(figure.value));
			const helperIsTheGap = nodeOwn.length > 0 && nodeOwn.every((ratio) => ratio <= TARGET_OVERHEAD);
			const gap = [
				helperIsTheGap
					? "**Where the gap is:** not in the node's code: the same loop over n8n's HTTP helper, without the node, is as slow " +
						`(the node adds at most ${((Math.max(...nodeOwn) - 1) * 100).toFixed(0)} % to it, see "the node's own overhead" above). ` +
						'The helper opens a new TCP connection for every request (n8n-core 2.8 creates a new http.Agent per request) and runs axios ' +
						"and n8n-core's request handling per call. What would close the gap: connection reuse in n8n-core (a keep-alive agent), which " +
						'a community node cannot add (its code may not create HTTP agents); for users, a larger Page Size (fewer calls).'
					: '**Where the gap is:** partly in the node\'s own code (see "the node\'s own overhead" above and the functions below).',
				`Credential reads per API call: ${reads.toFixed(1)}. n8n's helper reads the credential once per request (decrypting it; a real n8n ` +
					'loads it from its database first)' +
					(reads > 1.05
						? `; the node reads it ${(reads - 1).toFixed(1)} more time(s) per call (the transport's \`resolveTarget\` builds the URL from it), ` +
							'which a per-execution cache of the Base URL would save.'
						: '; the node adds no read of its own.'),
			];
			profile = [
				...(missed ? gap : []),
				'#### Search through the harness, no latency',
				...(await profileOperation(context.children, sim.url, SEARCH_PARAMETERS, undefined, 5)),
			];
		}

		const unavailable = await n8nAvailable(context);
		if (unavailable) {
			pending.push(`real n8n part skipped: ${unavailable}`);
		} else if (figures.length) {
			details.push(...(await realN8nSearch(context, sim, total, figures)));
		} else {
			pending.push('real n8n part skipped: our Search is not measurable');
		}
		return { id: 'search', title: 'Search', figures, details, pending, profile };
	} finally {
		await sim.close();
	}
}

async function realN8nSearch(
	context: BenchContext,
	sim: SimulatorProcess,
	total: number,
	figures: Figure[],
): Promise<string[]> {
	const rounds = context.tiny ? 1 : 3;
	const n8n = await BenchN8n.create(context, sim.url, KEYS.pro);
	try {
		const ours = workflow(
			workflowId('bench search ours'),
			'Bench: search with Domain Data',
			chain(manualTrigger(), domainData(SEARCH_NODE, SEARCH_PARAMETERS, DOMAIN_DATA_CREDENTIAL)),
		);
		// The pagination a user sets up: send the cursor of the last answer in the body, stop when an answer has none.
		const http = workflow(
			workflowId('bench search http'),
			'Bench: search with HTTP Request pagination',
			chain(
				manualTrigger(),
				node(
					HTTP_NODE,
					'n8n-nodes-base.httpRequest',
					4.2,
					{
						method: 'POST',
						url: `${sim.url}/json/api/v1/domain/search`,
						authentication: 'genericCredentialType',
						genericAuthType: 'httpHeaderAuth',
						sendBody: true,
						specifyBody: 'json',
						jsonBody: JSON.stringify({ pageSize: PAGE_SIZE }),
						options: {
							pagination: {
								pagination: {
									paginationMode: 'updateAParameterInEachRequest',
									parameters: {
										parameters: [{ type: 'body', name: 'searchAfter', value: '={{ $response.body.search_after }}' }],
									},
									paginationCompleteWhen: 'other',
									completeExpression: '={{ $response.body.search_after === undefined }}',
									limitPagesFetched: true,
									maxRequests: 1000,
								},
							},
						},
					},
					{ credentials: { httpHeaderAuth: HEADER_AUTH_CREDENTIAL } },
				),
				node('Results (Split Out)', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'results', options: {} }),
			),
		);
		await n8n.importWorkflows([ours, http]);
		const runs = {
			ours: [] as Array<TimedExecution & { calls: number }>,
			http: [] as Array<TimedExecution & { calls: number }>,
		};
		for (let round = 0; round < rounds; round++) {
			for (const [key, wf, nodeName, itemsNode] of [
				['ours', ours, SEARCH_NODE, SEARCH_NODE],
				['http', http, HTTP_NODE, 'Results (Split Out)'],
			] as const) {
				await sim.clearLog();
				const execution = await n8n.execute(wf.id, nodeName);
				const out = execution.result.items(itemsNode).length;
				if (out !== total) throw new Error(`${itemsNode} put out ${out} items, expected ${total}`);
				const calls = (await sim.calls()).length;
				runs[key].push({ ...execution, calls });
				context.log(
					`  search n8n round ${round + 1} ${key}: ${calls} calls, node ${formatNumber(execution.nodeMs)} ms`,
				);
			}
		}
		const m = (
			list: Array<TimedExecution & { calls: number }>,
			pick: (run: TimedExecution & { calls: number }) => number,
		) => median(list.map(pick));
		const ratio = median(runs.ours.map((run, i) => runs.http[i].nodeMs / run.nodeMs));
		figures.push({
			what: 'real n8n: our Search vs HTTP Request pagination',
			value:
				`${formatNumber(m(runs.ours, (r) => r.calls))} vs ${formatNumber(m(runs.http, (r) => r.calls))} calls; ` +
				`${formatNumber(m(runs.ours, (r) => r.nodeMs))} vs ${formatNumber(m(runs.http, (r) => r.nodeMs))} ms (HTTP Request ÷ ours = ${ratio.toFixed(2)})`,
		});
		const row = (name: string, list: Array<TimedExecution & { calls: number }>) => [
			name,
			formatNumber(m(list, (r) => r.calls)),
			formatNumber(m(list, (r) => r.nodeMs)),
			formatNumber(m(list, (r) => r.workflowMs)),
			list.map((r) => formatNumber(r.nodeMs)).join(', '),
		];
		return [
			`Real n8n ${n8n.instance.version}: our node (\`${JSON.stringify(SEARCH_PARAMETERS)}\`) against the HTTP Request node (v4.2) ` +
				'POSTing `{"pageSize": 100}` with its pagination option (body parameter `searchAfter` = `{{ $response.body.search_after }}`, ' +
				'complete when `{{ $response.body.search_after === undefined }}`), followed by a Split Out node on `results` so that both end with one item per domain. ' +
				`${rounds} rounds alternating, each a fresh \`n8n execute\`; node time = the executionTime n8n recorded (for the HTTP Request workflow: the HTTP Request node; the workflow column includes the Split Out).`,
			markdownTable(
				['workflow', 'calls', 'node ms', 'workflow ms', 'node ms per round'],
				[row('our Search', runs.ours), row('HTTP Request + Split Out', runs.http)],
			),
		];
	} finally {
		await n8n.dispose();
	}
}
