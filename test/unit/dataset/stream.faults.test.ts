/**
 * Dataset → Stream under every stream fault of the simulator (dropped connection, malformed line, CRLF,
 * UTF-8 split across chunks, last line without newline, trickle), over real HTTP through n8n-core.
 * The reference is the clean stream: the simulator's `lineAt`, line for line.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import {
	binaryDataFiles,
	createExecuteContext,
	deleteExecutionBinaryData,
	readBinary,
	runNode,
} from '../../harness/n8n';
import { DomainData } from '../../../nodes/DomainData/DomainData.node';
import { useSimulator } from '../../harness/simulator';
import { KEYS, type StreamFault } from '../../simulator';

const DOMAINS = 1500;
const NEWEST = '2025-06-30';
const sim = useSimulator({ domains: DOMAINS });

function stream(parameters: INodeParameters, faults: StreamFault[] = []) {
	sim.setFaults({ streams: faults });
	return runNode({
		parameters: { resource: 'dataset', operation: 'stream', label: NEWEST, returnAll: true, ...parameters },
		credentials: { apiKey: KEYS.pro, baseUrl: sim.url },
	});
}

const line = (position: number, fields?: string) => sim.index.lineAt(position, NEWEST, fields);
const record = (position: number, fields?: string) => JSON.parse(line(position, fields)) as IDataObject;
const clean = (count = DOMAINS, fields?: string) =>
	Array.from({ length: count }, (_, position) => record(position, fields));

function recordsOf(items: INodeExecutionData[]): IDataObject[] {
	return items.flatMap(({ json }) => {
		if (Array.isArray(json.records)) return json.records as IDataObject[];
		const { label: _label, ...rest } = json;
		return [rest];
	});
}

function expectNoDuplicate(records: IDataObject[]) {
	expect(new Set(records.map((entry) => entry.name)).size).toBe(records.length);
}

describe('a dropped connection', () => {
	it('is resumed: the same label asked again, the lines already read skipped: same records, same order, none twice', async () => {
		const result = await stream({ output: 'batches' }, [{ dropAfterLines: 700 }]);
		expect(result.error).toBeUndefined();
		const records = recordsOf(result.items);
		expect(records).toHaveLength(DOMAINS);
		expect(records).toEqual(clean());
		expectNoDuplicate(records);

		const calls = sim.calls('stream');
		expect(calls.map((call) => [call.path, call.fault, call.lines])).toEqual([
			[`/json/api/v1/historical/domain/${NEWEST}`, 'stream:dropAfterLines', 700],
			[`/json/api/v1/historical/domain/${NEWEST}`, undefined, DOMAINS],
		]);
		expect(calls[1].query).toEqual(calls[0].query);
	});

	it('resumes `latest` on the concrete label it resolved, even when a newer snapshot appeared meanwhile', async () => {
		sim.setFaults({ streams: [{ dropAfterLines: 300 }] });
		// A new snapshot appears between the drop and the re-request (which comes 250 ms after the drop).
		const interval = setInterval(() => {
			if (sim.calls('stream').length === 1 && sim.datasets().length === 4 && sim.calls('stream')[0].lines === 300) {
				sim.addSnapshot('2025-07-07');
			}
		}, 1);
		try {
			const result = await runNode({
				parameters: { resource: 'dataset', operation: 'stream', label: 'latest', returnAll: true, output: 'batches' },
				credentials: { apiKey: KEYS.pro, baseUrl: sim.url },
			});
			expect(result.error).toBeUndefined();
			expect(recordsOf(result.items)).toEqual(clean());
			expect(result.items.every((item) => item.json.label === NEWEST)).toBe(true);
		} finally {
			clearInterval(interval);
		}
		expect(sim.datasets()[0].label).toBe('2025-07-07');
		expect(sim.calls('stream').map((call) => call.path)).toEqual([
			`/json/api/v1/historical/domain/${NEWEST}`,
			`/json/api/v1/historical/domain/${NEWEST}`,
		]);
	});

	it('is resumed in file mode with the exact file of a clean stream', async () => {
		const result = await stream({ output: 'file' }, [{ dropAfterLines: 1000 }]);
		expect(result.error).toBeUndefined();
		const content = (await readBinary(result.items[0])).toString('utf8');
		expect(content).toBe(Array.from({ length: DOMAINS }, (_, position) => line(position)).join('\n') + '\n');
		expect(result.items[0].json).toMatchObject({
			recordCount: DOMAINS,
			reconnects: 1,
			sizeBytes: Buffer.byteLength(content),
		});
	});

	it('is resumed with the same service-side limit, giving exactly Limit records', async () => {
		const result = await stream({ returnAll: false, limit: 900 }, [{ dropAfterLines: 256 }]);
		expect(recordsOf(result.items)).toEqual(clean(900));
		expect(sim.calls('stream').map((call) => call.query.limit)).toEqual(['900', '900']);
	});

	it('is resumed under filters, with the matches of a clean read', async () => {
		const country = record(0).country_code as string;
		const byHand = clean()
			.filter((entry) => entry.country_code === country)
			.map(({ name }) => ({ name }));
		const result = await stream({ fields: ['name'], filters: { countryCodes: country } }, [{ dropAfterLines: 600 }]);
		expect(recordsOf(result.items)).toEqual(byHand);
	});

	it('is resumed several times up to Max Attempts stream requests in all', async () => {
		const result = await stream({ output: 'batches', options: { maxAttempts: 4 } }, [
			{ dropAfterLines: 200 },
			{ dropAfterLines: 500 },
			{ dropAfterLines: 900 },
		]);
		expect(result.error).toBeUndefined();
		expect(recordsOf(result.items)).toEqual(clean());
		expect(sim.calls('stream').map((call) => call.lines)).toEqual([200, 500, 900, DOMAINS]);
	});

	it('fails after Max Attempts requests in a row without new lines, saying how far it got and what to do; nothing partial is returned', async () => {
		// Request 1 reads new lines (progress) and drops; requests 2 and 3 drop before any line: 2 in a row
		// without progress.
		const result = await stream({ options: { maxAttempts: 2 } }, [
			{ dropAfterLines: 300 },
			{ dropAfterLines: 0, count: 5 },
		]);
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(
			`The dataset "${NEWEST}" could not be read to the end: 2 requests in a row failed without new lines (2× connection dropped)`,
		);
		expect(result.error?.description).toMatch(/^[1-9]\d* lines had been read/);
		expect(result.error?.description).toContain('Max Attempts');
		expect(sim.calls('stream')).toHaveLength(3);
	});

	it('fails the File output after Max Attempts with the same message', async () => {
		const result = await stream({ output: 'file', options: { maxAttempts: 1, compression: 'gzip' } }, [
			{ dropAfterLines: 0, count: 5 },
		]);
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(
			`The dataset "${NEWEST}" could not be read to the end: 1 request in a row failed without new lines (1× connection dropped)`,
		);
		expect(sim.calls('stream')).toHaveLength(1);
	});

	it('new lines start a new budget: with Max Attempts 1, a stream that drops once after progress still completes', async () => {
		const result = await stream({ output: 'batches', options: { maxAttempts: 1 } }, [{ dropAfterLines: 300 }]);
		expect(result.error).toBeUndefined();
		expect(recordsOf(result.items)).toEqual(clean());
		expect(sim.calls('stream')).toHaveLength(2);
	});

	/** A stand-in service that answers stream request n (1-based) with `answer(n, res)`. */
	async function withServer(
		answer: (request: number, res: ServerResponse) => void,
		run: (baseUrl: string) => Promise<void>,
	) {
		let requests = 0;
		const server: Server = createServer((req, res) => {
			if (req.url?.startsWith('/json/api/v1/historical/domain/2025-01-01')) {
				res.writeHead(200, { 'content-type': 'application/x-ndjson' });
				answer(++requests, res);
				return;
			}
			res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
		} finally {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		}
		return requests;
	}

	const readStandIn = (baseUrl: string) =>
		runNode({
			parameters: {
				resource: 'dataset',
				operation: 'stream',
				label: '2025-01-01',
				returnAll: true,
				fields: ['name', 'title'],
			},
			credentials: { apiKey: 'test-key-123', baseUrl },
		});

	it('drops a half-received line and reads it again whole (a drop in the middle of a line and of a character)', async () => {
		// The simulator drops between lines; this stand-in drops inside a line, right inside "û".
		const lines = [
			'{"name":"a.com","title":"Café"}',
			'{"name":"b.com","title":"Crème brûlée"}',
			'{"name":"c.com","title":"Zoë"}',
		];
		const body = Buffer.from(lines.join('\n') + '\n');
		const cut = body.indexOf(Buffer.from('brûl')) + 3;
		const requests = await withServer(
			(request, res) => {
				if (request === 1) res.write(body.subarray(0, cut), () => setTimeout(() => res.socket?.destroy(), 20));
				else res.end(body);
			},
			async (baseUrl) => {
				const result = await readStandIn(baseUrl);
				expect(result.error).toBeUndefined();
				expect(recordsOf(result.items)).toEqual(lines.map((text) => JSON.parse(text)));
			},
		);
		expect(requests).toBe(2);
	});

	it('fails rather than leave a gap when the re-read ends before the point of the drop', async () => {
		const lines = ['{"name":"a.com"}', '{"name":"b.com"}', '{"name":"c.com"}'];
		await withServer(
			(request, res) => {
				if (request === 1) res.write(lines.join('\n') + '\n', () => setTimeout(() => res.socket?.destroy(), 20));
				else res.end(lines.slice(0, 2).join('\n') + '\n');
			},
			async (baseUrl) => {
				const result = await readStandIn(baseUrl);
				expect(result.items).toEqual([]);
				expect(result.error?.message).toBe(
					'The dataset "2025-01-01" ended after 2 lines when it was asked again after a dropped connection, but 3 lines had been read before',
				);
			},
		);
	});
});

describe('a malformed line', () => {
	it('fails by default with its line number and the beginning of the line', async () => {
		const result = await stream({}, [{ malformedLineAt: 57 }]);
		expect(result.items).toEqual([]);
		expect(result.error?.message).toMatch(
			new RegExp(`^Line 57 of the dataset "${NEWEST}" cannot be read: it is not valid JSON`),
		);
		const broken = line(56).slice(0, 40);
		expect(result.error?.description).toContain(`The line starts with: ${broken}`);
		expect(result.error?.description).toContain('Skip and Count');
	});

	it('fails the File output too (plain and gzip), with the same message and no item', async () => {
		for (const compression of ['none', 'gzip']) {
			const result = await stream({ output: 'file', options: { compression } }, [{ malformedLineAt: 900 }]);
			expect(result.items).toEqual([]);
			expect(result.error?.message).toMatch(new RegExp(`^Line 900 of the dataset "${NEWEST}" cannot be read`));
		}
	});

	it('is skipped and counted in items mode when asked (records of a clean stream minus that line)', async () => {
		const result = await stream({ options: { onMalformedLine: 'skip' } }, [{ malformedLineAt: 57 }]);
		expect(result.error).toBeUndefined();
		const expected = clean();
		expected.splice(56, 1);
		expect(recordsOf(result.items)).toEqual(expected);
	});

	it('is counted in the batch it fell into, and in the file item', async () => {
		const batches = await stream({ output: 'batches', batchSize: 500, options: { onMalformedLine: 'skip' } }, [
			{ malformedLineAt: 700 },
		]);
		expect(
			batches.items.map((item) => [item.json.batch, (item.json.records as unknown[]).length, item.json.skippedLines]),
		).toEqual([
			[1, 500, 0],
			[2, 500, 1],
			[3, 499, 0],
		]);

		const file = await stream({ output: 'file', options: { onMalformedLine: 'skip' } }, [{ malformedLineAt: 3 }]);
		expect(file.items[0].json).toMatchObject({ recordCount: DOMAINS - 1, skippedLines: 1 });
		const lines = (await readBinary(file.items[0])).toString().trimEnd().split('\n');
		expect(lines).toHaveLength(DOMAINS - 1);
		expect(lines.slice(0, 3)).toEqual([line(0), line(1), line(3)]);
	});

	it('shows a hint with the count and line numbers of skipped lines under the output', async () => {
		sim.setFaults({ streams: [{ malformedLineAt: 12 }] });
		const { context } = await createExecuteContext({
			parameters: {
				resource: 'dataset',
				operation: 'stream',
				label: NEWEST,
				limit: 20,
				options: { onMalformedLine: 'skip' },
			},
			credentials: { apiKey: KEYS.pro, baseUrl: sim.url },
		});
		const [items] = await new DomainData().execute.call(context);
		expect(items).toHaveLength(19);
		expect((context as unknown as { hints: Array<{ message: string }> }).hints.map((hint) => hint.message)).toEqual([
			`Skipped 1 malformed line of the dataset "${NEWEST}" (line 12)`,
		]);
	});

	it('counts as a line when resuming: a drop after it neither repeats nor loses a record', async () => {
		const result = await stream({ output: 'batches', options: { onMalformedLine: 'skip' } }, [
			{ malformedLineAt: 100, dropAfterLines: 400 },
		]);
		const expected = clean();
		expected.splice(99, 1);
		expect(recordsOf(result.items)).toEqual(expected);
		// The re-read line 100 is whole this time but was already handled (skipped): it stays out.
		expect(result.items.at(-1)!.json.skippedLines).toBe(0);
		expect(result.items.reduce((sum, item) => sum + (item.json.skippedLines as number), 0)).toBe(1);
	});
});

describe('the other stream faults give exactly the clean records', () => {
	it.each<[string, StreamFault]>([
		['CRLF line endings', { crlf: true }],
		['UTF-8 characters split across chunks', { splitUtf8: true }],
		['a last line without newline', { noFinalNewline: true }],
		['CRLF and no final newline', { crlf: true, noFinalNewline: true }],
	])('%s', async (_name, fault) => {
		const items = await stream({ output: 'batches' }, [fault]);
		expect(items.error).toBeUndefined();
		expect(recordsOf(items.items)).toEqual(clean());
		expect(sim.calls('stream')[0].fault).toBe(`stream:${Object.keys(fault).join('+')}`);

		const file = await stream({ output: 'file' }, [fault]);
		const content = (await readBinary(file.items[0])).toString('utf8');
		// The file is uniform whatever the service's line endings: one '\n' after every line.
		expect(content).toBe(Array.from({ length: DOMAINS }, (_, position) => line(position)).join('\n') + '\n');
	});

	it('splits characters of every record with all fields selected', async () => {
		const all = 'name,title,meta_description,contact_information';
		const result = await stream({ fields: all.split(','), returnAll: false, limit: 400, output: 'batches' }, [
			{ splitUtf8: true },
		]);
		expect(recordsOf(result.items)).toEqual(clean(400, all));
		expect(JSON.stringify(recordsOf(result.items))).not.toContain('\uFFFD');
	});

	it('a trickle of small pieces', async () => {
		const result = await stream({ returnAll: false, limit: 60 }, [{ trickle: { chunkBytes: 37, delayMs: 1 } }]);
		expect(result.error).toBeUndefined();
		expect(recordsOf(result.items)).toEqual(clean(60));
		expect(sim.calls('stream')[0].fault).toBe('stream:trickle');
	});
});

describe("a failed File output and n8n's binary data folder (filesystem mode)", () => {
	/** Files the run added to the binary data folder. */
	async function filesLeftBy(run: () => Promise<{ error?: Error }>) {
		const before = new Set(binaryDataFiles());
		const result = await run();
		expect(result.error).toBeInstanceOf(Error);
		return { result, added: binaryDataFiles().filter((file) => !before.has(file)) };
	}

	it('leaves no file when the stream fails before its first record (unknown label, plan, service down)', async () => {
		const unknown = await filesLeftBy(() => stream({ output: 'file', label: '2024-02-28' }));
		expect(unknown.result.error?.message).toContain('The dataset "2024-02-28" does not exist');
		expect(unknown.added).toEqual([]);

		const plan = await filesLeftBy(() =>
			runNode({
				parameters: { resource: 'dataset', operation: 'stream', label: NEWEST, returnAll: true, output: 'file' },
				credentials: { apiKey: KEYS.basic, baseUrl: sim.url },
			}),
		);
		expect(plan.result.error?.message).toBe('The plan of this Domain Data account does not include this feature');
		expect(plan.added).toEqual([]);

		sim.setFaults({ requests: [{ endpoint: 'stream', status: 503, count: 5 }] });
		const down = await filesLeftBy(() =>
			runNode({
				parameters: {
					resource: 'dataset',
					operation: 'stream',
					label: NEWEST,
					returnAll: true,
					output: 'file',
					options: { maxAttempts: 1 },
				},
				credentials: { apiKey: KEYS.pro, baseUrl: sim.url },
			}),
		);
		expect(down.result.error?.message).toBe('The Domain Data service failed with 503 Service Unavailable');
		expect(down.added).toEqual([]);
	});

	it('a failure after records were written: the partial file stays with the execution, the error says so, and n8n removes it with the execution', async () => {
		// Request 1 writes 300 lines and drops (progress); request 2 drops before any new line: with Max Attempts 1
		// that is the end of the read, after records were written.
		const { result, added } = await filesLeftBy(() =>
			stream({ output: 'file', options: { maxAttempts: 1 } }, [
				{ dropAfterLines: 300 },
				{ dropAfterLines: 0, count: 5 },
			]),
		);
		expect(result.error?.message).toBe(
			`The dataset "${NEWEST}" could not be read to the end: 1 request in a row failed without new lines (1× connection dropped)`,
		);
		expect(added).toHaveLength(1);
		expect(added[0]).toMatch(
			/^workflows\/harness-workflow\/executions\/harness-execution\/binary_data\/[0-9a-f-]{36}$/,
		);
		expect((result.error as { description?: string }).description).toMatch(
			/[\d.]+ (?:bytes|KB|MB) had been written: in n8n's filesystem binary data mode, that partial file stays with this execution's binary data until n8n deletes the execution/,
		);
		await deleteExecutionBinaryData('harness-workflow', 'harness-execution');
		expect(binaryDataFiles()).not.toContain(added[0]);
	});
});
