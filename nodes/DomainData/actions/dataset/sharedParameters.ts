/** The parameters that Dataset → Stream and Dataset → Compare read alike: label, fields, limit, filters. */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { operationError } from '../../errors';
import type { RecordFilter, RecordFilterParameters } from '../../helpers/recordFilter';
import { hasCriteria, parseRecordFilter } from '../../helpers/recordFilter';
import { toCanonicalFields, type SnapshotField } from '../../helpers/snapshotFields';
import { readIdleTimeoutMs, readLimit, readMaxAttempts, readRequestDeadlineMs } from '../common';

/** The `label` dropdown ("Latest" and the dated labels); `role` says which snapshot it is. */
export function datasetLabelProperty(role: string): INodeProperties {
	return {
		displayName: 'Dataset Name or ID',
		name: 'label',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getDatasetLabels' },
		default: '',
		required: true,
		// n8n's lint wants this exact description on a list from load options; what the field means is the hint.
		description:
			'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
		hint: `${role} "Latest" is resolved to the newest date label when the node runs, and that exact snapshot is read.`,
	};
}

export interface SelectionParameters {
	label: string;
	fields: SnapshotField[];
	limit?: number;
	filter?: RecordFilter;
	maxAttempts: number;
	/** No byte for this long counts as a dropped connection (option "Idle Timeout (Seconds)"). */
	idleTimeoutMs: number;
	/** A JSON answer (the dataset list) not whole this long after its request fails (option "Request Deadline"). */
	deadlineMs: number;
}

/** Reads and checks label, fields, Return All / Limit, filters, Max Attempts and Idle Timeout of one item. */
export function readSelectionParameters(
	this: IExecuteFunctions,
	itemIndex: number,
	defaultFields: SnapshotField[],
): SelectionParameters {
	const node = this.getNode();
	const label = String(this.getNodeParameter('label', itemIndex, '') ?? '').trim();
	if (!label) {
		throw operationError(node, 'The parameter "Dataset Name or ID" is empty', {
			itemIndex,
			description: 'Choose "Latest" or a date label (YYYY-MM-DD) from the list, or give one with an expression.',
		});
	}
	const fields = toCanonicalFields(this.getNodeParameter('fields', itemIndex, defaultFields));
	if (!fields.ok) {
		throw operationError(node, `The parameter "Fields" is not valid: ${fields.message}`, { itemIndex });
	}
	const limit = readLimit.call(this, itemIndex);
	const filterParameters = this.getNodeParameter('filters', itemIndex, {}) as RecordFilterParameters;
	const filter = parseRecordFilter(node, filterParameters, itemIndex);
	type Options = { maxAttempts?: unknown; idleTimeout?: unknown; requestDeadline?: unknown };
	const options = this.getNodeParameter('options', itemIndex, {}) as Options;
	return {
		label,
		fields: fields.fields,
		limit,
		filter: hasCriteria(filter) ? filter : undefined,
		maxAttempts: readMaxAttempts(node, options, itemIndex),
		idleTimeoutMs: readIdleTimeoutMs(node, options, itemIndex),
		deadlineMs: readRequestDeadlineMs(node, options, itemIndex),
	};
}
