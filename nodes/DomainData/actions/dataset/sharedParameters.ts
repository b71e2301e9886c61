/** The parameters that Dataset → Stream and Dataset → Compare read alike: label, fields, limit, filters. */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { hasCriteria, parseRecordFilter, type RecordFilter, type RecordFilterParameters } from '../../helpers/recordFilter';
import { toCanonicalFields, type SnapshotField } from '../../helpers/snapshotFields';
import { idleTimeoutMs } from '../../transport';
import { DEFAULT_MAX_ATTEMPTS } from '../common';

/** The `label` dropdown ("Latest" and the dated labels); `role` says which snapshot it is. */
export function datasetLabelProperty(role: string): INodeProperties {
	return {
		displayName: 'Dataset Name or ID',
		name: 'label',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getDatasetLabels' },
		default: '',
		required: true,
		description: `${role} "Latest" is resolved to the newest date label when the node runs, and that exact snapshot is read. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.`,
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
}

/** Reads and checks label, fields, Return All / Limit, filters, Max Attempts and Idle Timeout of one item. */
export function readSelectionParameters(this: IExecuteFunctions, itemIndex: number, defaultFields: SnapshotField[]): SelectionParameters {
	const node = this.getNode();
	const label = String(this.getNodeParameter('label', itemIndex, '') ?? '').trim();
	if (!label) {
		throw new NodeOperationError(node, 'The parameter "Dataset Name or ID" is empty', {
			itemIndex,
			description: 'Choose "Latest" or a date label (YYYY-MM-DD) from the list, or give one with an expression.',
		});
	}
	const fields = toCanonicalFields(this.getNodeParameter('fields', itemIndex, defaultFields));
	if (!fields.ok) {
		throw new NodeOperationError(node, `The parameter "Fields" is not valid: ${fields.message}`, { itemIndex });
	}
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? undefined : Number(this.getNodeParameter('limit', itemIndex, 50));
	if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
		throw new NodeOperationError(node, `The parameter "Limit" must be a whole number of 1 or more, got ${limit}`, { itemIndex });
	}
	const filterParameters = this.getNodeParameter('filters', itemIndex, {}) as RecordFilterParameters;
	const filter = parseRecordFilter(node, filterParameters, itemIndex);
	const options = this.getNodeParameter('options', itemIndex, {}) as { maxAttempts?: number; idleTimeout?: number };
	return {
		label,
		fields: fields.fields,
		limit,
		filter: hasCriteria(filter) ? filter : undefined,
		maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
		idleTimeoutMs: idleTimeoutMs(options.idleTimeout),
	};
}
