/**
 * Dataset → Stream, Sub-Workflow output, through n8n-core's real execute context against the simulator
 * over HTTP. n8n's CLI part (loading and running the sub-workflow) is played by a recorder that keeps
 * what each run received; the real thing runs in test/e2e/subworkflow.test.ts.
 */
import type {
	ExecuteWorkflowOptions,
	IDataObject,
	IExecuteWorkflowInfo,
	INodeParameters,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { DomainData } from '../../../nodes/DomainData/DomainData.node';
import { createExecuteContext, runNode } from '../../harness/n8n';
import { useSimulator } from '../../harness/simulator';
import { KEYS } from '../../simulator';

const DOMAINS = 2500;
const NEWEST = '2025-06-30';
const FIELDS = ['name', 'rank'];
const sim = useSimulator({ domains: DOMAINS });

/** What n8n's CLI provides for sub-workflow runs; the recorder below plays it. */
type ExecuteWorkflow = IWorkflowExecuteAdditionalData['executeWorkflow'];

interface SubRun {
	workflowId?: string;
	records: IDataObject[];
	parentExecution?: ExecuteWorkflowOptions['parentExecution'];
	/** Runs under way when this one started (0: the node waited for the previous run). */
	overlapping: number;
}

/** Records each sub-workflow run; `fail(n)` makes the n-th run (1-based) throw as n8n does for a failed execution. */
function recorder(fail?: (run: number) => boolean) {
	const runs: SubRun[] = [];
	let active = 0;
	const executeWorkflow = async (info: IExecuteWorkflowInfo, _data: unknown, options: ExecuteWorkflowOptions) => {
		const records = (options.inputData ?? []).map((item) => JSON.parse(JSON.stringify(item.json)) as IDataObject);
		runs.push({ workflowId: info.id, records, parentExecution: options.parentExecution, overlapping: active });
		active++;
		// A sub-execution takes a while: the node must not start the next batch meanwhile.
		await new Promise((resolve) => setImmediate(resolve));
		active--;
		if (fail?.(runs.length)) {
			throw Object.assign(new Error('duplicate key value violates unique constraint "domains_pkey"'), {
				executionId: '4711',
			});
		}
		return { executionId: String(runs.length), data: [options.inputData ?? []] };
	};
	return { runs, executeWorkflow: executeWorkflow as unknown as ExecuteWorkflow };
}

function subWorkflow(
	parameters: INodeParameters,
	executeWorkflow: ExecuteWorkflow,
	extra: { continueOnFail?: boolean; nodeTypeName?: string } = {},
) {
	return runNode({
		parameters: {
			resource: 'dataset',
			operation: 'stream',
			label: 'latest',
			fields: FIELDS,
			returnAll: true,
			output: 'subWorkflow',
			workflowId: { __rl: true, mode: 'list', value: 'subWf1', cachedResultName: 'Load batch' },
			batchSize: 1000,
			...parameters,
		},
		credentials: { apiKey: KEYS.pro, baseUrl: sim().url },
		executeWorkflow,
		...extra,
	});
}

function expectedRecords(from: number, to: number): IDataObject[] {
	const records = [];
	for (let position = from; position < to; position++) {
		records.push({
			...(JSON.parse(sim().index.lineAt(position, NEWEST, FIELDS.join(','))) as IDataObject),
			label: NEWEST,
		});
	}
	return records;
}

describe('Dataset → Stream, Sub-Workflow output', () => {
	it('runs the chosen workflow once per batch, each record one item with its label, and outputs one summary', async () => {
		const { runs, executeWorkflow } = recorder();
		const result = await subWorkflow({}, executeWorkflow);
		expect(result.error).toBeUndefined();

		expect(runs.map((run) => run.records.length)).toEqual([1000, 1000, 500]);
		expect(runs.every((run) => run.workflowId === 'subWf1')).toBe(true);
		expect(runs.flatMap((run) => run.records)).toEqual(expectedRecords(0, DOMAINS));
		// Linked to the calling execution, as n8n's Execute Workflow node links its sub-executions.
		expect(runs[0].parentExecution).toMatchObject({ executionId: 'harness-execution', workflowId: 'harness-workflow' });
		// One read of the snapshot for all runs.
		expect(sim().calls('stream')).toHaveLength(1);

		expect(result.items).toHaveLength(1);
		const [summary] = result.items;
		expect(summary.pairedItem).toEqual({ item: 0 });
		expect(summary.json).toMatchObject({ label: NEWEST, records: DOMAINS, batches: 3, skippedRecords: 0 });
		expect(typeof summary.json.durationMs).toBe('number');
	});

	it('takes the workflow by ID or from an expression, as a plain resource locator or a string', async () => {
		for (const workflowId of [
			{ __rl: true, mode: 'id', value: 'byId42' },
			'={{ "fromExpr7" }}',
			{ __rl: true, mode: 'id', value: '={{ "rlExpr9" }}' },
		]) {
			const { runs, executeWorkflow } = recorder();
			const result = await subWorkflow({ workflowId, returnAll: false, limit: 10 }, executeWorkflow);
			expect(result.error).toBeUndefined();
			expect(runs.map((run) => run.workflowId)).toEqual([
				typeof workflowId === 'string' ? 'fromExpr7' : workflowId.value.startsWith('=') ? 'rlExpr9' : 'byId42',
			]);
		}
	});

	it('keeps the records clean by default and adds the batch number and range only under the field asked for', async () => {
		const plain = recorder();
		await subWorkflow({ returnAll: false, limit: 5 }, plain.executeWorkflow);
		expect(Object.keys(plain.runs[0].records[0]).sort()).toEqual(['label', 'name', 'rank']);

		const withInfo = recorder();
		const result = await subWorkflow(
			{ returnAll: false, limit: 25, batchSize: 10, options: { batchInfoField: 'batch' } },
			withInfo.executeWorkflow,
		);
		expect(result.error).toBeUndefined();
		expect(withInfo.runs.map((run) => run.records[0].batch)).toEqual([
			{ number: 1, progress: 'batch 1 of 3', firstRecord: 1, lastRecord: 10, records: 10 },
			{ number: 2, progress: 'batch 2 of 3', firstRecord: 11, lastRecord: 20, records: 10 },
			{ number: 3, progress: 'batch 3 of 3', firstRecord: 21, lastRecord: 25, records: 5 },
		]);
		expect(withInfo.runs[2].records.every((record) => (record.batch as IDataObject).number === 3)).toBe(true);
	});

	it('starts a run only after the previous one has finished, all from one read of the snapshot', async () => {
		const { runs, executeWorkflow } = recorder();
		await subWorkflow({ batchSize: 500 }, executeWorkflow);
		expect(runs.map((run) => run.overlapping)).toEqual([0, 0, 0, 0, 0]);
		expect(sim().calls('stream')).toHaveLength(1);
	});

	it('stops at the failing batch, naming it, its records, the records done and the number to resume with', async () => {
		const { runs, executeWorkflow } = recorder((run) => run === 2);
		const result = await subWorkflow({}, executeWorkflow);
		expect(runs).toHaveLength(2);
		expect(result.error?.message).toBe(
			`The sub-workflow failed at batch 2 (records 1,001-2,000 of the dataset "${NEWEST}"); 1,000 records were done`,
		);
		expect(result.error?.description).toContain(
			'(execution 4711) said: duplicate key value violates unique constraint "domains_pkey"',
		);
		expect(result.error?.description).toContain('"Skip Records" set to 1000');
	});

	it('Compare: names the changes of the comparison, and the way on once, with the snapshots it compared', async () => {
		const { executeWorkflow } = recorder((run) => run === 2);
		const parameters = { operation: 'compare', baseLabel: 'previous', fields: ['title', 'rank'], batchSize: 5 };
		const result = await subWorkflow(parameters, executeWorkflow);
		const [, previous] = sim().datasets();
		expect(result.error?.message).toBe(
			`The sub-workflow failed at batch 2 (changes 6-10 of the comparison of "${NEWEST}" with "${previous.label}"); ` +
				'5 changes were done',
		);
		const description = String(result.error?.description);
		expect(description.split('To go on from there').length - 1).toBe(1);
		expect(description).toContain(
			`run it again with "Dataset Name or ID" set to "${NEWEST}", "Compare With Name or ID" set to ` +
				`"${previous.label}" and the option "Skip Records" set to 5. The changes of the failed batch may be partly`,
		);
	});

	it('resumes with Skip Records: the skipped records are read but not sent, and every record is sent exactly once', async () => {
		const first = recorder((run) => run === 2);
		await subWorkflow({ batchSize: 700 }, first.executeWorkflow);
		const resumed = recorder();
		const result = await subWorkflow({ batchSize: 700, options: { skipRecords: 700 } }, resumed.executeWorkflow);
		expect(result.error).toBeUndefined();

		expect(resumed.runs.map((run) => run.records.length)).toEqual([700, 700, 400]);
		const written = [...first.runs[0].records, ...resumed.runs.flatMap((run) => run.records)];
		expect(written).toEqual(expectedRecords(0, DOMAINS));
		expect(result.items[0].json).toMatchObject({ records: DOMAINS - 700, batches: 3, skippedRecords: 700 });
	});

	it('with continue-on-fail outputs the summary with the error and the number to resume with', async () => {
		const { executeWorkflow } = recorder((run) => run === 3);
		const result = await subWorkflow({ batchSize: 400 }, executeWorkflow, { continueOnFail: true });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toMatchObject({
			label: NEWEST,
			records: 800,
			batches: 2,
			skipRecords: 800,
			error: `The sub-workflow failed at batch 3 (records 801-1,200 of the dataset "${NEWEST}"); 800 records were done`,
		});
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
	});

	it('refuses a Skip Records that is not a whole number and an empty workflow, before any call', async () => {
		const { runs, executeWorkflow } = recorder();
		const negative = await subWorkflow({ options: { skipRecords: -3 } }, executeWorkflow);
		expect(negative.error?.message).toBe('The option "Skip Records" must be a whole number of 0 or more, got -3');
		const empty = await subWorkflow({ workflowId: { __rl: true, mode: 'list', value: '' } }, executeWorkflow);
		expect(empty.error?.message).toBe('The parameter "Workflow" is empty');
		expect(runs).toHaveLength(0);
		expect(sim().calls()).toHaveLength(0);
	});

	it('as an AI tool: a clear error, and nothing read or run', async () => {
		const { runs, executeWorkflow } = recorder();
		const result = await subWorkflow({}, executeWorkflow, { nodeTypeName: 'n8n-nodes-domain-data.domainDataTool' });
		// The tool layer refuses in words a model can pass on (actions/tool/runAsTool.ts).
		expect(result.error?.message).toMatch(
			/^This tool is set to send its data to a sub-workflow, .*set Output to "Items"/,
		);
		expect(runs).toHaveLength(0);
		expect(sim().calls()).toHaveLength(0);
	});

	it('with filters sends only matching records, and an empty selection runs nothing', async () => {
		const { runs, executeWorkflow } = recorder();
		const result = await subWorkflow(
			{ fields: ['name', 'country_code'], filters: { countryCodes: 'DE' }, batchSize: 50 },
			executeWorkflow,
		);
		expect(result.error).toBeUndefined();
		const sent = runs.flatMap((run) => run.records);
		expect(sent.length).toBeGreaterThan(0);
		expect(sent.every((record) => record.country_code === 'DE')).toBe(true);
		expect(result.items[0].json).toMatchObject({ records: sent.length, batches: runs.length });

		const none = recorder();
		const empty = await subWorkflow({ filters: { tld1: 'nothing-matches.invalid' } }, none.executeWorkflow);
		expect(empty.items[0].json).toMatchObject({ records: 0, batches: 0 });
		expect(none.runs).toHaveLength(0);
	});
});

describe('Dataset → Compare, Sub-Workflow output', () => {
	const compare = (parameters: INodeParameters, executeWorkflow?: ExecuteWorkflow) =>
		runNode({
			parameters: {
				resource: 'dataset',
				operation: 'compare',
				label: 'latest',
				fields: ['title', 'technologies'],
				returnAll: true,
				...parameters,
			},
			credentials: { apiKey: KEYS.pro, baseUrl: sim().url },
			executeWorkflow,
		});

	it('sends the same changes, in the same order, as the Items output, batch by batch, and a summary that counts them', async () => {
		const asItems = await compare({ output: 'items' });
		expect(asItems.error).toBeUndefined();
		const expected = asItems.items.map((item) => item.json);
		expect(expected.length).toBeGreaterThan(20);

		sim().reset();
		const { runs, executeWorkflow } = recorder();
		const workflowId = { __rl: true, mode: 'id', value: 'changesWf' };
		const result = await compare({ output: 'subWorkflow', workflowId, batchSize: 20 }, executeWorkflow);
		expect(result.error).toBeUndefined();
		expect(runs.map((run) => run.records.length)).toEqual(
			Array.from({ length: Math.ceil(expected.length / 20) }, (_, index) => Math.min(20, expected.length - index * 20)),
		);
		expect(runs.flatMap((run) => run.records)).toEqual(expected);

		const counts = { added: 0, removed: 0, changed: 0 };
		for (const change of expected) counts[change.change as keyof typeof counts]++;
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toMatchObject({
			label: NEWEST,
			baseLabel: expected[0].baseLabel,
			records: expected.length,
			batches: runs.length,
			skippedRecords: 0,
			...counts,
		});
	});

	it('resumes after Skip Records changes: the rest goes out, nothing twice', async () => {
		const all = recorder();
		await compare(
			{ output: 'subWorkflow', workflowId: { __rl: true, mode: 'id', value: 'w' }, batchSize: 25 },
			all.executeWorkflow,
		);
		const sent = all.runs.flatMap((run) => run.records);

		const rest = recorder();
		const result = await compare(
			{
				output: 'subWorkflow',
				workflowId: { __rl: true, mode: 'id', value: 'w' },
				batchSize: 25,
				options: { skipRecords: 30 },
			},
			rest.executeWorkflow,
		);
		expect(result.error).toBeUndefined();
		expect(rest.runs.flatMap((run) => run.records)).toEqual(sent.slice(30));
		expect(result.items[0].json).toMatchObject({ records: sent.length - 30, skippedRecords: 30 });
	});
});

/** Runs the node in a real execute context and returns its result with the hints it left under the output. */
async function withHints(parameters: INodeParameters, executeWorkflow: ExecuteWorkflow, continueOnFail = false) {
	const { context } = await createExecuteContext({
		parameters: {
			resource: 'dataset',
			operation: 'stream',
			label: 'latest',
			fields: FIELDS,
			output: 'subWorkflow',
			workflowId: { __rl: true, mode: 'id', value: 'subWf1' },
			...parameters,
		},
		credentials: { apiKey: KEYS.pro, baseUrl: sim().url },
		executeWorkflow,
		continueOnFail,
	});
	const [items] = await new DomainData().execute.call(context);
	return {
		items,
		hints: (context as unknown as { hints: Array<{ message: string }> }).hints.map((hint) => hint.message),
	};
}

describe('Sub-Workflow output: a workflow that would call itself', () => {
	const self = { __rl: true, mode: 'id', value: 'harness-workflow' };

	it.each(['stream', 'compare'])('%s: refuses this workflow itself before any call', async (operation) => {
		const { runs, executeWorkflow } = recorder();
		const result = await subWorkflow({ operation, workflowId: self }, executeWorkflow);
		expect(result.error?.message).toBe(
			'The workflow chosen in "Workflow" is this workflow itself (ID harness-workflow)',
		);
		expect(result.error?.description).toContain('without end');
		expect(runs).toHaveLength(0);
		expect(sim().calls()).toHaveLength(0);
	});

	it('refuses a workflow that called this one (A → B → A), found through the parent executions n8n records', async () => {
		// What n8n's database holds for the running executions: each one names the execution that called it.
		const executions: Record<string, IDataObject> = {
			'harness-execution': { parentExecution: { executionId: 'exec-b', workflowId: 'wf-b' } },
			'exec-b': { parentExecution: { executionId: 'exec-a', workflowId: 'wf-a' } },
			'exec-a': {},
		};
		const additionalData = { getRunExecutionData: async (id: string) => executions[id] } as never;
		for (const [target, refused] of [
			['wf-a', true],
			['wf-b', true],
			['wf-c', false],
		] as const) {
			sim().reset();
			const { runs, executeWorkflow } = recorder();
			const result = await runNode({
				parameters: {
					resource: 'dataset',
					operation: 'stream',
					label: 'latest',
					fields: FIELDS,
					returnAll: false,
					limit: 5,
					output: 'subWorkflow',
					workflowId: { __rl: true, mode: 'id', value: target },
				},
				credentials: { apiKey: KEYS.pro, baseUrl: sim().url },
				executeWorkflow,
				additionalData,
			});
			if (refused) {
				expect(result.error?.message).toBe(
					`The workflow chosen in "Workflow" (ID ${target}) is running this one: it called it as a sub-workflow`,
				);
				expect(sim().calls()).toHaveLength(0);
			} else {
				expect(result.error).toBeUndefined();
				expect(runs.map((run) => run.workflowId)).toEqual(['wf-c']);
			}
		}
	});
});

describe('Sub-Workflow output: where the run is', () => {
	it('each batch says "batch N of M" (the spool knows M), and the summary "batch N of N" at the end', async () => {
		const { runs, executeWorkflow } = recorder();
		const result = await subWorkflow({ options: { batchInfoField: 'batch' } }, executeWorkflow);
		expect(runs.map((run) => (run.records[0].batch as IDataObject).progress)).toEqual([
			'batch 1 of 3',
			'batch 2 of 3',
			'batch 3 of 3',
		]);
		expect(result.items[0].json).toMatchObject({ batches: 3, progress: 'batch 3 of 3' });
	});

	it('a failed run says which batch of how many failed', async () => {
		const { executeWorkflow } = recorder((run) => run === 2);
		const result = await subWorkflow({ returnAll: false, limit: 2000, batchSize: 400 }, executeWorkflow, {
			continueOnFail: true,
		});
		expect(result.items[0].json).toMatchObject({ batches: 1, progress: 'batch 2 of 5', skipRecords: 400 });
	});
});

describe('Sub-Workflow output: Skip Records beyond the end', () => {
	it('says so in a hint and in the summary, for Stream and for Compare', async () => {
		const stream = await withHints(
			{ returnAll: false, limit: 30, options: { skipRecords: 50 } },
			recorder().executeWorkflow,
		);
		expect(stream.items[0].json).toMatchObject({ records: 0, batches: 0, skippedRecords: 30 });
		expect(stream.hints).toEqual(['Skip Records (50) skipped all 30 records of this selection: nothing was sent']);

		const compare = await withHints(
			{
				operation: 'compare',
				fields: ['title', 'technologies'],
				returnAll: false,
				limit: 12,
				options: { skipRecords: 1000 },
			},
			recorder().executeWorkflow,
		);
		expect(compare.items[0].json).toMatchObject({ records: 0, skippedRecords: 12 });
		expect(compare.hints).toEqual(['Skip Records (1,000) skipped all 12 changes of this selection: nothing was sent']);
	});
});

describe('Sub-Workflow output: the batch info field', () => {
	it.each([
		['stream', '__proto__'],
		['stream', 'name'],
		['stream', 'label'],
		['stream', 'rank'],
		['stream', 'constructor'],
		['compare', 'change'],
	])('%s: refuses "%s", a field the records use (or a prototype name), before any call', async (operation, field) => {
		const { runs, executeWorkflow } = recorder();
		const parameters = operation === 'compare' ? { operation, fields: ['title'] } : { operation };
		const result = await subWorkflow({ ...parameters, options: { batchInfoField: field } }, executeWorkflow);
		expect(result.error?.message).toBe(
			`The option "Put Batch Info in Field" names a field the records already use: "${field}"`,
		);
		expect(runs).toHaveLength(0);
		expect(sim().calls()).toHaveLength(0);
	});
});
