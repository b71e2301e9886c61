/** The HTTP server: node:http on 127.0.0.1, dispatching to the API and the control endpoints. */
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { sendError } from './http-utils';
import { API_PREFIX, handleApi } from './routes/api';
import { CONTROL_PREFIX, handleControl } from './routes/control';
import type { SimulatorState } from './state';

/**
 * Socket write buffer before write() asks to wait for 'drain'. 1 MB (instead of 16 KB) lets the stream
 * build its next batch while the previous one is still leaving, which roughly doubles its throughput;
 * memory stays bounded by it.
 */
const STREAM_HIGH_WATER_MARK = 1024 * 1024;

export interface RunningServer {
	server: Server;
	port: number;
	close(): Promise<void>;
}

export async function listen(state: SimulatorState, host: string, port: number): Promise<RunningServer> {
	const sockets = new Set<Socket>();
	// An idle kept-alive socket stays open for a minute, as behind a typical load balancer. With Node's 5 s, a client
	// on a busy machine (a test's event loop held up for seconds) could send on a socket the server was just closing,
	// and get ECONNRESET for a request the service never saw.
	const server = createServer({ keepAliveTimeout: 60_000, highWaterMark: STREAM_HIGH_WATER_MARK }, (req, res) => {
		const url = new URL(req.url ?? '/', 'http://simulator.local');
		const work =
			url.pathname === CONTROL_PREFIX || url.pathname.startsWith(`${CONTROL_PREFIX}/`)
				? handleControl(req, res, state, url)
				: url.pathname.startsWith(`${API_PREFIX}/`)
					? handleApi(req, res, state, url)
					: Promise.resolve(
							sendError(res, 404, `Not found: ${req.method} ${url.pathname} (the API lives under ${API_PREFIX}).`),
						);
		work.catch((error: unknown) => {
			// A bug in the simulator must be visible, not a hung request.
			sendError(res, 500, `Simulator error: ${error instanceof Error ? error.stack : String(error)}`);
		});
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const address = server.address();
	const boundPort = typeof address === 'object' && address ? address.port : port;
	return {
		server,
		port: boundPort,
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				// Open keep-alive connections and running streams would keep close() waiting: end them now.
				for (const socket of sockets) socket.destroy();
				server.closeAllConnections();
			}),
	};
}
