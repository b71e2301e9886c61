/** The one reader of number parameters: each refuses a bad value in the same words. Bottom layer, like ./errors.ts. */
import type { INode } from 'n8n-workflow';

import { describeValue, operationError } from './errors';

/** How a message names a parameter: a field of the node, an entry of Options or of Filters, and its display name. */
export type ParameterLabel = `${'parameter' | 'option' | 'filter'} "${string}"`;

export interface WholeNumberRule {
	itemIndex?: number;
	/** Default 1. */
	min?: number;
	max?: number;
	/** Used when the value is unset (undefined, null or ''); without it, such a value is refused. */
	fallback?: number;
	/** What to do, when more can be said than the allowed range. */
	description?: string;
}

function isUnset(value: unknown): boolean {
	return value === undefined || value === null || value === '';
}

export function readWholeNumber(
	node: INode,
	value: unknown,
	label: ParameterLabel,
	rule: WholeNumberRule = {},
): number {
	if (rule.fallback !== undefined && isUnset(value)) return rule.fallback;
	const min = rule.min ?? 1;
	const number = Number(value);
	if (Number.isInteger(number) && number >= min && (rule.max === undefined || number <= rule.max)) return number;
	const range = rule.max === undefined ? `of ${min} or more` : `from ${min} to ${rule.max}`;
	throw operationError(node, `The ${label} must be a whole number ${range}, got ${describeValue(value)}`, {
		itemIndex: rule.itemIndex,
		description:
			rule.description ?? `Enter a whole number ${range} (no decimals, no text), or an expression that gives one.`,
	});
}

/** A number greater than 0 (fractions allowed: a timeout in seconds), or `fallback` when unset. */
export function readPositiveNumber(
	node: INode,
	value: unknown,
	label: ParameterLabel,
	rule: { itemIndex?: number; fallback: number },
): number {
	if (isUnset(value)) return rule.fallback;
	const number = Number(value);
	if (Number.isFinite(number) && number > 0) return number;
	throw operationError(node, `The ${label} must be a number greater than 0, got ${describeValue(value)}`, {
		itemIndex: rule.itemIndex,
		description: 'Enter a number greater than 0 (decimals allowed, no text), or an expression that gives one.',
	});
}
