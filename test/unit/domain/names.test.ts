/**
 * The pure helpers of the Domain resource: name normalisation, list splitting, field paths, the pool.
 * (Everything that talks HTTP is tested against the simulator in the other files of test/unit/domain/.)
 */
import { chunk, runPool } from '../../../nodes/DomainData/helpers/concurrency';
import { normalizeDomainName, splitDomainList } from '../../../nodes/DomainData/helpers/domainName';
import { getFieldValue, setFieldValue } from '../../../nodes/DomainData/actions/domain/enrich.operation';

describe('normalizeDomainName', () => {
	test.each([
		['example.com', 'example.com'],
		['  Example.COM  ', 'example.com'],
		['example.com.', 'example.com'],
		['https://www.example.com/a/b?c=d#e', 'example.com'],
		['http://user:secret@shop.example.co.uk:8080/x', 'shop.example.co.uk'],
		['ftp://files.example.org', 'files.example.org'],
		['custom+scheme://example.net/path', 'example.net'],
		['//example.com/path', 'example.com'],
		['example.com:443', 'example.com'],
		['jane.doe@Example.com', 'example.com'],
		['mailto:jane@example.com', 'example.com'],
		['münchen.de', 'xn--mnchen-3ya.de'],
		['https://www.münchen.de/', 'xn--mnchen-3ya.de'],
		['xn--mnchen-3ya.de', 'xn--mnchen-3ya.de'],
		['ＡＣＭＥ.com', 'acme.com'],
		['example.com/../historical/domain', 'example.com'],
		['example.com?x=/historical', 'example.com'],
		['example.com#/historical', 'example.com'],
		['www2.example.com', 'www2.example.com'],
		// As CRM and CSV exports and mail headers hold them (issue 37)
		['"example.com"', 'example.com'],
		["'example.com'", 'example.com'],
		['\u201cexample.com\u201d', 'example.com'],
		['(example.com)', 'example.com'],
		['<example.com>', 'example.com'],
		['("https://www.example.com/")', 'example.com'],
		['Jane Doe <jane@Example.com>', 'example.com'],
		['"Doe, Jane" <jane@example.com>', 'example.com'],
		['Jane (Sales) <mailto:jane@example.com>', 'example.com'],
		['<mailto:jane@münchen.de>', 'xn--mnchen-3ya.de'],
	])('%j -> %s', (input, expected) => {
		expect(normalizeDomainName(input)).toEqual({ ok: true, name: expected });
	});

	test('www. is kept when asked to', () => {
		expect(normalizeDomainName('https://www.example.com', { removeWww: false })).toEqual({
			ok: true,
			name: 'www.example.com',
		});
		// www.com itself is a name, not a prefix
		expect(normalizeDomainName('www.com')).toEqual({ ok: true, name: 'www.com' });
	});

	test.each([
		['', 'it is empty'],
		['   ', 'it is empty'],
		[undefined, 'it is empty'],
		[null, 'it is empty'],
		[42, 'not text'],
		[['a.com'], 'list'],
		['localhost', 'at least two parts'],
		['../historical/domain', 'not a valid domain name'],
		['..', 'not a valid domain name'],
		['a/b', 'at least two parts'],
		['x?y', 'at least two parts'],
		['#', 'not a domain name'],
		['a%2Fb.com', 'not a domain name'],
		['acme inc.com', 'not a domain name'],
		['1.2.3.4', 'IP address'],
		['http://[::1]/', 'IP address'],
		['-bad.com', 'not a valid domain name'],
		['under_score.com', 'not a valid domain name'],
		['example.123', 'not a domain name'],
		['a'.repeat(64) + '.com', 'not a valid domain name'],
		['jane@', 'not a domain name'],
		['.', 'holds no domain name'],
		['<>', 'holds no domain name'],
		['""', 'holds no domain name'],
		['Jane Doe <>', 'holds no domain name'],
		['"acme inc.com"', 'not a domain name'],
		['(example.com', 'not a valid domain name'],
		['<jane@example.com> Jane', 'not a domain name'],
	])('%j is rejected (%s)', (input, reason) => {
		const result = normalizeDomainName(input);
		expect(result.ok).toBe(false);
		expect(result.ok ? '' : result.reason).toContain(reason);
	});
});

describe('splitDomainList', () => {
	test('commas, spaces, semicolons and new lines; arrays (nested) from expressions', () => {
		expect(splitDomainList('a.com, b.com\nc.com  d.com;e.com\r\n,')).toEqual([
			'a.com',
			'b.com',
			'c.com',
			'd.com',
			'e.com',
		]);
		expect(splitDomainList(['a.com', 'b.com c.com', ['d.com'], null, ''])).toEqual([
			'a.com',
			'b.com',
			'c.com',
			'd.com',
		]);
		expect(splitDomainList(undefined)).toEqual([]);
		expect(splitDomainList([1, 'a.com'])).toEqual([1, 'a.com']);
	});

	test('Name <email> forms stay one entry each, mixed with names, quotes and parentheses (issue 37)', () => {
		const text =
			'Jane Doe <jane@a.com>, "Doe, John" <john@b.com>; c.com d.com\n<e@e.com> Acme Inc. <info@f.com> "g.com" (h.com)';
		const entries = splitDomainList(text);
		expect(entries).toEqual([
			'Jane Doe <jane@a.com>',
			'"Doe, John" <john@b.com>',
			'c.com',
			'd.com',
			'<e@e.com>',
			'Acme Inc. <info@f.com>',
			'"g.com"',
			'(h.com)',
		]);
		const names = entries.map((entry) => normalizeDomainName(entry));
		expect(names.map((name) => (name.ok ? name.name : name.reason))).toEqual([
			'a.com',
			'b.com',
			'c.com',
			'd.com',
			'e.com',
			'f.com',
			'g.com',
			'h.com',
		]);
	});

	test('a list separated by spaces loses no name to a display name; a word that is none is its own entry', () => {
		expect(splitDomainList('a.com b.com Jane <jane@c.com>')).toEqual(['a.com', 'b.com', 'Jane <jane@c.com>']);
		expect(splitDomainList(['x.com', 'Sales at acme.de <sales@acme.de>'])).toEqual([
			'x.com',
			'Sales',
			'at',
			'acme.de',
			'<sales@acme.de>',
		]);
		// A `<` that opens nothing and text without `<` split as before.
		expect(splitDomainList('a.com < b.com')).toEqual(['a.com', '<', 'b.com']);
		expect(splitDomainList('"Doe, Jane"')).toEqual(['"Doe', 'Jane"']);
	});
});

describe('field paths', () => {
	const json = { website: 'a.com', company: { site: 'b.com', list: [{ url: 'c.com' }] }, 'flat.key': 'd.com' };

	test('reads names, dot paths, indexes, and keys that hold dots', () => {
		expect(getFieldValue(json, 'website')).toBe('a.com');
		expect(getFieldValue(json, 'company.site')).toBe('b.com');
		expect(getFieldValue(json, 'company.list[0].url')).toBe('c.com');
		expect(getFieldValue(json, 'flat.key')).toBe('d.com');
		expect(getFieldValue(json, 'company.missing')).toBeUndefined();
		expect(getFieldValue(json, 'website.length')).toBeUndefined();
		expect(getFieldValue(json, 'constructor')).toBeUndefined();
	});

	test('writes without changing the input', () => {
		const before = JSON.stringify(json);
		const out = setFieldValue(json, 'company.data', { x: 1 });
		expect(out.company).toEqual({ site: 'b.com', list: [{ url: 'c.com' }], data: { x: 1 } });
		expect(JSON.stringify(json)).toBe(before);
		expect(setFieldValue(json, 'domainData', 1).domainData).toBe(1);
		expect(setFieldValue(json, 'website.data', 2).website).toEqual({ data: 2 });
	});
});

describe('bounded pool', () => {
	test('never more than the limit at once, every task once, in any completion order', async () => {
		let running = 0;
		let peak = 0;
		const started: number[] = [];
		const values: number[] = [];
		const outcome = await runPool(9, 2, async (index) => {
			started.push(index);
			running++;
			peak = Math.max(peak, running);
			await new Promise((resolve) => setImmediate(resolve));
			running--;
			values[index] = index * 10;
		});
		expect(peak).toBe(2);
		expect(started.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
		expect(values).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80]);
		expect(outcome.notDone).toEqual([]);
	});

	test('after a failure no new task starts; the outcome names what did not complete', async () => {
		const started: number[] = [];
		const outcome = await runPool(6, 2, async (index) => {
			started.push(index);
			await new Promise((resolve) => setImmediate(resolve));
			if (index === 1) throw new Error('boom');
			return index;
		});
		expect((outcome.error as Error).message).toBe('boom');
		expect(started.length).toBeLessThanOrEqual(3);
		expect(outcome.notDone).toEqual([0, 1, 2, 3, 4, 5].filter((i) => i === 1 || !started.includes(i)));
		expect(outcome.notDone).toContain(5);
	});

	test('a task in trouble holds back new tasks until it settles; goOnAfter lets the pool go on after a failure', async () => {
		const events: string[] = [];
		const values: Array<number | undefined> = [undefined, undefined, undefined, undefined];
		const tick = () => new Promise((resolve) => setImmediate(resolve));
		const outcome = await runPool(4, { limit: 2, goOnAfter: () => true }, async (index, control) => {
			events.push(`start ${index}`);
			await tick();
			if (index !== 0) {
				values[index] = index;
				return;
			}
			control.holdOthers();
			// task 1 finishes meanwhile; its worker must wait instead of starting task 2
			for (let i = 0; i < 5; i++) await tick();
			events.push('fail 0');
			throw new Error('boom');
		});
		expect(events).toEqual(['start 0', 'start 1', 'fail 0', 'start 2', 'start 3']);
		expect(values).toEqual([undefined, 1, 2, 3]);
		expect([...outcome.failures.keys()]).toEqual([0]);
		expect(outcome.stoppedBy).toBeUndefined();
		expect(outcome.notDone).toEqual([0]);
	});

	test('chunk', () => {
		expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
		expect(chunk([], 100)).toEqual([]);
	});
});
