/** Looking for the API key in what a node gave: any 6 characters of a key with no repeated run mean a leak. */
import { inspect } from 'node:util';

/** Every 6-character piece of `key` that a text holds (none expected). */
export function keyPieces(text: string, key: string): string[] {
	const pieces: string[] = [];
	for (let start = 0; start + 6 <= key.length; start++) {
		const piece = key.slice(start, start + 6);
		if (text.includes(piece)) pieces.push(piece);
	}
	return pieces;
}

/** Everything of an error (or any value) a user or a log could see: message, description, JSON, inspection. */
export function views(value: unknown): string {
	const e = value as (Error & { description?: string }) | undefined;
	return [
		e?.message,
		String(e?.description),
		JSON.stringify(value),
		inspect(value, { depth: 10, showHidden: true }),
	].join('\n');
}
