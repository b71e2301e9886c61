/**
 * The simulator's data generation, without HTTP: reversible names, vocabulary rules, the byte-level
 * stream writer against the reference string form, snapshots and the filtered search engine.
 */
import { ByteChunk, chunkLineWriter } from '../../simulator/chunk-writer';
import { DomainIndex } from '../../simulator/domain-index';
import { ID_BASE } from '../../simulator/generator';
import { allLabelsOfSuffix, NameCodec } from '../../simulator/names';
import { splitInsideCharacters } from '../../simulator/ndjson';
import { Permutation } from '../../simulator/random';
import { lineBuilder, parseFields, pickFields } from '../../simulator/record-lines';
import { SearchEngine } from '../../simulator/search';
import { SnapshotRegistry } from '../../simulator/snapshots';
import { EMOJI, TEXTS } from '../../simulator/texts';
import { RECORD_FIELDS, DEFAULT_RECORD_FIELDS } from '../../simulator/types';
import {
	CATEGORY_LEAVES,
	FIRST_WORDS,
	LABEL_PATTERNS,
	PUBLIC_SUFFIXES,
	SECOND_WORDS,
	SUBDOMAINS,
	TECHNOLOGIES,
} from '../../simulator/vocabulary';

const SEED = 20250630;

describe('names', () => {
	test('word lists: lower case, no digits or hyphens, unique; pattern parts are not words', () => {
		for (const list of [FIRST_WORDS, SECOND_WORDS]) {
			expect(new Set(list).size).toBe(list.length);
			for (const word of list) expect(word).toMatch(/^\p{Ll}+$/u);
		}
		for (const pattern of LABEL_PATTERNS) {
			for (const part of [pattern.prefix, pattern.ending]) {
				if (part) expect([...FIRST_WORDS, ...SECOND_WORDS]).not.toContain(part);
			}
		}
		expect(PUBLIC_SUFFIXES.reduce((sum, s) => sum + s.patterns, 0)).toBe(64);
	});

	test('every label of the most common suffix is unique (so every name is)', () => {
		const labels = allLabelsOfSuffix(0);
		expect(labels.length).toBe(FIRST_WORDS.length * SECOND_WORDS.length * LABEL_PATTERNS.length);
		expect(new Set(labels).size).toBe(labels.length);
	});

	test('names parse back to their key, across blocks, subdomains and IDNs; other strings do not', () => {
		const codec = new NameCodec(SEED);
		let subdomains = 0;
		let idns = 0;
		const failures: string[] = [];
		for (let i = 0; i < 30_000; i++) {
			const key = (i * 2_654_435_761) % (codec.blockSize * 5);
			const identity = codec.identity(key);
			if (identity.subdomain) subdomains++;
			if (identity.name.includes('xn--')) idns++;
			if (codec.keyOf(identity.name) !== key || codec.keyOf(identity.name.toUpperCase()) !== key)
				failures.push(identity.name);
		}
		expect(failures).toEqual([]);
		expect(subdomains).toBeGreaterThan(1000);
		expect(idns).toBeGreaterThan(1000);
		const sample = codec.identity(12345);
		for (const wrong of [
			'',
			'com',
			'example.com',
			`${sample.name}.`,
			`x${sample.name}`,
			`www.${sample.tld1}`,
			`${sample.tld1.replace(/\.[^.]+$/, '.zz')}`,
			`a.b.${sample.tld1}`,
			'brightmarket01.com',
			'xn--.com',
		]) {
			if (wrong !== sample.name) expect(codec.keyOf(wrong)).toBeUndefined();
		}
		expect(SUBDOMAINS.length).toBeGreaterThan(3);
	});

	test('a different seed gives different names', () => {
		expect(new NameCodec(1).identity(0).name).not.toBe(new NameCodec(2).identity(0).name);
	});
});

describe('random', () => {
	test('Permutation is a bijection with an inverse, also on sizes that are not powers of two', () => {
		for (const size of [1, 7, 1000, 4096, 100_003]) {
			const permutation = new Permutation(size, 42);
			const seen = new Uint8Array(size);
			let wrong = 0;
			for (let i = 0; i < size; i++) {
				const value = permutation.apply(i);
				if (value >= size || permutation.invert(value) !== i) wrong++;
				else seen[value] = 1;
			}
			expect(wrong).toBe(0);
			expect(seen.every((v) => v === 1)).toBe(true);
		}
	});
});

describe('vocabulary needs no JSON escaping (the fast writers only add quotes)', () => {
	test('texts, topics, words, technologies, categories, emoji', () => {
		const pieces: string[] = [...FIRST_WORDS, ...SECOND_WORDS, ...TECHNOLOGIES, ...CATEGORY_LEAVES, ...EMOJI];
		for (const texts of Object.values(TEXTS))
			pieces.push(...texts.titles, ...texts.descriptions, ...texts.topics, ...texts.keywords);
		for (const piece of pieces) expect(JSON.stringify(piece)).toBe(`"${piece}"`);
	});
});

describe('snapshot drift', () => {
	const index = new DomainIndex(20_000, SEED);
	const registry = new SnapshotRegistry(SEED, 4);
	const [newest, previous] = registry.datasets().map((dataset) => registry.resolve(dataset.label)!);
	const byName = (snapshot: Parameters<DomainIndex['recordAt']>[1]) =>
		new Map(
			Array.from({ length: index.size }, (_, position) => index.recordAt(position, snapshot)).map((record) => [
				record.name,
				record,
			]),
		);

	test('two snapshots differ in a few percent of their common domains, in every drifting field, and reproducibly', () => {
		const newer = byName(newest);
		const older = byName(previous);
		const common = [...newer.keys()].filter((name) => older.has(name));
		const differing = (field: 'technologies' | 'title' | 'categories' | 'country_code' | 'language_code') =>
			common.filter((name) => JSON.stringify(newer.get(name)![field]) !== JSON.stringify(older.get(name)![field]))
				.length / common.length;
		expect(differing('technologies')).toBeGreaterThan(0.03);
		expect(differing('technologies')).toBeLessThan(0.07);
		for (const field of ['title', 'categories'] as const) {
			expect(differing(field)).toBeGreaterThan(0.012);
			expect(differing(field)).toBeLessThan(0.05);
		}
		expect(differing('country_code')).toBeGreaterThan(0.005);
		expect(differing('country_code')).toBeLessThan(0.03);
		expect(differing('language_code')).toBeGreaterThan(0.003);
		// Domains come and go too (about 3% each way), and fields that do not drift never change.
		expect(index.size - common.length).toBeGreaterThan(index.size * 0.03);
		expect(index.size - common.length).toBeLessThan(index.size * 0.09);
		expect(
			common.every(
				(name) =>
					newer.get(name)!.tld1 === older.get(name)!.tld1 &&
					JSON.stringify(newer.get(name)!.dns) === JSON.stringify(older.get(name)!.dns),
			),
		).toBe(true);
		// Deterministic per label: a second registry with the same seed gives the same records.
		const again = new SnapshotRegistry(SEED, 4).resolve(newest.label)!;
		for (let position = 0; position < index.size; position += 97)
			expect(index.recordAt(position, again)).toEqual(index.recordAt(position, newest));
	});

	test('adopting or dropping a technology changes one entry; the live index does not drift', () => {
		const newer = byName(newest);
		const older = byName(previous);
		let adopted = 0;
		let dropped = 0;
		for (const [name, record] of newer) {
			const before = older.get(name);
			if (!before || JSON.stringify(before.technologies) === JSON.stringify(record.technologies)) continue;
			const added = record.technologies.filter((tech) => !before.technologies.includes(tech));
			const removed = before.technologies.filter((tech) => !record.technologies.includes(tech));
			expect(added.length + removed.length).toBeLessThanOrEqual(2);
			if (added.length > removed.length) adopted++;
			if (removed.length > added.length) dropped++;
		}
		expect(adopted).toBeGreaterThan(50);
		expect(dropped).toBeGreaterThan(50);
		for (let rank = 1; rank <= 2000; rank += 13) {
			const live = index.domainAt(rank);
			expect(index.recordAt(rank - 1)).toMatchObject({
				name: live.name,
				title: live.title,
				technologies: live.technologies ?? [],
			});
		}
	});
});

describe('stream lines', () => {
	const index = new DomainIndex(5000, SEED);
	const registry = new SnapshotRegistry(SEED, 4);

	test('the byte writer produces exactly the bytes of the reference line, for every field and snapshot', () => {
		const selections = [
			DEFAULT_RECORD_FIELDS,
			RECORD_FIELDS,
			['name'],
			['technologies', 'meta_description', 'title'],
		] as const;
		for (const label of ['live', ...registry.datasets().map((d) => d.label)]) {
			const snapshot = label === 'live' ? undefined : registry.resolve(label);
			for (const fields of selections) {
				const parsed = parseFields(fields.join(','));
				if (!parsed.ok) throw new Error(parsed.message);
				const bytes = chunkLineWriter(index.generator, parsed.fields);
				const text = lineBuilder(index.generator, parsed.fields);
				const chunk = new ByteChunk(64);
				let expected = '';
				for (let position = 0; position < 5000; position += label === 'live' ? 1 : 7) {
					const key = index.keyAt(position, snapshot);
					bytes(key, position + 1, chunk, snapshot?.salt);
					chunk.byte(10);
					const line = text(key, position + 1, snapshot?.salt);
					expected += `${line}\n`;
					if (position % 50 === 0)
						expect(JSON.parse(line)).toEqual(pickFields(index.recordAt(position, snapshot), parsed.fields));
				}
				expect(chunk.take().toString('utf8')).toBe(expected);
			}
		}
	});

	test('splitInsideCharacters cuts inside multi-byte characters and loses nothing', () => {
		const buffer = Buffer.from('abc – münchen 東京 🚀 end'.repeat(20));
		const pieces = splitInsideCharacters(buffer, 4);
		expect(pieces.length).toBe(5);
		expect(Buffer.concat(pieces).equals(buffer)).toBe(true);
		for (const piece of pieces.slice(0, -1)) expect(piece[piece.length - 1] & 0xc0).toBe(0xc0);
		expect(splitInsideCharacters(Buffer.from('plain ascii'), 4).length).toBe(2);
	});
});

describe('snapshots', () => {
	test('weekly default labels, validation, next label, ids by seed and label', () => {
		const registry = new SnapshotRegistry(SEED, 3);
		expect(registry.datasets().map((d) => d.label)).toEqual(['2025-06-30', '2025-06-23', '2025-06-16']);
		expect(registry.add().label).toBe('2025-07-07');
		expect(() => registry.add('2025-02-30')).toThrow();
		expect(() => registry.add('2025-07-07')).toThrow();
		const added = registry.add('2024-01-01');
		expect(registry.datasets().pop()).toEqual(added);
		expect(registry.resolve(added.value)?.label).toBe('2024-01-01');
		registry.reset();
		expect(registry.datasets()).toHaveLength(3);
		expect(new SnapshotRegistry(SEED, 3).datasets()).toEqual(registry.datasets());
		expect(new SnapshotRegistry(1, 3).datasets()[0].value).not.toBe(registry.datasets()[0].value);
		const empty = new SnapshotRegistry(SEED, 0);
		expect(empty.resolve('latest')).toBeUndefined();
		expect(empty.add().label).toBe('2025-06-30');
	});

	test('every snapshot is a permutation-with-churn of the live index: same size, unique names', () => {
		const index = new DomainIndex(1000, SEED);
		const registry = new SnapshotRegistry(SEED, 2);
		const snapshot = registry.resolve('latest');
		const keys = Array.from({ length: 1000 }, (_, p) => index.keyAt(p, snapshot));
		expect(new Set(keys).size).toBe(1000);
		const replaced = keys.filter((k) => k % 2 === 1).length;
		expect(replaced).toBeGreaterThan(5);
		expect(replaced).toBeLessThan(100);
		for (let p = 0; p < 1000; p++) expect(Math.abs(Math.floor(keys[p] / 2) - p)).toBeLessThan(32);
	});
});

describe('search engine', () => {
	test('filtered totals and pages on a large index; ids stay above the largest rank', () => {
		const index = new DomainIndex(200_000, SEED);
		const engine = new SearchEngine(index);
		const first = engine.search({ pageSize: 1000, filters: { technology: 'Shopify' } });
		if (!first.ok) throw new Error(first.message);
		expect(first.value.total).toBeGreaterThan(10_000);
		expect(first.value.results.every((d) => d.technologies?.includes('Shopify'))).toBe(true);
		const rare = engine.search({ pageSize: 10, filters: { tld1: index.domainAt(150_000).tld1 } });
		if (!rare.ok) throw new Error(rare.message);
		expect(rare.value.total).toBe(1);
		expect(rare.value.results.map((d) => d.rank)).toEqual([150_000]);
		expect(rare.value.search_after).toBeUndefined();
		const cursor = first.value.search_after as [number, number];
		const next = engine.search({ pageSize: 5, searchAfter: cursor, filters: { technology: 'Shopify' } });
		if (!next.ok) throw new Error(next.message);
		expect(next.value.results[0].rank).toBeGreaterThan(cursor[0]);
		expect(index.domainAt(1).id).toBeGreaterThanOrEqual(ID_BASE);
	});
});
