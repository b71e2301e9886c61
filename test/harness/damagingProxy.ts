/**
 * A proxy on 127.0.0.1 in front of the simulator that damages the stream of chosen snapshots and passes
 * everything else through: a service with one bad snapshot among good ones. GET requests only (what the
 * trigger sends). Its log tells which calls the client made.
 */
import { startLocalServer } from './localServer';

export interface DamagingProxy {
	/** The Base URL for the credential. */
	url: string;
	/** The paths asked, below /json/api/v1, in order (e.g. /historical/domain/2025-07-07). */
	paths: string[];
	/** The stream requests for `label` so far. */
	streams(label: string): number;
	/** Damage to the stream of a label: gets the lines of the simulator's answer, returns the lines to send. */
	damage: Map<string, (lines: string[]) => string[]>;
	close(): Promise<void>;
}

/** Line `at` (1-based) cut in half: not JSON any more. */
export const breakLine = (at: number) => (lines: string[]) =>
	lines.map((line, index) => (index === at - 1 ? line.slice(0, line.length >> 1) : line));

export async function startDamagingProxy(target: string): Promise<DamagingProxy> {
	const paths: string[] = [];
	const damage = new Map<string, (lines: string[]) => string[]>();
	const server = await startLocalServer((req, res) => {
		const path = (req.url ?? '/').replace(/^\/json\/api\/v1/, '').replace(/\?.*$/, '');
		paths.push(path);
		const label = decodeURIComponent(/^\/historical\/domain\/([^/]+)$/.exec(path)?.[1] ?? '');
		void fetch(target + req.url, { headers: { authorization: String(req.headers.authorization ?? '') } })
			.then(async (answer) => {
				let body = await answer.text();
				const change = answer.ok ? damage.get(label) : undefined;
				if (change) body = change(body.split('\n').slice(0, -1)).join('\n') + '\n';
				res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
				res.end(body);
			})
			.catch(() => res.destroy());
	});
	const streams = (label: string) => paths.filter((path) => path === `/historical/domain/${label}`).length;
	return { url: server.url, paths, streams, damage, close: () => server.close() };
}
