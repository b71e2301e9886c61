/** Pieces of the Domain operations' parameters: the Options collection and the option they all have. */
import type { INodeProperties } from 'n8n-workflow';

export function optionsCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options,
	};
}

export const removeWwwOption: INodeProperties = {
	displayName: 'Remove "www."',
	name: 'removeWww',
	type: 'boolean',
	default: true,
	description: 'Whether to look up www.example.com as example.com (websites are indexed under their name without www)',
};

export interface DomainOptions {
	removeWww?: boolean;
	concurrency?: unknown;
	maxAttempts?: unknown;
	requestDeadline?: unknown;
}
