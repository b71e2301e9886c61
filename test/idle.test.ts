/**
 * The idle timeout's watchdog (nodes/DomainData/transport/idle.ts): silence counts only while a read is
 * pending. A caller that holds a chunk for long (a sub-workflow run per batch) is no silence of the service.
 */
import { IdleTimeoutError, withIdleTimeout } from '../nodes/DomainData/transport/idle';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function* chunks(count: number, gapMs = 0): AsyncGenerator<number> {
	for (let index = 0; index < count; index++) {
		if (gapMs > 0) await pause(gapMs);
		yield index;
	}
}

describe('withIdleTimeout', () => {
	test('a caller that holds each chunk for longer than the timeout does not cut the body', async () => {
		const seen: number[] = [];
		for await (const chunk of withIdleTimeout(chunks(3), 100)) {
			seen.push(chunk);
			await pause(250); // the caller's work: the body is not read meanwhile
		}
		expect(seen).toEqual([0, 1, 2]);
	});

	test('a body that stays silent while a read is pending fails with IdleTimeoutError and is destroyed', async () => {
		let destroyedWith: unknown;
		const silent = Object.assign(
			(async function* () {
				yield 1;
				await new Promise(() => undefined); // never sends again
			})(),
			{ destroy: (error?: Error) => (destroyedWith = error) },
		);
		const seen: number[] = [];
		await expect(
			(async () => {
				for await (const chunk of withIdleTimeout(silent, 100)) seen.push(chunk);
			})(),
		).rejects.toBeInstanceOf(IdleTimeoutError);
		expect(seen).toEqual([1]);
		expect(destroyedWith).toBeInstanceOf(IdleTimeoutError);
	});
});
