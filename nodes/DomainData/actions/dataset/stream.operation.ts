/** Dataset → Stream: one snapshot's records, as items, batches, an NDJSON file or sub-workflow runs. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { count } from '../../errors';
import type { DatasetLabels } from '../../helpers/datasets';
import { listedLines } from '../../helpers/domainsFilter';
import { DEFAULT_SNAPSHOT_FIELDS, fieldOptions } from '../../helpers/snapshotFields';
import { createReadStats, readSnapshot, readSnapshotBytes, type SnapshotReadStats } from '../../helpers/snapshotReader';
import { returnAllOrLimit } from '../common';
import type { ToolBounds } from '../perItem';
import { outputProperties, type OutputWording, readOptionsCollection } from './output';
import { readOutputParameters } from './outputPlan';
import { datasetLabelProperty, filtersProperty, readSelectionParameters } from './sharedParameters';
import { deliverEach, type ItemPlan } from './sink';
import { type DatasetSource, domainsReport } from './sink/source';

const OUTPUT_WORDING: OutputWording = {
	one: 'record',
	many: 'records',
	batchShape: '{ label, batch, records }',
	fileUse: 'for whole snapshots',
};

const properties: INodeProperties[] = [
	datasetLabelProperty('The snapshot to read.'),
	{
		displayName: 'Fields',
		name: 'fields',
		type: 'multiOptions',
		options: fieldOptions(),
		default: [...DEFAULT_SNAPSHOT_FIELDS],
		description:
			'Fields of each record; none selected means the fields preselected here. From an expression: an array or a ' +
			'comma-separated list; domain, tld, country and language are accepted for name, tld1, country_code and ' +
			'language_code.',
	},
	...returnAllOrLimit(),
	...outputProperties(OUTPUT_WORDING),
	filtersProperty(
		'Keep only the records that match every filter set here. The whole snapshot is still read, but only matches ' +
			'are kept, so memory stays small.',
	),
	readOptionsCollection(OUTPUT_WORDING, '2025-06-30'),
];

export const description = updateDisplayOptions({ show: { resource: ['dataset'], operation: ['stream'] } }, properties);

function plan(this: IExecuteFunctions, itemIndex: number, labels: DatasetLabels, tool?: ToolBounds): ItemPlan {
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const selection = readSelectionParameters.call(this, itemIndex, DEFAULT_SNAPSHOT_FIELDS, options, tool);
	const recordKeys = [...selection.fields, 'label'];
	const output = readOutputParameters.call(this, itemIndex, recordKeys, OUTPUT_WORDING, options, tool);
	const { fields, limit, filter, limits } = selection;
	// The read went to the snapshot's end unless the Limit (or the tool's bound) stopped it.
	const toEnd = (stats: SnapshotReadStats) => stats.complete && (limit === undefined || stats.records < limit);
	// The snapshot as the sink reads it: records, or the NDJSON bytes as the service sent them (File).
	const open = async (): Promise<DatasetSource> => {
		const label = await labels.label(selection.label, limits, itemIndex);
		const stats = createReadStats(label);
		const listed = filter?.domains;
		const wanted = listed && listedLines(listed.names);
		const read = { fields, limit, filter, limits, onMalformed: output.onMalformed, itemIndex, label, stats, wanted };
		const report = domainsReport(listed, () => toEnd(stats), { label });
		return {
			labels: { label },
			asked: { label: selection.label },
			fileName: label,
			// Under the guard one record more than fits tells "too many" without reading further.
			records: ({ batchSize, guard }) =>
				readSnapshot.call(this, { ...read, batchSize, limit: guard ? guard.max + 1 : limit }),
			ndjson: () => readSnapshotBytes.call(this, read),
			reads: () => [stats],
			summary: () => ({ fields: stats.requestedFields.filter((field) => fields.includes(field)), ...report().summary }),
			hints: (empty) => {
				const nothing = filter
					? `No record of the dataset "${label}" matched the filters (${count(stats.lines)} lines read)`
					: `The dataset "${label}" returned no records`;
				return empty ? [...report().hints, nothing] : report().hints;
			},
		};
	};
	const facts = (source: DatasetSource) => {
		const [stats] = source.reads();
		return { snapshotRead: { lines: stats.lines, toEnd: toEnd(stats), filtered: filter !== undefined } };
	};
	// Without filters a Limit is the number of records that come (unless the snapshot is shorter).
	return { output, limit, limitIsCount: !filter, open, facts };
}

export const execute = deliverEach(OUTPUT_WORDING, plan);
