/** The File output: the records as an NDJSON file in n8n's binary storage, written as they come. */
import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { asNodeError, withNote } from '../../../errors';
import { countedBytes, gzipBytes, startedBytes, toBinaryInput } from '../../../helpers/binaryStream';
import type { OutputParameters } from '../output';
import { addHints, type DatasetSource, factsOfReads, Serialiser } from './source';

/**
 * n8n (up to 2.8 at least) offers a node no way to delete binary data, and a failed `prepareBinaryData` does not
 * tell the file's id: in filesystem mode the bytes written before a failure stay until n8n deletes the execution.
 */
function withPartialFileNote<E extends { description?: string | null }>(error: E, bytes: number): E {
	if (bytes === 0) return error;
	const kb = bytes / 1024;
	const size = kb < 1 ? `${bytes} bytes` : kb < 1024 ? `${kb.toFixed(1)} KB` : `${(kb / 1024).toFixed(1)} MB`;
	const note =
		`${size} had been written: in n8n's filesystem binary data mode, that partial file stays with this execution's ` +
		'binary data until n8n deletes the execution (by its pruning of old executions, or at once when failed ' +
		'executions are not saved).';
	return withNote(error, note);
}

function serialised(records: AsyncIterable<IDataObject[]>) {
	const serialiser = new Serialiser(records);
	return { bytes: serialiser.pieces(), records: () => serialiser.records };
}

/**
 * Stores the source's NDJSON (optionally gzipped) as `<fileName>.ndjson[.gz]` and returns the item that tells
 * about it. Nothing is stored before the first bytes came, so a failure up to then leaves no file behind.
 */
export async function toFile(
	this: IExecuteFunctions,
	source: DatasetSource,
	output: OutputParameters,
	itemIndex: number,
): Promise<INodeExecutionData> {
	const gzip = output.compression === 'gzip';
	const fileName = `${source.fileName}.ndjson${gzip ? '.gz' : ''}`;
	const ndjson = source.ndjson?.() ?? serialised(source.records({}));
	const plain = { bytes: 0 };
	const written = { bytes: 0 };
	const started = await startedBytes(countedBytes(ndjson.bytes, plain));
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
	const recordCount = ndjson.records();
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
