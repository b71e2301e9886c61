/**
 * The byte stream handed to n8n's binary helpers (helpers/streams.ts): n8n stores it with
 * fs.writeFile in filesystem mode (async iteration) and collects it with streamToBuffer in the other
 * modes ('data'/'end'/'error' events). Both paths, and gzip, without HTTP.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

import { gzipBytes, toBinaryInput } from '../../../nodes/DomainData/helpers/streams';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { binaryToBuffer } = require('n8n-core/dist/binary-data/utils') as {
	binaryToBuffer: (body: unknown) => Promise<Buffer>;
};

const encoder = new TextEncoder();

async function* pieces(count: number, failAt?: number): AsyncGenerator<Uint8Array> {
	for (let index = 0; index < count; index++) {
		if (index === failAt) throw new Error(`source failed at ${index}`);
		await Promise.resolve();
		yield encoder.encode(`{"n":${index},"t":"é🚀"}\n`);
	}
}

const expectedText = (count: number) =>
	Array.from({ length: count }, (_, index) => `{"n":${index},"t":"é🚀"}\n`).join('');

describe('toBinaryInput', () => {
	it('is written chunk by chunk by fs.writeFile (n8n filesystem mode)', async () => {
		const path = join(tmpdir(), `dd-binary-${process.pid}.ndjson`);
		try {
			await writeFile(path, toBinaryInput(pieces(500)) as unknown as AsyncIterable<Uint8Array>);
			expect(await readFile(path, 'utf8')).toBe(expectedText(500));
		} finally {
			await rm(path, { force: true });
		}
	});

	it('hands its async iteration (the path fs.writeFile pulls) chunks of a megabyte or more, the last one the rest', async () => {
		const count = 100_000; // about 2.6 MB of lines of 18 to 23 bytes
		const chunks: Uint8Array[] = [];
		for await (const chunk of toBinaryInput(pieces(count)) as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
		expect(chunks.length).toBe(3);
		for (const chunk of chunks.slice(0, -1)) expect(chunk.byteLength).toBeGreaterThanOrEqual(1024 * 1024);
		expect(Buffer.concat(chunks).toString('utf8')).toBe(expectedText(count));
	});

	it("is collected through data/end events by n8n's streamToBuffer (database, S3 and memory modes)", async () => {
		expect((await binaryToBuffer(toBinaryInput(pieces(500)))).toString('utf8')).toBe(expectedText(500));
	});

	it("passes the source's error on in both paths", async () => {
		await expect(binaryToBuffer(toBinaryInput(pieces(10, 4)))).rejects.toThrow('source failed at 4');
		const path = join(tmpdir(), `dd-binary-fail-${process.pid}.ndjson`);
		try {
			await expect(
				writeFile(path, toBinaryInput(pieces(10, 4)) as unknown as AsyncIterable<Uint8Array>),
			).rejects.toThrow('source failed at 4');
		} finally {
			await rm(path, { force: true });
		}
	});

	it('stops reading its source when destroyed, as n8n 2.41 destroys a stream that sent nothing for 5 minutes', async () => {
		let pulled = 0;
		let closed = false;
		async function* endless(): AsyncGenerator<Uint8Array> {
			try {
				for (;;) {
					pulled++;
					await new Promise((resolve) => setImmediate(resolve));
					yield encoder.encode('{"n":1}\n');
				}
			} finally {
				closed = true;
			}
		}
		const input = toBinaryInput(endless()) as unknown as {
			on: (event: string, listener: (error?: Error) => void) => void;
			destroy: () => void;
		};
		const errors: Array<Error | undefined> = [];
		const ended = new Promise<void>((resolve) => input.on('close', () => resolve()));
		input.on('error', (error) => errors.push(error));
		input.on('data', () => {
			if (pulled === 3) input.destroy();
		});
		await ended;
		expect(errors).toEqual([]);
		expect(closed).toBe(true);
		expect(pulled).toBeLessThanOrEqual(4);
	});

	it('can be read only once', async () => {
		const input = toBinaryInput(pieces(1)) as unknown as AsyncIterable<Uint8Array>;
		await binaryToBuffer(input);
		expect(() => input[Symbol.asyncIterator]()).toThrow('only once');
	});
});

describe('gzipBytes', () => {
	it('compresses with the global CompressionStream into a valid gzip file', async () => {
		const parts: Uint8Array[] = [];
		for await (const part of gzipBytes(pieces(5000))) parts.push(part);
		const packed = Buffer.concat(parts);
		expect(gunzipSync(packed).toString('utf8')).toBe(expectedText(5000));
		expect(packed.length).toBeLessThan(Buffer.byteLength(expectedText(5000)) / 5);
	});

	it("fails with the source's own error", async () => {
		const run = async () => {
			for await (const _part of gzipBytes(pieces(5000, 3000))) {
				// consume
			}
		};
		await expect(run()).rejects.toThrow('source failed at 3000');
	});

	it('counts the compressed bytes as the compressor makes them, a chunk or two behind the source', async () => {
		// Node 20's CompressionStream, piped, took the whole source before it gave out a byte: a File part cut by
		// its compressed size would then never have been cut. Fed one chunk at a time, the count follows.
		const produced = { bytes: 0 };
		const seen: number[] = [];
		let seed = 1;
		const noise = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648).toString(36).slice(2);
		async function* source(): AsyncGenerator<Uint8Array> {
			for (let index = 0; index < 60; index++) {
				seen.push(produced.bytes);
				const lines = Array.from({ length: 500 }, () => `{"name":"${noise()}.com","title":"${noise()}${noise()}"}`);
				yield encoder.encode(lines.join('\n') + '\n');
			}
		}
		let total = 0;
		for await (const part of gzipBytes(source(), produced)) total += part.byteLength;
		expect(produced.bytes).toBe(total);
		// Half-way through the source, a good part of the output has been made (not only the 10-byte header).
		expect(seen[30]).toBeGreaterThan(total / 4);
	});

	it('stops pulling from the source when the consumer stops', async () => {
		let pulled = 0;
		async function* counted(): AsyncGenerator<Uint8Array> {
			for (let index = 0; index < 1_000_000; index++) {
				pulled++;
				yield encoder.encode(`{"n":${index},"pad":"${'x'.repeat(200)}"}\n`);
			}
		}
		for await (const _part of gzipBytes(counted())) break;
		expect(pulled).toBeLessThan(1_000_000);
	});
});
