/**
 * The File output: the records as NDJSON files in n8n's binary storage, written as they come, in parts of at most
 * "Max File Size" (n8n's database mode refuses larger files and holds each file in memory while it writes it). A
 * part ends at a line's end, so each part holds whole records, and together they hold each record once.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { asNodeError, count, withNote } from '../../../errors';
import { countedBytes, gzipBytes, toBinaryInput } from '../../../helpers/streams';
import type { OutputParameters } from '../output';
import { addHints, type DatasetSource, factsOfReads, Serialiser } from './source';

/**
 * What a gzip part keeps free under Max File Size: the compressed bytes are counted as the compressor gives them, and
 * it (with the one or two pieces queued before it) holds back far less than this of what it was given.
 */
const GZIP_HELD_BACK = 1024 * 1024;
const NEWLINE = 0x0a;

function sizeText(bytes: number): string {
	const kb = bytes / 1024;
	return kb < 1 ? `${bytes} bytes` : kb < 1024 ? `${kb.toFixed(1)} KB` : `${(kb / 1024).toFixed(1)} MB`;
}

/**
 * n8n (up to 2.8 at least) offers a node no way to delete binary data, and a failed `prepareBinaryData` does not
 * tell the file's id: in filesystem mode the bytes written before a failure stay until n8n deletes the execution.
 */
function withPartialFileNote<E extends { description?: string | null }>(error: E, bytes: number): E {
	if (bytes === 0) return error;
	const note =
		`${sizeText(bytes)} had been written: in n8n's filesystem binary data mode, that partial file stays with this ` +
		"execution's binary data until n8n deletes the execution (by its pruning of old executions, or at once when " +
		'failed executions are not saved).';
	return withNote(error, note);
}

function serialised(records: AsyncIterable<IDataObject[]>) {
	const serialiser = new Serialiser(records);
	return { bytes: serialiser.pieces(), records: () => serialiser.records };
}

function lineCount(piece: Uint8Array): number {
	let lines = 0;
	for (let at = piece.indexOf(NEWLINE); at !== -1; at = piece.indexOf(NEWLINE, at + 1)) lines++;
	return lines;
}

/** The `name` of an NDJSON line (undefined when it has none). */
function nameOf(line: Uint8Array): string | undefined {
	try {
		const name = (JSON.parse(new TextDecoder().decode(line)) as IDataObject).name;
		return typeof name === 'string' ? name : undefined;
	} catch {
		return undefined;
	}
}

/** One part as it is written: its records, plain bytes, and its first and last line. */
interface PartTally {
	records: number;
	plainBytes: number;
	firstLine?: Uint8Array;
	lastPiece?: Uint8Array;
}

/**
 * Cuts NDJSON pieces (each ending a line) into parts of whole lines, after skipping `skip` lines. A piece that does
 * not fit in a part is split at its last line that fits; a part takes at least one line, however long.
 */
class LineParts {
	private readonly iterator: AsyncIterator<Uint8Array>;
	private carried?: Uint8Array;
	private ended = false;
	private toSkip: number;

	constructor(source: AsyncIterable<Uint8Array>, skip: number) {
		this.iterator = source[Symbol.asyncIterator]();
		this.toSkip = skip;
	}

	/** The next piece past the skipped lines, or undefined at the end. */
	async piece(): Promise<Uint8Array | undefined> {
		while (true) {
			let piece = this.carried;
			this.carried = undefined;
			if (!piece) {
				const step = this.ended ? undefined : await this.iterator.next();
				if (!step || step.done) {
					this.ended = true;
					return undefined;
				}
				piece = step.value;
			}
			let start = 0;
			while (this.toSkip > 0 && start < piece.byteLength) {
				const end = piece.indexOf(NEWLINE, start);
				start = end === -1 ? piece.byteLength : end + 1;
				this.toSkip--;
			}
			if (start < piece.byteLength) return start === 0 ? piece : piece.subarray(start);
		}
	}

	/** The pieces of one part, starting with `first`, while `room()` (bytes) lets them in. */
	async *part(first: Uint8Array | undefined, room: () => number, tally: PartTally): AsyncGenerator<Uint8Array> {
		for (let piece: Uint8Array | undefined = first; piece; piece = await this.piece()) {
			let taken = piece;
			if (piece.byteLength > room()) {
				// The lines that fit, or the first line when the part is still empty.
				const fits = room() > 0 ? piece.lastIndexOf(NEWLINE, room() - 1) : -1;
				const end = fits !== -1 ? fits + 1 : tally.records === 0 ? piece.indexOf(NEWLINE) + 1 : 0;
				if (end > 0 && end < piece.byteLength) this.carried = piece.subarray(end);
				else if (end === 0) this.carried = piece;
				if (end === 0) return;
				taken = piece.subarray(0, end);
			}
			if (tally.records === 0) tally.firstLine = taken.subarray(0, taken.indexOf(NEWLINE));
			tally.records += lineCount(taken);
			tally.plainBytes += taken.byteLength;
			tally.lastPiece = taken;
			yield taken;
			if (this.carried) return;
		}
	}

	async close(): Promise<void> {
		if (!this.ended) await this.iterator.return?.();
	}
}

/** The last line of a piece that ends a line. */
function lastLineOf(piece: Uint8Array): Uint8Array {
	return piece.subarray(piece.lastIndexOf(NEWLINE, piece.byteLength - 2) + 1, piece.byteLength - 1);
}

/** A run that stopped at a part: the parts done, and where to go on. */
function withPartsNote(error: unknown, parts: number, records: number, skipRecords: number): unknown {
	const done = skipRecords + records;
	if (parts === 0 || !(error instanceof Error)) return error;
	const which = parts === 1 ? 'Part 1 is' : `Parts 1-${parts} are`;
	const note =
		`${which} complete (${count(records)} records${skipRecords > 0 ? ` after the ${count(skipRecords)} skipped` : ''}` +
		`). To go on from there, run it again with the option "Skip Records" set to ${done}.`;
	return withNote(error as Error & { description?: string | null }, note);
}

/**
 * Stores the source's NDJSON (optionally gzipped) as `<fileName>.ndjson[.gz]`, or in parts
 * `<fileName>.part-0001.ndjson[.gz]`..., pushing one item per file onto `output` as each is complete (so that
 * Continue On Fail keeps the complete parts). Nothing is stored before the first bytes of a part came, so a failure
 * up to then leaves no file behind. `failed` gets the error item's fields.
 */
export async function toFile(
	this: IExecuteFunctions,
	source: DatasetSource,
	output: OutputParameters,
	run: { itemIndex: number; output: INodeExecutionData[]; failed: Map<number, IDataObject> },
): Promise<void> {
	const { itemIndex } = run;
	const { maxBytes, skipRecords } = output.file!;
	const gzip = output.compression === 'gzip';
	const extension = `.ndjson${gzip ? '.gz' : ''}`;
	const base = skipRecords > 0 ? `${source.fileName}.from-${skipRecords + 1}` : source.fileName;
	const ndjson = source.ndjson?.() ?? serialised(source.records({}));
	const lines = new LineParts(ndjson.bytes, skipRecords);
	const items: INodeExecutionData[] = [];
	let records = 0;
	try {
		// The first part is stored even without a record: an empty file, as always.
		for (let first = await lines.piece(); items.length === 0 || first; first = await lines.piece()) {
			const part = items.length + 1;
			// A second part begins: the first is one of several (also when this one fails).
			if (part === 2) renameFirstPart(items[0], output.binaryPropertyName, base, extension);
			const fileName = `${base}${part === 1 ? '' : partSuffix(part)}${extension}`;
			const tally: PartTally = { records: 0, plainBytes: 0 };
			const written = { bytes: 0 };
			const compressed = { bytes: 0 };
			const room = gzip ? () => maxBytes - GZIP_HELD_BACK - compressed.bytes : () => maxBytes - tally.plainBytes;
			const plain = lines.part(first, room, tally);
			let binary: IBinaryData;
			try {
				binary = await this.helpers.prepareBinaryData(
					toBinaryInput(countedBytes(gzip ? gzipBytes(plain, compressed) : plain, written)),
					fileName,
					gzip ? 'application/gzip' : 'application/x-ndjson',
				);
			} catch (error) {
				throw withPartialFileNote(asNodeError(this.getNode(), error, itemIndex), written.bytes);
			}
			const json: IDataObject = {
				...source.labels,
				fileName,
				recordCount: tally.records,
				sizeBytes: typeof binary.bytes === 'number' ? binary.bytes : written.bytes,
			};
			if (gzip) json.uncompressedBytes = tally.plainBytes;
			Object.assign(json, partFacts(part, skipRecords + records, tally));
			records += tally.records;
			const item = { json, binary: { [output.binaryPropertyName]: binary }, pairedItem: { item: itemIndex } };
			items.push(item);
			run.output.push(item);
		}
	} catch (error) {
		await lines.close().catch(() => undefined);
		run.failed.set(itemIndex, { ...source.labels, parts: items.length, records, skipRecords: skipRecords + records });
		throw withPartsNote(asNodeError(this.getNode(), error, itemIndex), items.length, records, skipRecords);
	}
	finish(items, source, output, records);
	addHints.call(this, source, records);
}

function partSuffix(part: number): string {
	return `.part-${String(part).padStart(4, '0')}`;
}

/** A part's place: its number, its records' positions in the selection (1-based) and their names. */
function partFacts(part: number, before: number, tally: PartTally): IDataObject {
	return {
		part,
		firstRecord: before + 1,
		lastRecord: before + tally.records,
		firstName: tally.firstLine && nameOf(tally.firstLine),
		lastName: tally.lastPiece && nameOf(lastLineOf(tally.lastPiece)),
	};
}

/** Part 1 was stored as if it were the only file: once a second part begins, it is named as a part. */
function renameFirstPart(item: INodeExecutionData, field: string, base: string, extension: string): void {
	const fileName = `${base}${partSuffix(1)}${extension}`;
	item.json.fileName = fileName;
	item.binary![field].fileName = fileName;
}

/**
 * The facts known at the end: one file keeps the shape it always had (no part facts); parts tell their count, and
 * each carries the source's summary.
 */
function finish(items: INodeExecutionData[], source: DatasetSource, output: OutputParameters, records: number): void {
	const facts = { ...source.summary(), ...factsOfReads(source, output) };
	if (items.length === 1) {
		const { json } = items[0];
		const uncompressed = json.uncompressedBytes;
		for (const key of ['part', 'firstRecord', 'lastRecord', 'firstName', 'lastName', 'uncompressedBytes']) {
			delete json[key];
		}
		Object.assign(json, facts, uncompressed === undefined ? {} : { uncompressedBytes: uncompressed });
		if (output.file!.skipRecords > 0) json.skippedRecords = output.file!.skipRecords;
		return;
	}
	for (const { json } of items) Object.assign(json, { parts: items.length, totalRecords: records }, facts);
}
