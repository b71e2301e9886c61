/** The output of Dataset → Stream and Compare (Items, Batches, File, Sub-Workflow), its memory guard and hints. */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { count, operationError } from '../../../errors';
import { rebatch } from '../../../helpers/streams';
import { DatasetLabels } from '../../../helpers/datasets';
import {
	type DomainListFacts,
	forEachItem,
	type OperationExecute,
	type RunFacts,
	type ToolBounds,
} from '../../perItem';
import type { OutputWording } from '../output';
import type { OutputParameters } from '../outputPlan';
import { toFile } from './file';
import { addHints, type DatasetSource, selectionName, sum } from './source';
import { assertCallable, runningWorkflows, runSubWorkflow } from './subWorkflow';

/** One input item, its parameters read and checked before any call. */
export interface ItemPlan {
	output: OutputParameters;
	limit?: number;
	/** The source gives exactly `limit` records unless the snapshot is shorter (no filters): checked before calls. */
	limitIsCount?: boolean;
	/** Resolves the labels (which may call the service) and opens the source. */
	open(): Promise<DatasetSource>;
	/** What a tool's answer says of the run besides labels and the Domains list (read once the records were). */
	facts(source: DatasetSource): RunFacts;
}

const GUARD_DESCRIPTION =
	'n8n keeps every output item in memory, and a whole snapshot (about a million records) would exhaust it. Set ' +
	'Output to "File" to store the records as an NDJSON file on disk, add Filters, or set a Limit. Raise "Max ' +
	'Records in Memory" only if the n8n instance has the memory (about 1-3 KB per record).';

/** Items or Batches: "Max Records in Memory" bounds all items (`held`: earlier ones'); a larger Limit fails early. */
async function toMemory(this: IExecuteFunctions, plan: ItemPlan, many: string, held: number, itemIndex: number) {
	const { output, limit } = plan;
	const room = output.maxRecords - held;
	const node = this.getNode();
	const earlier = held > 0 ? ` (with the ${count(held)} records already output for earlier items)` : '';
	const allowed = `"Max Records in Memory" (${count(output.maxRecords)}) allows${earlier}`;
	if (plan.limitIsCount && limit !== undefined && limit > room) {
		throw operationError(node, `The Limit (${count(limit)}) is more than ${allowed}`, {
			itemIndex,
			description: `At most ${count(room)} more ${many} fit. ${GUARD_DESCRIPTION}`,
		});
	}
	const source = await plan.open();
	const { label, baseLabel } = source.labels;
	const finds = baseLabel === undefined ? 'has' : 'finds';
	const message = `The ${selectionName(source.labels)} ${finds} more ${many} for this selection than ${allowed}`;
	const error = () => operationError(node, message, { itemIndex, description: GUARD_DESCRIPTION });
	const guard = limit === undefined || limit > room ? { max: room, error } : undefined;
	const batches = output.output === 'batches';
	const records = source.records({ batchSize: batches ? output.batchSize : undefined, guard });
	const pairedItem = { item: itemIndex };
	const items: INodeExecutionData[] = [];
	const skippedUpTo: number[] = [];
	let delivered = 0;
	for await (const batch of batches ? rebatch(records, output.batchSize) : records) {
		delivered += batch.length;
		if (delivered > room) throw error();
		if (batches) {
			items.push({ json: { ...source.labels, batch: items.length + 1, records: batch }, pairedItem });
			skippedUpTo.push(sum(source.reads(), 'skippedLines'));
			continue;
		}
		for (const record of batch) {
			record.label = label; // cheaper than a copy: the record was parsed for this item
			items.push({ json: record, pairedItem });
		}
	}
	if (batches && output.onMalformed === 'skip') {
		// Each batch tells the lines skipped since the one before; the last one takes the rest.
		skippedUpTo[skippedUpTo.length - 1] = sum(source.reads(), 'skippedLines');
		items.forEach((item, index) => (item.json.skippedLines = skippedUpTo[index] - (skippedUpTo[index - 1] ?? 0)));
	}
	addHints.call(this, source, delivered);
	return { items, delivered, source };
}

/** A dataset operation's execute: Items and Batches count records over all input items (n8n holds them all at once). */
export function deliverEach(
	words: OutputWording,
	planItem: (this: IExecuteFunctions, itemIndex: number, labels: DatasetLabels, tool?: ToolBounds) => ItemPlan,
): OperationExecute {
	return async function (items, tool) {
		const labels = new DatasetLabels(this);
		let callers: Promise<ReadonlySet<string>> | undefined;
		let held = 0;
		const facts: RunFacts = {};
		const deliver = async (itemIndex: number, output: INodeExecutionData[]) => {
			const plan = planItem.call(this, itemIndex, labels, tool);
			const { output: parameters, limit } = plan;
			const target = parameters.subWorkflow;
			if (target) {
				await assertCallable.call(this, target.workflowId, itemIndex, () => (callers ??= runningWorkflows.call(this)));
				const run = { target, itemIndex, limit, many: words.many };
				output.push(await runSubWorkflow.call(this, await plan.open(), parameters, run));
			} else if (parameters.output === 'file') {
				await toFile.call(this, await plan.open(), parameters, { itemIndex, output });
			} else {
				const { items: memory, delivered, source } = await toMemory.call(this, plan, words.many, held, itemIndex);
				for (const entry of memory) output.push(entry);
				held += delivered;
				facts.labels = source.labels;
				facts.domainList = source.summary().domainList as DomainListFacts | undefined;
				Object.assign(facts, plan.facts(source));
			}
		};
		return { items: await forEachItem.call(this, items, deliver, tool), facts };
	};
}
