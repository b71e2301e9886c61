/** Lists in error messages: a list from an expression can hold a million entries, a message names a few. */
import { describeValue } from '../errors';

const NAMED_IN_MESSAGES = 5;

/** `"a", "b", "c", "d", "e" and 199,995 more`: the first entries as describeValue writes them, then the count left. */
export function quoteFew(values: readonly unknown[], total = values.length): string {
	const named = values.slice(0, NAMED_IN_MESSAGES).map(describeValue).join(', ');
	const rest = total - Math.min(values.length, NAMED_IN_MESSAGES);
	return rest > 0 ? `${named} and ${rest.toLocaleString('en-US')} more` : named;
}
