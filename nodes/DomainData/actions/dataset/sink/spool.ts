/**
 * The spools (docs/dataset.md, "The spool"): the Sub-Workflow output's records and Compare's newer snapshot, read at
 * the service's pace into n8n's binary data storage in NDJSON files of about SEGMENT_BYTES, then read back one file in
 * memory at a time. With binary data in memory (mode `default`) spooling would hold the snapshot: then it stops.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { asNodeError } from '../../../errors';
import type { SnapshotSpool } from '../../../helpers/compare';
import { rebatch, toBinaryInput } from '../../../helpers/streams';
import { NdjsonLineSplitter } from '../../../transport';
import { fittingEnd, LineParts, type PartTally } from './lineParts';
import { addHint } from '../../perItem';
import { Serialiser } from './source';

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

/** How n8n's database mode refuses a file over its cap (n8n-core's FileTooLargeError), naming the cap. */
const DATABASE_CAP = /exceeds the max size limit of ([\d.]+) MB set for `database` mode/;

function databaseCap(error: unknown): number | undefined {
	const match = error instanceof Error ? DATABASE_CAP.exec(error.message) : null;
	return match ? Math.floor(Number(match[1]) * 1024 * 1024) : undefined;
}

/** What a spool file may pass its size by: the last piece (about 64 KB, and a record). */
const PIECE_ROOM = 1024 * 1024;

/**
 * The spool's files: pieces until a file holds `size` bytes. n8n's database mode collects a file before it checks it
 * against its cap (N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE): a file it refuses is written again from its pieces (kept
 * until the file is stored) in files that fit the cap it names, and the files after it are cut at that cap.
 */
class SpoolFiles {
	readonly files: IBinaryData[] = [];
	bytes = 0;
	private readonly lines: LineParts;
	private cap = Infinity;
	private refusal?: unknown;

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly itemIndex: number,
		ndjson: AsyncIterable<Uint8Array>,
		private readonly size = SEGMENT_BYTES,
	) {
		// A line over the cap n8n named: its refusal stands.
		this.lines = new LineParts(ndjson, 0, () => {
			throw this.refusal;
		});
	}

	/** Writes every file; false once a file has no id (binary data in memory): it stops, draining the rest if `drain`. */
	async fill(drain: boolean): Promise<boolean> {
		try {
			for (let first = await this.lines.piece(); first; first = await this.lines.piece()) {
				if ((await this.write(first)).id) continue;
				while (drain && (await this.lines.piece()));
				return false;
			}
			return true;
		} catch (error) {
			await this.lines.close().catch(() => undefined);
			throw asNodeError(this.context.getNode(), error, this.itemIndex);
		}
	}

	/** Writes the next file, starting with `first`; returns it (the last one, when a refusal split it). */
	private async write(first: Uint8Array): Promise<IBinaryData> {
		const tally: PartTally = { records: 0, plainBytes: 0, kept: [] };
		const room = () => (tally.plainBytes < this.size ? this.cap - tally.plainBytes : 0);
		try {
			return await this.store(this.lines.part(first, room, tally));
		} catch (error) {
			const cap = databaseCap(error);
			// The refusal rethrown for a line over the cap (LineParts' tooLarge) stands: nothing of it to regroup.
			if (cap === undefined || error === this.refusal) throw asNodeError(this.context.getNode(), error, this.itemIndex);
			[this.cap, this.refusal] = [cap, error];
			let last: IBinaryData | undefined;
			for (const group of withinCap(tally.kept!, cap, error)) last = await this.store(chained(group));
			return last!;
		}
	}

	private async store(pieces: AsyncIterable<Uint8Array>): Promise<IBinaryData> {
		const name = `domain-data-spool-${String(this.files.length + 1).padStart(5, '0')}.ndjson`;
		const file = await this.context.helpers.prepareBinaryData(toBinaryInput(pieces), name, 'application/x-ndjson');
		this.files.push(file);
		this.bytes += typeof file.bytes === 'number' ? file.bytes : 0;
		return file;
	}
}

/** Pieces (each ending a line) regrouped at line ends into files of at most `cap` bytes; a longer line: `refusal`. */
export function* withinCap(pieces: readonly Uint8Array[], cap: number, refusal: unknown): Generator<Uint8Array[]> {
	let group: Uint8Array[] = [];
	let bytes = 0;
	for (const piece of pieces) {
		for (let start = 0; start < piece.byteLength;) {
			const end = fittingEnd(piece, start, cap - bytes);
			if (end === start) {
				if (bytes === 0) throw refusal;
				yield group;
				[group, bytes] = [[], 0];
				continue;
			}
			group.push(piece.subarray(start, end));
			bytes += end - start;
			start = end;
		}
	}
	if (bytes > 0) yield group;
}

/** The records of the spool files, read back one file at a time, in batches of at most `size`. */
async function* fromFiles(this: IExecuteFunctions, files: readonly IBinaryData[], itemIndex: number, size: number) {
	for (const file of files) {
		const lines = new NdjsonLineSplitter().push(await this.helpers.getBinaryDataBuffer(itemIndex, file));
		for (let start = 0; start < lines.count; start += size) {
			const batch = Math.min(size, lines.count - start);
			yield Array.from({ length: batch }, (_, index) => JSON.parse(lines.line(start + index)) as IDataObject);
		}
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
	const spool = new SpoolFiles(this, itemIndex, serialiser.pieces());
	const spooled = fromFiles.call(this, spool.files, itemIndex, batchSize);
	if (await spool.fill(false)) {
		options.spooled({ records: serialiser.records, bytes: spool.bytes, files: spool.files.length });
		yield* rebatch(spooled, batchSize);
		return;
	}
	// Binary data in memory: what is written stays in the item, so stop spooling and stream the rest (when the whole
	// selection fit in that one file, it was read at full speed all the same).
	if (serialiser.ended) options.spooled({ records: serialiser.records, bytes: spool.bytes, files: 0 });
	else memoryModeNote.call(this, SUB_WORKFLOW_UNSPOOLED);
	yield* rebatch(chained(spooled, serialiser.rest()), batchSize);
}

/** The entries of `sources` in order, as one async stream (an array is a source too). */
async function* chained<T>(...sources: Array<AsyncIterable<T> | Iterable<T>>): AsyncGenerator<T> {
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

/**
 * Compare's spool (docs/dataset.md, "Compare"): the newer snapshot's lines as the service sent them, written as pass 1
 * reads them (no record serialised again), replayed for pass 3 instead of a second request. With binary data in
 * memory it keeps nothing and says so: pass 3 then asks the service again, as without a spool. `maxFileBytes`: the
 * File output's Max File Size, which its files keep to.
 */
export function snapshotSpool(this: IExecuteFunctions, itemIndex: number, maxFileBytes?: number): SnapshotSpool {
	const size = maxFileBytes === undefined ? SEGMENT_BYTES : Math.min(SEGMENT_BYTES, maxFileBytes - PIECE_ROOM);
	const { helpers } = this;
	let files: IBinaryData[] = [];
	let spool: SpoolFiles | undefined;
	return {
		keep: async (ndjson) => {
			spool = new SpoolFiles(this, itemIndex, ndjson, size);
			const kept = await spool.fill(true);
			if (kept) files = spool.files;
			else memoryModeNote.call(this, NEWER_READ_AGAIN);
			return kept;
		},
		files: async function* () {
			for (const file of files) yield await helpers.getBinaryDataBuffer(itemIndex, file);
		},
		// Files without an id are held in memory (binary data mode `default`): nothing stays behind in storage.
		written: () => {
			const stored = spool?.files.filter((file) => file.id) ?? [];
			return { files: stored.length, bytes: stored.length > 0 ? spool!.bytes : 0 };
		},
	};
}
