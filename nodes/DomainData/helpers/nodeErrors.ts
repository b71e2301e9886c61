/**
 * Errors leave an operation as NodeApiError or NodeOperationError, so that n8n shows them with the
 * node, the item and (for the service's errors) the HTTP details.
 */
import type { INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/** The error itself when it is already a node error; anything else wrapped, with its item. */
export function asNodeError(node: INode, error: unknown, itemIndex?: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	const wrapped = error instanceof Error ? error : new Error(String(error));
	return new NodeOperationError(node, wrapped, { itemIndex });
}
