/** The File output: the records as an NDJSON file in n8n's binary storage, written as they come. */
import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { asNodeError } from '../../../errors';
import { countedBytes, gzipBytes, startedBytes, toBinaryInput } from '../../../helpers/binaryStream';
import type { OutputParameters } from '../output';
import { addHints, type DatasetSource, factsOfReads } from './source';

/** Records per piece of a file serialised here: one encode per piece instead of one per record. */
const FILE_PIECE_CHARS = 64 * 1024;

/**
 * n8n (up to 2.8 at least) offers a node no way to delete binary data, and a failed `prepareBinaryData` does not
 * even tell the file's id: in filesystem mode the bytes written before a failure stay with the execution's binary
 * data until n8n deletes the execution (the other modes buffer and store nothing on failure). The error says so.
 */
function withPartialFileNote<E extends { description?: string | null }>(error: E, bytes: number): E {
	if (bytes === 0) return error;
	const kb = bytes / 1024;
	const size = kb < 1 ? `${bytes} bytes` : kb < 1024 ? `${kb.toFixed(1)} KB` : `${(kb / 1024).toFixed(1)} MB`;
	const note =
		`${size} had been written: in n8n's filesystem binary data mode, that partial file stays with this execution's ` +
		'binary data until n8n deletes the execution (by its pruning of old executions, or at once when failed ' +
		'executions are not saved).';
	error.description = error.description ? `${error.description} ${note}` : note;
	return error;
}

/** The records as NDJSON bytes in pieces of about 64 KB, counted in `tally` as they pass. */
async function* ndjsonOf(records: AsyncIterable<IDataObject[]>, tally: { records: number }) {
	const encoder = new TextEncoder();
	let piece = '';
	for await (const batch of records) {
		for (const record of batch) {
			tally.records++;
			piece += JSON.stringify(record) + '\n';
			if (piece.length < FILE_PIECE_CHARS) continue;
			yield encoder.encode(piece);
			piece = '';
		}
	}
	if (piece.length > 0) yield encoder.encode(piece);
}

/**
 * Stores the source's NDJSON (optionally gzipped) as `<fileName>.ndjson[.gz]` and returns the item that tells
 * about it. Nothing is stored before the first bytes came, so a failure up to then (key, plan, unknown label,
 * service down) leaves no file behind.
 */
export async function toFile(
	this: IExecuteFunctions,
	source: DatasetSource,
	output: OutputParameters,
	itemIndex: number,
): Promise<INodeExecutionData> {
	const gzip = output.compression === 'gzip';
	const fileName = `${source.fileName}.ndjson${gzip ? '.gz' : ''}`;
	const raw = source.ndjson?.();
	const tally = { records: 0 };
	const plain = { bytes: 0 };
	const written = { bytes: 0 };
	const started = await startedBytes(countedBytes(raw ? raw.bytes : ndjsonOf(source.records({}), tally), plain));
	let binary: IBinaryData;
	try {
		binary = await this.helpers.prepareBinaryData(
			toBinaryInput(countedBytes(gzip ? gzipBytes(started) : started, written)),
			fileName,
			gzip ? 'application/gzip' : 'application/x-ndjson',
		);
	} catch (error) {
		throw withPartialFileNote(asNodeError(this.getNode(), error, itemIndex), written.bytes);
	}
	const recordCount = raw ? raw.records() : tally.records;
	const json: IDataObject = {
		...source.names,
		fileName,
		recordCount,
		sizeBytes: typeof binary.bytes === 'number' ? binary.bytes : written.bytes,
		...source.summary(),
		...(gzip ? { uncompressedBytes: plain.bytes } : {}),
		...factsOfReads(source, output),
	};
	addHints.call(this, source, recordCount);
	return { json, binary: { [output.binaryPropertyName]: binary }, pairedItem: { item: itemIndex } };
}
