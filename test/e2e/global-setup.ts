/**
 * Runs once before the end-to-end tests (every jest project `e2e-<version>` names it; jest runs it once):
 * makes sure the n8n versions of this run are in the cache (on a fresh machine the 2.3 GB installs run
 * side by side, each with the Node it needs, about 10 minutes), builds and packs the package once, and
 * starts PostgreSQL and Redis where they are installed but stopped (scripts/n8n/services.ts: a test that needs
 * one that is missing fails at once, naming what to install). The tests read the packed package from
 * N8N_E2E_PACKAGE (workers inherit the environment).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ensureN8nVersions } from '../../scripts/n8n/install';
import { buildAndPack } from '../../scripts/n8n/package';
import { startServices } from '../../scripts/n8n/services';
import { selectedMatrix } from '../../scripts/n8n/versions';

/** The part of jest's global configuration the set-up reads. */
interface JestGlobalConfig {
	selectProjects?: string[];
}

/** The versions of this run: the matrix (or N8N_E2E_VERSIONS), narrowed by `--selectProjects e2e-<version>`. */
function versionsOfThisRun(globalConfig: JestGlobalConfig): string[] {
	const versions = selectedMatrix().map((entry) => entry.version);
	const projects = globalConfig.selectProjects;
	if (!projects?.length) return versions;
	return versions.filter((version) => projects.includes(`e2e-${version}`));
}

export default async function globalSetup(globalConfig: JestGlobalConfig): Promise<void> {
	const started = Date.now();
	const log = (line: string) => process.stderr.write(`[e2e set-up] ${line}\n`);
	const versions = versionsOfThisRun(globalConfig);
	const outDir = mkdtempSync(join(tmpdir(), 'dd-e2e-pack-'));
	const [packed] = await Promise.all([
		buildAndPack({ outDir, log }),
		ensureN8nVersions(versions, { log }),
		startServices(log),
	]);
	process.env.N8N_E2E_PACKAGE = JSON.stringify(packed);
	process.env.N8N_E2E_PACK_DIR = outDir;
	log(
		`ready in ${((Date.now() - started) / 1000).toFixed(1)} s (n8n ${versions.join(', ')}; package ${packed.version}, ${packed.files.length} files)`,
	);
}
