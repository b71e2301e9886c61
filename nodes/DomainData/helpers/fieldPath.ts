/** Item fields by name or dot path ("company.website", "contacts[0].email"), as n8n's own nodes accept them. */
import type { IDataObject } from 'n8n-workflow';

function pathParts(path: string): string[] {
	return path
		.replace(/\[(\d+)\]/g, '.$1')
		.split('.')
		.filter((part) => part.length > 0);
}

/** The value at `path`; a key that holds the dots itself (a CSV column "company.website") wins over the path. */
export function getFieldValue(json: IDataObject, path: string): unknown {
	if (Object.prototype.hasOwnProperty.call(json, path)) return json[path];
	let current: unknown = json;
	for (const part of pathParts(path)) {
		if (current === null || typeof current !== 'object') return undefined;
		if (!Object.prototype.hasOwnProperty.call(current, part)) return undefined;
		current = (current as Record<string, unknown>)[part];
	}
	return current;
}

/** A copy of `json` with `value` at `path`; objects along the path are copied, never changed. */
export function setFieldValue(json: IDataObject, path: string, value: unknown): IDataObject {
	const parts = pathParts(path);
	if (parts.length <= 1) return { ...json, [parts[0] ?? path]: value } as IDataObject;
	const [head, ...rest] = parts;
	const child = json[head];
	const base = child !== null && typeof child === 'object' && !Array.isArray(child) ? (child as IDataObject) : {};
	return { ...json, [head]: setFieldValue(base, rest.join('.'), value) } as IDataObject;
}
