/** Starts bench/children/run-operation.ts in a fresh process on the client's cores and reads its RESULT line. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { ChildRequest, ChildResult } from '../children/run-operation';
import { clientCommand } from './simulator-process';

const CHILD = join(__dirname, '..', 'children', 'run-operation.ts');

export async function runOperationInChild(
	request: ChildRequest,
	options: { nodeFlags?: string[] } = {},
): Promise<ChildResult> {
	const userFolder = mkdtempSync(join(tmpdir(), 'dd-bench-child-'));
	const requestFile = join(userFolder, 'request.json');
	writeFileSync(requestFile, JSON.stringify(request));
	try {
		const [command, args] = clientCommand([
			process.execPath,
			...(options.nodeFlags ?? []),
			'-r',
			'ts-node/register/transpile-only',
			CHILD,
			requestFile,
		]);
		const child = spawn(command, args, {
			stdio: ['ignore', 'pipe', 'pipe'],
			env: {
				...process.env,
				N8N_USER_FOLDER: userFolder,
				N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
				// DomainData.node.json (the codex file) sits next to DomainData.node.ts: make ts-node load the .ts.
				TS_NODE_PREFER_TS_EXTS: 'true',
			},
		});
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
		child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
		const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
		if (!line) throw new Error(`The child run exited with ${code} and no result.\n${stderr.slice(-2000)}`);
		return JSON.parse(line.slice('RESULT '.length)) as ChildResult;
	} finally {
		rmSync(userFolder, { recursive: true, force: true });
	}
}
