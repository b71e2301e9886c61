/**
 * A small HTTP server on 127.0.0.1 for hostile behaviour the simulator does not play (redirects to another
 * origin, stalls, huge error bodies). It records every request it receives, headers included, and closes
 * every connection still open when the test closes it, so a stalled answer cannot outlive the test.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedRequest {
	/** Date.now() when the request arrived. */
	time: number;
	method: string;
	url: string;
	headers: IncomingHttpHeaders;
}

export interface LocalServer {
	/** http://127.0.0.1:<port> */
	url: string;
	port: number;
	received: ReceivedRequest[];
	close(): Promise<void>;
}

export async function startLocalServer(
	handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end(),
): Promise<LocalServer> {
	const received: ReceivedRequest[] = [];
	const sockets = new Set<Socket>();
	const server = createServer((req, res) => {
		received.push({ time: Date.now(), method: req.method ?? '', url: req.url ?? '', headers: req.headers });
		handler(req, res);
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		port,
		received,
		close: async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

/** A port where nothing listens (it was free a moment ago). */
export async function closedPort(): Promise<number> {
	const server = await startLocalServer();
	await server.close();
	return server.port;
}
