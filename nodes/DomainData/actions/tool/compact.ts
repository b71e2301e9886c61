/**
 * Compact records for models: the fields people ask about, long texts and lists cut. The same for every shape a
 * tool answers with: domain objects, snapshot records, datasets and changes (whose `record` is compacted too).
 */
import type { IDataObject } from 'n8n-workflow';

/** Domain fields kept, then the fields of the answer shapes themselves (found, datasets, changes, errors). */
const KEPT = (
	'name rank title meta_description language language_code country_code categories technologies ' +
	'found label value change reason record changes error'
).split(' ');
const MAX_TEXT = 160;
const MAX_LIST = 10;

export const COMPACT_FIELDS_TEXT =
	'name, rank, title, description, language, country, categories and technologies; ' +
	`texts cut at ${MAX_TEXT} characters, lists at ${MAX_LIST} entries`;

function clip(value: unknown): unknown {
	if (typeof value === 'string') return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT - 1)}…` : value;
	if (Array.isArray(value)) {
		const kept = value.slice(0, MAX_LIST).map(clip);
		return value.length > MAX_LIST ? [...kept, `… ${value.length - MAX_LIST} more`] : kept;
	}
	if (value && typeof value === 'object') {
		return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, clip(entry)]));
	}
	return value;
}

export function compactRecord(record: IDataObject): IDataObject {
	const compact: IDataObject = {};
	for (const field of KEPT) {
		const value = record[field];
		if (value === undefined) continue;
		const nested = field === 'record' && value && typeof value === 'object' && !Array.isArray(value);
		compact[field] = (nested ? compactRecord(value as IDataObject) : clip(value)) as IDataObject[keyof IDataObject];
	}
	return compact;
}
