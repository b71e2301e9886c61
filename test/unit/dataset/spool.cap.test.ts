/**
 * The spools (Sub-Workflow output, Compare's newer snapshot) under n8n's database mode with a cap on one file
 * (N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE) below the spool's 8 MB files. n8n-core's BinaryDataService stands in for
 * the database mode as n8n's DatabaseManager does it: the whole file collected, then refused with n8n-core's own
 * FileTooLargeError when it passes the cap, else stored (here on the filesystem).
 */
import { Container } from '@n8n/di';
import * as core from 'n8n-core';
import type { IDataObject, IExecuteWorkflowInfo, IWorkflowExecuteAdditionalData } from 'n8n-workflow';

import { withinCap } from '../../../nodes/DomainData/actions/dataset/sink/spool';
import { bruteForce, rawSnapshot } from '../../harness/bruteForceDiff';
import { createExecuteContext, runNode } from '../../harness/n8n';
import { useSimulator } from '../../harness/simulator';
import { KEYS, RECORD_FIELDS } from '../../simulator';
import { streamRequests } from './compareSupport';

const DOMAINS = 10_000;
const NEWEST = '2025-06-30';
const PREVIOUS = '2025-06-23';
/** Every field: about 1.2 KB a line, some 12 MB a snapshot: more than one 8 MB spool file, and many under a 1 MB cap. */
const FIELDS = [...RECORD_FIELDS];
const CAP_MB = 1;
const sim = useSimulator({ domains: DOMAINS });

/** The database mode's cap on the harness's binary data service: sizes stored, files refused. */
function databaseCap(capMb: number) {
	const service = Container.get(core.BinaryDataService);
	const store = service.store.bind(service);
	const stored: number[] = [];
	let refused = 0;
	const spy = jest.spyOn(service, 'store').mockImplementation(async (location, input, binaryData) => {
		const buffer = await core.binaryToBuffer(input);
		const fileSizeMb = buffer.length / (1024 * 1024);
		if (fileSizeMb > capMb) {
			refused++;
			throw new core.FileTooLargeError({
				fileSizeMb,
				maxFileSizeMb: capMb,
				fileId: 'f',
				fileName: binaryData.fileName,
			});
		}
		stored.push(buffer.length);
		return await store(location, buffer, binaryData);
	});
	return { stored, refused: () => refused, restore: () => spy.mockRestore() };
}

/** Dataset → Stream of every field to a sub-workflow, in batches of 1,000. */
async function streamToSubWorkflow(label: string, executeWorkflow: (...args: never[]) => Promise<unknown>) {
	return await runNode({
		parameters: {
			resource: 'dataset',
			operation: 'stream',
			label,
			fields: FIELDS,
			returnAll: true,
			output: 'subWorkflow',
			workflowId: { __rl: true, mode: 'id', value: 'wf' },
			batchSize: 1000,
		},
		credentials: { apiKey: KEYS.pro, baseUrl: sim.url },
		executeWorkflow: executeWorkflow as unknown as IWorkflowExecuteAdditionalData['executeWorkflow'],
	});
}

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (pieces: Uint8Array[]) => pieces.map((piece) => new TextDecoder().decode(piece)).join('');

describe('withinCap: a refused file regrouped into files under the cap, cut at line ends', () => {
	it('keeps every byte in order, each group within the cap and ending a line', () => {
		const pieces = [bytes('aaaa\nbb\n'), bytes('cccccc\n'), bytes('d\ne\nf\n')];
		const groups = [...withinCap(pieces, 9, new Error('refused'))];
		expect(groups.map(text)).toEqual(['aaaa\nbb\n', 'cccccc\nd\n', 'e\nf\n']);
		const small = [...withinCap(pieces, 7, new Error('refused'))];
		expect(small.map(text)).toEqual(['aaaa\n', 'bb\n', 'cccccc\n', 'd\ne\nf\n']);
		expect(small.every((group) => group.reduce((sum, piece) => sum + piece.byteLength, 0) <= 7)).toBe(true);
	});

	it("a line longer than the cap cannot fit: n8n's refusal stands", () => {
		const refusal = new Error('refused');
		expect(() => [...withinCap([bytes('ab\n'), bytes('a line too long\n')], 8, refusal)]).toThrow(refusal);
	});
});

describe(`the spools under a database cap of ${CAP_MB} MB`, () => {
	let cap: ReturnType<typeof databaseCap>;
	beforeAll(async () => {
		// Sets the binary data service up before it is spied on.
		await createExecuteContext({ parameters: {}, credentials: { apiKey: 'unused', baseUrl: 'http://127.0.0.1:9' } });
	});
	beforeEach(() => {
		cap = databaseCap(CAP_MB);
	});
	afterEach(() => cap.restore());

	it('Sub-Workflow: every record once and in order, one stream request, every spool file within the cap', async () => {
		const names: string[] = [];
		const executeWorkflow = async (
			_info: IExecuteWorkflowInfo,
			_data: unknown,
			options: { inputData?: Array<{ json: IDataObject }> },
		) => {
			for (const item of options.inputData ?? []) names.push(String(item.json.name));
			return { executionId: String(names.length), data: [[]] };
		};
		const result = await streamToSubWorkflow('latest', executeWorkflow);
		expect(result.error).toBeUndefined();
		const expected = Array.from(
			{ length: DOMAINS },
			(_, position) => (JSON.parse(sim.index.lineAt(position, NEWEST, 'name')) as { name: string }).name,
		);
		expect(names).toEqual(expected);
		expect(sim.calls('stream')).toHaveLength(1);
		expect(cap.refused()).toBe(1);
		expect(Math.max(...cap.stored)).toBeLessThanOrEqual(CAP_MB * 1024 * 1024);
		expect(result.items[0].json).toMatchObject({ records: DOMAINS, spoolFiles: cap.stored.length });
		// The refused first file became files under the cap, and the files after it kept under the cap: one refusal.
		expect(cap.stored.length).toBeGreaterThan(8);
	}, 60_000);

	it('Compare, Batches output: the brute-force diff, one stream request per snapshot', async () => {
		const question = { fields: FIELDS.filter((field) => field !== 'name'), minRankMove: 8 };
		const expected = bruteForce(
			await rawSnapshot(sim.url, NEWEST),
			await rawSnapshot(sim.url, PREVIOUS),
			{ label: NEWEST, baseLabel: PREVIOUS },
			question,
		);
		sim.clearLog();
		const result = await runNode({
			parameters: {
				resource: 'dataset',
				operation: 'compare',
				label: NEWEST,
				baseLabel: PREVIOUS,
				returnAll: true,
				fields: question.fields,
				options: { minRankMove: 8 },
			},
			credentials: { apiKey: KEYS.pro, baseUrl: sim.url },
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json)).toEqual(expected);
		expect(streamRequests(sim())).toEqual({ [NEWEST]: 1, [PREVIOUS]: 1 });
		expect(cap.refused()).toBe(1);
		expect(Math.max(...cap.stored)).toBeLessThanOrEqual(CAP_MB * 1024 * 1024);
	}, 60_000);
});

describe('a record longer than the cap, after the first spool file', () => {
	const SMALL_CAP_MB = 0.125;
	let cap: ReturnType<typeof databaseCap>;
	beforeAll(async () => {
		await createExecuteContext({ parameters: {}, credentials: { apiKey: 'unused', baseUrl: 'http://127.0.0.1:9' } });
		cap = databaseCap(SMALL_CAP_MB);
	});
	afterAll(() => cap.restore());

	it("Sub-Workflow: n8n's refusal of that record stands, named as n8n names it", async () => {
		// A 200 KB title near the end of a new snapshot: every other line fits the cap the first refusal names.
		const long = (JSON.parse(sim.index.lineAt(DOMAINS - 20, NEWEST, 'name')) as { name: string }).name;
		const dataset = sim.addSnapshot(undefined, { records: { [long]: { title: 'x'.repeat(200_000) } } });
		let offset = 0;
		let position = 0;
		for (; ; position++) {
			const line = sim.index.lineAt(position, dataset.label, FIELDS.join(','));
			if (line.includes(`"name":"${long}"`)) break;
			offset += Buffer.byteLength(line) + 1;
		}
		// Past the first 8 MB spool file (and the piece that may pass it), which the cap refused and split.
		expect(offset).toBeGreaterThan(9 * 1024 * 1024);
		const runs: number[] = [];
		const result = await streamToSubWorkflow(dataset.label, async () => {
			runs.push(runs.length);
			return { executionId: String(runs.length), data: [[]] };
		});
		sim.removeSnapshot(dataset.label);
		expect(result.error?.message).toMatch(/exceeds the max size limit of 0\.125 MB set for `database` mode/);
		expect(cap.refused()).toBe(1);
		expect(cap.stored.length).toBeGreaterThan(64);
		// The sub-workflow starts once the whole selection is spooled: no batch ran.
		expect(runs).toEqual([]);
		expect(Math.max(...cap.stored)).toBeLessThanOrEqual(SMALL_CAP_MB * 1024 * 1024);
	}, 60_000);
});
