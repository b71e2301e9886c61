/**
 * What Dataset → Compare holds per domain of the newer snapshot, measured in-process on the node's own structures:
 * the table of pass 1 (hashes of the name, the compared values and the line, flags, the rank when it is read), in
 * typed arrays that double as they fill, its name index (open addressing at ≥ 1.5 slots a name) and the kept-record
 * slots that pass 2 allocates for every domain (chunk, offset, length). The kept records themselves grow with the
 * changes, not with the snapshot, and are not counted. Figures: the Buffers and typed arrays the process holds
 * after a full garbage collection (`process.memoryUsage().arrayBuffers`), over the number of domains.
 *
 *   node --expose-gc -r ts-node/register/transpile-only bench/compare-memory.ts          1,000,000 and 5,000,000
 *   node --expose-gc -r ts-node/register/transpile-only bench/compare-memory.ts 300000   any sizes
 *
 * docs/performance.md states the result (Compare's memory per domain); every other page links there.
 */
import { parseArgs } from 'node:util';

import { DomainTable } from '../nodes/DomainData/helpers/compare/domainTable';
import { KeptRecords } from '../nodes/DomainData/helpers/compare/domainTable';
import { formatNumber } from './lib/stats';

const collect = (): void => {
	if (typeof global.gc !== 'function') throw new Error('Run with node --expose-gc (see the usage above).');
	global.gc();
	global.gc();
};

function bytesPerDomain(domains: number, keepsRank: boolean): number {
	collect();
	const before = process.memoryUsage().arrayBuffers;
	const table = new DomainTable(keepsRank);
	const values = { hi: 0, lo: 0 };
	for (let ordinal = 0; ordinal < domains; ordinal++) {
		const name = `site-${ordinal}.example`;
		const line = `{"name":"${name}","title":"Site ${ordinal}"}`;
		table.stageLine(line, 0, line.length);
		values.hi = ordinal;
		values.lo = ordinal ^ 0x5bd1e995;
		table.add(name, values, ordinal + 1, 0);
	}
	if (table.index() !== 0) throw new Error('Names were not distinct');
	const kept = new KeptRecords(table.count, { maxBytes: 1, tooLarge: () => new Error('unused') });
	collect();
	const held = process.memoryUsage().arrayBuffers - before;
	// Keep both alive until measured.
	if (table.count !== domains || kept.size !== 0) throw new Error('Unexpected table');
	return held / domains;
}

const USAGE = 'Usage: node --expose-gc -r ts-node/register/transpile-only bench/compare-memory.ts [domains ...]';

/** The numbers of domains to measure: the arguments, each a whole number of 1 or more; no flags. */
function sizesOf(argv: string[]): number[] {
	let positionals: string[];
	try {
		({ positionals } = parseArgs({ args: argv, allowPositionals: true, strict: true, options: {} }));
	} catch (error) {
		throw new Error(`${(error as Error).message}\n${USAGE}`);
	}
	return positionals.map((text) => {
		const size = Number(text);
		if (!Number.isInteger(size) || size < 1)
			throw new Error(`A size is a whole number of domains, not ${text}.\n${USAGE}`);
		return size;
	});
}

function main(): void {
	const sizes = sizesOf(process.argv.slice(2));
	const rows = [];
	for (const domains of sizes.length ? sizes : [1_000_000, 5_000_000]) {
		const plain = bytesPerDomain(domains, false);
		const withRank = bytesPerDomain(domains, true);
		rows.push(
			`${formatNumber(domains)} domains: ${formatNumber(plain, 1)} bytes a domain ` +
				`(${formatNumber((plain * domains) / 1e6, 1)} MB); rank compared or filtered: ` +
				`${formatNumber(withRank, 1)} bytes a domain (${formatNumber((withRank * domains) / 1e6, 1)} MB)`,
		);
	}
	console.log(rows.join('\n'));
}

try {
	main();
} catch (error) {
	console.error(error instanceof Error ? error.message : error);
	process.exitCode = 1;
}
