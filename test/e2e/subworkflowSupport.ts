/**
 * What the Sub-Workflow end-to-end files share: sub-workflows imported and published, and a queue-mode n8n (main +
 * one worker on a PostgreSQL database and a Redis prefix of its own) with its callers active.
 */
import { queueModeEnv } from '../../scripts/n8n/env';
import type { CredentialImport, N8nInstance, N8nProcess, WorkflowImport } from '../../scripts/n8n/instance';
import { N8nRestClient } from '../../scripts/n8n/rest';
import { createDatabase, deleteRedisKeys, isRedisReachable } from '../../scripts/n8n/services';
import type { Simulator } from '../simulator';
import { CLI_PUBLISHED_SUB_WORKFLOWS_ENV, createInstance } from './support';

/** A caller and the sub-workflow it calls (none for a caller whose output is not Sub-Workflow). */
export interface WorkflowPair {
	sub?: WorkflowImport;
	caller: WorkflowImport;
}

/** A credential for n8n's Postgres node writing into `database` on 127.0.0.1 (user postgres, no password). */
export function postgresCredential(id: string, name: string, database: string): CredentialImport {
	const data = { host: '127.0.0.1', port: 5432, database, user: 'postgres', password: '', ssl: 'disable' };
	return { id, name, type: 'postgres', data };
}

function workflowsOf(pairs: WorkflowPair[]): WorkflowImport[] {
	return pairs.flatMap(({ sub, caller }) => (sub ? [sub, caller] : [caller]));
}

export async function importAndPublish(n8n: N8nInstance, workflows: WorkflowPair[]): Promise<void> {
	await n8n.importWorkflows(workflowsOf(workflows));
	// n8n 2.x runs a called workflow only in its published version.
	for (const { sub } of workflows) if (sub) await n8n.mustRun(['publish:workflow', `--id=${sub.id}`]);
}

export interface QueueMode {
	n8n: N8nInstance;
	main: N8nProcess;
	worker: N8nProcess;
	rest: N8nRestClient;
}

/** Where a queue-mode n8n keeps its data: a database (created here; the caller drops it) and a Redis prefix. */
export interface QueueTarget {
	database: string;
	redisDb: number;
	redisPrefix: string;
}

/** A database and a Redis prefix of this run's own, named after `stem` (e.g. `spool`). */
export function queueTarget(stem: string, suffix: string): QueueTarget {
	const redisDb = Number(process.env.N8N_E2E_REDIS_DB ?? 7);
	return { database: `dd_e2e_${stem}q_${suffix}`, redisDb, redisPrefix: `dd-e2e-${stem}-${suffix.replace(/_/g, '-')}` };
}

/** n8n in queue mode with `credentials` and `workflows` imported, sub-workflows published and callers active. */
export async function startQueueMode(
	sim: Simulator,
	target: QueueTarget,
	credentials: CredentialImport[],
	workflows: WorkflowPair[],
	env: Record<string, string> = {},
): Promise<QueueMode> {
	if (!(await isRedisReachable({ db: target.redisDb }))) throw new Error('Queue mode needs Redis on 127.0.0.1:6379');
	await createDatabase(target.database);
	const n8n = await createInstance(sim, {
		credentials: false,
		env: {
			...queueModeEnv({
				postgres: { database: target.database },
				redis: { db: target.redisDb, prefix: target.redisPrefix },
			}),
			...CLI_PUBLISHED_SUB_WORKFLOWS_ENV,
			...env,
		},
	});
	await n8n.importCredentials(credentials);
	await n8n.importWorkflows(workflowsOf(workflows));
	const main = await n8n.start();
	const worker = await n8n.startWorker();
	const rest = new N8nRestClient(n8n.url);
	await rest.ensureOwner();
	await rest.createApiKey();
	// Activating through the public API publishes a workflow in n8n 2.x: the sub-workflows without a
	// `publish:workflow` process of their own.
	for (const { sub, caller } of workflows) {
		if (sub) await rest.activateWorkflow(sub.id);
		await rest.activateWorkflow(caller.id);
	}
	return { n8n, main, worker, rest };
}

export async function stopQueueMode(queue: QueueMode | undefined, target: QueueTarget): Promise<void> {
	await queue?.n8n.dispose();
	await deleteRedisKeys(target.redisPrefix, { db: target.redisDb }).catch(() => undefined);
}
