/**
 * The parameter tables of docs/domain.md, docs/dataset.md and docs/trigger.md, written from the node descriptions
 * as the editor shows them: each parameter's name, default and description, its options, its range and the other
 * parameters it is shown with. The tool's own parameters (shown only when the node runs as a tool) are in
 * docs/agents.md, not here.
 */
import type { INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';

/** Where a parameter sits: the resource and operation it is shown for (none for the trigger and the credential). */
export interface Place {
	resource?: string;
	operation?: string;
}

type Option = INodePropertyOptions | INodeProperties | INodePropertyCollection;
type Shown = Record<string, unknown[] | undefined>;

/** A number as the docs write it: `100,000`. */
export function figure(value: number): string {
	return value.toLocaleString('en-US');
}

/** The text of a description as Markdown: n8n's links become Markdown links; a table cell keeps no `|`. */
function markdownText(html: string): string {
	return html
		.replace(/<a href="([^"]+)">([^<]*)<\/a>/g, '[$2]($1)')
		.replace(/\|/g, '\\|')
		.trim();
}

/** A sentence that ends with a full stop. */
function sentence(text: string): string {
	const trimmed = markdownText(text);
	return trimmed === '' || /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function isPlainOption(option: Option): option is INodePropertyOptions {
	return !('displayName' in option) && 'value' in option;
}

function plainOptions(property: INodeProperties): INodePropertyOptions[] {
	return (property.options ?? []).filter(isPlainOption);
}

/** The option's name the editor shows for `value`, or the value as code. */
function optionName(property: INodeProperties | undefined, value: unknown): string {
	const option = property ? plainOptions(property).find((candidate) => candidate.value === value) : undefined;
	if (option) return option.name;
	if (typeof value === 'boolean') return value ? 'on' : 'off';
	return `\`${String(value)}\``;
}

function defaultText(property: INodeProperties): string {
	const value = property.default;
	if (property.type === 'collection' || property.type === 'fixedCollection') return '';
	if (typeof value === 'boolean') return value ? 'on' : 'off';
	if (typeof value === 'number') return figure(value);
	if (Array.isArray(value)) return value.map((entry) => optionName(property, entry)).join(', ');
	if (value === '' || value === undefined || value === null) return 'empty';
	if (property.type === 'options') return optionName(property, value);
	return `\`${String(value)}\``;
}

/** The choices of an options parameter with what each does; field lists by name, as the records spell them. */
function choicesText(property: INodeProperties): string {
	const options = plainOptions(property);
	if (options.length === 0 || (property.type !== 'options' && property.type !== 'multiOptions')) return '';
	const spelledByValue = options.every((option) => option.name === option.value);
	const choices = options.map((option) => {
		const name = spelledByValue ? `\`${option.name}\`` : `*${option.name}*`;
		return option.description ? `${name}: ${sentence(option.description)}` : `${name}.`;
	});
	return choices.join(' ');
}

function rangeText(property: INodeProperties): string {
	const { minValue, maxValue } = (property.typeOptions ?? {}) as { minValue?: number; maxValue?: number };
	if (property.type !== 'number') return '';
	if (minValue !== undefined && maxValue !== undefined) return `From ${figure(minValue)} to ${figure(maxValue)}.`;
	if (minValue !== undefined) return `At least ${figure(minValue)}.`;
	if (maxValue !== undefined) return `At most ${figure(maxValue)}.`;
	return '';
}

/** The conditions under which the editor shows a parameter, besides its resource and operation. */
function shownWithText(shown: Shown, siblings: INodeProperties[], top: INodeProperties[]): string {
	const conditions = Object.entries(shown)
		.filter(([key]) => !['resource', 'operation', '@tool'].includes(key))
		.map(([key, values]) => {
			const name = key.replace(/^\//, '');
			const owner = (key.startsWith('/') ? top : siblings).find((candidate) => candidate.name === name);
			const words = (values ?? []).map((value) => optionName(owner, value)).join(' or ');
			return `${owner?.displayName ?? name} ${words}`;
		});
	return conditions.length > 0 ? `Only with ${conditions.join(' and ')}.` : '';
}

/** Whether the editor shows `property` for `place` outside a tool. */
function shownAt(property: INodeProperties, place: Place): boolean {
	const shown = (property.displayOptions?.show ?? {}) as Shown;
	if (shown['@tool']?.includes(true) && !shown['@tool']?.includes(false)) return false;
	if (place.resource !== undefined && shown.resource && !shown.resource.includes(place.resource)) return false;
	if (place.operation !== undefined && shown.operation && !shown.operation.includes(place.operation)) return false;
	return property.name !== 'resource' && property.name !== 'operation';
}

export interface ParameterRow {
	parameter: string;
	default: string;
	meaning: string;
}

function row(property: INodeProperties, path: string[], siblings: INodeProperties[], top: INodeProperties[]) {
	const shown = (property.displayOptions?.show ?? {}) as Shown;
	const meaning = [
		property.description ? sentence(property.description) : '',
		property.hint ? sentence(property.hint) : '',
		choicesText(property),
		rangeText(property),
		shownWithText(shown, siblings, top),
	].filter(Boolean);
	return {
		parameter: `${[...path, property.displayName].join(' → ')} (\`${property.name}\`)`,
		default: defaultText(property),
		meaning: meaning.join(' '),
	};
}

/** One row per parameter the editor shows at `place`, and one per entry of its collections (Options → …). */
export function parameterRows(properties: INodeProperties[], place: Place): ParameterRow[] {
	const rows: ParameterRow[] = [];
	for (const property of properties.filter((candidate) => shownAt(candidate, place))) {
		if (property.type !== 'collection') {
			rows.push(row(property, [], properties, properties));
			continue;
		}
		if (property.description) rows.push({ ...row(property, [], properties, properties), default: 'none' });
		const entries = (property.options ?? []).filter((entry): entry is INodeProperties => 'type' in entry);
		for (const entry of entries) rows.push(row(entry, [property.displayName], entries, properties));
	}
	return rows;
}

/** A Markdown table of the rows (parameter, default, meaning). */
export function parameterTable(rows: ParameterRow[]): string {
	return [
		'| parameter | default | meaning |',
		'|---|---|---|',
		...rows.map((entry) => `| ${entry.parameter} | ${entry.default} | ${entry.meaning} |`),
	].join('\n');
}
