/**
 * Domain names as a reversible function of a domain key.
 *
 * A key is split into a block number n and an offset inside a block of size
 * |FIRST_WORDS| x |SECOND_WORDS| x 64 formats. The offset goes through a seeded bijection and is read as
 * mixed-radix digits (first word, second word, format = label pattern + public suffix). Keys past the
 * first block get the block number as a trailing digit group (brightmarket2.com). A seeded subset of
 * names get a subdomain (shop.brightmarket.com, whose tld1 is brightmarket.com), and labels built from a
 * non-ASCII word are stored in punycode (xn--...), as the DNS has them.
 *
 * `keyOf` parses a name back into its key in O(1) (a handful of map lookups), so lookups by name never
 * scan the index and the index is never held in memory.
 */
import { domainToASCII, domainToUnicode } from 'node:url';
import { hash3, Permutation } from './random';
import {
	FIRST_WORDS,
	LABEL_PATTERNS,
	PUBLIC_SUFFIXES,
	SECOND_WORDS,
	SUBDOMAINS,
	type LabelPattern,
	type PublicSuffix,
} from './vocabulary';

const NAME_SALT = 0x4e414d45;
const SUBDOMAIN_SALT = 0x53554244;
/** Share of names (per mille) that are a subdomain of their registrable domain. */
const SUBDOMAIN_PER_MILLE = 70;

/** One (label pattern, public suffix) pair; 64 of them, .com has every pattern. */
interface NameFormat {
	pattern: LabelPattern;
	suffixIndex: number;
}

/** Everything about a domain that follows from its name. */
export interface DomainIdentity {
	key: number;
	/** Host name as indexed: lower case, ASCII (punycode for IDN labels). */
	name: string;
	/** Registrable domain (label + public suffix), ASCII. */
	tld1: string;
	suffix: PublicSuffix;
	/** The two words (Unicode). */
	firstWord: string;
	secondWord: string;
	/** Indexes of the words in FIRST_WORDS / SECOND_WORDS. */
	firstIndex: number;
	secondIndex: number;
	/** The words capitalised, e.g. "Bright Market": the site's name in titles. */
	brand: string;
	/** Subdomain label or '' when the name is the registrable domain itself. */
	subdomain: string;
}

function buildFormats(): NameFormat[] {
	const formats: NameFormat[] = [];
	PUBLIC_SUFFIXES.forEach((suffix, suffixIndex) => {
		for (let i = 0; i < suffix.patterns; i++) formats.push({ pattern: LABEL_PATTERNS[i], suffixIndex });
	});
	return formats;
}

const FORMATS = buildFormats();
const FIRST_INDEX = new Map(FIRST_WORDS.map((word, index) => [word, index]));
const SECOND_INDEX = new Map(SECOND_WORDS.map((word, index) => [word, index]));
/** Suffixes longest first, so "co.uk" is tried before a shorter suffix could match. */
const SUFFIXES_BY_LENGTH = PUBLIC_SUFFIXES.map((suffix, index) => ({ suffix: suffix.suffix, index })).sort(
	(a, b) => b.suffix.length - a.suffix.length,
);
/** Format index by "suffixIndex|prefix|joiner|ending". */
const FORMAT_INDEX = new Map(
	FORMATS.map((format, index) => [
		`${format.suffixIndex}|${format.pattern.prefix}|${format.pattern.joiner}|${format.pattern.ending}`,
		index,
	]),
);
/** Bound once: a module-level binding avoids jest's slow global lookups in the hot path. */
const floor = Math.floor;
const FIRST_IS_ASCII = FIRST_WORDS.map((word) => /^[a-z]+$/.test(word));
export const FIRST_CAPITALISED = FIRST_WORDS.map(capitalise);
export const SECOND_CAPITALISED = SECOND_WORDS.map(capitalise);
/** Punycode conversions cost ~1 µs; recent IDN registrable names are cached, in a small bound (flat memory). */
const IDN_CACHE_LIMIT = 4096;

function capitalise(word: string): string {
	return word.charAt(0).toUpperCase() + word.slice(1);
}

export class NameCodec {
	/** Number of keys per block (names without a trailing number). */
	readonly blockSize = FIRST_WORDS.length * SECOND_WORDS.length * FORMATS.length;
	private readonly scatter: Permutation;
	private readonly idnCache = new Map<string, string>();

	constructor(private readonly seed: number) {
		this.scatter = new Permutation(this.blockSize, seed ^ NAME_SALT);
	}

	identity(key: number): DomainIdentity {
		const block = floor(key / this.blockSize);
		let digits = this.scatter.apply(key - block * this.blockSize);
		const first = digits % FIRST_WORDS.length;
		digits = (digits - first) / FIRST_WORDS.length;
		const second = digits % SECOND_WORDS.length;
		const format = FORMATS[(digits - second) / SECOND_WORDS.length];
		const { prefix, joiner, ending } = format.pattern;
		const suffix = PUBLIC_SUFFIXES[format.suffixIndex];
		const firstWord = FIRST_WORDS[first];
		const secondWord = SECOND_WORDS[second];
		const label = `${prefix}${firstWord}${joiner}${secondWord}${ending}${block > 0 ? block : ''}`;
		let tld1 = `${label}.${suffix.suffix}`;
		if (!FIRST_IS_ASCII[first]) tld1 = this.toAscii(tld1);
		const subHash = hash3(this.seed, key, SUBDOMAIN_SALT);
		const subdomain = subHash % 1000 < SUBDOMAIN_PER_MILLE ? SUBDOMAINS[(subHash >>> 10) % SUBDOMAINS.length] : '';
		const brand = `${FIRST_CAPITALISED[first]} ${SECOND_CAPITALISED[second]}`;
		return {
			key,
			name: subdomain ? `${subdomain}.${tld1}` : tld1,
			tld1,
			suffix,
			firstWord,
			secondWord,
			firstIndex: first,
			secondIndex: second,
			brand,
			subdomain,
		};
	}

	private toAscii(unicodeName: string): string {
		let ascii = this.idnCache.get(unicodeName);
		if (ascii === undefined) {
			ascii = domainToASCII(unicodeName);
			if (this.idnCache.size >= IDN_CACHE_LIMIT) this.idnCache.clear();
			this.idnCache.set(unicodeName, ascii);
		}
		return ascii;
	}

	/** The key whose name is `name` (exactly, after lower-casing), or undefined. */
	keyOf(name: string): number | undefined {
		const lower = name.toLowerCase();
		return this.parse(lower, 2, (identity) => identity.name === lower);
	}

	/**
	 * The key whose registrable domain is `tld1` (a name with a subdomain, shop.x.com, shares the tld1
	 * x.com of its own key, so at most one key has a given tld1). O(1), used by the tld1 search filter.
	 */
	keyOfRegistrable(tld1: string): number | undefined {
		const lower = tld1.toLowerCase();
		return this.parse(lower, 1, (identity) => identity.tld1 === lower);
	}

	private parse(lower: string, maxLabels: number, confirm: (identity: DomainIdentity) => boolean): number | undefined {
		if (lower.length === 0 || lower.length > 253) return undefined;
		const unicode = lower.includes('xn--') ? domainToUnicode(lower) : lower;
		if (!unicode) return undefined;
		for (const { suffix, index } of SUFFIXES_BY_LENGTH) {
			if (!unicode.endsWith(`.${suffix}`)) continue;
			const host = unicode.slice(0, unicode.length - suffix.length - 1).split('.');
			if (host.length > maxLabels) continue;
			for (const key of this.labelCandidates(host[host.length - 1], index)) {
				if (confirm(this.identity(key))) return key;
			}
		}
		return undefined;
	}

	/** Keys whose label (without subdomain) could be `label`; the caller confirms by regenerating. */
	private labelCandidates(label: string, suffixIndex: number): number[] {
		const digits = /[0-9]+$/.exec(label);
		let block = 0;
		let core = label;
		if (digits) {
			if (digits[0].startsWith('0') || digits[0].length > 7) return [];
			block = Number(digits[0]);
			core = label.slice(0, digits.index);
		}
		const keys: number[] = [];
		for (const pattern of LABEL_PATTERNS) {
			const formatIndex = FORMAT_INDEX.get(`${suffixIndex}|${pattern.prefix}|${pattern.joiner}|${pattern.ending}`);
			if (formatIndex === undefined) continue;
			if (!core.startsWith(pattern.prefix) || !core.endsWith(pattern.ending)) continue;
			const middle = core.slice(pattern.prefix.length, core.length - pattern.ending.length);
			for (const [first, second] of splitWords(middle, pattern.joiner)) {
				const digitsValue = first + FIRST_WORDS.length * (second + SECOND_WORDS.length * formatIndex);
				keys.push(block * this.blockSize + this.scatter.invert(digitsValue));
			}
		}
		return keys;
	}
}

/** Every (first, second) word-index pair that joins to `middle`. */
function splitWords(middle: string, joiner: string): Array<[number, number]> {
	const pairs: Array<[number, number]> = [];
	if (joiner) {
		const parts = middle.split(joiner);
		if (parts.length !== 2) return pairs;
		const first = FIRST_INDEX.get(parts[0]);
		const second = SECOND_INDEX.get(parts[1]);
		if (first !== undefined && second !== undefined) pairs.push([first, second]);
		return pairs;
	}
	for (let cut = 1; cut < middle.length; cut++) {
		const first = FIRST_INDEX.get(middle.slice(0, cut));
		if (first === undefined) continue;
		const second = SECOND_INDEX.get(middle.slice(cut));
		if (second !== undefined) pairs.push([first, second]);
	}
	return pairs;
}

/** Labels of every name of block 0 without subdomain for one suffix (for uniqueness tests). */
export function allLabelsOfSuffix(suffixIndex: number): string[] {
	const labels: string[] = [];
	for (const format of FORMATS) {
		if (format.suffixIndex !== suffixIndex) continue;
		const { prefix, joiner, ending } = format.pattern;
		for (const first of FIRST_WORDS)
			for (const second of SECOND_WORDS) labels.push(`${prefix}${first}${joiner}${second}${ending}`);
	}
	return labels;
}
