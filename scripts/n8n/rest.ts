/**
 * A client for a running n8n: the editor's REST API (`/rest/...`, with the login cookie) and the public API
 * (`/api/v1/...`, with an API key), doing what a user does in the editor.
 */
import { fromApiExecution, type ExecutionResult, type RunData } from './run-data';

export interface Owner {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

/** The demo's and the tests' login (n8n wants 8+ characters, a number and a capital letter). */
export const DEFAULT_OWNER: Owner = {
	email: 'demo@example.com',
	password: 'DomainData-demo-1',
	firstName: 'Demo',
	lastName: 'User',
};

export interface RestResponse<T = unknown> {
	status: number;
	body: T;
	headers: Headers;
}

export interface ApiExecution {
	id: string;
	workflowId: string;
	mode: string;
	status: string;
	finished: boolean;
	startedAt: string;
	stoppedAt: string | null;
	data?: RunData['data'];
	[key: string]: unknown;
}

export class N8nRestClient {
	cookie: string | undefined;
	apiKey: string | undefined;

	constructor(readonly baseUrl: string) {}

	async request<T = unknown>(
		method: string,
		path: string,
		body?: unknown,
		options: { timeoutMs?: number } = {},
	): Promise<RestResponse<T>> {
		const headers: Record<string, string> = { accept: 'application/json' };
		if (body !== undefined) headers['content-type'] = 'application/json';
		if (!path.startsWith('/api/') && this.cookie) headers.cookie = this.cookie;
		if (path.startsWith('/api/') && this.apiKey) headers['x-n8n-api-key'] = this.apiKey;
		// n8n's REST API refuses browser-less requests that look like cross-site ones without this.
		headers['browser-id'] = 'n8n-nodes-domain-data-tooling';
		const response = await fetch(this.baseUrl + path, {
			method,
			headers,
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
		});
		const text = await response.text();
		let parsed: unknown = text;
		try {
			parsed = text ? JSON.parse(text) : undefined;
		} catch {
			// not JSON (an HTML error page): keep the text
		}
		return { status: response.status, body: parsed as T, headers: response.headers };
	}

	/** A request that must answer 2xx; returns the body's `data` for /rest/ and the whole body for /api/. */
	async call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
		const response = await this.request<{ data?: T } & Record<string, unknown>>(method, path, body);
		if (response.status < 200 || response.status >= 300) {
			throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(response.body).slice(0, 500)}`);
		}
		return (path.startsWith('/rest/') ? response.body?.data : response.body) as T;
	}

	/**
	 * Waits until the REST API answers: `GET /rest/settings` with a JSON body. While n8n starts, the same
	 * address first answers 200 with an HTML "n8n is starting up" page, then 404 until the routes are
	 * mounted; `/healthz/readiness` is ready before the REST routes are.
	 */
	async waitUntilReady(options: { timeoutMs?: number; failIf?: () => string | undefined } = {}): Promise<void> {
		const deadline = Date.now() + (options.timeoutMs ?? 120_000);
		let last = '';
		while (Date.now() < deadline) {
			const failure = options.failIf?.();
			if (failure) throw new Error(failure);
			try {
				const response = await this.request<{ data?: unknown }>('GET', '/rest/settings', undefined, {
					timeoutMs: 5000,
				});
				if (response.status === 200 && typeof response.body === 'object' && response.body?.data) return;
				last = `status ${response.status} (${response.headers.get('content-type')})`;
			} catch (error) {
				last = (error as Error).message;
			}
			await new Promise((r) => setTimeout(r, 250));
		}
		throw new Error(`n8n at ${this.baseUrl} was not ready within ${options.timeoutMs ?? 120_000} ms (${last})`);
	}

	/** Creates the owner account on a new instance (a no-op when one exists), then logs in. */
	async ensureOwner(owner: Owner = DEFAULT_OWNER): Promise<void> {
		const settings = await this.call<{ userManagement?: { showSetupOnFirstLoad?: boolean } }>('GET', '/rest/settings');
		if (settings.userManagement?.showSetupOnFirstLoad) {
			await this.call('POST', '/rest/owner/setup', owner);
		}
		await this.login(owner.email, owner.password);
	}

	/** Logs in and keeps the `n8n-auth` cookie for /rest/ calls. */
	async login(email: string, password: string): Promise<void> {
		const response = await this.request('POST', '/rest/login', { emailOrLdapLoginId: email, email, password });
		if (response.status !== 200) {
			throw new Error(`login as ${email} answered ${response.status}: ${JSON.stringify(response.body)}`);
		}
		const cookies = response.headers.getSetCookie().map((cookie) => cookie.split(';')[0]);
		this.cookie = cookies.join('; ');
	}

	/** Creates a public-API key with every scope the owner may grant and keeps it for /api/ calls. */
	async createApiKey(label = `tooling-${Date.now()}`): Promise<string> {
		let scopes: string[] = [];
		try {
			scopes = await this.call<string[]>('GET', '/rest/api-keys/scopes');
		} catch {
			// n8n 1.x before scoped keys: no scopes endpoint
		}
		const created = await this.call<{ rawApiKey?: string; apiKey?: string }>('POST', '/rest/api-keys', {
			label,
			scopes,
			expiresAt: null,
		});
		const key = created.rawApiKey ?? created.apiKey;
		if (!key) throw new Error(`POST /rest/api-keys returned no key: ${JSON.stringify(created)}`);
		this.apiKey = key;
		return key;
	}

	/**
	 * What the editor's "Test" button of a credential does (`POST /rest/credentials/test`): the stored
	 * credential `id`, with the form's current `data` (which wins over what is stored).
	 */
	async testCredential(credential: {
		id: string;
		name: string;
		type: string;
		data: Record<string, unknown>;
	}): Promise<{ status: 'OK' | 'Error'; message: string }> {
		return await this.call('POST', '/rest/credentials/test', { credentials: credential });
	}

	/** The editor's dropdown of a `loadOptionsMethod` (`POST /rest/dynamic-node-parameters/options`). */
	async loadOptions(request: {
		nodeType: string;
		version?: number;
		methodName: string;
		/** The parameter path, e.g. `parameters.label`. */
		path: string;
		currentNodeParameters: Record<string, unknown>;
		credentials?: Record<string, { id: string; name: string }>;
	}): Promise<Array<{ name: string; value: string | number; description?: string }>> {
		return await this.call('POST', '/rest/dynamic-node-parameters/options', {
			nodeTypeAndVersion: { name: request.nodeType, version: request.version ?? 1 },
			methodName: request.methodName,
			path: request.path,
			currentNodeParameters: request.currentNodeParameters,
			credentials: request.credentials,
		});
	}

	/** Node types n8n has loaded (the editor's node list). */
	async nodeTypeNames(): Promise<string[]> {
		const response = await this.request<Array<{ name: string }>>('GET', '/types/nodes.json');
		if (response.status !== 200) throw new Error(`GET /types/nodes.json answered ${response.status}`);
		return response.body.map((type) => type.name);
	}

	/**
	 * Saves a new workflow through the editor's REST API, as the editor does (`n8n import:workflow` would start a
	 * process of its own); n8n 1.x drops a given id, so the answer's id is the one n8n keeps.
	 */
	async createWorkflow(workflow: {
		name: string;
		nodes: unknown[];
		connections: Record<string, unknown>;
	}): Promise<string> {
		return (await this.call<{ id: string }>('POST', '/rest/workflows', workflow)).id;
	}

	/** Creates a credential through the editor's REST API (n8n encrypts it); returns the id n8n gave it. */
	async createCredential(credential: { name: string; type: string; data: Record<string, unknown> }): Promise<string> {
		const { name, type, data } = credential;
		return (await this.call<{ id: string }>('POST', '/rest/credentials', { name, type, data })).id;
	}

	async activateWorkflow(id: string): Promise<void> {
		await this.call('POST', `/api/v1/workflows/${id}/activate`);
	}

	async deactivateWorkflow(id: string): Promise<void> {
		await this.call('POST', `/api/v1/workflows/${id}/deactivate`);
	}

	/**
	 * Saves a workflow's nodes and connections through the public API (`PUT /api/v1/workflows/:id`), as a user's
	 * script or an editor save does; without `staticData` in the body n8n keeps what the workflow has stored.
	 */
	async updateWorkflow(
		id: string,
		update: { name: string; nodes: unknown[]; connections: Record<string, unknown> },
	): Promise<void> {
		await this.call('PUT', `/api/v1/workflows/${id}`, { ...update, settings: { executionOrder: 'v1' } });
	}

	/** Executions of a workflow, newest first, with their run data. */
	async executions(workflowId: string, options: { includeData?: boolean } = {}): Promise<ApiExecution[]> {
		const all: ApiExecution[] = [];
		let cursor: string | undefined;
		for (let page = 0; page < 50; page++) {
			const query = new URLSearchParams({ workflowId, includeData: String(options.includeData ?? true), limit: '100' });
			if (cursor) query.set('cursor', cursor);
			const body = await this.call<{ data: ApiExecution[]; nextCursor?: string | null }>(
				'GET',
				`/api/v1/executions?${query}`,
			);
			all.push(...body.data);
			cursor = body.nextCursor ?? undefined;
			if (!cursor) break;
		}
		return all;
	}

	/**
	 * Waits until a workflow has at least `count` finished executions (bounded); returns them oldest first
	 * as ExecutionResults.
	 */
	async waitForExecutions(
		workflowId: string,
		count: number,
		options: { timeoutMs?: number } = {},
	): Promise<Array<{ execution: ApiExecution; result: ExecutionResult }>> {
		const deadline = Date.now() + (options.timeoutMs ?? 60_000);
		let seen: ApiExecution[] = [];
		while (Date.now() < deadline) {
			seen = (await this.executions(workflowId)).filter((execution) => execution.stoppedAt);
			if (seen.length >= count) break;
			await new Promise((r) => setTimeout(r, 300));
		}
		if (seen.length < count) {
			throw new Error(`workflow ${workflowId}: ${seen.length} finished executions after waiting, expected ${count}`);
		}
		return seen
			.sort((a, b) => Number(a.id) - Number(b.id))
			.map((execution) => ({ execution, result: fromApiExecution(execution) }));
	}
}
