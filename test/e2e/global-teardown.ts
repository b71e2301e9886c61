import { rmSync } from 'node:fs';

export default async function globalTeardown(): Promise<void> {
	const dir = process.env.N8N_E2E_PACK_DIR;
	if (dir && dir.includes('dd-e2e-pack-')) rmSync(dir, { recursive: true, force: true });
}
