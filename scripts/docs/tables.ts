/**
 * `npm run docs:tables`: writes the generated regions of the docs from the code. A region is the text between
 * `<!-- generated: <name> -->` and `<!-- /generated -->` in a page; the prose around it stays as written.
 * test/unit/package/docs.tables.test.ts runs `generatedPages` in memory and fails when a page is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { DomainDataApi } from '../../credentials/DomainDataApi.credentials';
import { DomainData } from '../../nodes/DomainData/DomainData.node';
import { DomainDataTrigger } from '../../nodes/DomainDataTrigger/DomainDataTrigger.node';
import { limitsTable } from './limits';
import { parameterRows, parameterTable, type Place } from './parameters';

export const REPO_ROOT = resolve(__dirname, '../..');
export const TABLES_COMMAND = 'npm run docs:tables';

const nodeProperties = new DomainData().description.properties;
const operation = (resource: string, name: string) => () =>
	parameterTable(parameterRows(nodeProperties, { resource, operation: name } satisfies Place));

/** Every generated region, by page and name. */
export const REGIONS: Record<string, Record<string, () => string>> = {
	'docs/domain.md': {
		'domain.get.parameters': operation('domain', 'get'),
		'domain.search.parameters': operation('domain', 'search'),
		'domain.bulk.parameters': operation('domain', 'bulk'),
		'domain.enrich.parameters': operation('domain', 'enrich'),
	},
	'docs/dataset.md': {
		'dataset.list.parameters': operation('dataset', 'list'),
		'dataset.stream.parameters': operation('dataset', 'stream'),
		'dataset.compare.parameters': operation('dataset', 'compare'),
	},
	'docs/trigger.md': {
		'trigger.parameters': () => parameterTable(parameterRows(new DomainDataTrigger().description.properties, {})),
	},
	'docs/operations.md': {
		'credential.parameters': () => parameterTable(parameterRows(new DomainDataApi().properties, {})),
		'operations.limits': limitsTable,
	},
};

const REGION = /(<!-- generated: ([\w.-]+)[^>]*-->\n)([\s\S]*?)(<!-- \/generated -->)/g;

/** The page with each generated region written anew; fails on a region the page lacks or one it has unknown. */
export function generatedPage(page: string, text: string): string {
	const regions = REGIONS[page] ?? {};
	const found = new Set<string>();
	const written = text.replace(REGION, (_all, open: string, name: string, _old: string, close: string) => {
		const generate = regions[name];
		if (!generate) throw new Error(`${page}: no generator for the region "${name}" (scripts/docs/tables.ts)`);
		found.add(name);
		return `${open}${generate()}\n${close}`;
	});
	const missing = Object.keys(regions).filter((name) => !found.has(name));
	if (missing.length > 0) throw new Error(`${page}: the region(s) ${missing.join(', ')} are missing`);
	return written;
}

/** Each page with generated regions: its text as it is, and as the code would write it. */
export function generatedPages(root = REPO_ROOT): Array<{ page: string; current: string; generated: string }> {
	return Object.keys(REGIONS).map((page) => {
		const current = readFileSync(join(root, page), 'utf8');
		return { page, current, generated: generatedPage(page, current) };
	});
}

if (require.main === module) {
	for (const { page, current, generated } of generatedPages()) {
		if (generated === current) continue;
		writeFileSync(join(REPO_ROOT, page), generated);
		console.log(`wrote ${page}`);
	}
}
