/** The trigger's parameters and how a poll reads them. */
import type { IDataObject, INodeProperties, IPollFunctions } from 'n8n-workflow';

import {
	idleTimeoutOption,
	maxAttemptsOption,
	optionsCollection,
	readCallLimits,
	requestDeadlineOption,
} from '../DomainData/actions/common';
import { onMalformedLineOption } from '../DomainData/actions/dataset/output';
import { operationError } from '../DomainData/errors';
import { readWholeNumber } from '../DomainData/parameters';
import { DEFAULT_SNAPSHOT_FIELDS, fieldOptions, selectedFields } from '../DomainData/helpers/snapshotFields';

/** Records per event are kept small: they travel inside the execution data. More: Dataset → Stream. */
const MAX_ATTACHED_RECORDS = 1000;

// Options shown with Attach Records only; from inside a collection, "/" names a top-level parameter.
const WITH_RECORDS = { show: { '/attachRecords': [true] } };

export const eventProperties: INodeProperties[] = [
	{
		displayName: 'Event',
		name: 'event',
		type: 'options',
		noDataExpression: true,
		required: true,
		options: [
			{
				name: 'New Dataset',
				value: 'newDataset',
				action: 'On new dataset snapshot',
				description: 'A new dated snapshot of the index is listed. Fires once per snapshot, oldest first.',
			},
		],
		default: 'newDataset',
	},
	{
		displayName: 'Attach Records',
		name: 'attachRecords',
		type: 'boolean',
		default: false,
		description:
			'Whether to add the first records of each new dataset to its event, under "records". ' +
			'Off: the event holds only the label and the snapshot ID, and no snapshot data is read.',
	},
	{
		displayName: 'Number of Records',
		name: 'recordCount',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_ATTACHED_RECORDS },
		default: 100,
		displayOptions: { show: { attachRecords: [true] } },
		description:
			`How many records of the snapshot (in rank order) to attach, at most ${MAX_ATTACHED_RECORDS}. ` +
			'To read a whole snapshot, add a Domain Data node with Dataset → Stream after the trigger.',
	},
	{
		displayName: 'Fields',
		name: 'fields',
		type: 'multiOptions',
		options: fieldOptions(),
		default: [...DEFAULT_SNAPSHOT_FIELDS],
		displayOptions: { show: { attachRecords: [true] } },
		description:
			"Fields of each attached record; none selected means the service's default selection (the fields " +
			'preselected here). From an expression: an array or a comma-separated list; domain, tld, country and ' +
			'language are accepted for name, tld1, country_code and language_code.',
	},
	optionsCollection([
		{ ...idleTimeoutOption, displayOptions: WITH_RECORDS },
		requestDeadlineOption,
		maxAttemptsOption,
		{ ...onMalformedLineOption, displayOptions: WITH_RECORDS },
	]),
];

/** What a poll reads: the limits of its calls, and `records` if attached (Idle Timeout is shown only then). */
export function getTriggerOptions(this: IPollFunctions) {
	const node = this.getNode();
	const parameters = this.getNodeParameter('options', {}) as IDataObject;
	const attachRecords = Boolean(this.getNodeParameter('attachRecords', false));
	const limits = readCallLimits(node, parameters, undefined, attachRecords);
	if (!attachRecords) return { limits, records: undefined };
	const count = readWholeNumber(node, this.getNodeParameter('recordCount', 100), 'parameter "Number of Records"', {
		max: MAX_ATTACHED_RECORDS,
		description: 'For more records, read the snapshot with Dataset → Stream after the trigger.',
	});
	const fields = selectedFields(this.getNodeParameter('fields', []), DEFAULT_SNAPSHOT_FIELDS);
	if (!fields.ok) {
		throw operationError(node, `"Fields": ${fields.message}`, {
			description: "Pick fields from the list, or leave it empty for the service's default selection.",
		});
	}
	const onMalformed = parameters.onMalformedLine === 'skip' ? 'skip' : 'error';
	return { limits, records: { count, fields: fields.fields, onMalformed } };
}

export type TriggerOptions = ReturnType<typeof getTriggerOptions>;
