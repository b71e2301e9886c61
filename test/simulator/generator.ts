/**
 * Per-domain data as pure functions of (seed, domain key). Nothing is stored: a record is regenerated
 * whenever it is needed, which is what lets the simulator serve any index size in constant memory.
 *
 * Every field draws from its own hash (seed, key, field salt), so fields can be produced independently
 * (the stream only computes the fields that were selected).
 */
import { hash2, hash3, HashStream, Permutation } from './random';
import { NameCodec, type DomainIdentity } from './names';
import { COMPILED_TEXTS, EMOJI, type CompiledTexts, type TextTemplate } from './texts';
import {
	CALLING_CODES,
	CATEGORY_LEAVES,
	CONTACT_TYPES,
	GENERIC_LOCALES,
	PUBLIC_SUFFIXES,
	TECHNOLOGIES,
	type ContactType,
	type Locale,
} from './vocabulary';
import type { ContactInformation, DnsRecords, DomainObject, DomainRecord } from './types';

/** Ids are ID_BASE + a seeded permutation of the key over 2^26: large, sparse-looking, unique, never a rank. */
export const ID_BASE = 20_000_000;
const ID_SPACE = 2 ** 26;
/** Keys must stay below the id space (two keys per rank, see snapshots.ts), hence this cap on the size. */
export const MAX_INDEX_SIZE = 20_000_000;

/** One salt per field, so every field has its own independent hash. */
const Salt = {
	Locale: 1,
	Title: 2,
	Description: 3,
	Categories: 4,
	Technologies: 5,
	Keywords: 6,
	Canonical: 7,
	Icon: 8,
	Status: 9,
	Dns: 10,
	Published: 11,
	Contacts: 12,
	Ids: 13,
	Topic: 14,
	Drift: 15,
} as const;

/**
 * How snapshots differ from each other beyond membership and rank: per snapshot, each domain draws once
 * (from the snapshot's salt and its key) whether it shows a drifted value in some fields. Rates per 1024:
 * about 2.4% of domains adopt or drop one technology, 1.2% change title, 1.2% categories and 0.6% country
 * and language. Two snapshots thus differ in a few percent of their common domains, deterministically.
 */
export const DriftFlag = { Technologies: 1, Title: 2, Categories: 4, Locale: 8 } as const;
const DRIFT_RATES_PER_1024 = { technologies: 25, title: 12, categories: 12, locale: 6 } as const;

/** Which fields of `key` drift in the snapshot with this salt (0 = none; the live index never drifts). */
export function driftOf(snapshotSalt: number | undefined, key: number): { flags: number; hash: number } {
	if (snapshotSalt === undefined) return NO_DRIFT;
	const h = hash3(snapshotSalt, key, Salt.Drift);
	let flags = 0;
	if ((h & 1023) < DRIFT_RATES_PER_1024.technologies) flags |= DriftFlag.Technologies;
	if (((h >>> 10) & 1023) < DRIFT_RATES_PER_1024.title) flags |= DriftFlag.Title;
	if (((h >>> 20) & 1023) < DRIFT_RATES_PER_1024.categories) flags |= DriftFlag.Categories;
	const h2 = hash2(h, key);
	if ((h2 & 1023) < DRIFT_RATES_PER_1024.locale) flags |= DriftFlag.Locale;
	return flags === 0 ? NO_DRIFT : { flags, hash: h2 >>> 10 };
}
const NO_DRIFT = { flags: 0, hash: 0 };

/** Sum of the locale weights of each suffix, computed once. */
const LOCALE_WEIGHT_TOTALS = new Map(
	PUBLIC_SUFFIXES.map((suffix) => [suffix.locales, suffix.locales.reduce((sum, l) => sum + l.weight, 0)]),
);

/** What every field of one domain starts from. */
export interface DomainFacts {
	key: number;
	identity: DomainIdentity;
	locale: Locale;
	texts: CompiledTexts;
	brand: string;
	/** The site's topic (in its language), shared by title, description and keywords. */
	topic: string;
	topicIndex: number;
	/** DriftFlag bits of the fields that drift in this snapshot, and the hash that picks the drifted values. */
	drift: number;
	driftHash: number;
}

/** Which template and emoji a title or description uses (the stream renders it to bytes from this). */
export interface TextChoice {
	template: TextTemplate;
	/** Index in EMOJI, or -1 for none. */
	emoji: number;
}

export interface CategoryChoice {
	list: string[];
	json: string;
	/** UTF-8 bytes of `json`. */
	bytes: Buffer;
}

export class DomainGenerator {
	readonly names: NameCodec;
	private readonly ids: Permutation;
	/** Category lists are few (leaf pairs); caching them keeps the stream's hot path free of array work. */
	private readonly categoryCache = new Map<number, CategoryChoice>();

	constructor(readonly seed: number) {
		this.names = new NameCodec(seed);
		this.ids = new Permutation(ID_SPACE, seed ^ Salt.Ids);
	}

	/** Facts of a domain; `snapshotSalt` (undefined for the live index) decides its drift in that snapshot. */
	facts(key: number, snapshotSalt?: number): DomainFacts {
		const { flags: drift, hash: driftHash } = driftOf(snapshotSalt, key);
		const identity = this.names.identity(key);
		const locales = identity.suffix.locales;
		let locale = locales[0];
		if (locales.length > 1) {
			let roll = hash3(this.seed, key, Salt.Locale) % (LOCALE_WEIGHT_TOTALS.get(locales) ?? 1);
			for (const candidate of locales) {
				roll -= candidate.weight;
				if (roll < 0) {
					locale = candidate;
					break;
				}
			}
		}
		if (drift & DriftFlag.Locale) {
			// Another locale than the usual one: the site moved country, language or both.
			const at = GENERIC_LOCALES.indexOf(locale);
			const count = GENERIC_LOCALES.length;
			locale =
				at < 0 ? GENERIC_LOCALES[driftHash % count] : GENERIC_LOCALES[(at + 1 + (driftHash % (count - 1))) % count];
		}
		const texts = COMPILED_TEXTS[locale.language];
		const topicIndex = hash3(this.seed, key, Salt.Topic) % texts.topics.length;
		return {
			key,
			identity,
			locale,
			texts,
			brand: identity.brand,
			topic: texts.topics[topicIndex],
			topicIndex,
			drift,
			driftHash,
		};
	}

	id(key: number): number {
		return ID_BASE + this.ids.apply(key);
	}

	titleChoice(facts: DomainFacts): TextChoice {
		const h = hash3(this.seed, facts.key, Salt.Title);
		const titles = facts.texts.titles;
		let template = h % titles.length;
		// A drifted title uses another template (a retitled home page).
		if (facts.drift & DriftFlag.Title)
			template = (template + 1 + (facts.driftHash % (titles.length - 1))) % titles.length;
		// 4% of titles end with an emoji (a surrogate pair in UTF-16, 4 bytes in UTF-8).
		return { template: titles[template], emoji: (h >>> 8) % 100 < 4 ? (h >>> 16) % EMOJI.length : -1 };
	}

	title(facts: DomainFacts): string {
		const { template, emoji } = this.titleChoice(facts);
		const text = template.render(facts.brand, facts.topic);
		return emoji < 0 ? text : `${text} ${EMOJI[emoji]}`;
	}

	/** Template of the meta description, or undefined for the ~12% of sites that have none. */
	descriptionChoice(facts: DomainFacts): TextChoice | undefined {
		const h = hash3(this.seed, facts.key, Salt.Description);
		if (h % 100 < 12) return undefined;
		const descriptions = facts.texts.descriptions;
		return {
			template: descriptions[(h >>> 7) % descriptions.length],
			emoji: (h >>> 12) % 100 < 3 ? (h >>> 20) % EMOJI.length : -1,
		};
	}

	/** The meta description (an emoji sometimes leads it), or undefined when the site has none. */
	metaDescription(facts: DomainFacts): string | undefined {
		const choice = this.descriptionChoice(facts);
		if (!choice) return undefined;
		const text = choice.template.render(facts.brand, facts.topic);
		return choice.emoji < 0 ? text : `${EMOJI[choice.emoji]} ${text}`;
	}

	categories(facts: DomainFacts): CategoryChoice {
		const h = hash3(this.seed, facts.key, Salt.Categories);
		const leafCount = CATEGORY_LEAVES.length;
		// 5% have no category; 25% of the rest have two leaves.
		let choice = 0;
		if (h % 100 >= 5) {
			const first = (h >>> 8) % leafCount;
			const second = (h >>> 16) % 4 === 0 ? (first + 1 + ((h >>> 20) % (leafCount - 1))) % leafCount : -1;
			choice = 1 + first * (leafCount + 1) + (second + 1);
		}
		if (facts.drift & DriftFlag.Categories) {
			// A recategorised site: one leaf (with its ancestors), another choice than the usual one.
			let leaf = facts.driftHash % leafCount;
			if (1 + leaf * (leafCount + 1) === choice) leaf = (leaf + 1) % leafCount;
			choice = 1 + leaf * (leafCount + 1);
		}
		let cached = this.categoryCache.get(choice);
		if (!cached) {
			const list: string[] = [];
			if (choice > 0) {
				const first = Math.floor((choice - 1) / (leafCount + 1));
				const second = ((choice - 1) % (leafCount + 1)) - 1;
				for (const leaf of second >= 0 ? [CATEGORY_LEAVES[first], CATEGORY_LEAVES[second]] : [CATEGORY_LEAVES[first]]) {
					for (const path of withAncestors(leaf)) if (!list.includes(path)) list.push(path);
				}
			}
			const json = JSON.stringify(list);
			cached = { list, json, bytes: Buffer.from(json) };
			this.categoryCache.set(choice, cached);
		}
		return cached;
	}

	/** Indexes (in TECHNOLOGIES) of the detected technologies; empty for the ~25% of sites with none. */
	technologyIndexes(facts: DomainFacts): number[] {
		const random = new HashStream(hash3(this.seed, facts.key, Salt.Technologies));
		const picked: number[] = [];
		if (!random.chance(0.25)) {
			const count = 1 + random.below(7);
			for (let i = 0; i < count; i++) {
				const technology = random.below(TECHNOLOGIES.length);
				if (!picked.includes(technology)) picked.push(technology);
			}
		}
		if (facts.drift & DriftFlag.Technologies) {
			// Adopted one more technology (appended, as a scan finds it last) or dropped one.
			const pick = facts.driftHash;
			if (picked.length > 0 && (pick & 1) === 1) {
				picked.splice((pick >>> 1) % picked.length, 1);
			} else {
				let technology = (pick >>> 1) % TECHNOLOGIES.length;
				while (picked.includes(technology)) technology = (technology + 1) % TECHNOLOGIES.length;
				picked.push(technology);
			}
		}
		return picked;
	}

	/** Detected technologies; an empty array for the sites with none. */
	technologies(facts: DomainFacts): string[] {
		return this.technologyIndexes(facts).map((index) => TECHNOLOGIES[index]);
	}

	metaKeywords(facts: DomainFacts): string | null {
		const random = new HashStream(hash3(this.seed, facts.key, Salt.Keywords));
		if (random.chance(0.4)) return null;
		const words = [
			facts.brand.toLowerCase(),
			facts.topic,
			random.pick(facts.texts.keywords),
			random.pick(facts.texts.keywords),
		];
		return [...new Set(words)].join(', ');
	}

	/** HTTP status of the home page: mostly 200, some redirects and errors. */
	status(facts: DomainFacts): number {
		const roll = hash3(this.seed, facts.key, Salt.Status) % 100;
		if (roll < 90) return 200;
		if (roll < 95) return 301;
		if (roll < 97) return 403;
		if (roll < 98) return 404;
		return roll < 99 ? 500 : 503;
	}

	redirectsTo(facts: DomainFacts): string | null {
		if (this.status(facts) !== 301) return null;
		const { identity } = facts;
		return identity.subdomain ? `https://${identity.tld1}/${identity.subdomain}/` : `https://www.${identity.tld1}/`;
	}

	canonical(facts: DomainFacts): string | null {
		const redirect = this.redirectsTo(facts);
		if (redirect) return redirect;
		const roll = hash3(this.seed, facts.key, Salt.Canonical) % 100;
		if (roll < 20) return null;
		return roll < 70 ? `https://${facts.identity.name}/` : `https://www.${facts.identity.name}/`;
	}

	icon(facts: DomainFacts): string | null {
		const roll = hash3(this.seed, facts.key, Salt.Icon) % 100;
		if (roll < 15) return null;
		return roll < 75
			? `https://${facts.identity.name}/favicon.ico`
			: `https://${facts.identity.name}/assets/icon-192.png`;
	}

	dns(facts: DomainFacts): DnsRecords {
		const random = new HashStream(hash3(this.seed, facts.key, Salt.Dns));
		const hosting = random.below(3);
		const a =
			hosting === 0
				? [
						`104.21.${random.below(256)}.${1 + random.below(254)}`,
						`172.67.${random.below(256)}.${1 + random.below(254)}`,
					]
				: [`${[185, 151, 45, 78][random.below(4)]}.${random.below(256)}.${random.below(256)}.${1 + random.below(254)}`];
		const mx = random.chance(0.2)
			? []
			: random.chance(0.5)
				? ['aspmx.l.google.com', 'alt1.aspmx.l.google.com']
				: [`mx1.${facts.identity.tld1}`];
		const ns =
			hosting === 0
				? ['ada.ns.cloudflare.com', 'bob.ns.cloudflare.com']
				: [`ns1.${facts.identity.tld1}`, `ns2.${facts.identity.tld1}`];
		return { a, mx, ns };
	}

	firstPublishedAt(facts: DomainFacts): string | null {
		const h = hash3(this.seed, facts.key, Salt.Published);
		if (h % 10 === 0) return null;
		const start = Date.UTC(1996, 0, 1) / 1000;
		const span = 28 * 365 * 86400;
		return new Date((start + ((h >>> 4) % span)) * 1000).toISOString().replace('.000Z', 'Z');
	}

	contactInformation(facts: DomainFacts): ContactInformation[] {
		const random = new HashStream(hash3(this.seed, facts.key, Salt.Contacts));
		const count = random.below(6);
		const handle = asciiHandle(`${facts.identity.firstWord}${facts.identity.secondWord}`);
		const contacts: ContactInformation[] = [];
		const used = new Set<ContactType>();
		for (let i = 0; i < count; i++) {
			// Email and phone are the most common contacts, so they get extra weight.
			const type: ContactType =
				i === 0 ? 'email' : i === 1 && random.chance(0.6) ? 'phone' : random.pick(CONTACT_TYPES);
			if (used.has(type)) continue;
			used.add(type);
			contacts.push(contact(type, handle, facts, random));
		}
		return contacts;
	}

	/** Domain object as lookup/search/bulk return it. */
	domainObject(key: number, rank: number): DomainObject {
		const facts = this.facts(key);
		const domain: DomainObject = { name: facts.identity.name, title: this.title(facts) } as DomainObject;
		const description = this.metaDescription(facts);
		if (description !== undefined) domain.meta_description = description;
		domain.language = facts.locale.language;
		domain.categories = this.categories(facts).list.slice();
		const technologies = this.technologies(facts);
		if (technologies.length > 0) domain.technologies = technologies;
		domain.tld1 = facts.identity.tld1;
		domain.id = this.id(key);
		domain.rank = rank;
		return domain;
	}

	/** Full snapshot record with every selectable field, in canonical order. */
	record(key: number, rank: number, snapshotSalt?: number): DomainRecord {
		const facts = this.facts(key, snapshotSalt);
		return {
			name: facts.identity.name,
			rank,
			title: this.title(facts),
			meta_description: this.metaDescription(facts) ?? null,
			country_code: facts.locale.country,
			language_code: facts.locale.language,
			categories: this.categories(facts).list.slice(),
			technologies: this.technologies(facts),
			tld1: facts.identity.tld1,
			meta_keywords: this.metaKeywords(facts),
			canonical: this.canonical(facts),
			icon: this.icon(facts),
			status: this.status(facts),
			dns: this.dns(facts),
			first_published_at: this.firstPublishedAt(facts),
			redirects_to: this.redirectsTo(facts),
			contact_information: this.contactInformation(facts),
		};
	}
}

/** "/A/B/C" -> ["/A", "/A/B", "/A/B/C"]: parent and child categories are separate entries. */
function withAncestors(path: string): string[] {
	const parts = path.split('/').slice(1);
	return parts.map((_, index) => `/${parts.slice(0, index + 1).join('/')}`);
}

function asciiHandle(text: string): string {
	return text
		.normalize('NFD')
		.replace(/[^a-z0-9]/g, '')
		.slice(0, 30);
}

function phoneNumber(country: string, random: HashStream): { display: string; digits: string } {
	const code = CALLING_CODES[country] ?? '1';
	const area = String(20 + random.below(80));
	const line = String(1_000_000 + random.below(9_000_000));
	return { display: `+${code} ${area} ${line}`, digits: `${code}${area}${line}` };
}

function contact(type: ContactType, handle: string, facts: DomainFacts, random: HashStream): ContactInformation {
	switch (type) {
		case 'email': {
			const address = `${random.pick(['info', 'contact', 'hello', 'support', 'sales'])}@${facts.identity.tld1}`;
			return { type, value: address, full_value: `mailto:${address}` };
		}
		case 'phone': {
			const phone = phoneNumber(facts.locale.country, random);
			return { type, value: phone.display, full_value: `tel:+${phone.digits}` };
		}
		case 'whatsapp': {
			const phone = phoneNumber(facts.locale.country, random);
			return { type, value: phone.display, full_value: `https://wa.me/${phone.digits}` };
		}
		case 'facebook':
			return { type, value: handle, full_value: `https://www.facebook.com/${handle}` };
		case 'instagram':
			return { type, value: handle, full_value: `https://www.instagram.com/${handle}/` };
		case 'twitter':
			return { type, value: `@${handle}`, full_value: `https://twitter.com/${handle}` };
		case 'linkedin':
			return { type, value: handle, full_value: `https://www.linkedin.com/company/${handle}` };
		case 'tiktok':
			return { type, value: `@${handle}`, full_value: `https://www.tiktok.com/@${handle}` };
		case 'youtube':
			return { type, value: `@${handle}`, full_value: `https://www.youtube.com/@${handle}` };
		case 'pinterest':
			return { type, value: handle, full_value: `https://www.pinterest.com/${handle}/` };
		case 'snapchat':
			return { type, value: handle, full_value: `https://www.snapchat.com/add/${handle}` };
		case 'yelp': {
			const slug = `${handle}-${facts.locale.country.toLowerCase()}`;
			return { type, value: slug, full_value: `https://www.yelp.com/biz/${slug}` };
		}
		case 'discord': {
			const code = (random.next().toString(36) + random.next().toString(36)).slice(0, 8);
			return { type, value: code, full_value: `https://discord.gg/${code}` };
		}
	}
}
