/**
 * The example workflows of `examples/` (what a user imports from a file in the editor), loaded for the
 * demo and the tests. They name the credential `EXAMPLE_CREDENTIAL` and write files into
 * `/home/node/.n8n-files`, the folder n8n 2 allows file access to by default (in n8n's Docker image);
 * `loadExamples({ filesDir })` points them at another folder.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { WorkflowImport } from './instance';
import { REPO_ROOT } from './paths';

export const EXAMPLES_DIR = join(REPO_ROOT, 'examples');

/** The credential every example refers to; the demo imports one with this id. */
export const EXAMPLE_CREDENTIAL = { id: 'domainDataDemo01', name: 'Domain Data account' } as const;

/** The chat model credential of the AI-agent example: in the demo, the offline stand-in model (scripts/model). */
export const EXAMPLE_MODEL_CREDENTIAL = { id: 'standInModel0001', name: 'Stand-in model (offline demo)' } as const;

/** The bearer token MCP clients send to the MCP example's trigger. */
export const EXAMPLE_MCP_CREDENTIAL = { id: 'mcpClientToken01', name: 'MCP clients (bearer token)' } as const;

/** The PostgreSQL credential the database examples name (the demo does not create one: users pick theirs). */
export const EXAMPLE_POSTGRES_CREDENTIAL = { id: 'postgresDemo0001', name: 'Postgres account' } as const;

/** Where the examples' Write File nodes write. */
export const EXAMPLE_FILES_DIR = '/home/node/.n8n-files';

export interface Example {
	file: string;
	workflow: WorkflowImport;
}

export function loadExamples(options: { filesDir?: string } = {}): Example[] {
	return readdirSync(EXAMPLES_DIR)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => {
			let text = readFileSync(join(EXAMPLES_DIR, file), 'utf8');
			if (options.filesDir) {
				const escaped = JSON.stringify(options.filesDir.replace(/\/+$/, '')).slice(1, -1);
				text = text.split(EXAMPLE_FILES_DIR).join(escaped);
			}
			return { file, workflow: JSON.parse(text) as WorkflowImport };
		});
}
