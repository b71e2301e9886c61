/** List datasets and stream one (interface sections 4.4 and 4.5). */
import { sendError, sendJson } from '../http-utils';
import { writeNdjson } from '../ndjson';
import { chunkLineWriter } from '../chunk-writer';
import { LinkPacer } from '../link';
import { lineBuilder, parseFields } from '../record-lines';
import type { ApiContext } from './context';

export function listDatasets({ res, state }: ApiContext): void {
	sendJson(res, 200, { datasets: state.snapshots.datasets() });
}

/**
 * GET /historical/domain/<label>: label is "latest", a date label or a snapshot id (the dataset's value).
 * Query: fields (canonical names or aliases, comma-separated), limit (positive integer).
 */
export async function streamDataset({ res, state, param, url, entry }: ApiContext): Promise<void> {
	const label = param ?? '';
	const snapshot = state.snapshots.resolve(label);
	if (!snapshot) {
		const known = state.snapshots.datasets().map((d) => d.label);
		return sendError(res, 404, `Unknown dataset "${label}". Use "latest" or one of: ${known.join(', ') || '(none)'}.`);
	}
	const fieldValues = url.searchParams.getAll('fields');
	const selection = parseFields(fieldValues.length > 0 ? fieldValues.join(',') : undefined);
	if (!selection.ok) return sendError(res, 400, selection.message);
	let total = state.index.size;
	const limitValue = url.searchParams.get('limit');
	if (limitValue !== null) {
		if (!/^[1-9][0-9]*$/.test(limitValue.trim()))
			return sendError(res, 400, `limit must be a positive integer, got "${limitValue}".`);
		total = Math.min(total, Number(limitValue.trim()));
	}
	const fault = state.faults.takeStreamFault();
	if (fault)
		entry.fault = `stream:${Object.keys(fault)
			.filter((k) => k !== 'count')
			.join('+')}`;
	const { index } = state;
	const writeLine = chunkLineWriter(index.generator, selection.fields);
	const lineText = lineBuilder(index.generator, selection.fields);
	entry.status = 200;
	const { linkBytesPerSecond } = state.faults;
	const link = linkBytesPerSecond > 0 ? new LinkPacer(linkBytesPerSecond) : undefined;
	const result = await writeNdjson(
		res,
		{
			total,
			appendLine: (position, out) => {
				const key = index.keyAt(position, snapshot);
				const edited = snapshot.overrides && index.editedLine(snapshot, key, position + 1, selection.fields);
				if (edited === undefined) writeLine(key, position + 1, out, snapshot.salt);
				else out.utf8(edited);
			},
			lineText: (position) => {
				const key = index.keyAt(position, snapshot);
				return (
					index.editedLine(snapshot, key, position + 1, selection.fields) ?? lineText(key, position + 1, snapshot.salt)
				);
			},
		},
		fault,
		link,
	);
	entry.lines = result.lines;
	if (link) entry.linkWaitMs = Math.round(link.waitedMs);
}
