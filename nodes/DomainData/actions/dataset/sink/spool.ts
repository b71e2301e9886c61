/**
 * The spool of the Sub-Workflow output: the whole selection is read at the service's pace into n8n's binary data
 * storage (whatever mode the instance uses: filesystem, database, S3), then fed to the sub-workflow at its own pace.
 * A slow sub-workflow then never leaves the stream unread: no proxy cuts it, no idle timeout fires, and the cost of a
 * run (stream requests, bytes downloaded) does not depend on how long a batch takes.
 *
 * The records go in as NDJSON files of about SEGMENT_BYTES each (one file per segment keeps each under the database
 * mode's size limit, 512 MiB by default) and come back one file at a time: memory holds one segment and one batch,
 * never the snapshot. n8n offers a node no way to delete binary data: the files stay with the execution's binary data
 * until n8n deletes the execution (its pruning of old executions, or at once when the execution is not saved).
 * When n8n keeps binary data in memory (mode `default`), spooling would hold the snapshot: the records then go
 * straight from the stream to the sub-workflow, as without a spool.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { asNodeError } from '../../../errors';
import { rebatch } from '../../../helpers/batches';
import { toBinaryInput } from '../../../helpers/binaryStream';

/** Bytes of NDJSON per spool file: a few reads of the disk or database per run, one file's worth in memory. */
export const SEGMENT_BYTES = 8 * 1024 * 1024;

/** Characters serialised before one encode: one TextEncoder call per piece instead of one per record. */
const PIECE_CHARS = 64 * 1024;

export interface SpoolFacts {
	/** Records in the spool (the skipped ones are not written). */
	records: number;
	bytes: number;
	files: number;
	/** n8n keeps binary data in memory and the selection is larger than one file: the rest is not spooled. */
	inMemory: boolean;
}

export interface SpoolOptions {
	batchSize: number;
	/** Records read and not written (Skip Records). */
	skip: number;
	itemIndex: number;
	/** Called once the whole selection is in the spool (or, in memory mode, once that is known). */
	spooled?: (facts: SpoolFacts) => void;
}

/** Pulls records from `source` and serialises them into encoded pieces. */
class Serialiser {
	private readonly iterator: AsyncIterator<IDataObject[]>;
	private readonly encoder = new TextEncoder();
	private batch: IDataObject[] = [];
	private position = 0;
	ended = false;
	records = 0;

	constructor(source: AsyncIterable<IDataObject[]>) {
		this.iterator = source[Symbol.asyncIterator]();
	}

	/** The next piece of NDJSON (about PIECE_CHARS), or undefined at the end of the source. */
	async piece(): Promise<Uint8Array | undefined> {
		let text = '';
		while (text.length < PIECE_CHARS) {
			if (this.position === this.batch.length) {
				const step = this.ended ? undefined : await this.iterator.next();
				if (!step || step.done) {
					this.ended = true;
					break;
				}
				this.batch = step.value;
				this.position = 0;
				continue;
			}
			text += JSON.stringify(this.batch[this.position++]) + '\n';
			this.records++;
		}
		return text.length > 0 ? this.encoder.encode(text) : undefined;
	}

	/** Stops the source (and its connection) when the spool stops early. */
	async close(): Promise<void> {
		if (!this.ended) await this.iterator.return?.();
	}

	/** What is left of the source, for memory mode: the rest of the current batch, then the stream itself. */
	async *rest(): AsyncGenerator<IDataObject[]> {
		if (this.position < this.batch.length) yield this.batch.slice(this.position);
		if (this.ended) return;
		yield* { [Symbol.asyncIterator]: () => this.iterator };
	}
}

/** One spool file: pieces until the file holds SEGMENT_BYTES. The first piece is read before the file exists. */
async function writeSegment(
	this: IExecuteFunctions,
	serialiser: Serialiser,
	first: Uint8Array,
	number: number,
): Promise<IBinaryData> {
	async function* pieces() {
		let bytes = first.byteLength;
		yield first;
		while (bytes < SEGMENT_BYTES) {
			const piece = await serialiser.piece();
			if (!piece) return;
			bytes += piece.byteLength;
			yield piece;
		}
	}
	const name = `domain-data-spool-${String(number).padStart(5, '0')}.ndjson`;
	return await this.helpers.prepareBinaryData(toBinaryInput(pieces()), name, 'application/x-ndjson');
}

/** The records of one spool file, read back whole (one segment in memory), parsed line by line, in batches. */
async function* segmentRecords(this: IExecuteFunctions, file: IBinaryData, itemIndex: number, batchSize: number) {
	const text = new TextDecoder().decode(await this.helpers.getBinaryDataBuffer(itemIndex, file));
	const records: IDataObject[] = [];
	let start = 0;
	for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
		records.push(JSON.parse(text.slice(start, end)) as IDataObject);
		start = end + 1;
		if (records.length < batchSize) continue;
		yield records.splice(0);
	}
	if (records.length > 0) yield records;
}

async function* fromFiles(this: IExecuteFunctions, files: readonly IBinaryData[], itemIndex: number, size: number) {
	for (const file of files) yield* segmentRecords.call(this, file, itemIndex, size);
}

/**
 * The batches of `records` (after `skip`), each exactly `batchSize` records but the last, fed from the spool once the
 * whole source is in it. A failure of the source fails here, before any batch is handed on.
 */
export async function* spooledBatches(
	this: IExecuteFunctions,
	records: AsyncIterable<IDataObject[]>,
	options: SpoolOptions,
): AsyncGenerator<IDataObject[]> {
	const { batchSize, skip, itemIndex } = options;
	// Skipped records are never written: a run that resumes with Skip Records needs no old spool.
	const serialiser = new Serialiser(rebatch(records, batchSize, skip));
	const files: IBinaryData[] = [];
	let bytes = 0;
	try {
		for (let first = await serialiser.piece(); first; first = await serialiser.piece()) {
			const file = await writeSegment.call(this, serialiser, first, files.length + 1);
			files.push(file);
			bytes += typeof file.bytes === 'number' ? file.bytes : 0;
			if (!file.id) {
				// Binary data in memory: what is written stays in the item, so stop spooling and stream the rest
				// (when the whole selection fit in that one file, it was read at full speed all the same).
				const facts = { records: serialiser.records, bytes, files: 0, inMemory: !serialiser.ended };
				options.spooled?.(facts);
				yield* rebatch(concat(fromFiles.call(this, files, itemIndex, batchSize), serialiser.rest()), batchSize);
				return;
			}
		}
	} catch (error) {
		await serialiser.close().catch(() => undefined);
		throw asNodeError(this.getNode(), error, itemIndex);
	}
	options.spooled?.({ records: serialiser.records, bytes, files: files.length, inMemory: false });
	yield* rebatch(fromFiles.call(this, files, itemIndex, batchSize), batchSize);
}

async function* concat<T>(...sources: Array<AsyncIterable<T>>): AsyncGenerator<T> {
	for (const source of sources) yield* source;
}

/** `dataset "2025-06-30": 1,000 records (0.1 MB) spooled into 1 file`, for the log. */
export function spoolText(label: string, facts: SpoolFacts): string {
	const megabytes = (facts.bytes / 1024 / 1024).toFixed(1);
	const files = `${facts.files} file${facts.files === 1 ? '' : 's'}`;
	return `dataset "${label}": ${facts.records.toLocaleString('en-US')} records (${megabytes} MB) spooled into ${files}`;
}

/** n8n keeps binary data in memory: say that the records were not spooled, and how to have them spooled. */
export function memoryModeNote(this: IExecuteFunctions): void {
	const message =
		'The records went straight from the stream to the sub-workflow, without a spool: this n8n keeps binary data ' +
		'in memory (N8N_DEFAULT_BINARY_DATA_MODE=default). With a slow sub-workflow the stream may be cut and resumed ' +
		'(more requests); set N8N_DEFAULT_BINARY_DATA_MODE to filesystem, database or s3 to spool them.';
	this.logger?.warn(`Domain Data: ${message}`);
	if (typeof this.addExecutionHints === 'function') this.addExecutionHints({ message, location: 'outputPane' });
}
