/**
 * The File output: the records as NDJSON files in n8n's binary storage, written as they come, in parts of whole
 * records of at most "Max File Size" (n8n's database mode refuses larger files and holds each in memory).
 */
import type { IBinaryData, IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';

import { asNodeError, count, describeValue, operationError, withNote } from '../../../errors';
import { countedBytes, gzipBytes, toBinaryInput } from '../../../helpers/streams';
import type { OutputParameters } from '../outputPlan';
import { failedWith } from '../../perItem';
import { LineParts, type PartTally } from './lineParts';
import {
	addHints,
	type DatasetSource,
	factsOfReads,
	resumeHint,
	runAgainWith,
	selectionName,
	Serialiser,
} from './source';

/** What a gzip part keeps free under Max File Size: far more than the compressor holds back of what it was given. */
const GZIP_HELD_BACK = 1024 * 1024;

function sizeText(bytes: number): string {
	const kb = bytes / 1024;
	return kb < 1 ? `${bytes} bytes` : kb < 1024 ? `${kb.toFixed(1)} KB` : `${(kb / 1024).toFixed(1)} MB`;
}

/** n8n offers a node no way to delete binary data, and a failed `prepareBinaryData` does not tell the file's id. */
function withPartialFileNote<E extends { description?: string | null }>(error: E, bytes: number): E {
	if (bytes === 0) return error;
	const note =
		`${sizeText(bytes)} had been written: in n8n's filesystem binary data mode, that partial file stays with this ` +
		"execution's binary data until n8n deletes the execution (by its pruning of old executions, or at once when " +
		'failed executions are not saved).';
	return withNote(error, note);
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

/**
 * A run that stopped at a part: the parts done, and where to go on. n8n outputs nothing of a failed node unless it
 * continues on fail (`kept`): else the way on is to run it again from where this run started.
 */
function partsNote(source: DatasetSource, parts: number, records: number, skipRecords: number, kept: boolean) {
	const complete =
		`${parts === 1 ? 'Part 1 is' : `Parts 1-${parts} are`} complete (${count(records)} records` +
		`${skipRecords > 0 ? ` after the ${count(skipRecords)} skipped` : ''})`;
	const again = runAgainWith(source, `"Skip Records" left at ${skipRecords}`);
	return kept
		? `${complete}. ${resumeHint(source, skipRecords + records)}`
		: `${complete}, but a node that stops on an error outputs nothing, so no part reached the next node. To get ` +
				`every record, ${again}; to keep the complete parts of a failed run and go on after them, set the ` +
				'node\'s Settings → On Error to "Continue".';
}

/**
 * Stores the source's NDJSON (optionally gzipped) as `<fileName>.ndjson[.gz]`, or in parts
 * `<fileName>.part-0001.ndjson[.gz]`..., pushing one item per file onto `output` as each is complete (so that
 * Continue On Fail keeps the complete parts). A failure carries its error item's fields (failedWith).
 */
export async function toFile(
	this: IExecuteFunctions,
	source: DatasetSource,
	output: OutputParameters,
	run: { itemIndex: number; output: INodeExecutionData[] },
): Promise<void> {
	const { itemIndex } = run;
	const { maxBytes, skipRecords } = output.file!;
	const gzip = output.compression === 'gzip';
	const extension = `.ndjson${gzip ? '.gz' : ''}`;
	const base = skipRecords > 0 ? `${source.fileName}.from-${skipRecords + 1}` : source.fileName;
	const ndjson = source.ndjson?.() ?? new Serialiser(source.records({})).pieces();
	const items: INodeExecutionData[] = [];
	let records = 0;
	const tooLarge = (line: Uint8Array): never => {
		throw recordTooLargeError(this.getNode(), source, { line, position: skipRecords + records + 1, output, itemIndex });
	};
	const lines = new LineParts(ndjson, skipRecords, tooLarge);
	try {
		// The first part is stored even without a record: an empty file.
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
			const firstRecord = skipRecords + records + 1;
			const json: IDataObject = {
				...source.labels,
				fileName,
				recordCount: tally.records,
				sizeBytes: typeof binary.bytes === 'number' ? binary.bytes : written.bytes,
				...(gzip ? { uncompressedBytes: tally.plainBytes } : {}),
				// The part's place: its records' positions in the selection (1-based) and their names.
				part,
				firstRecord,
				lastRecord: firstRecord + tally.records - 1,
				firstName: tally.firstLine && nameOf(tally.firstLine),
				lastName: tally.lastLine && nameOf(tally.lastLine),
			};
			records += tally.records;
			const item = { json, binary: { [output.binaryPropertyName]: binary }, pairedItem: { item: itemIndex } };
			items.push(item);
			run.output.push(item);
		}
	} catch (error) {
		await lines.close().catch(() => undefined);
		const failure = asNodeError(this.getNode(), error, itemIndex);
		const kept = this.continueOnFail();
		if (items.length > 0) withNote(failure, partsNote(source, items.length, records, skipRecords, kept));
		const resumeAt = skipRecords + records;
		throw failedWith(
			failure,
			{ ...source.labels, parts: items.length, records, skipRecords: resumeAt },
			resumeHint(source, resumeAt),
		);
	}
	finish(items, source, output, { records, skipped: lines.skipped });
	addHints.call(this, source, records, skippedAllHint(skipRecords, lines.skipped, source));
}

/** Skip Records at or past the end of the selection: the file is empty, and the hint says why. */
function skippedAllHint(asked: number, skipped: number, source: DatasetSource): string | undefined {
	if (asked === 0 || skipped === asked) return undefined;
	const what = source.labels.baseLabel === undefined ? 'records' : 'changes';
	const selection = `the ${count(skipped)} ${what} of this selection`;
	return `Skip Records (${count(asked)}) is more than ${selection}: the file is empty`;
}

/** A record (or change) larger than a part may be: named with its place and size, and the Max File Size it needs. */
function recordTooLargeError(
	node: INode,
	source: DatasetSource,
	record: { line: Uint8Array; position: number; output: OutputParameters; itemIndex: number },
) {
	const { line, position, output, itemIndex } = record;
	const gzip = output.compression === 'gzip';
	const name = nameOf(line);
	const kind = source.labels.baseLabel === undefined ? 'Record' : 'Change';
	const which = `${kind} ${count(position)} of the ${selectionName(source.labels)}`;
	const maxMb = output.file!.maxBytes / 1024 / 1024;
	const neededMb = Math.ceil((line.byteLength + 1 + (gzip ? GZIP_HELD_BACK : 0)) / 1024 / 1024);
	const message =
		`${which}${name === undefined ? '' : ` (${describeValue(name)})`} is ${sizeText(line.byteLength + 1)}, more ` +
		`than a part of Max File Size (${maxMb} MB) can hold`;
	const room = gzip ? ' (with gzip, a part keeps 1 MB free for what the compressor holds back)' : '';
	return operationError(node, message, {
		itemIndex,
		description:
			`Each part holds whole records, so a part must fit the largest one${room}. Set Max File Size to ${neededMb} ` +
			'MB or more, or leave out of Fields what makes this record large.',
	});
}

function partSuffix(part: number): string {
	return `.part-${String(part).padStart(4, '0')}`;
}

/** Part 1 was stored as if it were the only file: once a second part begins, it is named as a part. */
function renameFirstPart(item: INodeExecutionData, field: string, base: string, extension: string): void {
	const fileName = `${base}${partSuffix(1)}${extension}`;
	item.json.fileName = fileName;
	item.binary![field].fileName = fileName;
}

/** The facts known at the end: a single file has no part facts; each part gets the totals and the source's summary. */
function finish(
	items: INodeExecutionData[],
	source: DatasetSource,
	output: OutputParameters,
	{ records, skipped }: { records: number; skipped: number },
): void {
	const facts = { ...source.summary(), ...factsOfReads(source, output) };
	if (items.length === 1) {
		const { json } = items[0];
		const uncompressed = json.uncompressedBytes;
		for (const key of ['part', 'firstRecord', 'lastRecord', 'firstName', 'lastName', 'uncompressedBytes']) {
			delete json[key];
		}
		Object.assign(json, facts, uncompressed === undefined ? {} : { uncompressedBytes: uncompressed });
		if (output.file!.skipRecords > 0) json.skippedRecords = skipped;
		return;
	}
	for (const { json } of items) Object.assign(json, { parts: items.length, totalRecords: records }, facts);
}
