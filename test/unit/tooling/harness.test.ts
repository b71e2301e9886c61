/**
 * The harness is the ground every node test stands on: prove that a request made through it is a real
 * HTTP request carrying the credential the way n8n applies it.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

import { apiRequest } from '../../../nodes/DomainData/transport';
import { createExecuteContext } from '../../harness/n8n';

describe('in-process n8n harness', () => {
	const seen: Array<{ url?: string; headers: IncomingHttpHeaders }> = [];
	const server = createServer((req, res) => {
		seen.push({ url: req.url, headers: req.headers });
		res.setHeader('content-type', 'application/json');
		res.end(JSON.stringify({ ok: true }));
	});
	let baseUrl = '';

	beforeAll(async () => {
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	});
	afterAll(async () => {
		await new Promise((resolve) => server.close(resolve));
	});

	it('sends requests through n8n-core with the bearer header of the credential', async () => {
		const { context } = await createExecuteContext({
			parameters: { resource: 'domain', operation: 'get', domain: 'example.com' },
			credentials: { apiKey: 'secret-key', baseUrl: baseUrl + '/' },
		});
		const answer = await apiRequest.call(context, { method: 'GET', path: ['domain', 'a/b'] });
		expect(answer).toEqual({ ok: true });
		expect(seen.at(-1)?.url).toBe('/json/api/v1/domain/a%2Fb');
		expect(seen.at(-1)?.headers.authorization).toBe('Bearer secret-key');
	});
});
