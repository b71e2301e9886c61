/** The Sub-Workflow output's checks of its target, made before any call. */
import type { IExecuteFunctions } from 'n8n-workflow';

import { operationError } from '../../../errors';

/**
 * Refuses, before any call, a target this node cannot run: as an AI tool, on an n8n without sub-workflow calls,
 * and a workflow that is running this node (itself, or one that called it): each batch would start this node
 * again, which would read the dataset and call the workflow again, without end.
 */
export async function assertCallable(
	this: IExecuteFunctions,
	workflowId: string,
	itemIndex: number,
	callers: () => Promise<ReadonlySet<string>>,
): Promise<void> {
	const node = this.getNode();
	const asTool = node.type.endsWith('Tool');
	if (asTool || typeof this.executeWorkflow !== 'function') {
		throw operationError(node, 'The Sub-Workflow output cannot run here', {
			itemIndex,
			description: asTool
				? 'An AI agent cannot start sub-workflows through this node. Use the Items output with a Limit for the ' +
					'agent, and the Sub-Workflow output in a regular workflow.'
				: 'This version of n8n does not let nodes run other workflows. Use the File output, or a newer n8n.',
		});
	}
	if (!(await callers()).has(workflowId)) return;
	const itself = workflowId === this.getWorkflow().id;
	throw operationError(
		node,
		itself
			? `The workflow chosen in "Workflow" is this workflow itself (ID ${workflowId})`
			: `The workflow chosen in "Workflow" (ID ${workflowId}) is running this one: it called it as a sub-workflow`,
		{
			itemIndex,
			description:
				'Each batch would start this node again, which would read the dataset again and run the workflow again, ' +
				'without end (and each read costs requests). Choose a workflow that does not run this node, for ' +
				'example one that only writes the records where they belong.',
		},
	);
}

/** Sub-workflow calls nested deeper than this are not followed (n8n itself sets no bound). */
const MAX_CALL_DEPTH = 20;

/**
 * This workflow and those that called it through sub-workflow calls, as far as n8n stored the chain: each
 * execution records the one that called it. n8n's database is read only in a sub-execution.
 */
export async function runningWorkflows(this: IExecuteFunctions): Promise<ReadonlySet<string>> {
	const ids = new Set<string>();
	const own = this.getWorkflow().id;
	if (own) ids.add(own);
	const runtime = this.getExecutionContext?.();
	let executionId: string | undefined = runtime && !runtime.parentExecutionId ? undefined : this.getExecutionId();
	for (let depth = 0; executionId && depth < MAX_CALL_DEPTH; depth++) {
		const parent = (await this.getExecutionDataById(executionId).catch(() => undefined))?.parentExecution;
		if (!parent?.workflowId) break;
		ids.add(parent.workflowId);
		executionId = parent.executionId;
	}
	return ids;
}
