/**
 * What the end-to-end suites share: the n8n version of the running jest project, the packed package from
 * the global set-up, the credentials every instance gets, and a fresh n8n instance with the package installed.
 *
 * The version matrix: jest.config.js makes one project per n8n version of scripts/n8n/matrix.json
 * (`e2e-2.41.1`, `e2e-2.8.4`, `e2e-1.123.81`), so every file of test/e2e runs once per "full" version
 * without a loop of its own. `createInstance()` starts that project's version; `e2eVersion()` names it (for
 * messages), and `n8nAtLeast('2.36.0')` tells a test whether a feature exists there.
 */
import { DomainDataApi } from '../../credentials/DomainDataApi.credentials';
import { N8nInstance, type CredentialImport, type N8nProcess } from '../../scripts/n8n/instance';
import { N8nRestClient } from '../../scripts/n8n/rest';
import { fromApiExecution } from '../../scripts/n8n/run-data';
import { buildAndPack, CREDENTIAL_TYPE, type PackedPackage } from '../../scripts/n8n/package';
import { NEWEST_N8N_VERSION, isAtLeast } from '../../scripts/n8n/versions';
import { workflowId, type CredentialRef } from '../../scripts/n8n/workflows';
import { KEYS, type Simulator } from '../simulator';

let packing: Promise<PackedPackage> | undefined;

/**
 * The n8n version this test file runs against: its jest project's (`globals.N8N_E2E_VERSION` in
 * jest.config.js), else `N8N_E2E_VERSION` from the environment, else the newest.
 */
export function e2eVersion(): string {
	const fromProject = (globalThis as { N8N_E2E_VERSION?: unknown }).N8N_E2E_VERSION;
	if (typeof fromProject === 'string' && fromProject) return fromProject;
	return process.env.N8N_E2E_VERSION || NEWEST_N8N_VERSION;
}

/**
 * n8n behaviour that differs between the versions of the matrix, with the first version of the matrix known to
 * have it (docs/compatibility.md lists them).
 */
export const N8N_CHANGES = {
	/**
	 * The credential "Test" result shows the message of the credential's `responseCode` rule for a refused
	 * request. n8n 2.8.4 shows its own fixed text per HTTP status (its error carries no response, so the rules
	 * are never consulted); 2.41.1 shows ours. Versions in between are not tested.
	 */
	credentialTestRuleMessages: '2.41.1',
	/** The credential dialog closes by itself when saving tested the credential successfully (2.8.4 keeps it open). */
	credentialDialogClosesOnSuccess: '2.41.1',
	/** N8N_POLLER_DURABLE_CURSORS_ENABLED: poll state in the `poller_state` table, committed with the execution. */
	durablePollCursors: '2.36.0',
} as const;

/** The message of the credential's `responseCode` test rule for an HTTP status (what n8n 2.41 shows). */
export function credentialRuleMessage(status: number): string {
	const rule = new DomainDataApi().test.rules?.find((r) => r.type === 'responseCode' && r.properties.value === status);
	if (!rule) throw new Error(`the credential has no test rule for HTTP ${status}`);
	return (rule.properties as { message: string }).message;
}

/** Whether this run's n8n is `minimum` or newer (features that came with a release). */
export function n8nAtLeast(minimum: string): boolean {
	return isAtLeast(e2eVersion(), minimum);
}

/** The package packed by the global set-up; packs it here when a suite runs without that set-up. */
export function packedPackage(): Promise<PackedPackage> {
	if (process.env.N8N_E2E_PACKAGE) return Promise.resolve(JSON.parse(process.env.N8N_E2E_PACKAGE) as PackedPackage);
	packing ??= buildAndPack();
	return packing;
}

/** Credentials by purpose; their ids are fixed so that workflows can name them. */
export const CREDENTIALS = {
	pro: { id: 'ddE2eCredPro0001', name: 'Domain Data (pro plan)' },
	basic: { id: 'ddE2eCredBasic01', name: 'Domain Data (basic plan)' },
	exhausted: { id: 'ddE2eCredNoCred1', name: 'Domain Data (no credits left)' },
	badKey: { id: 'ddE2eCredBadKey1', name: 'Domain Data (wrong key)' },
} as const satisfies Record<string, CredentialRef>;

export const BAD_KEY = 'not-a-valid-key-e2e';

export function credentialImports(sim: Simulator): CredentialImport[] {
	const keyOf: Record<keyof typeof CREDENTIALS, string> = {
		pro: KEYS.pro,
		basic: KEYS.basic,
		exhausted: KEYS.exhausted,
		badKey: BAD_KEY,
	};
	return (Object.keys(CREDENTIALS) as Array<keyof typeof CREDENTIALS>).map((purpose) => ({
		...CREDENTIALS[purpose],
		type: CREDENTIAL_TYPE,
		data: { apiKey: keyOf[purpose], baseUrl: sim.url },
	}));
}

/**
 * A new n8n (fresh user folder, the packed package installed, the credentials imported). Files that
 * workflows write go to `n8n.filesDir`, the only folder they may write to.
 */
export async function createInstance(
	sim: Simulator,
	options: {
		/** Default: this jest project's version (e2eVersion()). */
		version?: string;
		env?: Record<string, string>;
		/** More credentials to import with the standard ones; false: import none yet (see credentialImports). */
		credentials?: CredentialImport[] | false;
	} = {},
): Promise<N8nInstance> {
	const n8n = await N8nInstance.create({
		version: options.version ?? e2eVersion(),
		package: await packedPackage(),
		env: options.env,
	});
	if (options.credentials !== false) {
		await n8n.importCredentials([...credentialImports(sim), ...(options.credentials ?? [])]);
	}
	return n8n;
}

/**
 * A credential with a key of its own (pro plan), so that the simulator's log tells which workflow made a
 * call: `sim.calls().filter((entry) => entry.key === key)`.
 */
export function ownKeyCredential(
	sim: Simulator,
	stem: string,
): { ref: CredentialRef; key: string; credential: CredentialImport } {
	const key = `sim-e2e-${stem}`;
	sim.setKey(key, 'pro');
	const ref = { id: workflowId(`cred${stem}`), name: `Domain Data (${stem})` };
	return { ref, key, credential: { ...ref, type: CREDENTIAL_TYPE, data: { apiKey: key, baseUrl: sim.url } } };
}

/** Runs the tasks with at most `limit` under way (n8n processes are CPU-heavy; CI has two cores). */
export async function withLimit<T>(limit: number, tasks: Array<() => Promise<T>>): Promise<T[]> {
	const results: T[] = new Array(tasks.length);
	let next = 0;
	const workers = Array.from({ length: Math.min(limit, tasks.length) }, async () => {
		while (next < tasks.length) {
			const index = next++;
			results[index] = await tasks[index]();
		}
	});
	await Promise.all(workers);
	return results;
}

/** `n8n start`, then the owner's login and a public-API key: what a test that drives a running n8n needs. */
export async function startWithApi(n8n: N8nInstance): Promise<{ server: N8nProcess; rest: N8nRestClient }> {
	const server = await n8n.start();
	const rest = new N8nRestClient(n8n.url);
	await rest.ensureOwner();
	await rest.createApiKey();
	return { server, rest };
}

/** Waits (bounded) until `done()` holds, checking every 100 ms; tells whether it came to hold. */
export async function waitUntil(done: () => boolean, timeoutMs = 60_000): Promise<boolean> {
	const deadline = Date.now() + timeoutMs;
	while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
	return done();
}

/** Dataset-list calls made with `key`: a trigger's polls, when only its credential (ownKeyCredential) has that key. */
export function pollsOf(sim: Simulator, key: string): number {
	return sim.calls('datasets').filter((entry) => entry.key === key).length;
}

/** Waits (bounded) until the trigger with the credential key `key` has polled `count` times in all; expects exactly that. */
export async function waitForPolls(sim: Simulator, key: string, count: number, timeoutMs = 60_000): Promise<void> {
	await waitUntil(() => pollsOf(sim, key) >= count, timeoutMs);
	expect(pollsOf(sim, key)).toBe(count);
}

/** One item of the Domain Data Trigger's output. */
export interface TriggerItem {
	label: string;
	value: string;
	previousLabel: string;
}

/**
 * Expects the workflow's executions, oldest first, to be exactly `runs` (the trigger node's output of each),
 * every one finished with success; unfinished ones and extra ones fail it.
 */
export async function expectExecutions(
	rest: N8nRestClient,
	workflowId: string,
	runs: TriggerItem[][],
	triggerNode = 'Domain Data Trigger',
): Promise<void> {
	const listed = (await rest.executions(workflowId)).sort((a, b) => Number(a.id) - Number(b.id));
	const seen = listed.map((execution) => ({
		status: execution.status,
		items: execution.status === 'success' ? fromApiExecution(execution).json(triggerNode) : undefined,
	}));
	expect(seen).toEqual(runs.map((items) => ({ status: 'success', items })));
}

/**
 * Proves that a trigger started no execution beyond `runs`, without a fixed wait: a sentinel snapshot is
 * published, `poll()` makes the trigger poll once more (and waits until it has), and the executions must then
 * be exactly `runs` followed by the sentinel's one. An execution from an earlier poll is created before the
 * sentinel's poll starts (n8n creates it when the poll emits, and a poll under test has ended before the
 * test goes on), so by the time the sentinel's execution has finished, any extra one is listed too.
 * Appends the sentinel's run to `runs`.
 */
export async function expectNoOtherExecution(options: {
	sim: Simulator;
	rest: N8nRestClient;
	workflowId: string;
	runs: TriggerItem[][];
	poll: () => Promise<void>;
}): Promise<void> {
	const { sim, rest, workflowId, runs } = options;
	const previousLabel = sim.datasets()[0].label;
	const sentinel = sim.addSnapshot();
	await options.poll();
	await rest.waitForExecutions(workflowId, runs.length + 1);
	runs.push([{ label: sentinel.label, value: sentinel.value, previousLabel }]);
	await expectExecutions(rest, workflowId, runs);
}

/**
 * For instances that run sub-workflows published from the command line (`n8n publish:workflow`). n8n 2.41
 * looks a called workflow up through its "workflow publication service", whose table only the running editor
 * fills when a user clicks Publish; `publish:workflow` sets the workflow's active version, which n8n reads
 * when that service is off. Older versions do not know the variable.
 */
export const CLI_PUBLISHED_SUB_WORKFLOWS_ENV: Record<string, string> = {
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'false',
};

/**
 * Posts to a production webhook and returns the parsed answer. n8n 2.41 registers the webhooks of an activated
 * workflow a moment after the activation call returns: until then it answers 404 "is not registered" (and runs
 * nothing), so that answer is retried for a bounded time.
 */
export async function postWebhook(
	baseUrl: string,
	path: string,
	body: unknown = {},
	timeoutMs = 120_000,
): Promise<unknown> {
	const deadline = Date.now() + 30_000;
	for (;;) {
		const response = await fetch(`${baseUrl}/webhook/${path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(body),
			signal: AbortSignal.timeout(timeoutMs),
		});
		const text = await response.text();
		if (response.status === 404 && /is not registered/.test(text) && Date.now() < deadline) {
			await new Promise((resolve) => setTimeout(resolve, 250));
			continue;
		}
		if (response.status !== 200) throw new Error(`webhook ${path} answered ${response.status}: ${text.slice(0, 500)}`);
		return JSON.parse(text);
	}
}
