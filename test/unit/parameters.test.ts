/**
 * The parameter readers (nodes/DomainData/parameters.ts, actions/common.ts): one reader per kind, one wording,
 * checked alone and then through every operation and the trigger, over HTTP against the simulator.
 */
import type { INode, INodeParameters, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { DomainData } from '../../nodes/DomainData/DomainData.node';
import { readCallLimits } from '../../nodes/DomainData/actions/common';
import { DomainDataTrigger } from '../../nodes/DomainDataTrigger/DomainDataTrigger.node';
import { readPositiveNumber, readWholeNumber } from '../../nodes/DomainData/parameters';
import { DEFAULT_MAX_ATTEMPTS } from '../../nodes/DomainData/transport/retry';
import { runNode, runPoll } from '../harness/n8n';
import { KEYS, startSimulator, type Simulator } from '../simulator';

// The readers use the node only to name it in the error.
const node = {
	id: 'n',
	name: 'Domain Data',
	type: 'n8n-nodes-domain-data.domainData',
	parameters: {},
} as unknown as INode;

function refusal(read: () => unknown): NodeOperationError {
	try {
		read();
	} catch (error) {
		if (error instanceof NodeOperationError) return error;
		throw error;
	}
	throw new Error('the value was accepted');
}

describe('readWholeNumber: the one reader of whole-number parameters', () => {
	it('accepts whole numbers in range, also as text', () => {
		expect(readWholeNumber(node, 1, 'parameter "Limit"')).toBe(1);
		expect(readWholeNumber(node, '250', 'parameter "Limit"')).toBe(250);
		expect(readWholeNumber(node, 0, 'option "Skip Records"', { min: 0 })).toBe(0);
		expect(readWholeNumber(node, 1000, 'parameter "Number of Records"', { max: 1000 })).toBe(1000);
	});

	it('uses the fallback for a value that is not set, and only then', () => {
		for (const unset of [undefined, null, '']) {
			expect(readWholeNumber(node, unset, 'option "Page Size"', { fallback: 100 })).toBe(100);
		}
		expect(refusal(() => readWholeNumber(node, undefined, 'parameter "Limit"')).message).toBe(
			'The parameter "Limit" must be a whole number of 1 or more, got undefined',
		);
	});

	it.each([
		[0, 'got 0'],
		[-3, 'got -3'],
		[2.5, 'got 2.5'],
		['ten', 'got "ten"'],
		[Number.NaN, 'got NaN'],
	])('refuses %p in the one wording, naming the parameter, the rule and the value', (value, got) => {
		const error = refusal(() => readWholeNumber(node, value, 'parameter "Limit"', { itemIndex: 3 }));
		expect(error.message).toBe(`The parameter "Limit" must be a whole number of 1 or more, ${got}`);
		expect(error.description).toBe(
			'Enter a whole number of 1 or more (no decimals, no text), or an expression that gives one.',
		);
		expect(error.context.itemIndex).toBe(3);
	});

	it.each([
		[true, 'got true'],
		[[5], 'got [5]'],
		['0x10', 'got "0x10"'],
		['Infinity', 'got "Infinity"'],
		[{}, 'got {}'],
	])('refuses %p, which Number() would read as a number', (value, got) => {
		const error = refusal(() => readWholeNumber(node, value, 'parameter "Limit"'));
		expect(error.message).toBe(`The parameter "Limit" must be a whole number of 1 or more, ${got}`);
	});

	it('refuses a whole number beyond 2^53 - 1 (sent as 1e+21 otherwise), naming the largest it takes', () => {
		expect(readWholeNumber(node, Number.MAX_SAFE_INTEGER, 'parameter "Limit"')).toBe(Number.MAX_SAFE_INTEGER);
		expect(readWholeNumber(node, ' 1e3 ', 'parameter "Limit"')).toBe(1000);
		for (const value of [1e21, 2 ** 53, '1e21']) {
			expect(refusal(() => readWholeNumber(node, value, 'parameter "Limit"')).message).toBe(
				`The parameter "Limit" must be a whole number from 1 to 9,007,199,254,740,991, got ${typeof value === 'string' ? `"${value}"` : String(value)}`,
			);
		}
	});

	it('words a range and a minimum of 0 the same way, and takes a description of what to do', () => {
		const range = refusal(() =>
			readWholeNumber(node, 1001, 'parameter "Number of Records"', {
				max: 1000,
				description: 'Read more with Stream.',
			}),
		);
		expect(range.message).toBe('The parameter "Number of Records" must be a whole number from 1 to 1000, got 1001');
		expect(range.description).toBe('Read more with Stream.');
		expect(refusal(() => readWholeNumber(node, -1, 'option "Skip Records"', { min: 0 })).message).toBe(
			'The option "Skip Records" must be a whole number of 0 or more, got -1',
		);
	});

	it('keeps a message that holds a system error code as written (n8n would replace it)', () => {
		expect(refusal(() => readWholeNumber(node, 'eperm', 'filter "Max Rank"')).message).toBe(
			'The filter "Max Rank" must be a whole number of 1 or more, got "eperm"',
		);
	});
});

describe('readCallLimits: the one reader of "Max Attempts"', () => {
	const maxAttempts = (options: object, itemIndex?: number) => readCallLimits(node, options, itemIndex).maxAttempts;
	it('gives the default when the option is not set, and the number when it is', () => {
		expect(maxAttempts({})).toBe(DEFAULT_MAX_ATTEMPTS);
		expect(maxAttempts({ maxAttempts: '' })).toBe(DEFAULT_MAX_ATTEMPTS);
		expect(maxAttempts({ maxAttempts: 1 })).toBe(1);
		expect(maxAttempts({ maxAttempts: '7' })).toBe(7);
	});

	it.each([0, 2.5, 'three'])('refuses %p in the one wording instead of quietly using another number', (value) => {
		const error = refusal(() => maxAttempts({ maxAttempts: value }, 2));
		expect(error.message).toMatch(/^The option "Max Attempts" must be a whole number of 1 or more, got /);
		expect(error.context.itemIndex).toBe(2);
	});
});

describe('readPositiveNumber and Idle Timeout: a number of seconds greater than 0', () => {
	const readIdleTimeoutMs = (options: object, itemIndex?: number) =>
		readCallLimits(node, options, itemIndex, true).idleTimeoutMs;
	it('takes fractions, and the default when the option is not set', () => {
		expect(readPositiveNumber(node, 0.3, 'option "Idle Timeout (Seconds)"', { fallback: 60 })).toBe(0.3);
		expect(readPositiveNumber(node, '', 'option "Idle Timeout (Seconds)"', { fallback: 60 })).toBe(60);
		expect(readIdleTimeoutMs({})).toBe(60_000);
		expect(readIdleTimeoutMs({ idleTimeout: 0.3 })).toBe(300);
		expect(readIdleTimeoutMs({ idleTimeout: '90' })).toBe(90_000);
	});

	it.each([
		[0, 'got 0'],
		[-5, 'got -5'],
		['soon', 'got "soon"'],
		[Number.POSITIVE_INFINITY, 'got Infinity'],
		[true, 'got true'],
		['0x10', 'got "0x10"'],
	])('refuses %p instead of quietly using 60 seconds', (value, got) => {
		const error = refusal(() => readIdleTimeoutMs({ idleTimeout: value }, 4));
		expect(error.message).toBe(`The option "Idle Timeout (Seconds)" must be a number greater than 0, ${got}`);
		expect(error.context.itemIndex).toBe(4);
	});
});

describe('every whole-number parameter refuses a bad value in the one wording, before any call', () => {
	let sim: Simulator;
	beforeAll(async () => {
		sim = await startSimulator({ domains: 50, snapshots: 2 });
	});
	afterAll(async () => {
		await sim.close();
	});
	beforeEach(() => sim.reset());

	const stream = (parameters: INodeParameters): INodeParameters => ({
		resource: 'dataset',
		operation: 'stream',
		label: 'latest',
		...parameters,
	});
	const cases: Array<[string, INodeParameters, string]> = [
		[
			'Search → Limit',
			{ resource: 'domain', operation: 'search', limit: 0 },
			'The parameter "Limit" must be a whole number of 1 or more, got 0',
		],
		[
			'Search → Page Size',
			{ resource: 'domain', operation: 'search', options: { pageSize: 2.5 } },
			'The option "Page Size" must be a whole number of 1 or more, got 2.5',
		],
		[
			'Search → Max Attempts',
			{ resource: 'domain', operation: 'search', options: { maxAttempts: 0 } },
			'The option "Max Attempts" must be a whole number of 1 or more, got 0',
		],
		[
			'Get → Max Attempts',
			{ resource: 'domain', operation: 'get', domain: 'example.com', options: { maxAttempts: 0 } },
			'The option "Max Attempts" must be a whole number of 1 or more, got 0',
		],
		[
			'Bulk → Max Attempts',
			{ resource: 'domain', operation: 'bulk', domains: 'example.com', options: { maxAttempts: -1 } },
			'The option "Max Attempts" must be a whole number of 1 or more, got -1',
		],
		[
			'List → Limit',
			{ resource: 'dataset', operation: 'list', limit: 0 },
			'The parameter "Limit" must be a whole number of 1 or more, got 0',
		],
		[
			'List → Max Attempts',
			{ resource: 'dataset', operation: 'list', options: { maxAttempts: 'three' } },
			'The option "Max Attempts" must be a whole number of 1 or more, got "three"',
		],
		['Stream → Limit', stream({ limit: 1.5 }), 'The parameter "Limit" must be a whole number of 1 or more, got 1.5'],
		[
			'Stream → Limit true',
			stream({ limit: true }),
			'The parameter "Limit" must be a whole number of 1 or more, got true',
		],
		[
			'Stream → Limit "0x10"',
			stream({ limit: '0x10' }),
			'The parameter "Limit" must be a whole number of 1 or more, got "0x10"',
		],
		[
			'Stream → Limit 1e21 into a file',
			stream({ limit: 1e21, output: 'file' }),
			'The parameter "Limit" must be a whole number from 1 to 9,007,199,254,740,991, got 1e+21',
		],
		[
			'Stream → Batch Size',
			stream({ output: 'batches', batchSize: 0 }),
			'The parameter "Batch Size" must be a whole number of 1 or more, got 0',
		],
		[
			'Stream → Max Records in Memory',
			stream({ options: { maxRecords: 0 } }),
			'The option "Max Records in Memory" must be a whole number of 1 or more, got 0',
		],
		[
			'Stream → Max Rank',
			stream({ filters: { maxRank: 'top' } }),
			'The filter "Max Rank" must be a whole number of 1 or more, got "top"',
		],
		[
			'Stream → Max Attempts',
			stream({ options: { maxAttempts: 0 } }),
			'The option "Max Attempts" must be a whole number of 1 or more, got 0',
		],
		[
			'Stream → Idle Timeout',
			stream({ options: { idleTimeout: 0 } }),
			'The option "Idle Timeout (Seconds)" must be a number greater than 0, got 0',
		],
		[
			'Bulk → Concurrency',
			{ resource: 'domain', operation: 'bulk', domains: 'example.com', options: { concurrency: 11 } },
			'The option "Concurrency" must be a whole number from 1 to 10, got 11',
		],
		[
			'Compare → Ignore Rank Moves Smaller Than',
			{ resource: 'dataset', operation: 'compare', label: 'latest', options: { minRankMove: 0 } },
			'The option "Ignore Rank Moves Smaller Than" must be a whole number of 1 or more, got 0',
		],
	];

	it.each(cases)('%s', async (_name, parameters, message) => {
		const result = await runNode({ parameters, credentials: { apiKey: KEYS.pro, baseUrl: sim.url } });
		expect(result.error?.message).toBe(message);
		expect(result.error?.description).toEqual(expect.stringMatching(/\S/));
		expect(sim.calls()).toHaveLength(0);
	});

	it.each([
		[
			'Number of Records',
			{ attachRecords: true, recordCount: 1001 },
			'The parameter "Number of Records" must be a whole number from 1 to 1000, got 1001',
		],
		[
			'Max Attempts',
			{ options: { maxAttempts: 0 } },
			'The option "Max Attempts" must be a whole number of 1 or more, got 0',
		],
		[
			'Idle Timeout',
			{ attachRecords: true, options: { idleTimeout: -1 } },
			'The option "Idle Timeout (Seconds)" must be a number greater than 0, got -1',
		],
	])('Trigger → %s', async (_name, parameters, message) => {
		const poll = runPoll({
			parameters: { event: 'newDataset', ...parameters },
			credentials: { apiKey: KEYS.pro, baseUrl: sim.url },
		});
		await expect(poll).rejects.toThrow(message);
		expect(sim.calls()).toHaveLength(0);
	});
});

describe('the words of the collections', () => {
	it('every Options collection of both nodes says "Add option", as n8n\'s own nodes do', () => {
		const properties: INodeProperties[] = [
			...new DomainData().description.properties,
			...new DomainDataTrigger().description.properties,
		];
		const optionCollections = properties.filter(
			(property) => property.type === 'collection' && property.name === 'options',
		);
		// Domain: Get, Search, Bulk, Enrich; Dataset: List, and Stream and Compare (one shared collection); the trigger.
		expect(optionCollections.length).toBeGreaterThanOrEqual(7);
		expect([...new Set(optionCollections.map((property) => property.placeholder))]).toEqual(['Add option']);
	});
});

describe('an empty Fields selection means the default fields, in Stream, Compare and the trigger', () => {
	let sim: Simulator;
	beforeAll(async () => {
		sim = await startSimulator({ domains: 20, snapshots: 2 });
	});
	afterAll(async () => {
		await sim.close();
	});

	const run = async (operation: string, fields?: unknown) => {
		const parameters: INodeParameters = { resource: 'dataset', operation, label: 'latest', returnAll: true };
		if (fields !== undefined) parameters.fields = fields as INodeParameters['fields'];
		return await runNode({ parameters, credentials: { apiKey: KEYS.pro, baseUrl: sim.url } });
	};

	it.each(['stream', 'compare'])('%s', async (operation) => {
		const preselected = await run(operation);
		expect(preselected.error).toBeUndefined();
		expect(preselected.items.length).toBeGreaterThan(0);
		for (const empty of [[], '', ' , ']) {
			const result = await run(operation, empty);
			expect(result.error).toBeUndefined();
			expect(result.items).toEqual(preselected.items);
		}
	});

	it('the trigger', async () => {
		const poll = async (fields: unknown) =>
			await runPoll({
				parameters: { event: 'newDataset', attachRecords: true, recordCount: 2, fields: fields as string },
				credentials: { apiKey: KEYS.pro, baseUrl: sim.url },
				staticData: {},
				mode: 'manual',
			});
		expect(await poll(' , ')).toEqual(await poll([]));
	});
});
