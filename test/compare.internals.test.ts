/**
 * The memory structures of Dataset → Compare on their own: the name table, the kept records and the
 * streaming hash. (The operation itself is tested over HTTP in dataset.compare.test.ts.)
 */
import type { IDataObject } from 'n8n-workflow';

import { DomainTable, NOT_FOUND } from '../nodes/DomainData/helpers/domainTable';
import { hash64, Hasher64 } from '../nodes/DomainData/helpers/hash64';
import { KeptRecords } from '../nodes/DomainData/helpers/keptRecords';
import { hashCompared } from '../nodes/DomainData/helpers/recordDiff';

const zero = () => ({ hi: 0, lo: 0 });

describe('DomainTable', () => {
	it('finds every name it holds through its hash table, and no other', () => {
		const table = new DomainTable();
		const names = Array.from({ length: 50_000 }, (_, i) => `site-${(i * 7919) % 50_000}.example`);
		names.forEach((name, i) => table.add(name, zero(), i + 1, 0));
		expect(table.index()).toBe(0);
		for (let i = 0; i < names.length; i += 97) expect(table.find(names[i])).toBe(i);
		expect(table.find('not-there.example')).toBe(NOT_FOUND);
	});

	it('counts names listed twice', () => {
		const table = new DomainTable();
		for (const name of ['a.com', 'b.com', 'a.com', 'c.com', 'b.com']) table.add(name, zero(), 1, 0);
		expect(table.index()).toBe(2);
	});
});

describe('KeptRecords', () => {
	it('keeps JSON by ordinal across chunks, a record larger than a chunk too, and compacts after deletes', () => {
		const kept = new KeptRecords(10);
		const big = JSON.stringify({ name: 'big.example', title: 'Ünïcode – '.repeat(200_000) });
		kept.set(1, '{"name":"a.example","title":"Café – 東京 🚀"}');
		kept.set(4, big);
		kept.set(7, '{"name":"c.example"}');
		expect(kept.size).toBe(3);
		expect(kept.get(4)).toBe(big);
		expect(kept.get(1)).toBe('{"name":"a.example","title":"Café – 東京 🚀"}');
		kept.delete(4);
		const before = kept.byteLength;
		kept.compact();
		expect(kept.byteLength).toBeLessThan(before);
		expect(kept.ordinals()).toEqual([1, 7]);
		expect([kept.get(1), kept.get(4), kept.get(7)]).toEqual(['{"name":"a.example","title":"Café – 東京 🚀"}', undefined, '{"name":"c.example"}']);
	});
});

describe('hashes', () => {
	it('hashing pieces gives the hash of their concatenation', () => {
		const pieces = hash64('ab' + 'cdé' + '\u0000', zero());
		expect(new Hasher64().text('ab').text('cdé').code(0).digest(zero())).toEqual(pieces);
	});

	it('hashes lists as sets and tells a string from other values', () => {
		const hash = (record: IDataObject) => hashCompared(record, ['technologies', 'title'], new Hasher64(), zero());
		expect(hash({ technologies: ['B', 'A', 'A'], title: 'x' })).toEqual(hash({ technologies: ['A', 'B'], title: 'x' }));
		expect(hash({ technologies: [], title: 'null' })).not.toEqual(hash({ technologies: [], title: null }));
		expect(hash({ technologies: ['A'], title: 'x' })).not.toEqual(hash({ technologies: ['A', 'B'], title: 'x' }));
	});
});
