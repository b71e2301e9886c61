/**
 * The memory structures of Dataset → Compare on their own: the name table, the kept records, the
 * streaming hash, and pass 3's look at raw lines (lineSelector) and at the spool (replay). (The
 * operation itself is tested over HTTP in compare.test.ts.)
 */
import type { IDataObject } from 'n8n-workflow';

import { DomainTable, NOT_FOUND } from '../../../nodes/DomainData/helpers/compare/domainTable';
import { hash64, Hasher64 } from '../../../nodes/DomainData/transport';
import { KeptRecords } from '../../../nodes/DomainData/helpers/compare/domainTable';
import { diffField, hashCompared } from '../../../nodes/DomainData/helpers/compare/recordDiff';
import { lineSelector } from '../../../nodes/DomainData/helpers/compare';
import { Comparison, createCompareStats, readableName } from '../../../nodes/DomainData/helpers/compare/comparison';
import type { CompareSpec } from '../../../nodes/DomainData/helpers/compare';
import type { DomainDataFunctions } from '../../../nodes/DomainData/transport';
import { DomainSet } from '../../../nodes/DomainData/helpers/domainSet';

const zero = () => ({ hi: 0, lo: 0 });
const UNBOUNDED = { maxBytes: 1 << 30, tooLarge: () => new Error('too large') };

describe('DomainTable', () => {
	it('finds every name it holds through its hash table, and no other', () => {
		const table = new DomainTable();
		const names = Array.from({ length: 50_000 }, (_, i) => `site-${(i * 7919) % 50_000}.example`);
		names.forEach((name, i) => table.add(name, zero(), i + 1, 0));
		expect(table.index()).toBe(0);
		for (let i = 0; i < names.length; i += 97) expect(table.find(names[i])).toBe(i);
		expect(table.find('not-there.example')).toBe(NOT_FOUND);
	});

	it('tells whether an ordinal holds a name, and finds a name given as a part of a text', () => {
		const table = new DomainTable();
		for (const name of ['a.com', 'b.com', 'c.com']) table.add(name, zero(), 1, 0);
		table.index();
		const text = 'xx b.com yy';
		expect(table.holds(1, text, 3, 8)).toBe(true);
		expect(table.holds(0, text, 3, 8)).toBe(false);
		expect(table.holds(3, text, 3, 8)).toBe(false);
		expect(table.holds(-1, text, 3, 8)).toBe(false);
		expect(table.find(text, 3, 8)).toBe(1);
		expect(table.find(text, 3, 7)).toBe(NOT_FOUND);
	});

	it('counts names listed twice', () => {
		const table = new DomainTable();
		for (const name of ['a.com', 'b.com', 'a.com', 'c.com', 'b.com']) table.add(name, zero(), 1, 0);
		expect(table.index()).toBe(2);
	});
});

describe('KeptRecords', () => {
	it('keeps JSON by ordinal across chunks, a record larger than a chunk too, and compacts after deletes', () => {
		const kept = new KeptRecords(10, UNBOUNDED);
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
		expect([kept.get(1), kept.get(4), kept.get(7)]).toEqual([
			'{"name":"a.example","title":"Café – 東京 🚀"}',
			undefined,
			'{"name":"c.example"}',
		]);
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

	it('hashes a list of strings apart from a list holding other values, as diffField tells them apart', () => {
		const hash = (technologies: unknown[]) => hashCompared({ technologies }, ['technologies'], new Hasher64(), zero());
		expect(hash(['1', 'x'])).not.toEqual(hash([1, 'x']));
		expect(diffField('technologies', ['1', 'x'], [1, 'x'])).toBeDefined();
		expect(hash([{ b: 1, a: 2 }, 'x', { a: 2, b: 1 }])).toEqual(hash(['x', { a: 2, b: 1 }]));
		expect(diffField('technologies', [{ b: 1, a: 2 }, 'x'], ['x', { a: 2, b: 1 }])).toBeUndefined();
		expect(hash(['a', 'b'])).not.toEqual(hash(['ab']));
		expect(hash([])).toEqual(hash(null as unknown as unknown[]));
	});

	it('compares objects alike whatever their key order (sorted keys take the native path), a missing member as null', () => {
		const hash = (dns: unknown) => hashCompared({ dns } as IDataObject, ['dns'], new Hasher64(), zero());
		const sorted = { a: ['1.2.3.4'], mx: [], ns: [{ host: 'x', at: 1 }] };
		const shuffled = { ns: [{ at: 1, host: 'x' }], mx: [], a: ['1.2.3.4'] };
		expect(diffField('dns', sorted, shuffled)).toBeUndefined();
		expect(hash(sorted)).toEqual(hash(shuffled));
		expect(diffField('dns', { a: null, b: 1 }, { a: undefined, b: 1 })).toBeUndefined();
		expect(diffField('dns', { a: null, b: 1 }, { b: 1 })).toBeDefined();
		expect(hash({ 10: 'x', 9: 'y' })).toEqual(hash({ 9: 'y', 10: 'x' }));
		expect(diffField('dns', { 10: 'x', 9: 'y' }, { 9: 'y', 10: 'z' })).toEqual({
			from: { 10: 'x', 9: 'y' },
			to: { 9: 'y', 10: 'z' },
		});
	});

	it('hashes two values alike exactly when diffField finds them equal (random values, keys in any order)', () => {
		let state = 11;
		const next = (below: number) => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 8) % below;
		const value = (depth: number): unknown => {
			const kind = next(depth > 2 ? 4 : 6);
			if (kind === 0) return ['a', 'b', '1', ''][next(4)];
			if (kind === 1) return [0, 1, -1.5, 1e21][next(4)];
			if (kind === 2) return [null, true, false][next(3)];
			if (kind === 3) return undefined;
			if (kind === 4) return Array.from({ length: next(3) }, () => value(depth + 1));
			const keys = ['x', 'y', '10', '9'].filter(() => next(2) === 1);
			return Object.fromEntries(keys.map((key) => [key, value(depth + 1)]));
		};
		const shuffled = (entry: unknown): unknown => {
			if (Array.isArray(entry)) return entry.map(shuffled);
			if (entry === null || typeof entry !== 'object') return entry;
			return Object.fromEntries(
				Object.entries(entry)
					.reverse()
					.map(([key, member]) => [key, shuffled(member)]),
			);
		};
		const hash = (dns: unknown) => hashCompared({ dns } as IDataObject, ['dns'], new Hasher64(), zero());
		for (let sample = 0; sample < 3000; sample++) {
			const [first, second] = [value(0), value(0)];
			expect(hash(shuffled(first))).toEqual(hash(first));
			const equal = diffField('dns', first, second) === undefined;
			expect([first, second, equal]).toEqual([first, second, hash(first).hi === hash(second).hi]);
		}
	});

	it('hashes a value apart from the same text split differently between fields', () => {
		const hash = (record: IDataObject) => hashCompared(record, ['title', 'country_code'], new Hasher64(), zero());
		expect(hash({ title: 'ab', country_code: 'c' })).not.toEqual(hash({ title: 'a', country_code: 'bc' }));
	});
});

/** `lines` as one text, and the range of each line in it. */
function ranges(lines: string[]): { text: string; at: Array<[number, number]> } {
	const text = lines.join('\n') + '\n';
	const at: Array<[number, number]> = [];
	let start = 0;
	for (const line of lines) {
		at.push([start, start + line.length]);
		start += line.length + 1;
	}
	return { text, at };
}

function parses(line: string): boolean {
	try {
		JSON.parse(line);
		return true;
	} catch {
		return false;
	}
}

describe('lineSelector reads a name from a raw line only where JSON.parse would read the same', () => {
	// [what, line, the name read from the raw line, or undefined where the line must be parsed (wanted)]
	const cases: Array<[string, string, string | undefined]> = [
		["the service's shape", '{"name":"example.com","title":"Example"}', 'example.com'],
		['a name in Unicode', '{"name":"münchen.de","title":"x"}', 'münchen.de'],
		['an escaped name', '{"name":"example\\u002ecom","title":"x"}', undefined],
		['an escaped quote in the name', '{"name":"a\\"b.com"}', undefined],
		['other key order', '{"title":"x","name":"example.com"}', undefined],
		['whitespace before the key', '{ "name":"example.com"}', undefined],
		['whitespace around the colon', '{"name" : "example.com"}', undefined],
		['a name that is no string', '{"name":42}', undefined],
		['an empty name', '{"name":"","title":"x"}', undefined],
		['a control character in the name', '{"name":"exa\tmple.com"}', undefined],
		['the key repeated (JSON.parse takes the last)', '{"name":"a.com","title":"x","name":"b.com"}', undefined],
		// A later "name" does not matter when the first one is pass 1's name at that place (JSON.parse gave it).
		['the key again in a nested object', '{"name":"a.com","dns":{"name":"ns1"}}', 'a.com'],
		['"name" as a value later', '{"name":"a.com","title":"name"}', 'a.com'],
		['a line malformed after the name', '{"name":"a.com","ti', 'a.com'],
		['a name that does not end in its line', '{"name":"a.com', undefined],
		['a blank line', '', undefined],
	];

	it.each(cases)('%s', (_what, line, read) => {
		// Pass 1's table holds the names JSON.parse gives (for a line malformed after the name: the name it had).
		const parsed = parses(line) ? (JSON.parse(line) as { name?: unknown }).name : undefined;
		const names = ['before.com', read ?? (typeof parsed === 'string' && parsed ? parsed : 'other.com'), 'after.com'];
		const domains = new DomainTable();
		for (const name of names) domains.add(name, zero(), 1, 0);
		domains.index();
		const { text, at } = ranges(['{"name":"before.com"}', line, '{"name":"after.com","x":"\\"name\\""}']);
		const asked: number[] = [];
		const select = lineSelector(domains, (ordinal) => {
			asked.push(ordinal);
			return ordinal === 1;
		});
		const answers = at.map(([start, end]) => select(text, start, end));
		if (read === undefined) {
			// Undecidable from the raw text: wanted, so the caller parses it and decides.
			expect(answers).toEqual([false, true, false]);
			expect(asked).not.toContain(1);
		} else {
			// Read from the raw text: decided by the table, and JSON.parse reads the same name where it can.
			expect(answers).toEqual([false, true, false]);
			expect(asked).toEqual([0, 1, 2]);
			expect(domains.find(read)).toBe(1);
			if (parses(line)) expect(parsed).toBe(read);
		}
	});

	it('never reads past the end of its line', () => {
		const domains = new DomainTable();
		domains.add('a.com', zero(), 1, 0);
		domains.index();
		const { text, at } = ranges(['{"name":"a.com', '","title":"x"}']);
		// The quote that would close the name is in the next line: undecidable, so wanted (never "a.com" by ordinal).
		const asked: number[] = [];
		expect(lineSelector(domains, (ordinal) => (asked.push(ordinal), false))(text, ...at[0])).toBe(true);
		expect(asked).toEqual([]);
	});
});

describe('lineSelector: pass 3 decides on raw lines, parsing only what it cannot tell', () => {
	const NAMES = ['a.com', 'b.com', 'c.com', 'd.com', 'e.com'];
	function table(names = NAMES) {
		const domains = new DomainTable();
		for (const name of names) domains.add(name, zero(), 1, 0);
		domains.index();
		return domains;
	}

	it('answers by ordinal for lines in the order of pass 1, and looks up the others', () => {
		const needed = new Set([1, 3]);
		const seen: number[] = [];
		const select = lineSelector(table(), (ordinal) => {
			seen.push(ordinal);
			return needed.has(ordinal);
		});
		const { text, at } = ranges([
			'{"name":"a.com"}',
			'{"name":"b.com"}',
			'{"name":"z.com"}',
			'{"name":"d.com"}',
			'{"name":"c.com"}',
		]);
		expect(at.map(([start, end]) => select(text, start, end))).toEqual([false, true, false, true, false]);
		expect(seen).toEqual([0, 1, 3, 2]);
	});

	it('wants every line whose name it cannot read (the caller parses it), and a repeated key even where the name is known', () => {
		const select = lineSelector(table(), () => false);
		const { text, at } = ranges([
			'{"title":"x","name":"a.com"}',
			'{ "name": "b.com" }',
			'{"name":"c\\u002ecom"}',
			'{"name":"e.com","name":"c.com"}',
			'{"name":"e.com"}',
			'{"name":"d.com","ti',
		]);
		expect(at.map(([start, end]) => select(text, start, end))).toEqual([true, true, true, true, false, false]);
	});
});

describe('Comparison.replay: pass 3 from the spool, line n being ordinal n', () => {
	const utf8 = new TextEncoder();
	const files = [
		'{"name":"a.com","n":0}\n{"name":"b.com","n":1,"title":"é🚀"}\n',
		'{"name":"c.com","n":2}\n{"name":"d.com","n":12345678901234567890}\n{"name":"e.com","n":4}\n',
	];
	const replayed = async (needed: (ordinal: number) => boolean) => {
		const spool = {
			keep: async () => true,
			files: async function* () {
				for (const file of files) yield utf8.encode(file);
			},
		};
		const spec = { label: 'b', baseLabel: 'a', fields: ['title'], kinds: new Set(), minRankMove: 1, spool };
		const run = new Comparison({} as DomainDataFunctions, spec as unknown as CompareSpec, createCompareStats());
		const batches: IDataObject[][] = [];
		for await (const batch of run.replay(needed)) batches.push(batch);
		return batches;
	};

	it('parses the needed lines of every file, in order, across files (first, last, a character of 4 bytes)', async () => {
		const batches = await replayed((ordinal) => ordinal !== 2);
		expect(batches.map((batch) => batch.map((record) => record.name))).toEqual([
			['a.com', 'b.com'],
			['d.com', 'e.com'],
		]);
		expect(batches[0][1].title).toBe('é🚀');
	});

	it('keeps an integer beyond 2^53 exact (as its digits), as pass 1 read it', async () => {
		const [[record]] = await replayed((ordinal) => ordinal === 3);
		expect(record).toEqual({ name: 'd.com', n: '12345678901234567890' });
	});

	it('asks about each ordinal once and yields nothing for a file without a needed line', async () => {
		const asked: number[] = [];
		const batches = await replayed((ordinal) => (asked.push(ordinal), ordinal === 4));
		expect(asked).toEqual([0, 1, 2, 3, 4]);
		expect(batches).toEqual([[{ name: 'e.com', n: 4 }]]);
	});
});

describe('readableName (the name of a line skipped as malformed)', () => {
	it('reads a complete name string in any shape, and nothing else', () => {
		expect(readableName('{"name":"a.com","ti')).toBe('a.com');
		expect(readableName('{ "title": "x", "name" : "b\\u002ecom", }')).toBe('b.com');
		expect(readableName('{"title":"B","nam')).toBeUndefined();
		expect(readableName('{"name":"cut.co')).toBeUndefined();
		expect(readableName('{"name":""}')).toBeUndefined();
		expect(readableName('{"name":123}')).toBeUndefined();
	});
});

describe('DomainSet as Compare uses it', () => {
	it('holds every name added across its growth, once each', () => {
		const names = new DomainSet();
		for (let i = 0; i < 20_000; i++) expect(names.add(`site-${i}.example`)).toBe(true);
		expect(names.add('site-7.example')).toBe(false);
		expect(names.size).toBe(20_000);
		for (let i = 0; i < 20_000; i += 37) expect(names.has(`site-${i}.example`)).toBe(true);
		expect(names.has('elsewhere.example')).toBe(false);
	});

	it('holds a name with a code unit above U+00FF exactly (a record of the service may hold one)', () => {
		const names = new DomainSet();
		expect(names.add('\u540d.example')).toBe(true);
		expect(names.add('\u540d.example')).toBe(false);
		expect(names.has('\u540d.example')).toBe(true);
		// The same low byte, another character.
		expect(names.has('\u550d.example')).toBe(false);
		expect(names.add('\u550d.example')).toBe(true);
		expect(names.nameAt(1)).toBe('\u550d.example');
		expect(names.add('plain.example')).toBe(true);
		expect(names.size).toBe(3);
	});
});
