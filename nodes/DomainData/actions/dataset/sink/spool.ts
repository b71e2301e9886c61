/**
 * The spool of the Sub-Workflow output (docs/dataset.md, "The spool"): the whole selection is read at the service's
 * pace into n8n's binary data storage, in NDJSON files of about SEGMENT_BYTES (under the database mode's size limit),
 * then fed to the sub-workflow at its own pace, one file in memory at a time. With binary data in memory (mode
 * `default`) spooling would hold the snapshot: the records then go straight from the stream to the sub-workflow.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { asNodeError } from '../../../errors';
import type { SnapshotSpool } from '../../../helpers/compare';
import { rebatch } from '../../../helpers/streams';
import { toBinaryInput } from '../../../helpers/streams';
import { addHint, Serialiser } from './source';

const SEGMENT_BYTES = 8 * 1024 * 1024;

const SUB_WORKFLOW_UNSPOOLED =
	'The records went straight from the stream to the sub-workflow, without a spool (with a slow sub-workflow the ' +
	'stream may be cut and resumed: more requests)';
const NEWER_READ_AGAIN =
	'Compare may read the newer snapshot a second time (one more stream request) to output the changes, as it was ' +
	'not spooled';

export interface SpoolFacts {
	/** Records in the spool (the skipped ones are not written). */
	records: number;
	bytes: number;
	files: number;
}

/** One spool file: pieces until the file holds `size` bytes. The first piece is read before the file exists. */
async function writeSegment(
	this: IExecuteFunctions,
	serialiser: Serialiser,
	first: Uint8Array,
	number: number,
	size = SEGMENT_BYTES,
): Promise<IBinaryData> {
	async function* pieces() {
		let bytes = first.byteLength;
		yield first;
		while (bytes < size) {
			const piece = await serialiser.piece();
			if (!piece) return;
			bytes += piece.byteLength;
			yield piece;
		}
	}
	const name = `domain-data-spool-${String(number).padStart(5, '0')}.ndjson`;
	return await this.helpers.prepareBinaryData(toBinaryInput(pieces()), name, 'application/x-ndjson');
}

/** The records of the spool files, read back one file at a time and parsed line by line, in batches. */
async function* fromFiles(this: IExecuteFunctions, files: readonly IBinaryData[], itemIndex: number, size: number) {
	for (const file of files) {
		const text = new TextDecoder().decode(await this.helpers.getBinaryDataBuffer(itemIndex, file));
		const records: IDataObject[] = [];
		let start = 0;
		for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
			records.push(JSON.parse(text.slice(start, end)) as IDataObject);
			start = end + 1;
			if (records.length < size) continue;
			yield records.splice(0);
		}
		if (records.length > 0) yield records;
	}
}

/**
 * The batches of `records` after `skip`, each exactly `batchSize` records but the last, fed from the spool once the
 * whole source is in it (`spooled` is told then). A failure of the source fails here, before any batch is handed on.
 */
export async function* spooledBatches(
	this: IExecuteFunctions,
	records: AsyncIterable<IDataObject[]>,
	options: { batchSize: number; skip: number; itemIndex: number; spooled: (facts: SpoolFacts) => void },
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
				if (serialiser.ended) options.spooled({ records: serialiser.records, bytes, files: 0 });
				else memoryModeNote.call(this, SUB_WORKFLOW_UNSPOOLED);
				yield* rebatch(concat(fromFiles.call(this, files, itemIndex, batchSize), serialiser.rest()), batchSize);
				return;
			}
		}
	} catch (error) {
		await serialiser.close().catch(() => undefined);
		throw asNodeError(this.getNode(), error, itemIndex);
	}
	options.spooled({ records: serialiser.records, bytes, files: files.length });
	yield* rebatch(fromFiles.call(this, files, itemIndex, batchSize), batchSize);
}

async function* concat<T>(...sources: Array<AsyncIterable<T>>): AsyncGenerator<T> {
	for (const source of sources) yield* source;
}

/** n8n keeps binary data in memory: say what the spool could not do, and how to have it done. */
function memoryModeNote(this: IExecuteFunctions, consequence: string): void {
	const message =
		`${consequence}: this n8n keeps binary data in memory (N8N_DEFAULT_BINARY_DATA_MODE=default). Set ` +
		'N8N_DEFAULT_BINARY_DATA_MODE to filesystem, database or s3 to spool them.';
	this.logger?.warn(`Domain Data: ${message}`);
	addHint(this, message);
}

/** What a spool file may pass its size by: the last piece (about 64 KB, and a record). */
const PIECE_ROOM = 1024 * 1024;

/**
 * Compare's spool (docs/dataset.md, "Compare"): the newer snapshot's records, written as pass 1 reads them, replayed
 * for pass 3 instead of a second request. With binary data in memory it keeps nothing and says so: pass 3 then asks
 * the service again, as without a spool. `maxFileBytes`: the File output's Max File Size, which its files keep to.
 */
export function snapshotSpool(this: IExecuteFunctions, itemIndex: number, maxFileBytes?: number): SnapshotSpool {
	const size = maxFileBytes === undefined ? SEGMENT_BYTES : Math.min(SEGMENT_BYTES, maxFileBytes - PIECE_ROOM);
	const files: IBinaryData[] = [];
	const read = async (file: IBinaryData) =>
		new TextDecoder().decode(await this.helpers.getBinaryDataBuffer(itemIndex, file));
	return {
		keep: async (records) => {
			const serialiser = new Serialiser(records);
			try {
				for (let first = await serialiser.piece(); first; first = await serialiser.piece()) {
					const file = await writeSegment.call(this, serialiser, first, files.length + 1, size);
					if (!file.id) {
						files.length = 0;
						memoryModeNote.call(this, NEWER_READ_AGAIN);
						for await (const _batch of serialiser.rest());
						return false;
					}
					files.push(file);
				}
			} catch (error) {
				await serialiser.close().catch(() => undefined);
				throw asNodeError(this.getNode(), error, itemIndex);
			}
			return true;
		},
		texts: async function* () {
			for (const file of files) yield await read(file);
		},
	};
}
