/**
 * Execution hints (the notes n8n shows under a node's output in the editor) as each n8n version of the
 * matrix records them: Dataset → Stream adds one when no record matched its filters and one that counts
 * the malformed lines it skipped (On Malformed Line: Skip and Count). The hints travel in the run data (`runData[<node>][0].hints`), which is what
 * the editor reads.
 */
import type { N8nInstance } from '../../scripts/n8n/instance';
import type { ExecutionResult } from '../../scripts/n8n/run-data';
import { chain, domainData, manualTrigger, workflow, workflowId } from '../../scripts/n8n/workflows';
import { startSimulator, type Simulator } from '../simulator';
import { CREDENTIALS, createInstance, e2eVersion } from './support';

const NO_MATCH = workflowId('hintNoMatch');
const MALFORMED = workflowId('hintMalformed');

let sim: Simulator;
let n8n: N8nInstance;
const runs = new Map<string, ExecutionResult>();

function hintsOf(id: string): string[] {
	const run = runs.get(id);
	if (!run?.ok) throw new Error(`workflow ${id} failed on n8n ${e2eVersion()}: ${run?.describe()}`);
	const task = run.run?.data?.resultData.runData.Stream?.[0] as { hints?: Array<{ message: string }> } | undefined;
	return (task?.hints ?? []).map((hint) => hint.message);
}

beforeAll(async () => {
	sim = await startSimulator({ domains: 300, snapshots: 2 });
	n8n = await createInstance(sim);
	const stream = (filters: Record<string, unknown>) =>
		domainData(
			'Stream',
			{
				resource: 'dataset',
				operation: 'stream',
				label: 'latest',
				fields: ['name', 'rank', 'country_code'],
				returnAll: true,
				output: 'items',
				filters,
				options: { onMalformedLine: 'skip' },
			},
			CREDENTIALS.pro,
		);
	await n8n.importWorkflows([
		workflow(NO_MATCH, 'Stream: a filter nothing matches', chain(manualTrigger(), stream({ countryCodes: 'ZZ' }))),
		workflow(MALFORMED, 'Stream: a malformed line', chain(manualTrigger(), stream({}))),
	]);
	runs.set(NO_MATCH, await n8n.execute(NO_MATCH));
	sim.setFaults({ streams: [{ malformedLineAt: 7 }] });
	runs.set(MALFORMED, await n8n.execute(MALFORMED));
}, 5 * 60_000);

afterAll(async () => {
	await n8n?.dispose();
	await sim?.close();
});

test(`no record matched: one hint that says so (n8n ${e2eVersion()})`, () => {
	const label = sim.datasets()[0].label;
	expect(runs.get(NO_MATCH)?.json('Stream')).toEqual([]);
	expect(hintsOf(NO_MATCH)).toEqual([`No record of the dataset "${label}" matched the filters (300 lines read)`]);
});

test(`a malformed line is skipped, and a hint names its line number (n8n ${e2eVersion()})`, () => {
	const label = sim.datasets()[0].label;
	expect(runs.get(MALFORMED)?.json('Stream')).toHaveLength(299);
	expect(hintsOf(MALFORMED)).toEqual([`Skipped 1 malformed line of the dataset "${label}" (line 7)`]);
});
