/**
 * The idle timeout's watchdog (nodes/DomainData/transport/idle.ts): silence counts only while a read is
 * pending. A caller that holds a chunk for long (a sub-workflow run per batch) is no silence of the service.
 */
import { createServer, type Socket, connect } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { IdleTimeoutError, withIdleTimeout } from '../../../nodes/DomainData/transport/idle';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

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

	test('holds no chunk after handing it out: memory stays bounded by a chunk, however long the body', async () => {
		const handedOut: Array<WeakRef<object>> = [];
		let stillHeld = -1;
		async function* objects(): AsyncGenerator<object> {
			for (let index = 0; index < 200; index++) {
				await pause(0);
				yield { index, bytes: new Uint8Array(1024) };
			}
		}
		for await (const chunk of withIdleTimeout(objects(), 60_000)) {
			handedOut.push(new WeakRef(chunk));
			if (handedOut.length === 150) {
				collectGarbage();
				stillHeld = handedOut.slice(0, 140).filter((ref) => ref.deref() !== undefined).length;
			}
		}
		expect(stillHeld).toBe(0);
	});

	test('after the process was held up, data that came meanwhile is read before the silence is judged', async () => {
		// A busy n8n (or a starved machine) holds the event loop for longer than the timeout while a read is pending
		// and the service's next bytes arrive: timers run before sockets, so the watchdog must not call that silence.
		let serverSide: Socket | undefined;
		const server = createServer((socket) => {
			serverSide = socket;
			socket.write('a');
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as { port: number };
		const client = connect(port, '127.0.0.1');
		const seen: string[] = [];
		try {
			for await (const chunk of withIdleTimeout(client as AsyncIterable<Buffer>, 400)) {
				seen.push(chunk.toString());
				if (seen.length === 1) {
					setImmediate(() => {
						serverSide?.write('b');
						for (const until = Date.now() + 1000; Date.now() < until;); // held up, with a read pending
						setTimeout(() => serverSide?.end(), 50);
					});
				}
			}
		} finally {
			client.destroy();
			await new Promise((resolve) => server.close(resolve));
		}
		expect(seen).toEqual(['a', 'b']);
	});
});
