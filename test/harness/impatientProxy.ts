/**
 * A proxy on 127.0.0.1 in front of the simulator that behaves like nginx's `send_timeout`: an answer the client
 * does not read for `patienceMs` (the proxy's writes stay unflushed that long) is cut, its connection closed. It
 * passes everything else through as it comes, with backpressure, and counts the requests and the bytes it sent.
 */
import { request } from 'node:http';

import { startLocalServer } from './localServer';

export interface ImpatientProxy {
	/** The Base URL for the credential. */
	url: string;
	/** The paths asked, below /json/api/v1, in order, with their query. */
	paths: string[];
	/** Stream requests (of any snapshot) so far. */
	streams(): number;
	/** Bytes of stream answers written to clients (what the service sent, cut answers included). */
	streamBytes(): number;
	/** Answers cut because the client did not read them. */
	cuts(): number;
	close(): Promise<void>;
}

const STREAM_PATH = /^\/historical\/domain\/[^/?]+(\?|$)/;

export async function startImpatientProxy(target: string, patienceMs = 2000): Promise<ImpatientProxy> {
	const paths: string[] = [];
	let bytes = 0;
	let cuts = 0;
	const upstream = new URL(target);
	const server = await startLocalServer((req, res) => {
		const path = (req.url ?? '/').replace(/^\/json\/api\/v1/, '');
		paths.push(path);
		const isStream = STREAM_PATH.test(path);
		const forward = request(
			{ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				let timer: NodeJS.Timeout | undefined;
				answer.on('data', (chunk: Buffer) => {
					if (isStream) bytes += chunk.byteLength;
					if (res.write(chunk)) return;
					answer.pause();
					timer = setTimeout(() => {
						cuts++;
						answer.destroy();
						res.destroy();
					}, patienceMs);
					res.once('drain', () => {
						clearTimeout(timer);
						answer.resume();
					});
				});
				answer.on('end', () => res.end());
				answer.on('error', () => res.destroy());
				res.on('close', () => {
					clearTimeout(timer);
					answer.destroy();
				});
			},
		);
		forward.on('error', () => res.destroy());
		req.pipe(forward);
	});
	return {
		url: server.url,
		paths,
		streams: () => paths.filter((path) => STREAM_PATH.test(path)).length,
		streamBytes: () => bytes,
		cuts: () => cuts,
		close: () => server.close(),
	};
}
