/**
 * Small builders for workflow JSON in the editor's export format, so tests and benchmarks write
 * `chain(manualTrigger(), setJson('Leads', {...}), splitOut('Split', 'leads'), domainData('Enrich', {...}))`
 * instead of hand-placed nodes. Node versions are ones that exist in n8n 1.123 and 2.8.
 */
import type { WorkflowImport } from './instance';
import { CREDENTIAL_TYPE, NODE_TYPES } from './package';

export interface WorkflowNode {
	id: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	[key: string]: unknown;
}

export interface CredentialRef {
	id: string;
	name: string;
}

let nodeCounter = 0;
function nodeId(): string {
	nodeCounter += 1;
	return `00000000-0000-4000-8000-${String(nodeCounter).padStart(12, '0')}`;
}

export function node(
	name: string,
	type: string,
	typeVersion: number,
	parameters: Record<string, unknown> = {},
	extra: Partial<WorkflowNode> = {},
): WorkflowNode {
	return { id: nodeId(), name, type, typeVersion, position: [0, 0], parameters, ...extra };
}

export function manualTrigger(name = 'Start'): WorkflowNode {
	return node(name, 'n8n-nodes-base.manualTrigger', 1);
}

/** Edit Fields (Set) in JSON mode: one item holding `json`. */
export function setJson(name: string, json: unknown): WorkflowNode {
	return node(name, 'n8n-nodes-base.set', 3.4, {
		mode: 'raw',
		jsonOutput: JSON.stringify(json, null, 2),
		options: {},
	});
}

/** Split Out: one item per entry of an array field. */
export function splitOut(name: string, field: string): WorkflowNode {
	return node(name, 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: field, options: {} });
}

export function noOp(name: string): WorkflowNode {
	return node(name, 'n8n-nodes-base.noOp', 1);
}

/**
 * A Webhook node that answers with the last node's items once the workflow finished: in queue mode, main
 * receives the call and a worker runs the workflow.
 */
export function webhook(name: string, path: string): WorkflowNode {
	return node(
		name,
		'n8n-nodes-base.webhook',
		2,
		{
			httpMethod: 'POST',
			path,
			responseMode: 'lastNode',
			responseData: 'allEntries',
			options: {},
		},
		{ webhookId: path },
	);
}

/** The Domain Data node with a credential. `extra` can set e.g. `onError` or `continueOnFail`. */
export function domainData(
	name: string,
	parameters: Record<string, unknown>,
	credential: CredentialRef,
	extra: Partial<WorkflowNode> = {},
): WorkflowNode {
	return node(name, NODE_TYPES.domainData, 1, parameters, {
		credentials: { [CREDENTIAL_TYPE]: { id: credential.id, name: credential.name } },
		...extra,
	});
}

/** The Domain Data Trigger (a polling trigger: n8n adds `pollTimes`). */
export function domainDataTrigger(
	name: string,
	parameters: Record<string, unknown>,
	credential: CredentialRef,
): WorkflowNode {
	return node(name, NODE_TYPES.domainDataTrigger, 1, parameters, {
		credentials: { [CREDENTIAL_TYPE]: { id: credential.id, name: credential.name } },
	});
}

/** "When Executed by Another Workflow", accepting all data: the start of a sub-workflow. */
export function executeWorkflowTrigger(name = 'When Executed by Another Workflow'): WorkflowNode {
	return node(name, 'n8n-nodes-base.executeWorkflowTrigger', 1.1, { inputSource: 'passthrough' });
}

/**
 * n8n's Postgres node inserting its input items into `table` (columns mapped from the item keys), all
 * items of a run in one query (a multi-statement query: one implicit transaction, all or nothing).
 */
export function postgresInsert(name: string, table: string, credential: CredentialRef): WorkflowNode {
	return node(
		name,
		'n8n-nodes-base.postgres',
		2.5,
		{
			operation: 'insert',
			schema: { __rl: true, mode: 'list', value: 'public' },
			table: { __rl: true, mode: 'name', value: table },
			columns: { mappingMode: 'autoMapInputData', value: {}, matchingColumns: [], schema: [] },
			options: { outputColumns: ['name'] },
		},
		{ credentials: { postgres: { id: credential.id, name: credential.name } } },
	);
}

/** Workflow settings of a sub-workflow run per batch: successful runs are not kept in the execution list. */
export const BATCH_SUB_WORKFLOW_SETTINGS = {
	executionOrder: 'v1',
	saveDataSuccessExecution: 'none',
	saveManualExecutions: false,
	saveExecutionProgress: false,
} as const;

/** Connects nodes one after the other (main output 0 to main input 0) and lays them out left to right. */
export function chain(...nodes: WorkflowNode[]): { nodes: WorkflowNode[]; connections: Record<string, unknown> } {
	const connections: Record<string, unknown> = {};
	nodes.forEach((current, index) => {
		current.position = [index * 220, 0];
		const next = nodes[index + 1];
		if (next) connections[current.name] = { main: [[{ node: next.name, type: 'main', index: 0 }]] };
	});
	return { nodes, connections };
}

/** A workflow for `import:workflow`. Ids are kept by the import, so tests can refer to them. */
export function workflow(
	id: string,
	name: string,
	graph: { nodes: WorkflowNode[]; connections: Record<string, unknown> },
	extra: Partial<WorkflowImport> = {},
): WorkflowImport {
	return {
		id,
		name,
		nodes: graph.nodes,
		connections: graph.connections,
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
		...extra,
	};
}

/**
 * A 16-character workflow id (n8n's own ids are 16 alphanumerics) from a readable stem: its first ten
 * letters and a hash of the whole stem, so that stems with the same beginning stay apart.
 */
export function workflowId(stem: string): string {
	let hash = 2166136261;
	for (const char of stem) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619) >>> 0;
	const clean = stem
		.replace(/[^A-Za-z0-9]/g, '')
		.slice(0, 10)
		.padEnd(10, 'x');
	return clean + hash.toString(36).padStart(7, '0').slice(-6);
}
