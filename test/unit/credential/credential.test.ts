/**
 * The credential: its fields, its base-URL expression as n8n resolves it, and its "Test" button, run the
 * way n8n's CredentialsTester runs it (a RoutingNode over the test request, then the same mapping of
 * failures to the message the editor shows) against the simulator over real HTTP.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import type {
	ICredentialDataDecryptedObject,
	INode,
	INodeType,
	INodeTypes,
	IRunExecutionData,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { NodeConnectionTypes, Workflow } from 'n8n-workflow';

import { DomainDataApi } from '../../../credentials/DomainDataApi.credentials';
import { resolveBaseUrl } from '../../../nodes/DomainData/transport/request';
import { startLocalServer } from '../../harness/localServer';
import { createExecuteContext } from '../../harness/n8n';
import { useSimulator } from '../../harness/simulator';
import { KEYS } from '../../simulator';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const core = require('n8n-core') as typeof import('n8n-core');

const credentialType = new DomainDataApi();
const sim = useSimulator({ domains: 200 });

describe('fields', () => {
	test('apiKey is a password field; baseUrl is required; the key goes in a bearer header', () => {
		const [apiKey, baseUrl] = credentialType.properties;
		expect(credentialType.name).toBe('domainDataApi');
		expect(apiKey).toMatchObject({ name: 'apiKey', type: 'string', typeOptions: { password: true }, required: true });
		expect(baseUrl).toMatchObject({ name: 'baseUrl', type: 'string', required: true });
		expect(credentialType.authenticate).toEqual({
			type: 'generic',
			properties: { headers: { Authorization: '=Bearer {{$credentials.apiKey}}' } },
		});
	});
});

/** The expression tests need a Workflow, but no node type of it is ever looked up. */
const noNodeTypes = {
	getByName: () => undefined,
	getByNameAndVersion: () => undefined,
	getKnownTypes: () => ({}),
} as unknown as INodeTypes;

/** The Test's Base URL expression as n8n resolves it for `baseUrl` (a refusal throws). */
function resolveExpression(baseUrl: string): unknown {
	const workflow = new Workflow({ nodes: [], connections: {}, active: false, nodeTypes: noNodeTypes });
	const node = {
		id: 'n',
		name: 'Temp-Node',
		type: 'x',
		typeVersion: 1,
		position: [0, 0] as [number, number],
		parameters: {},
	};
	return workflow.expression.getSimpleParameterValue(
		node,
		credentialType.test.request.baseURL as string,
		'internal',
		{ $credentials: { baseUrl, apiKey: 'k' } },
		undefined,
		'',
	);
}

describe('the base URL expression of the test request', () => {
	test.each([
		'https://api.domain-data.example',
		'https://api.domain-data.example/',
		'https://api.domain-data.example//',
		'https://api.domain-data.example/json/api/v1',
		'https://api.domain-data.example/json/api/v1/',
		'https://api.domain-data.example/JSON/API/V1',
		'  https://api.domain-data.example/  ',
		'http://127.0.0.1:8787',
		'https://proxy.example/domain-data/',
		'https://proxy.example/domain-data/json/api/v1',
	])('%j resolves as the transport resolves it', (baseUrl) => {
		const resolved = resolveBaseUrl(baseUrl);
		if (!resolved.ok) throw new Error(resolved.problem);
		expect(resolveExpression(baseUrl)).toBe(resolved.root);
	});

	// What the node refuses, the Test refuses with the node's words (n8n appends its own few words).
	test.each([
		'',
		'   ',
		'api.domain-data.example',
		'http:/api.domain-data.example',
		'ftp://api.domain-data.example',
		'http://user:pass@api.domain-data.example',
		'http://user@api.domain-data.example',
		'https://api.domain-data.example/?token=abc',
		'https://api.domain-data.example/#x',
		'http://exa mple.com',
	])('%j is refused as the transport refuses it', (baseUrl) => {
		const resolved = resolveBaseUrl(baseUrl);
		if (resolved.ok) throw new Error(`the transport accepts ${baseUrl}`);
		expect(() => resolveExpression(baseUrl)).toThrow(resolved.problem);
	});
});

/**
 * Each rule of the Base URL as docs/operations.md ("Base URL", in "Retries and the Base URL") and the credential's
 * description state it, with addresses that show it: the Test's expression and the transport's resolveBaseUrl agree
 * on every one (the same API root, or a refusal in the same words). `words`: how the docs name the rule.
 */
const DOCUMENTED_RULES: Array<{ words: string; accepted?: string[]; refused?: string[] }> = [
	{
		words: 'Enter the address of the service (`https://api.domain-data.example`)',
		accepted: ['https://api.domain-data.example', 'https://API.Domain-Data.example:443', 'http://127.0.0.1:8787'],
	},
	{
		words: 'a trailing slash',
		accepted: ['https://api.domain-data.example/', 'https://proxy.example/domain-data/'],
	},
	{
		words: '`/json/api/v1` is accepted',
		accepted: [
			'https://api.domain-data.example/json/api/v1',
			'https://api.domain-data.example/json/api/v1/',
			'http://proxy.example/domain-data/json/api/v1',
		],
	},
	{
		words: 'Only `http://` and `https://` addresses are accepted',
		accepted: ['http://api.domain-data.example', 'HTTPS://api.domain-data.example'],
		refused: ['ftp://api.domain-data.example', 'ws://api.domain-data.example', 'api.domain-data.example', '//api.x'],
	},
	{ words: 'without a user name', refused: ['https://user@api.domain-data.example'] },
	{
		words: 'password',
		refused: ['https://user:pass@api.domain-data.example', 'https://:pass@api.domain-data.example'],
	},
	{ words: 'query', refused: ['https://api.domain-data.example/?token=abc', 'https://api.domain-data.example?x=1'] },
	{ words: 'fragment', refused: ['https://api.domain-data.example/#x', 'https://api.domain-data.example#top'] },
];

describe('the Base URL rules the docs state: the Test and the transport agree on each', () => {
	test("docs/operations.md and the credential's description state these rules", () => {
		const docs = readFileSync(join(__dirname, '../../../docs/operations.md'), 'utf8');
		const paragraph = docs.slice(docs.indexOf('**Base URL.**')).split('\n\n')[0].replace(/\s+/g, ' ');
		for (const { words } of DOCUMENTED_RULES) expect(paragraph).toContain(words);
		const description = credentialType.properties.find((property) => property.name === 'baseUrl')?.description;
		expect(description).toContain('https://api.domain-data.example. A trailing slash or a trailing /json/api/v1');
	});

	const cases = DOCUMENTED_RULES.flatMap(({ words, accepted = [], refused = [] }) => [
		...accepted.map((baseUrl) => ({ words, baseUrl, ok: true })),
		...refused.map((baseUrl) => ({ words, baseUrl, ok: false })),
	]);
	test.each(cases)('$words: $baseUrl', ({ baseUrl, ok }) => {
		const resolved = resolveBaseUrl(baseUrl);
		expect(resolved.ok).toBe(ok);
		if (resolved.ok) expect(resolveExpression(baseUrl)).toBe(resolved.root);
		else expect(() => resolveExpression(baseUrl)).toThrow(resolved.problem);
	});
});

interface TestResult {
	status: 'OK' | 'Error';
	message: string;
}

/** n8n's CredentialsTester.testCredentials for a credential with a `test` request, step by step. */
async function testCredential(data: ICredentialDataDecryptedObject): Promise<TestResult> {
	// The harness's additionalData carries its credentials helper (n8n's generic authentication).
	const { context: harnessContext } = await createExecuteContext({
		parameters: { resource: 'domain', operation: 'get', domain: 'example.com' },
		credentials: data as { apiKey: string; baseUrl: string },
	});
	const { additionalData } = harnessContext as unknown as { additionalData: IWorkflowExecuteAdditionalData };
	const testRequest = credentialType.test;
	const nodeType: INodeType = {
		description: {
			displayName: 'Temp',
			name: 'temp',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: {},
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: 'domainDataApi', required: true }],
			properties: [
				{ displayName: 'Temp', name: 'temp', type: 'string', routing: { request: testRequest.request }, default: '' },
			],
		},
	};
	// As the tester builds it: a temporary node of that type in a workflow of its own, run in "internal" mode.
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'temp',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { domainDataApi: { id: 'cred-1', name: 'Domain Data account' } },
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: {
			getByName: () => nodeType,
			getByNameAndVersion: () => nodeType,
			getKnownTypes: () => ({}),
		},
	});
	const input = { main: [[{ json: {} }]] };
	const context = new core.ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		{ resultData: { runData: {} } } as IRunExecutionData,
		0,
		[],
		input,
		{ node, data: {}, source: null },
		[],
	);
	const routingNode = new core.RoutingNode(context, nodeType, {
		id: 'cred-1',
		name: 'Domain Data account',
		type: 'domainDataApi',
		data,
	});
	try {
		await routingNode.runNode();
	} catch (error) {
		const cause = (error as { cause?: { response?: { status: number; statusText?: string }; code?: string } }).cause;
		if (cause?.response) {
			const { status, statusText } = cause.response;
			for (const rule of testRequest.rules ?? []) {
				if (rule.type === 'responseCode' && rule.properties.value === status) {
					return { status: 'Error', message: rule.properties.message };
				}
			}
			if (status < 199 || status > 299) {
				return { status: 'Error', message: statusText || `Received HTTP status code: ${status}` };
			}
		} else if (cause?.code) {
			return { status: 'Error', message: cause.code };
		}
		return { status: 'Error', message: (error as Error).message };
	}
	return { status: 'OK', message: 'Connection successful!' };
}

describe('Test (the credential test request)', () => {
	test('a good key at any accepted form of the address: OK, with one cheap one-result search', async () => {
		for (const baseUrl of [sim.url, `${sim.url}/`, ` ${sim.url}/json/api/v1/ `]) {
			sim.clearLog();
			expect(await testCredential({ apiKey: KEYS.basic, baseUrl })).toEqual({
				status: 'OK',
				message: 'Connection successful!',
			});
			const calls = sim.calls();
			expect(calls).toHaveLength(1);
			expect(calls[0]).toMatchObject({
				method: 'POST',
				path: '/json/api/v1/domain/search',
				body: { pageSize: 1 },
				status: 200,
			});
			expect(calls[0].headers.authorization).toBe(`Bearer ${KEYS.basic}`);
		}
	});

	/**
	 * n8n applies the credential's `rules` only when the error it caught still holds the HTTP response as
	 * its cause; n8n 2.8 drops that cause (ExecutionBaseError redeclares the field), so its editor shows
	 * its own text for the status instead. Either way a wrong key, a key without credits, a wrong address
	 * and a rate limit read differently.
	 */
	const expectEither = (result: TestResult, status: number, n8nText: string) => {
		const rule = credentialType.test.rules?.find((r) => r.type === 'responseCode' && r.properties.value === status);
		// Without a rule, an undefined message would match the missing rule's message.
		if (!rule) throw new Error(`the credential has no test rule for HTTP ${status}`);
		expect(result.status).toBe('Error');
		expect([rule.properties.message, n8nText]).toContain(result.message);
	};

	test('a wrong key: the editor says the key was rejected', async () => {
		const result = await testCredential({ apiKey: 'not-a-key', baseUrl: sim.url });
		expectEither(result, 401, 'Authorization failed - please check your credentials');
	});

	test('a key without credits: told apart from a wrong key', async () => {
		const result = await testCredential({ apiKey: KEYS.exhausted, baseUrl: sim.url });
		expectEither(result, 402, 'Payment required - perhaps check your payment details?');
	});

	test('a wrong path in the address: told apart from a wrong key', async () => {
		const result = await testCredential({ apiKey: KEYS.pro, baseUrl: `${sim.url}/wrong` });
		expectEither(result, 404, 'The resource you are requesting could not be found');
	});

	test('rate limited: says so', async () => {
		sim.setFaults({ requests: [{ status: 429 }] });
		const result = await testCredential({ apiKey: KEYS.pro, baseUrl: sim.url });
		expectEither(result, 429, 'The service is receiving too many requests from you');
	});

	test('nothing listening at the address: the connection error', async () => {
		const closed = createServer();
		await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
		const port = (closed.address() as AddressInfo).port;
		await new Promise((resolve) => closed.close(resolve));
		const result = await testCredential({ apiKey: KEYS.pro, baseUrl: `http://127.0.0.1:${port}` });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/ECONNREFUSED|refused/);
	});
});

describe("Test: the key never leaves the Base URL's origin", () => {
	test.each([301, 302, 303, 307, 308])(
		'a Base URL that answers %i to another origin: the Test fails, the other origin receives nothing',
		async (status) => {
			const other = await startLocalServer((_req, res) => res.end('{"domains":[]}'));
			const redirecting = await startLocalServer((_req, res) => {
				res.writeHead(status, { location: `${other.url}/json/api/v1/domain/search` }).end();
			});
			try {
				const result = await testCredential({ apiKey: KEYS.pro, baseUrl: redirecting.url });
				expect(result.status).toBe('Error');
				expect(result.message).not.toContain(KEYS.pro);
				expect(redirecting.received).toHaveLength(1);
				expect(other.received.map((request) => request.headers.authorization)).toEqual([]);
			} finally {
				await other.close();
				await redirecting.close();
			}
		},
	);

	test.each([
		['http://user:pass@127.0.0.1', 'must not contain a user name or password'],
		['http://127.0.0.1/?token=abc', 'must not contain a query'],
		['http:/127.0.0.1', 'must start with https:// or http://'],
	])("%j: refused before any request, with the node's words", async (baseUrl, words) => {
		const server = await startLocalServer((_req, res) => res.end('{"domains":[]}'));
		try {
			const result = await testCredential({
				apiKey: KEYS.pro,
				baseUrl: baseUrl.replace('127.0.0.1', `127.0.0.1:${server.port}`),
			});
			expect(result.status).toBe('Error');
			expect(result.message).toContain(words);
			expect(server.received).toHaveLength(0);
		} finally {
			await server.close();
		}
	});
});
