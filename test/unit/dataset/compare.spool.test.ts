/**
 * Dataset → Compare with binary data in storage (n8n-core's real BinaryDataService, filesystem mode): pass 1 keeps
 * the newer snapshot in spool files and pass 3 takes it from there, so each snapshot is asked for once. Every result
 * is checked against the brute-force diff (test/harness/bruteForceDiff.ts); with binary data in memory the newer
 * snapshot is read again, as before, and a hint says why.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { DomainData } from '../../../nodes/DomainData/DomainData.node';
import { bruteForce, rawSnapshot, type Question } from '../../harness/bruteForceDiff';
import { binaryDataFiles, createExecuteContext } from '../../harness/n8n';
import { useSimulator } from '../../harness/simulator';
import { KEYS, RECORD_FIELDS } from '../../simulator';
import { streamRequests, withBinaryDataInMemory } from './compareSupport';

const DOMAINS = 3000;
const NEWEST = '2025-06-30';
const PREVIOUS = '2025-06-23';
const OLDEST = '2025-06-09';
const sim = useSimulator({ domains: DOMAINS });

async function expectedChanges(label: string, baseLabel: string, question: Question): Promise<IDataObject[]> {
	const changes = bruteForce(
		await rawSnapshot(sim.url, label),
		await rawSnapshot(sim.url, baseLabel),
		{ label, baseLabel },
		question,
	);
	sim.clearLog(); // the raw reads are not the node's requests
	return changes;
}

/** Runs Compare; its items, error and hints. */
async function compare(parameters: INodeParameters) {
	const { context } = await createExecuteContext({
		parameters: { resource: 'dataset', operation: 'compare', returnAll: true, ...parameters },
		credentials: { apiKey: KEYS.pro, baseUrl: sim.url },
	});
	const hints = () => (context as unknown as { hints: Array<{ message: string }> }).hints.map((hint) => hint.message);
	try {
		const [items] = await new DomainData().execute.call(context);
		return { json: items.map((item) => item.json), hints: hints(), error: undefined };
	} catch (error) {
		return { json: [], hints: hints(), error: error as Error };
	}
}

const parametersOf = (question: Question): INodeParameters => ({
	fields: question.fields,
	...(question.changes ? { changes: question.changes } : {}),
	...(question.filters ? { filters: question.filters as INodeParameters } : {}),
	...(question.minRankMove ? { options: { minRankMove: question.minRankMove } } : {}),
});

const MEMORY_HINT = /Compare may read the newer snapshot a second time/;

describe('Dataset → Compare, the newer snapshot spooled by pass 1: one request per snapshot', () => {
	const questions: Array<[string, string, Question]> = [
		[NEWEST, PREVIOUS, { fields: ['title', 'country_code', 'language_code', 'categories', 'technologies'] }],
		[NEWEST, PREVIOUS, { fields: [...RECORD_FIELDS.filter((field) => field !== 'name')], minRankMove: 8 }],
		[NEWEST, OLDEST, { fields: ['categories'], filters: { maxRank: 700 }, changes: ['added', 'removed'] }],
		[NEWEST, PREVIOUS, { fields: ['technologies', 'title'], filters: { countryCodes: 'de, at' } }],
	];

	it.each(questions)('%s against %s, %j: the brute-force diff', async (label, baseLabel, question) => {
		const expected = await expectedChanges(label, baseLabel, question);
		expect(expected.some((change) => change.reason !== 'goneFromIndex')).toBe(true);
		const filesBefore = binaryDataFiles().length;
		const result = await compare({ label, baseLabel, ...parametersOf(question) });
		expect(result.error).toBeUndefined();
		expect(result.json).toEqual(expected);
		expect(streamRequests(sim)).toEqual({ [label]: 1, [baseLabel]: 1 });
		expect(result.hints.filter((hint) => MEMORY_HINT.test(hint))).toEqual([]);
		// The spool went to n8n's binary storage (it stays with the execution: n8n offers no way to delete it).
		expect(binaryDataFiles().length).toBeGreaterThan(filesBefore);
	});

	it('a drop in pass 1 is resumed, and pass 3 still asks for nothing', async () => {
		const question: Question = { fields: ['title', 'technologies'] };
		const expected = await expectedChanges(NEWEST, PREVIOUS, question);
		// The first stream request is the newer snapshot's (pass 1).
		sim.setFaults({ streams: [{ dropAfterLines: 1200 }] });
		const result = await compare({ label: NEWEST, baseLabel: PREVIOUS, ...parametersOf(question) });
		expect(result.error).toBeUndefined();
		expect(result.json).toEqual(expected);
		// The dropped request and its resumption, then nothing more for the newer snapshot.
		expect(streamRequests(sim)).toEqual({ [NEWEST]: 2, [PREVIOUS]: 1 });
	});
});

describe("what the spool leaves in n8n's binary data, said in the item and in a failure", () => {
	it('a File item names the spool files and their bytes', async () => {
		const filesBefore = binaryDataFiles().length;
		const result = await compare({ label: NEWEST, baseLabel: PREVIOUS, fields: ['title'], output: 'file' });
		expect(result.error).toBeUndefined();
		const [item] = result.json;
		expect(item.snapshotSpoolFiles).toBeGreaterThanOrEqual(1);
		expect(item.snapshotSpoolBytes).toBeGreaterThan(0);
		// The spool's files and the output file.
		expect(binaryDataFiles().length - filesBefore).toBe((item.snapshotSpoolFiles as number) + 1);
	});

	it('a run that fails after spooling says that the spool stays with the execution', async () => {
		// The second stream request is the older snapshot's (pass 2): a malformed line stops it.
		sim.setFaults({ streams: [{ count: 1 }, { malformedLineAt: 10 }] });
		const result = await compare({ label: NEWEST, baseLabel: PREVIOUS, fields: ['title'] });
		expect(result.error?.message).toContain(`Line 10 of the dataset "${PREVIOUS}"`);
		expect(String((result.error as { description?: string }).description)).toMatch(
			/The newer snapshot's spool \(1 file, [\d.]+ MB\) stays in n8n's binary data with this execution/,
		);
	});
});

describe('Dataset → Compare with binary data in memory', () => {
	withBinaryDataInMemory();

	it('reads the newer snapshot again for pass 3, as without a spool, and says so in a hint', async () => {
		const question: Question = { fields: ['title'] };
		const expected = await expectedChanges(NEWEST, PREVIOUS, question);
		const result = await compare({ label: NEWEST, baseLabel: PREVIOUS, ...parametersOf(question) });
		expect(result.error).toBeUndefined();
		expect(result.json).toEqual(expected);
		expect(streamRequests(sim)).toEqual({ [NEWEST]: 2, [PREVIOUS]: 1 });
		expect(result.hints.filter((hint) => MEMORY_HINT.test(hint))).toHaveLength(1);
	});
});
