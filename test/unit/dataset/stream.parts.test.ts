/**
 * The File output in parts (Max File Size), through n8n-core's real execute context and binary data storage against
 * the simulator: Stream and Compare, plain and gzip. Across the parts every record (or change) comes exactly once and
 * in order, no part is over the size, each part is complete NDJSON (or a complete .gz) and tells its place; a run
 * that stops at a part keeps the complete parts (Continue On Fail) and resumes with Skip Records.
 */
import { gunzipSync } from 'node:zlib';

import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { SNAPSHOT_FIELDS } from '../../../nodes/DomainData/helpers/snapshotFields';
import { startLocalServer, type LocalServer } from '../../harness/localServer';
import { DomainData } from '../../../nodes/DomainData/DomainData.node';
import { createExecuteContext, readBinary, runNode } from '../../harness/n8n';
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

	it('Continue (using error output): the error item holds only `error`, so that n8n routes it there', async () => {
		sim.setFaults({ streams: [{ malformedLineAt: 7000 }] });
		const failed = await runNode({
			parameters: { resource: 'dataset', label: NEWEST, returnAll: true, output: 'file', operation: 'stream' },
			credentials: { apiKey: KEYS.pro, baseUrl: sim.url },
			continueOnFail: true,
			onError: 'continueErrorOutput',
		});
		const error = failed.items[failed.items.length - 1];
		expect(Object.keys(error.json)).toEqual(['error']);
		expect(String(error.json.error)).toMatch(/^Line 7,?000 of the dataset .*\. To go on from there, run it again with/);
		sim.resetFaults();
	});

	it('Dataset "Latest": the way on names the snapshot read, so that a newer one published meanwhile is not mixed in', async () => {
		sim.setFaults({ streams: [{ malformedLineAt: 7000 }, { malformedLineAt: 7000 }] });
		const latest = { operation: 'stream', label: 'latest', fields: FIELDS, maxFileSize: MAX_MB, options: {} };
		const failed = await run(latest);
		const description = String((failed.error as { description?: string }).description);
		expect(description).toContain(
			`run it again with "Dataset Name or ID" set to "${NEWEST}" and "Skip Records" left at 0`,
		);
		const routed = await runNode({
			parameters: { resource: 'dataset', returnAll: true, output: 'file', ...latest } as INodeParameters,
			credentials: { apiKey: KEYS.pro, baseUrl: sim.url },
			continueOnFail: true,
			onError: 'continueErrorOutput',
		});
		const done = routed.items.slice(0, -1).reduce((total, item) => total + (item.json.recordCount as number), 0);
		expect(String(routed.items[routed.items.length - 1].json.error)).toMatch(
			new RegExp(
				`\\. To go on from there, run it again with "Dataset Name or ID" set to "${NEWEST}" and the option "Skip Records" set to ${done}\\.$`,
			),
		);
		sim.resetFaults();
		// A newer snapshot before the run that goes on: "Latest" is now that one, the named snapshot is the same.
		const newer = sim.addSnapshot();
		try {
			const again = await run({ ...latest, label: NEWEST });
			expect(await partsOf(again.items, false, NEWEST)).toEqual(snapshotLines());
			expect((await run({ ...latest, maxFileSize: 1024 })).items[0].json.label).toBe(newer.label);
		} finally {
			sim.removeSnapshot(newer.label);
		}
	});

	it('without Continue On Fail no part is output: run again as the message says, and every record comes once', async () => {
		sim.setFaults({ streams: [{ malformedLineAt: 7000 }] });
		const failed = await stream();
		expect(failed.items).toHaveLength(0);
		const description = String((failed.error as { description?: string }).description);
		expect(description).toMatch(/Parts 1-\d+ are complete \([\d,]+ records\), but a node that stops on an error /);
		expect(description).toContain('no part reached the next node');
		expect(description).toContain('run it again with "Skip Records" left at 0');
		expect(description).not.toMatch(/"Skip Records" set to/);
		sim.resetFaults();
		const again = await stream({ skipRecords: 0 });
		expect(again.error).toBeUndefined();
		expect(await partsOf(again.items, false, NEWEST)).toEqual(snapshotLines());
	});

	it('Skip Records past the end: an empty file that tells the records skipped, and a hint', async () => {
		const { context } = await createExecuteContext({
			parameters: {
				resource: 'dataset',
				operation: 'stream',
				label: NEWEST,
				returnAll: false,
				limit: 500,
				fields: ['name'],
				output: 'file',
				options: { skipRecords: 10_000 },
			},
			credentials: { apiKey: KEYS.pro, baseUrl: sim.url },
		});
		const [items] = await new DomainData().execute.call(context);
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({ recordCount: 0, skippedRecords: 500 });
		const hints = (context as unknown as { hints: Array<{ message: string }> }).hints.map((hint) => hint.message);
		expect(hints).toContain('Skip Records (10,000) is more than the 500 records of this selection: the file is empty');
	});
});

describe('a record larger than Max File Size (local service)', () => {
	const LABEL = '2025-06-30';
	const small = (i: number) => JSON.stringify({ name: `site-${i}.com`, rank: i + 1 }) + '\n';
	const huge = JSON.stringify({ name: 'huge.com', rank: 5, title: 'x'.repeat(3 * 1024 * 1024) }) + '\n';
	let server: LocalServer;

	beforeAll(async () => {
		server = await startLocalServer((req, res) => {
			if (/\/historical\/domain\/?(\?|$)/.test(req.url ?? '')) {
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ datasets: [{ label: LABEL, value: 'snap-1' }] }));
				return;
			}
			res.writeHead(200, { 'content-type': 'application/x-ndjson' });
			res.end([small(1), small(2), small(3), small(4), huge, small(6)].join(''));
		});
	});

	afterAll(async () => {
		await server.close();
	});

	const file = (compression: string, continueOnFail = false) =>
		runNode({
			parameters: {
				resource: 'dataset',
				operation: 'stream',
				label: LABEL,
				returnAll: true,
				fields: ['name', 'rank', 'title'],
				output: 'file',
				maxFileSize: MAX_MB,
				options: { compression },
			},
			credentials: { apiKey: 'large-record-key', baseUrl: server.url },
			continueOnFail,
		});

	it.each(['none', 'gzip'])(
		'is refused with its place, name and size, and the Max File Size it needs (%s)',
		async (compression) => {
			const { error, items } = await file(compression);
			expect(items).toHaveLength(0);
			expect(error?.message).toBe(
				`Record 5 of the dataset "${LABEL}" ("huge.com") is 3.0 MB, more than a part of Max File Size (2 MB) can hold`,
			);
			expect(String((error as { description?: string }).description)).toContain(
				`Set Max File Size to ${compression === 'gzip' ? 5 : 4} MB or more`,
			);
		},
	);

	it('with Continue On Fail the records before it are kept in a part, and no part is over the size', async () => {
		const { items } = await file('none', true);
		expect(items).toHaveLength(2);
		expect(items[0].json).toMatchObject({ part: 1, recordCount: 4, lastName: 'site-4.com' });
		expect((await readBinary(items[0])).length).toBeLessThanOrEqual(MAX_BYTES);
		expect(items[1].json).toMatchObject({ parts: 1, records: 4, skipRecords: 4 });
		expect(String(items[1].json.error)).toContain('Record 5 of the dataset');
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

describe('the File output with a filter on a field outside Fields (local service)', () => {
	const LABEL = '2025-06-30';
	// As a service may write them: spaces, escapes, an integer beyond 2^53, the filtered field in the middle.
	const lines = [
		'{"name":"a.com", "rank":9007199254740993, "country_code":"DE", "title":"caf\\u00e9 \\/ \\"x\\""}',
		'{"name":"b.com","rank":2,"country_code":"FR","title":"b"}',
		'{"country_code":"DE","name":"c.com","rank":1e3,"title":"\\ud83c\\udff3\\ufe0f"}',
	];
	let server: LocalServer;

	beforeAll(async () => {
		server = await startLocalServer((req, res) => {
			res.writeHead(200, { 'content-type': 'application/x-ndjson' });
			res.end(lines.join('\n') + '\n');
		});
	});

	afterAll(async () => {
		await server.close();
	});

	const file = async (fields: string[]) => {
		const { items, error } = await runNode({
			parameters: {
				resource: 'dataset',
				operation: 'stream',
				label: LABEL,
				returnAll: true,
				fields,
				filters: { countryCodes: 'DE' },
				output: 'file',
			},
			credentials: { apiKey: 'filter-fields-key', baseUrl: server.url },
		});
		expect(error).toBeUndefined();
		return (await readBinary(items[0])).toString('utf8');
	};

	it("keeps the service's bytes of every selected field, with the filtered field or without it", async () => {
		expect(await file(['name', 'rank', 'country_code', 'title'])).toBe(`${lines[0]}\n${lines[2]}\n`);
		expect(await file(['name', 'rank', 'title'])).toBe(
			'{"name":"a.com", "rank":9007199254740993, "title":"caf\\u00e9 \\/ \\"x\\""}\n' +
				'{"name":"c.com","rank":1e3,"title":"\\ud83c\\udff3\\ufe0f"}\n',
		);
	});
});
