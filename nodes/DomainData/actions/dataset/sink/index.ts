/**
 * The output sink of Dataset → Stream and Dataset → Compare. Per input item an operation says where its records
 * come from (a DatasetSource, opened only after every check that needs no call); the sink hands them to the
 * chosen output (Items, Batches, File, Sub-Workflow), keeps the "Max Records in Memory" guard, adds the hints under
 * the output, and runs the items through forEachItem (the one place for Continue On Fail).
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { operationError } from '../../../errors';
import { rebatch } from '../../../helpers/batches';
import { DatasetLabels } from '../../../helpers/datasets';
import { forEachItem } from '../../perItem';
import type { OutputParameters, OutputWording } from '../outputParameters';
import { toFile } from './file';
import { addHints, count, type DatasetSource, sum } from './source';
import { assertCallable, runningWorkflows, runSubWorkflow } from './subWorkflow';

export { count, type DatasetSource, type Guard, type RecordRequest } from './source';

/** One input item as the sink needs it. */
export interface ItemPlan {
	output: OutputParameters;
	limit?: number;
	/** The source gives exactly `limit` records unless the snapshot is shorter (no filters): checked before calls. */
	limitIsCount?: boolean;
	/** Called once every check that needs no call has passed (resolving labels may call the service). */
	open(): Promise<DatasetSource>;
}

export const GUARD_DESCRIPTION =
	'n8n keeps every output item in memory, and a whole snapshot (about a million records) would exhaust it. Set ' +
	'Output to "File" to store the records as an NDJSON file on disk, add Filters, or set a Limit. Raise "Max ' +
	'Records in Memory" only if the n8n instance has the memory (about 1-3 KB per record).';

function alreadyHeld(held: number): string {
	return held > 0 ? ` (with the ${count(held)} records already output for earlier items)` : '';
}

/** Per execution: the dataset list, the records held in memory, the callers of this workflow. */
class Sink {
	readonly labels: DatasetLabels;
	/** Records the Items and Batches outputs hold across input items: n8n keeps the node's whole output. */
	private held = 0;
	/** Summary fields of a failed Sub-Workflow item, for its error item under Continue On Fail. */
	readonly failed = new Map<number, IDataObject>();
	private callers?: Promise<ReadonlySet<string>>;

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly words: OutputWording,
	) {
		this.labels = new DatasetLabels(context);
	}

	async deliver(plan: ItemPlan, itemIndex: number, output: INodeExecutionData[]): Promise<void> {
		const { output: parameters } = plan;
		if (parameters.subWorkflow) {
			const callers = () => (this.callers ??= runningWorkflows.call(this.context));
			await assertCallable.call(this.context, parameters.subWorkflow.workflowId, itemIndex, callers);
			const source = await plan.open();
			const run = { target: parameters.subWorkflow, itemIndex, limit: plan.limit, many: this.words.many, failed: this.failed };
			output.push(await runSubWorkflow.call(this.context, source, parameters, run));
		} else if (parameters.output === 'file') {
			output.push(await toFile.call(this.context, await plan.open(), parameters, itemIndex));
		} else {
			const items = await this.toMemory(plan, itemIndex);
			for (const item of items) output.push(item);
		}
	}

	/** Items or Batches: at most "Max Records in Memory" records in all, refused before any call when known. */
	private async toMemory(plan: ItemPlan, itemIndex: number): Promise<INodeExecutionData[]> {
		const { output } = plan;
		const { held, context, words } = this;
		const room = output.maxRecords - held;
		const node = context.getNode();
		if (plan.limitIsCount && plan.limit !== undefined && plan.limit > room) {
			throw operationError(node, `The Limit (${count(plan.limit)}) is more than "Max Records in Memory" (${count(output.maxRecords)}) allows${alreadyHeld(held)}`, {
				itemIndex,
				description: `At most ${count(room)} more ${words.many} fit. ${GUARD_DESCRIPTION}`,
			});
		}
		const source = await plan.open();
		const error = () =>
			operationError(node, `${source.subject} more ${words.many} for this selection than "Max Records in Memory" (${count(output.maxRecords)}) allows${alreadyHeld(held)}`, {
				itemIndex,
				description: GUARD_DESCRIPTION,
			});
		const guard = plan.limit === undefined || plan.limit > room ? { max: room, error } : undefined;
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
				items.push({ json: { ...source.names, batch: items.length + 1, records: batch }, pairedItem });
				skippedUpTo.push(sum(source.reads(), 'skippedLines'));
				continue;
			}
			for (const record of batch) {
				record.label = source.names.label; // cheaper than a copy: the record was parsed for this item
				items.push({ json: record, pairedItem });
			}
		}
		if (batches && output.onMalformed === 'skip') {
			// Each batch tells the lines skipped since the one before; the last one takes the rest.
			skippedUpTo[skippedUpTo.length - 1] = sum(source.reads(), 'skippedLines');
			items.forEach((item, index) => (item.json.skippedLines = skippedUpTo[index] - (skippedUpTo[index - 1] ?? 0)));
		}
		addHints.call(context, source, delivered);
		this.held += delivered;
		return items;
	}
}

/**
 * Runs a dataset operation over its input items: `plan` reads and checks one item's parameters (before any
 * call) and says how to open its source; the sink does the rest. One dataset list per execution.
 */
export async function deliverEach(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	words: OutputWording,
	plan: (itemIndex: number, labels: DatasetLabels) => ItemPlan,
): Promise<INodeExecutionData[]> {
	const sink = new Sink(this, words);
	return await forEachItem.call(
		this,
		items,
		async (itemIndex, output) => await sink.deliver(plan(itemIndex, sink.labels), itemIndex, output),
		{ errorFields: (itemIndex) => sink.failed.get(itemIndex) },
	);
}
