/** Readers of number parameters, which refuse a bad value in the same words. Bottom layer, like ./errors.ts. */
import type { INode } from 'n8n-workflow';

import { count, describeValue, operationError } from './errors';

/** How a message names a parameter: a field of the node, an entry of Options or of Filters, and its display name. */
type ParameterLabel = `${'parameter' | 'option' | 'filter'} "${string}"`;

interface WholeNumberRule {
	itemIndex?: number;
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

/** Decimal notation, as a user types a number or an expression gives one: not `0x10`, `true`, `[5]` or `Infinity`. */
const DECIMAL = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?\s*$/i;

/** The number a parameter holds: a number, or decimal text; anything else is NaN (refused by the readers). */
function numberOf(value: unknown): number {
	if (typeof value === 'number') return value;
	return typeof value === 'string' && DECIMAL.test(value) ? Number(value) : Number.NaN;
}

/** Whole numbers from `min` (default 1) to `max`, at most 2^53 - 1: sent as the digits typed, never as `1e+21`. */
export function readWholeNumber(
	node: INode,
	value: unknown,
	label: ParameterLabel,
	rule: WholeNumberRule = {},
): number {
	if (rule.fallback !== undefined && isUnset(value)) return rule.fallback;
	const min = rule.min ?? 1;
	const number = numberOf(value);
	const max = rule.max ?? Number.MAX_SAFE_INTEGER;
	if (Number.isSafeInteger(number) && number >= min && number <= max) return number;
	// "of 1 or more" unless a bound was set, or the value passed the one a number holds exactly.
	const range =
		rule.max !== undefined
			? `from ${min} to ${rule.max}`
			: Number.isInteger(number) && number > max
				? `from ${min} to ${count(max)}`
				: `of ${min} or more`;
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
	const number = numberOf(value);
	if (Number.isFinite(number) && number > 0) return number;
	throw operationError(node, `The ${label} must be a number greater than 0, got ${describeValue(value)}`, {
		itemIndex: rule.itemIndex,
		description: 'Enter a number greater than 0 (decimals allowed, no text), or an expression that gives one.',
	});
}
