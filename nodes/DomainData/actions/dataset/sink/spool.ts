/**
 * The spool of the Sub-Workflow output (docs/dataset.md, "The spool"): the whole selection is read at the service's
 * pace into n8n's binary data storage, in NDJSON files of about SEGMENT_BYTES, then fed to the sub-workflow at its own
 * pace, one file in memory at a time. Under n8n's database mode with a cap on one file
 * (N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE) below that, the files follow the cap n8n names when it refuses one. With
 * binary data in memory (mode `default`) spooling would hold the snapshot: the records then go straight from the
 * stream to the sub-workflow.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { asNodeError } from '../../../errors';
import type { SnapshotSpool } from '../../../helpers/compare';
import { rebatch, toBinaryInput } from '../../../helpers/streams';
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

/** How n8n's database mode refuses a file over its cap, naming the cap (n8n-core's FileTooLargeError). */
const DATABASE_CAP = /exceeds the max size limit of ([\d.]+) MB set for `database` mode/;

/** The cap on one file, in bytes, that n8n's error names; undefined for any other error. */
function databaseCap(error: unknown): number | undefined {
	const match = error instanceof Error ? DATABASE_CAP.exec(error.message) : null;
	return match ? Math.floor(Number(match[1]) * 1024 * 1024) : undefined;
}

/** Where a spool's NDJSON comes from, a piece (of whole lines) at a time; undefined at its end. */
type PieceSource = Pick<Serialiser, 'piece'>;

/**
 * The spool's files as they are written: pieces until a file holds `size` bytes (the first piece is read before the
 * file exists). n8n's database mode collects a file before it checks it against its cap: a file it refuses is written
 * again from its pieces (kept until the file is stored, so one file's bytes at most) in files that fit the cap, and
 * the files after it keep under the cap too.
 */
class SpoolFiles {
	readonly files: IBinaryData[] = [];
	bytes = 0;

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly itemIndex: number,
		private size = SEGMENT_BYTES,
	) {}

	/** Writes the next file, starting with `first`; returns it (the last one, when a refusal split it). */
	async write(source: PieceSource, first: Uint8Array): Promise<IBinaryData> {
		const kept: Uint8Array[] = [];
		const size = this.size;
		async function* pieces() {
			let bytes = first.byteLength;
			kept.push(first);
			yield first;
			while (bytes < size) {
				const piece = await source.piece();
				if (!piece) return;
				bytes += piece.byteLength;
				kept.push(piece);
				yield piece;
			}
		}
		try {
			return this.stored(await this.store(toBinaryInput(pieces())));
		} catch (error) {
			const cap = databaseCap(error);
			if (cap === undefined) throw asNodeError(this.context.getNode(), error, this.itemIndex);
			// The next files leave room under the cap for the piece that passes `size` (about 64 KB and a record).
			this.size = Math.min(this.size, Math.max(Math.floor(cap / 2), cap - PIECE_ROOM));
			let last: IBinaryData | undefined;
			for (const group of withinCap(kept, cap, error))
				last = this.stored(await this.store(toBinaryInput(listed(group))));
			return last!;
		}
	}

	private async store(input: ReturnType<typeof toBinaryInput>): Promise<IBinaryData> {
		const name = `domain-data-spool-${String(this.files.length + 1).padStart(5, '0')}.ndjson`;
		return await this.context.helpers.prepareBinaryData(input, name, 'application/x-ndjson');
	}

	private stored(file: IBinaryData): IBinaryData {
		this.files.push(file);
		this.bytes += typeof file.bytes === 'number' ? file.bytes : 0;
		return file;
	}
}

async function* listed(pieces: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
	yield* pieces;
}

/** What a spool file may pass its size by: the last piece (about 64 KB, and a record). */
const PIECE_ROOM = 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * The pieces (each ending a line) regrouped into files of at most `cap` bytes, cut at line ends; a line longer than
 * the cap cannot be spooled under it: then n8n's `refusal` stands.
 */
export function* withinCap(pieces: readonly Uint8Array[], cap: number, refusal: unknown): Generator<Uint8Array[]> {
	let group: Uint8Array[] = [];
	let bytes = 0;
	for (const piece of pieces) {
		for (let start = 0; start < piece.byteLength;) {
			let end = piece.byteLength;
			if (end - start > cap - bytes) {
				// The lines of this piece that fit in the group's room; none: the group is full.
				const fits = cap - bytes > 0 ? piece.lastIndexOf(NEWLINE, start + cap - bytes - 1) : -1;
				if (fits < start) {
					if (bytes === 0) throw refusal;
					yield group;
					[group, bytes] = [[], 0];
					continue;
				}
				end = fits + 1;
			}
			group.push(piece.subarray(start, end));
			bytes += end - start;
			start = end;
		}
	}
	if (bytes > 0) yield group;
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
	const spool = new SpoolFiles(this, itemIndex);
	const { files } = spool;
	try {
		for (let first = await serialiser.piece(); first; first = await serialiser.piece()) {
			const file = await spool.write(serialiser, first);
			if (!file.id) {
				// Binary data in memory: what is written stays in the item, so stop spooling and stream the rest
				// (when the whole selection fit in that one file, it was read at full speed all the same).
				if (serialiser.ended) options.spooled({ records: serialiser.records, bytes: spool.bytes, files: 0 });
				else memoryModeNote.call(this, SUB_WORKFLOW_UNSPOOLED);
				yield* rebatch(concat(fromFiles.call(this, files, itemIndex, batchSize), serialiser.rest()), batchSize);
				return;
			}
		}
	} catch (error) {
		await serialiser.close().catch(() => undefined);
		throw asNodeError(this.getNode(), error, itemIndex);
	}
	options.spooled({ records: serialiser.records, bytes: spool.bytes, files: files.length });
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
			const pieces = ndjson[Symbol.asyncIterator]();
			const source: PieceSource = { piece: async () => (await pieces.next()).value as Uint8Array | undefined };
			spool = new SpoolFiles(this, itemIndex, size);
			try {
				for (let first = await source.piece(); first; first = await source.piece()) {
					const file = await spool.write(source, first);
					if (!file.id) {
						memoryModeNote.call(this, NEWER_READ_AGAIN);
						while (await source.piece());
						return false;
					}
				}
				files = spool.files;
			} catch (error) {
				await pieces.return?.().catch(() => undefined);
				throw asNodeError(this.getNode(), error, itemIndex);
			}
			return true;
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
