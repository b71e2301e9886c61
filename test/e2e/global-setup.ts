/**
 * Runs once before the end-to-end tests (jest project "e2e"): makes sure both n8n versions are in the cache
 * (on a fresh machine the two 2.3 GB installs run side by side, about 8 minutes) and builds and packs the
 * package once. The tests read the packed package from N8N_E2E_PACKAGE (workers inherit the environment).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ensureN8n } from '../../scripts/n8n/install';
import { buildAndPack } from '../../scripts/n8n/package';
import { DEFAULT_N8N_VERSION, N8N_1X_VERSION } from '../../scripts/n8n/paths';

export default async function globalSetup(): Promise<void> {
	const started = Date.now();
	const log = (line: string) => process.stderr.write(`[e2e set-up] ${line}\n`);
	const outDir = mkdtempSync(join(tmpdir(), 'dd-e2e-pack-'));
	const [packed] = await Promise.all([
		buildAndPack({ outDir, log }),
		ensureN8n(DEFAULT_N8N_VERSION, { log }),
		ensureN8n(N8N_1X_VERSION, { log }),
	]);
	process.env.N8N_E2E_PACKAGE = JSON.stringify(packed);
	process.env.N8N_E2E_PACK_DIR = outDir;
	log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s (package ${packed.version}, ${packed.files.length} files)`);
}
