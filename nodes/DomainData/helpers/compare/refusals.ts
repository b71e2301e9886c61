/** Compare's memory bounds and its own errors (the reads have theirs, in snapshotReader.ts). */
import type { INode } from 'n8n-workflow';

import { buildApiError, count, operationError } from '../../errors';

/**
 * The bounds of the node (a CompareSpec without `bounds`), refused with a clear error instead of growing until n8n
 * dies: records of one snapshot (5 million cap the table at about 330 MB), and the older records kept for pass 3.
 */
export const COMPARE_LIMITS = Object.freeze({
	maxDomains: 5_000_000,
	maxKeptBytes: 512 * 1024 * 1024,
});

export type CompareLimits = Readonly<Record<keyof typeof COMPARE_LIMITS, number>>;

export function noNameError(node: INode, itemIndex: number | undefined, label: string, record: number) {
	return buildApiError(node, {
		message: `Record ${record} of the dataset "${label}" has no domain name`,
		description:
			'Dataset → Compare matches records by name, so every record needs one. The service sent something ' +
			'unexpected: try again later, or report it to the service.',
		itemIndex,
	});
}

/** A name listed twice on either side: `name` when known, else how many repeats. */
export function duplicateError(node: INode, itemIndex: number | undefined, label: string, repeat: string | number) {
	const what =
		typeof repeat === 'string' ? `the domain "${repeat}"` : `${count(repeat)} domain name${repeat > 1 ? 's' : ''}`;
	return buildApiError(node, {
		message: `The dataset "${label}" lists ${what} more than once`,
		description:
			'Dataset → Compare matches records by name, so each name must occur once in each snapshot. Nothing ' +
			'more is output. Use Dataset → Stream to look at the records, and report it to the service.',
		itemIndex,
	});
}

export function tooManyDomainsError(node: INode, itemIndex: number | undefined, label: string, maxDomains: number) {
	const max = count(maxDomains);
	return buildApiError(node, {
		message: `The dataset "${label}" has more than ${max} records, more than Dataset → Compare can hold`,
		description:
			`Compare keeps about 65 bytes for each domain of a snapshot and stops at ${max} domains (the service's ` +
			'index holds about 0.9 million). Check the Base URL of the credential, or report it to the service. ' +
			'To go through such a dataset, use Dataset → Stream with the File or Sub-Workflow output.',
		itemIndex,
	});
}

export function keptTooLargeError(
	node: INode,
	itemIndex: number | undefined,
	label: string,
	baseLabel: string,
	maxKeptBytes: number,
) {
	const message =
		`The comparison of "${label}" with "${baseLabel}" needs to keep more than ` +
		`${count(Math.round(maxKeptBytes / (1024 * 1024)))} MB of older records for its changes`;
	return operationError(node, message, {
		itemIndex,
		description:
			'Compare keeps the older record of each changed domain (the compared fields and those the filters ' +
			'read) until it reads the newer snapshot again. Compare fewer fields, add filters, set a Limit, or ' +
			'compare snapshots closer in time.',
	});
}

export function secondReadError(node: INode, itemIndex: number | undefined, label: string, detail: string) {
	return buildApiError(node, {
		message: `The service sent the dataset "${label}" differently on the second read: ${detail}`,
		description:
			'Dataset → Compare reads the newer snapshot twice and needs the same records both times, else the ' +
			'changes would be wrong. Nothing more is output. Run the node again; if it persists, report it to the service.',
		itemIndex,
	});
}
