/**
 * The File output in parts (Max File Size), through n8n-core's real execute context and binary data storage against
 * the simulator: Stream and Compare, plain and gzip. Across the parts every record (or change) comes exactly once and
 * in order, no part is over the size, each part is complete NDJSON (or a complete .gz) and tells its place; a run
 * that stops at a part keeps the complete parts (Continue On Fail) and resumes with Skip Records.
 */
import { gunzipSync } from 'node:zlib';

import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { SNAPSHOT_FIELDS } from '../../../nodes/DomainData/helpers/snapshotFields';
import { readBinary, runNode } from '../../harness/n8n';
import { useSimulator } from '../../harness/simulator';
import { KEYS, type Simulator, startSimulator } from '../../simulator';

const DOMAINS = 12_000;
const NEWEST = '2025-06-30';
const PREVIOUS = '2025-06-23';
const MAX_MB = 2;
const MAX_BYTES = MAX_MB * 1024 * 1024;
const FIELDS = [...SNAPSHOT_FIELDS];
const sim = useSimulator({ domains: DOMAINS });

function run(parameters: INodeParameters, continueOnFail = false, baseUrl = sim.url) {
	return runNode({
		parameters: { resource: 'dataset', label: NEWEST, returnAll: true, output: 'file', ...parameters },
		credentials: { apiKey: KEYS.pro, baseUrl },
		continueOnFail,
	});
}

function stream(options: INodeParameters = {}, continueOnFail = false) {
	return run({ operation: 'stream', fields: FIELDS, maxFileSize: MAX_MB, options }, continueOnFail);
}

async function linesOf(item: INodeExecutionData, gzip: boolean): Promise<string[]> {
	const bytes = await readBinary(item);
	expect(bytes.length).toBeLessThanOrEqual(MAX_BYTES);
	expect(bytes.length).toBe(item.json.sizeBytes);
	const text = (gzip ? gunzipSync(bytes) : bytes).toString('utf8');
	expect(text.endsWith('\n')).toBe(true);
	return text.slice(0, -1).split('\n');
}

/** Each part's lines, checked against what its item tells. */
async function partsOf(items: INodeExecutionData[], gzip: boolean, base: string, from = 1): Promise<string[]> {
	const all: string[] = [];
	for (const [index, item] of items.entries()) {
		const lines = await linesOf(item, gzip);
		const names = lines.map((line) => (JSON.parse(line) as IDataObject).name);
		const fileName = `${base}.part-${String(index + 1).padStart(4, '0')}.ndjson${gzip ? '.gz' : ''}`;
		expect(item.json).toMatchObject({
			fileName,
			part: index + 1,
			parts: items.length,
			recordCount: lines.length,
			firstRecord: from + all.length,
			lastRecord: from + all.length + lines.length - 1,
			firstName: names[0],
			lastName: names[names.length - 1],
		});
		expect(item.binary!.data.fileName).toBe(fileName);
		expect(item.pairedItem).toEqual({ item: 0 });
		all.push(...lines);
	}
	return all;
}

const snapshotLines = (source: Simulator = sim, domains = DOMAINS) =>
	Array.from({ length: domains }, (_, position) => source.index.lineAt(position, NEWEST, FIELDS.join(',')));

describe('Dataset → Stream, File output in parts', () => {
	it('cuts a snapshot larger than Max File Size into parts of whole records, each once, none over the size', async () => {
		const result = await stream();
		expect(result.error).toBeUndefined();
		expect(result.items.length).toBeGreaterThanOrEqual(3);
		expect(await partsOf(result.items, false, NEWEST)).toEqual(snapshotLines());
		// Parts are filled: all but the last within a record or two of the size.
		for (const item of result.items.slice(0, -1)) expect(item.json.sizeBytes).toBeGreaterThan(MAX_BYTES - 10_000);
		expect(result.items[0].json).toMatchObject({ label: NEWEST, totalRecords: DOMAINS, fields: FIELDS });
		expect(sim.calls('stream')).toHaveLength(1);
	});

	it('gives one file, shaped as always, when the snapshot fits', async () => {
		const result = await run({ operation: 'stream', fields: FIELDS, maxFileSize: 1024, options: {} });
		expect(result.items).toHaveLength(1);
		const [item] = result.items;
		expect(item.json).toEqual({
			label: NEWEST,
			fileName: `${NEWEST}.ndjson`,
			recordCount: DOMAINS,
			sizeBytes: (await readBinary(item)).length,
			fields: FIELDS,
		});
	});

	it('stops at a part with its complete parts kept, and resumes with Skip Records: every record once', async () => {
		// A malformed line stops the read (On Malformed Line: Stop With an Error) in the middle of a part.
		sim.setFaults({ streams: [{ malformedLineAt: 7000 }] });
		const failed = await stream({}, true);
		const error = failed.items[failed.items.length - 1];
		const parts = failed.items.slice(0, -1);
		expect(parts.length).toBeGreaterThanOrEqual(1);
		const done = parts.reduce((total, item) => total + (item.json.recordCount as number), 0);
		expect(error.json).toMatchObject({ parts: parts.length, records: done, skipRecords: done });
		expect(String(error.json.error)).toMatch(/Line 7,?000/);
		const first = await partsOf(
			parts.map((item) => ({ ...item, json: { ...item.json, parts: parts.length } })),
			false,
			NEWEST,
		);

		sim.resetFaults();
		const resumed = await stream({ skipRecords: done });
		expect(resumed.error).toBeUndefined();
		const rest = await partsOf(resumed.items, false, `${NEWEST}.from-${done + 1}`, done + 1);
		expect([...first, ...rest]).toEqual(snapshotLines());
	});

	it('says which parts are complete and the Skip Records to go on with, without Continue On Fail', async () => {
		sim.setFaults({ streams: [{ malformedLineAt: 7000 }] });
		const failed = await stream();
		expect(failed.error).toBeDefined();
		const description = String((failed.error as { description?: string }).description);
		expect(description).toMatch(/Parts? 1(-\d+)? (is|are) complete \([\d,]+ records\)/);
		expect(description).toMatch(/"Skip Records" set to \d+/);
		sim.resetFaults();
	});
});

describe('Dataset → Compare, File output in parts', () => {
	it('cuts the changes into parts, each change once and in order, as one file gives them', async () => {
		const question = { operation: 'compare', baseLabel: PREVIOUS, fields: FIELDS.filter((f) => f !== 'name') };
		const whole = await run({ ...question, maxFileSize: 1024 });
		expect(whole.items).toHaveLength(1);
		const wholeLines = (await readBinary(whole.items[0])).toString('utf8').trimEnd().split('\n');
		const parted = await run({ ...question, maxFileSize: MAX_MB });
		expect(parted.error).toBeUndefined();
		expect(parted.items.length).toBeGreaterThan(1);
		expect(await partsOf(parted.items, false, `changes-${PREVIOUS}-${NEWEST}`)).toEqual(wholeLines);
		const { added, removed, changed } = whole.items[0].json as Record<string, number>;
		expect(parted.items[0].json).toMatchObject({ added, removed, changed, totalRecords: wholeLines.length });
	});
});

describe('Dataset → Stream, File output in gzip parts', () => {
	/** Enough records for gzip parts of 1 MB (Max File Size less what the compressor may hold back). */
	const GZIP_DOMAINS = 36_000;
	let big: Simulator;

	beforeAll(async () => {
		big = await startSimulator({ domains: GZIP_DOMAINS });
	});

	afterAll(async () => {
		await big?.close();
	});

	it('gzips each part as a complete .gz file, every record once, no part over the size', async () => {
		const result = await run(
			{ operation: 'stream', fields: FIELDS, maxFileSize: MAX_MB, options: { compression: 'gzip' } },
			false,
			big.url,
		);
		expect(result.error).toBeUndefined();
		expect(result.items.length).toBeGreaterThanOrEqual(2);
		expect(await partsOf(result.items, true, NEWEST)).toEqual(snapshotLines(big, GZIP_DOMAINS));
		for (const item of result.items) expect(item.json.uncompressedBytes).toBeGreaterThan(item.json.sizeBytes as number);
	});
});
