import { createServer } from 'node:net';

/** A TCP port that was free on 127.0.0.1 a moment ago (the OS picks it). */
export function freePort(): Promise<number> {
	return new Promise((resolvePromise, reject) => {
		const server = createServer();
		server.unref();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			server.close(() => resolvePromise(port));
		});
	});
}

/** Whether something accepts connections on 127.0.0.1:port. */
export function isPortFree(port: number): Promise<boolean> {
	return new Promise((resolvePromise) => {
		const server = createServer();
		server.unref();
		server.once('error', () => resolvePromise(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolvePromise(true)));
	});
}
