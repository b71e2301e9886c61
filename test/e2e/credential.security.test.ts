/**
 * The credential's "Test" button on a running n8n, each version of the matrix, and n8n 1.x alongside the
 * newest n8n for Node 20 (`POST /rest/credentials/test`, as
 * the editor sends it), against hostile Base URLs: one that redirects to another origin (another port of 127.0.0.1)
 * where a second server records every request, and addresses the node refuses. The key must never reach
 * the other origin, and the Test must not report success; on a redirect it says what docs/troubleshooting.md says.
 */
import { CREDENTIAL_TYPE } from '../../scripts/n8n/package';
import type { N8nInstance } from '../../scripts/n8n/instance';
import { isAtLeast, N8N_1X_VERSION, NODE20_N8N_VERSION } from '../../scripts/n8n/versions';
import { N8nRestClient } from '../../scripts/n8n/rest';
import { startLocalServer, type LocalServer } from '../harness/localServer';
import { KEYS, startSimulator, type Simulator } from '../simulator';
import { CREDENTIALS, createInstance, credentialRuleMessage, e2eVersion, N8N_CHANGES } from './support';

let sim: Simulator;
let recorder: LocalServer;
let redirectStatus = 301;
let redirecting: LocalServer;

beforeAll(async () => {
	sim = await startSimulator({ domains: 50 });
	recorder = await startLocalServer((_req, res) => {
		res.writeHead(200, { 'content-type': 'application/json' }).end('{"domains":[],"total":0}');
	});
	redirecting = await startLocalServer((req, res) => {
		res.writeHead(redirectStatus, { location: `${recorder.url}${req.url ?? '/'}` }).end();
	});
}, 60_000);

afterAll(async () => {
	await recorder?.close();
	await redirecting?.close();
	await sim?.close();
});

// The smoke project (1.x) runs only the smoke file: its Test is checked here, next to the newest n8n for Node 20.
const versions = e2eVersion() === NODE20_N8N_VERSION ? [e2eVersion(), N8N_1X_VERSION] : [e2eVersion()];

describe.each(versions)('n8n %s', (version) => {
	let n8n: N8nInstance;
	let rest: N8nRestClient;

	beforeAll(async () => {
		n8n = await createInstance(sim, { version });
		await n8n.start();
		rest = new N8nRestClient(n8n.url);
		await rest.ensureOwner();
	}, 10 * 60_000);

	afterAll(async () => {
		await n8n?.dispose();
	});

	const check = (data: Record<string, unknown>) =>
		rest.testCredential({ ...CREDENTIALS.pro, type: CREDENTIAL_TYPE, data });

	describe('the Test never takes the key to another origin', () => {
		test.each([301, 302, 307, 308])(
			'a Base URL that answers %i to another origin: the Test fails, the other origin gets nothing',
			async (status) => {
				redirectStatus = status;
				const before = redirecting.received.length;
				const result = await check({ apiKey: KEYS.pro, baseUrl: redirecting.url });
				expect(result.status).toBe('Error');
				expect(result.message).not.toContain(KEYS.pro);
				// What the dialog says (docs/troubleshooting.md): n8n 2.41 the credential's rule for the status, 2.8 and
				// 1.123 the message of the HTTP client's error (their credential tester never consults the rules).
				if (isAtLeast(version, N8N_CHANGES.credentialTestRuleMessages)) {
					expect(result.message).toBe(credentialRuleMessage(status));
				} else expect(result.message).toBe(`Request failed with status code ${status}`);
				// The redirecting server was asked (so the Test really ran), the other origin never.
				expect(redirecting.received.length).toBe(before + 1);
				expect(redirecting.received.at(-1)?.headers.authorization).toBe(`Bearer ${KEYS.pro}`);
				expect(recorder.received.filter((request) => request.headers.authorization !== undefined)).toEqual([]);
				expect(recorder.received).toEqual([]);
			},
		);

		test('the same credential at the service itself passes (the Test is not simply broken)', async () => {
			expect(await check({ apiKey: KEYS.pro, baseUrl: sim.url })).toEqual({
				status: 'OK',
				message: expect.any(String),
			});
		});
	});

	describe('the Test refuses what the node refuses, with the same words, before sending anything', () => {
		test.each([
			['http://user:pass@HOST', 'must not contain a user name or password'],
			['HOST/?token=abc', 'must not contain a query (?...) or a fragment (#...)'],
			['http:/HOST', 'must start with https:// or http://'],
		])('%j', async (pattern, words) => {
			const host = new URL(recorder.url).host;
			const baseUrl = pattern.startsWith('HOST')
				? pattern.replace('HOST', recorder.url)
				: pattern.replace('HOST', host);
			const result = await check({ apiKey: KEYS.pro, baseUrl });
			expect(result.status).toBe('Error');
			expect(result.message).toContain(words);
			expect(recorder.received).toEqual([]);
		});
	});
});
