/**
 * The NDJSON line splitter on its own: every way a body can be cut into chunks must give the same lines
 * and the same bytes.
 */
import {
	bytesPerLine,
	excerpt,
	type LineBlock,
	LineTooLongError,
	NdjsonLineSplitter,
} from '../../../nodes/DomainData/transport/ndjson';

const encoder = new TextEncoder();

/** The lines of a block, as text. */
const linesOf = (block: LineBlock) => Array.from({ length: block.count }, (_, index) => block.line(index));

/** Feeds `bytes` cut at the given positions; returns the lines and the bytes the splitter handed out. */
function split(bytes: Uint8Array, cuts: number[], splitter = new NdjsonLineSplitter()) {
	const lines: string[] = [];
	const pieces: Uint8Array[] = [];
	let start = 0;
	for (const cut of [...cuts, bytes.length]) {
		const block = splitter.push(bytes.subarray(start, cut));
		lines.push(...linesOf(block));
		pieces.push(...block.bytes);
		start = cut;
	}
	const last = splitter.end();
	lines.push(...linesOf(last));
	pieces.push(...last.bytes);
	return { lines, bytes: Buffer.concat(pieces).toString('utf8'), pieces };
}

// Two-, three- and four-byte characters, and a character right before each newline.
const RECORDS = [
	{ name: 'münchen.de', title: 'Café – Küche' },
	{ name: 'tokyo.jp', title: '東京のカフェ ☕' },
	{ name: 'emoji.com', title: 'Rocket 🚀 launch 🎉' },
	{ name: 'kyiv.ua', title: 'Київ — новини' },
];
const TEXT = RECORDS.map((record) => JSON.stringify(record)).join('\n') + '\n';
const BYTES = encoder.encode(TEXT);
const EXPECTED = RECORDS.map((record) => JSON.stringify(record));

describe('NdjsonLineSplitter', () => {
	it('gives the same lines and bytes for a chunk boundary at every byte position', () => {
		for (let cut = 0; cut <= BYTES.length; cut++) {
			const result = split(BYTES, [cut]);
			expect(result.lines).toEqual(EXPECTED);
			expect(result.bytes).toBe(TEXT);
		}
	});

	it('gives the same lines for every pair of chunk boundaries (each piece a few bytes)', () => {
		for (let first = 0; first <= BYTES.length; first += 3) {
			for (let second = first; second <= BYTES.length; second += 5) {
				expect(split(BYTES, [first, second]).lines).toEqual(EXPECTED);
			}
		}
	});

	it('gives the same lines when every byte is its own chunk', () => {
		const cuts = Array.from({ length: BYTES.length - 1 }, (_, index) => index + 1);
		const result = split(BYTES, cuts);
		expect(result.lines).toEqual(EXPECTED);
		expect(result.bytes).toBe(TEXT);
	});

	it('cuts inside every byte of a four-byte character without damaging it', () => {
		const text = '{"t":"🚀"}\n';
		const bytes = encoder.encode(text);
		const rocket = bytes.indexOf(0xf0);
		for (let cut = rocket; cut <= rocket + 4; cut++) {
			expect(split(bytes, [cut]).lines).toEqual(['{"t":"🚀"}']);
		}
	});

	it('removes the \\r of CRLF line endings from the lines and from the bytes', () => {
		const crlf = encoder.encode(EXPECTED.join('\r\n') + '\r\n');
		for (let cut = 0; cut <= crlf.length; cut += 1) {
			const result = split(crlf, [cut]);
			expect(result.lines).toEqual(EXPECTED);
			expect(result.bytes).toBe(TEXT);
		}
	});

	it('keeps a \\r that does not end a line in the bytes', () => {
		const bytes = encoder.encode('a\rb\nc\r\n');
		expect(split(bytes, []).bytes).toBe('a\rb\nc\n');
	});

	it('returns a last line without newline at the end, and adds the newline to the bytes', () => {
		const bytes = encoder.encode(EXPECTED.join('\n'));
		for (let cut = 0; cut <= bytes.length; cut += 7) {
			const result = split(bytes, [cut]);
			expect(result.lines).toEqual(EXPECTED);
			expect(result.bytes).toBe(TEXT);
		}
	});

	it('handles a last CRLF line without its \\n', () => {
		const result = split(encoder.encode('{"a":1}\r\n{"a":2}\r'), []);
		expect(result.lines).toEqual(['{"a":1}', '{"a":2}']);
		expect(result.bytes).toBe('{"a":1}\n{"a":2}\n');
	});

	it('reports blank lines as empty lines (the caller decides), and nothing for an empty body', () => {
		expect(split(encoder.encode('\n{"a":1}\n\n\r\n{"a":2}\n'), [3]).lines).toEqual(['', '{"a":1}', '', '', '{"a":2}']);
		expect(split(new Uint8Array(0), []).lines).toEqual([]);
	});

	it('joins a line far longer than the chunks once, without losing a byte', () => {
		const long = JSON.stringify({ text: 'é'.repeat(300_000) + '🚀'.repeat(50_000) });
		const bytes = encoder.encode(`{"a":1}\n${long}\n{"a":2}\n`);
		const cuts: number[] = [];
		for (let at = 1000; at < bytes.length; at += 1000) cuts.push(at);
		const result = split(bytes, cuts);
		expect(result.lines).toEqual(['{"a":1}', long, '{"a":2}']);
		expect(JSON.parse(result.lines[1]).text.length).toBe(300_000 + 100_000);
	});

	it('refuses a line longer than its limit, naming the limit', () => {
		const splitter = new NdjsonLineSplitter(2 * 1024 * 1024);
		const piece = new Uint8Array(1024 * 1024).fill(0x61);
		splitter.push(piece);
		splitter.push(piece);
		expect(() => splitter.push(piece)).toThrow(LineTooLongError);
		expect(() => new NdjsonLineSplitter(2 * 1024 * 1024).push(new Uint8Array(3 * 1024 * 1024))).toThrow(
			'longer than 2 MB',
		);
	});

	it('hands out each line as a range of a decoded text: the line carried over from earlier chunks in its own', () => {
		for (let cut = 1; cut < BYTES.length; cut += 5) {
			const splitter = new NdjsonLineSplitter();
			const first = splitter.push(BYTES.subarray(0, cut));
			const second = splitter.push(BYTES.subarray(cut));
			expect(first.head).toBeUndefined();
			const carried = BYTES[cut - 1] !== 0x0a;
			expect(second.head !== undefined).toBe(carried);
			const lines = [first, second].flatMap((block) =>
				Array.from({ length: block.count }, (_, index) =>
					block.textOf(index).slice(block.starts[index], block.ends[index]),
				),
			);
			expect(lines).toEqual(EXPECTED);
			if (carried) expect(second.head).toBe(second.line(0) + '\n');
			expect(second.anyText((text) => text.includes('🚀'))).toBe(
				lines.slice(first.count).some((line) => line.includes('🚀')),
			);
		}
	});

	it('hands out pieces that each end at a line end, which bytesPerLine splits into lines', () => {
		for (let cut = 0; cut <= BYTES.length; cut += 11) {
			const { pieces } = split(BYTES, [cut]);
			for (const piece of pieces) expect(piece[piece.length - 1]).toBe(0x0a);
			const perLine = bytesPerLine(pieces).map((line) => Buffer.from(line).toString('utf8'));
			expect(perLine).toEqual(EXPECTED.map((line) => line + '\n'));
		}
	});
});

describe('excerpt', () => {
	it('shortens long lines and flattens whitespace', () => {
		expect(excerpt('{"a":\t1}')).toBe('{"a": 1}');
		expect(excerpt('x'.repeat(100), 10)).toBe('xxxxxxxxxx…');
	});
});
