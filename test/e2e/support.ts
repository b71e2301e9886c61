/**
 * What the end-to-end suites share: the packed package from the global set-up, the credentials every
 * instance gets, and a fresh n8n instance with the package installed.
 */
import { N8nInstance, type CredentialImport } from '../../scripts/n8n/instance';
import { buildAndPack, CREDENTIAL_TYPE, type PackedPackage } from '../../scripts/n8n/package';
import { DEFAULT_N8N_VERSION } from '../../scripts/n8n/paths';
import { workflowId, type CredentialRef } from '../../scripts/n8n/workflows';
import { KEYS, type Simulator } from '../simulator';

let packing: Promise<PackedPackage> | undefined;

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
		version?: string;
		env?: Record<string, string>;
		/** More credentials to import with the standard ones; false: import none yet (see credentialImports). */
		credentials?: CredentialImport[] | false;
	} = {},
): Promise<N8nInstance> {
	const n8n = await N8nInstance.create({
		version: options.version ?? DEFAULT_N8N_VERSION,
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
export function ownKeyCredential(sim: Simulator, stem: string): { ref: CredentialRef; key: string; credential: CredentialImport } {
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
