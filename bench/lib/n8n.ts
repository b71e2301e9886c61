/**
 * Real n8n for the bench, through the project's tooling in scripts/n8n: n8n 2.8.4 from the cache, our
 * package built and packed as users get it, credentials and workflows imported, each workflow run with
 * `n8n execute`. Times come from n8n's own run data (the node's executionTime), not from the process's
 * wall time, which is mostly n8n's cold start.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ensureN8n } from '../../scripts/n8n/install';
import { N8nInstance, type CredentialImport, type WorkflowImport } from '../../scripts/n8n/instance';
import { buildAndPack, type PackedPackage } from '../../scripts/n8n/package';
import { DEFAULT_N8N_VERSION, n8nInstallDir } from '../../scripts/n8n/paths';
import type { ExecutionResult } from '../../scripts/n8n/run-data';
import type { BenchContext } from './report';

export const DOMAIN_DATA_CREDENTIAL = { id: 'benchDomainData1', name: 'Domain Data (bench)' };
export const HEADER_AUTH_CREDENTIAL = { id: 'benchHeaderAuth1', name: 'Bearer header (bench)' };

export interface TimedExecution {
	result: ExecutionResult;
	/** executionTime n8n recorded for the node, in ms. */
	nodeMs: number;
	/** From the first node's start to the last node's end, in ms. */
	workflowMs: number;
	/** `n8n execute` process wall time, cold start included. */
	processMs: number;
}

let packed: Promise<PackedPackage> | undefined;

/** Packs the package once per bench run, built first unless dist/ is newer than the sources. */
function packOnce(context: BenchContext): Promise<PackedPackage> {
	packed ??= buildAndPack({
		outDir: mkdtempSync(join(tmpdir(), 'dd-bench-pack-')),
		skipBuild: 'if-current',
		log: context.log,
	});
	return packed;
}

/**
 * Whether the real-n8n parts run: the full bench installs n8n when it is missing (minutes, once); the tiny
 * run uses n8n only with --n8n and when it is already installed.
 */
export async function n8nAvailable(context: BenchContext): Promise<string | undefined> {
	if (!context.n8n) return 'the tiny run skips real n8n unless given --n8n';
	if (context.tiny && !existsSync(n8nInstallDir(DEFAULT_N8N_VERSION))) {
		return `n8n ${DEFAULT_N8N_VERSION} is not installed (the tiny run does not install it)`;
	}
	try {
		await ensureN8n(DEFAULT_N8N_VERSION, { log: context.log });
		return undefined;
	} catch (error) {
		return `n8n ${DEFAULT_N8N_VERSION} could not be installed: ${error instanceof Error ? error.message : String(error)}`;
	}
}

export class BenchN8n {
	private constructor(readonly instance: N8nInstance) {}

	static async create(
		context: BenchContext,
		simulatorUrl: string,
		apiKey: string,
		options: { env?: Record<string, string> } = {},
	): Promise<BenchN8n> {
		const instance = await N8nInstance.create({ package: await packOnce(context), env: options.env });
		const credentials: CredentialImport[] = [
			{ ...DOMAIN_DATA_CREDENTIAL, type: 'domainDataApi', data: { apiKey, baseUrl: simulatorUrl } },
			// What a user without our package sets up for the HTTP Request node.
			{ ...HEADER_AUTH_CREDENTIAL, type: 'httpHeaderAuth', data: { name: 'Authorization', value: `Bearer ${apiKey}` } },
		];
		await instance.importCredentials(credentials);
		return new BenchN8n(instance);
	}

	async importWorkflows(workflows: WorkflowImport[]): Promise<void> {
		await this.instance.importWorkflows(workflows);
	}

	/** Runs an imported workflow and reads the time n8n recorded for `nodeName`. */
	async execute(workflowId: string, nodeName: string): Promise<TimedExecution> {
		const result = await this.instance.execute(workflowId, { timeoutMs: 900_000 });
		if (!result.ok) throw new Error(`workflow ${workflowId} failed: ${result.describe()}`);
		const runData = result.run!.data!.resultData.runData as Record<
			string,
			Array<{ startTime?: number; executionTime?: number }>
		>;
		const node = runData[nodeName]?.[0];
		if (!node || typeof node.executionTime !== 'number')
			throw new Error(`workflow ${workflowId}: no run of "${nodeName}"`);
		const tasks = Object.values(runData).flat();
		const start = Math.min(...tasks.map((task) => task.startTime ?? Infinity));
		const end = Math.max(...tasks.map((task) => (task.startTime ?? 0) + (task.executionTime ?? 0)));
		return { result, nodeMs: node.executionTime, workflowMs: end - start, processMs: result.durationMs };
	}

	async dispose(): Promise<void> {
		await this.instance.dispose();
	}
}

/** The packed tarball's folder is temporary: remove it when the bench ends. */
export async function disposePackage(): Promise<void> {
	if (!packed) return;
	try {
		const { tarball } = await packed;
		rmSync(join(tarball, '..'), { recursive: true, force: true });
	} catch {
		// the build failed: nothing to remove
	}
	packed = undefined;
}
