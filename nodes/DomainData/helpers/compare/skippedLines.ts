/**
 * Which lines the reader skipped as malformed, by name. The reader hands every line it is about to parse to
 * the caller's selector first, and counts a skipped line in `stats.skippedLines` before it looks at the next:
 * so when the count grew since the selector's last call, the line of that call was the skipped one.
 */
import type { LineSelector, SnapshotReadStats } from '../snapshotReader';
import { readableName } from './lineSelector';

/** Told once per skipped line: its domain name, or undefined when none can be read from it. */
export type SkippedLineHandler = (name: string | undefined) => void;

export class SkippedLines {
	private text = '';
	private start = 0;
	private end = 0;
	private counted = 0;

	constructor(
		private readonly stats: SnapshotReadStats,
		private readonly onSkipped: SkippedLineHandler,
	) {}

	/** `inner` (or a selector that wants every line), watched. */
	selector(inner?: LineSelector): LineSelector {
		return (text, start, end) => {
			this.settle();
			this.text = text;
			this.start = start;
			this.end = end;
			return inner ? inner(text, start, end) : true;
		};
	}

	/** Reports the lines skipped since the last look; call it once more when the read has ended. */
	settle(): void {
		const skipped = this.stats.skippedLines - this.counted;
		if (skipped === 0) return;
		this.counted = this.stats.skippedLines;
		// Only the last line handed over can be one; more would be lines the selector never saw.
		for (let extra = 1; extra < skipped; extra++) this.onSkipped(undefined);
		this.onSkipped(readableName(this.text.slice(this.start, this.end)));
		this.text = '';
	}
}
