/** Dataset → Compare: what changed between two snapshots, in bounded memory (passes and order: helpers/compare/). */
import type { IDataObject, IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { asNodeError, count, operationError, quoteFew, withNote } from '../../errors';
import { readWholeNumber } from '../../parameters';
import { type DatasetLabels, PREVIOUS_LABEL } from '../../helpers/datasets';
import type { ChangeKind, CompareSpec, CompareStats, DomainChange, SnapshotSpool } from '../../helpers/compare';
import { CHANGE_KINDS, compareSnapshots, createCompareStats } from '../../helpers/compare';
import { fieldOptions, type SnapshotField } from '../../helpers/snapshotFields';
import { returnAllOrLimit } from '../common';
import type { ToolBounds } from '../perItem';
import { outputProperties, type OutputWording, readOptionsCollection } from './output';
import { readOutputParameters } from './outputPlan';
import { datasetLabelProperty, filtersProperty, readSelectionParameters } from './sharedParameters';
import { deliverEach, type ItemPlan } from './sink';
import { type DatasetSource, domainsReport } from './sink/source';
import { snapshotSpool } from './sink/spool';

const OUTPUT_WORDING: OutputWording = {
	one: 'change',
	many: 'changes',
	batchShape: '{ label, baseLabel, batch, records }',
	fileUse: 'for many changes',
};

const DEFAULT_COMPARED_FIELDS: SnapshotField[] = [
	'title',
	'country_code',
	'language_code',
	'categories',
	'technologies',
];
/** The keys of every change (DomainChange), which the batch information of the Sub-Workflow output must not take. */
const CHANGE_KEYS = ['change', 'reason', 'name', 'label', 'baseLabel', 'record', 'changes'];

const properties: INodeProperties[] = [
	datasetLabelProperty('The newer snapshot.'),
	{
		displayName: 'Compare With Name or ID',
		name: 'baseLabel',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getBaseDatasetLabels' },
		default: '',
		description:
			'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
		hint: 'The older snapshot. "Previous" (or empty) is the newest one older than the snapshot above.',
	},
	{
		displayName: 'Fields',
		name: 'fields',
		type: 'multiOptions',
		options: fieldOptions(['name']),
		default: [...DEFAULT_COMPARED_FIELDS],
		description:
			'The fields compared (the domain name is the key). Lists (technologies, categories, contact_information) ' +
			'are compared as sets. Rank is compared only when chosen here. The output record holds the name and ' +
			'these fields.',
	},
	{
		displayName: 'Changes',
		name: 'changes',
		type: 'multiOptions',
		options: [
			{
				name: 'Added',
				value: 'added',
				description: 'Domains in the newer snapshot (and its filtered selection) that the older one lacks',
			},
			{
				name: 'Removed',
				value: 'removed',
				description: 'Domains in the older snapshot (and its filtered selection) that the newer one lacks',
			},
			{ name: 'Changed', value: 'changed', description: 'Domains in both whose compared fields differ' },
		],
		default: [...CHANGE_KINDS],
		description: 'Which kinds of change to output',
	},
	...returnAllOrLimit(),
	...outputProperties(OUTPUT_WORDING),
	filtersProperty(
		'Compare only the records that match every filter set here, on each side: a domain that matches only in the ' +
			'newer snapshot is added, only in the older one removed. Both snapshots are still read whole.',
	),
	readOptionsCollection(OUTPUT_WORDING, 'changes-2025-06-23-2025-06-30', [
		{
			displayName: 'Ignore Rank Moves Smaller Than',
			name: 'minRankMove',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 1,
			description:
				'When rank is compared: a rank that moved by less than this is not a change (rank moves a little every ' +
				'week for almost every domain)',
		},
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['dataset'], operation: ['compare'] } },
	properties,
);

/** The kinds of change asked for, from the list or an expression (an array or a comma-separated list). */
function readKinds(this: IExecuteFunctions, itemIndex: number): Set<ChangeKind> {
	const raw = this.getNodeParameter('changes', itemIndex, [...CHANGE_KINDS]) as unknown;
	const kinds = (Array.isArray(raw) ? raw : String(raw ?? '').split(','))
		.map((kind) => String(kind).trim().toLowerCase())
		.filter((kind) => kind.length > 0);
	const unknown = kinds.filter((kind) => !(CHANGE_KINDS as readonly string[]).includes(kind));
	if (kinds.length > 0 && unknown.length === 0) return new Set(kinds as ChangeKind[]);
	const message =
		kinds.length === 0
			? 'The parameter "Changes" is empty'
			: `The parameter "Changes" has unknown values: ${quoteFew(unknown)}`;
	const description = 'Choose one or more of: added, removed, changed.';
	throw operationError(this.getNode(), message, { itemIndex, description });
}

/** The changes one array each (the sink batches them), counted by kind as they pass. */
async function* changesOf(changes: AsyncIterable<DomainChange>, counts: Record<ChangeKind, number>) {
	for await (const change of changes) {
		counts[change.change]++;
		yield [change];
	}
}

/** With On Malformed Line = Skip: the domains left out because a line of theirs could not be read. */
function unreadableHints({ unreadableDomains: domains, namelessLines: lines }: CompareStats): string[] {
	const hints: string[] = [];
	if (domains > 0) {
		const which = domains > 1 ? `${count(domains)} domains whose lines` : '1 domain whose line';
		hints.push(`Left out ${which} could not be read (skipped as malformed): unknown, neither added nor removed`);
	}
	if (lines > 0) {
		hints.push(
			`${count(lines)} skipped line${lines > 1 ? 's have' : ' has'} no readable domain name: ` +
				'a domain of such a line may show as added or removed',
		);
	}
	return hints;
}

/** A failed Compare says what its spool left behind (a node cannot delete binary data). */
async function* withSpoolNote(
	changes: AsyncIterable<IDataObject[]>,
	spool: SnapshotSpool,
	node: INode,
	itemIndex: number,
) {
	try {
		yield* changes;
	} catch (error) {
		const failure = asNodeError(node, error, itemIndex);
		const { files, bytes } = spool.written();
		if (files === 0) throw failure;
		const size = `${(bytes / 1024 / 1024).toFixed(1)} MB`;
		throw withNote(
			failure,
			`The newer snapshot's spool (${files} file${files === 1 ? '' : 's'}, ${size}) stays in n8n's binary data ` +
				'with this execution until n8n deletes the execution (a node cannot delete binary data).',
		);
	}
}

function changesSource(
	this: IExecuteFunctions,
	spec: CompareSpec,
	asked: DatasetSource['asked'],
	maxFileBytes?: number,
): DatasetSource {
	const { label, baseLabel } = spec;
	const stats = createCompareStats();
	let spool: SnapshotSpool | undefined;
	const counts: Record<ChangeKind, number> = { added: 0, removed: 0, changed: 0 };
	// Names in neither snapshot are known once both were read whole (not when the Limit stopped the read).
	const whole = () => stats.reads.length >= 2 && stats.reads.slice(0, 2).every((read) => read.complete);
	const report = domainsReport(spec.filter?.domains, whole, { label, baseLabel });
	return {
		labels: { label, baseLabel },
		asked,
		fileName: `changes-${baseLabel}-${label}`,
		// The guard lets the passes refuse early: more changes than fit are certain before they are read.
		records: ({ guard }) => {
			const itemIndex = spec.itemIndex ?? 0;
			spool = snapshotSpool.call(this, itemIndex, maxFileBytes);
			const changes = changesOf(compareSnapshots.call(this, { ...spec, guard, spool }, stats), counts);
			return withSpoolNote(changes, spool, this.getNode(), itemIndex);
		},
		reads: () => stats.reads,
		summary: () => {
			const { unreadableDomains, namelessLines } = stats;
			const unreadable = spec.onMalformed === 'skip' ? { unreadableDomains, namelessLines } : {};
			// What the newer snapshot's spool left in n8n's binary data, named apart from the Sub-Workflow output's spool.
			const written = spool?.written();
			const spooled = written?.files ? { snapshotSpoolBytes: written.bytes, snapshotSpoolFiles: written.files } : {};
			return { ...counts, fields: spec.fields, ...unreadable, ...report().summary, ...spooled };
		},
		hints: (empty) => [
			...unreadableHints(stats),
			...report().hints,
			...(empty ? [`No change between "${baseLabel}" and "${label}" for these fields, changes and filters`] : []),
		],
	};
}

function plan(this: IExecuteFunctions, itemIndex: number, labels: DatasetLabels, tool?: ToolBounds): ItemPlan {
	const node = this.getNode();
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const selection = readSelectionParameters.call(this, itemIndex, DEFAULT_COMPARED_FIELDS, options, tool);
	const baseLabel = String(this.getNodeParameter('baseLabel', itemIndex, PREVIOUS_LABEL) ?? '');
	const fields = selection.fields.filter((field) => field !== 'name');
	if (fields.length === 0) {
		throw operationError(node, 'The parameter "Fields" names no field to compare', {
			itemIndex,
			description:
				'The domain name is the key of the comparison; choose at least one other field, for example technologies.',
		});
	}
	const kinds = readKinds.call(this, itemIndex);
	const output = readOutputParameters.call(this, itemIndex, CHANGE_KEYS, OUTPUT_WORDING, options, tool);
	const minRankMove = readWholeNumber(node, options.minRankMove, 'option "Ignore Rank Moves Smaller Than"', {
		itemIndex,
		fallback: 1,
	});
	const { label, limit, filter, limits } = selection;
	const open = async () => {
		const pair = await labels.pair({ label, baseLabel }, limits, itemIndex);
		const spec = { ...pair, fields, kinds, filter, minRankMove, limit, limits, itemIndex };
		const asked = { label, baseLabel };
		return changesSource.call(this, { ...spec, onMalformed: output.onMalformed }, asked, output.file?.maxBytes);
	};
	// Rank moves below the threshold are no change only when rank is compared.
	const compared = { fields, ...(fields.includes('rank') ? { minRankMove } : {}) };
	return { output, limit, open, facts: () => ({ compared }) };
}

export const execute = deliverEach(OUTPUT_WORDING, plan);
