/**
 * Word lists and reference tables the generator draws from. Everything here is static data; the
 * choice of which entry a domain gets is made in names.ts / generator.ts from hashes.
 */

/**
 * First words of a domain label. A few carry non-ASCII letters, so the names built from them are
 * internationalised domain names and appear in the index in their punycode form (xn--...).
 * Rules (checked by the tests): lower case, no digits, no hyphens, unique.
 */
export const FIRST_WORDS: readonly string[] = [
	'bright', 'blue', 'north', 'silver', 'green', 'rapid', 'urban', 'golden', 'happy', 'smart',
	'clever', 'royal', 'solar', 'lunar', 'alpine', 'coastal', 'quiet', 'bold', 'fresh', 'prime',
	'pure', 'wild', 'little', 'grand', 'modern', 'classic', 'swift', 'noble', 'sunny', 'crystal',
	'digital', 'global', 'local', 'open', 'scarlet', 'black', 'white', 'orange', 'purple', 'cedar',
	'maple', 'oak', 'pine', 'river', 'ocean', 'harbor', 'summit', 'valley', 'meadow', 'stone',
	'iron', 'copper', 'velvet', 'cotton', 'paper', 'pixel', 'cloud', 'star', 'nova', 'metro',
	'village', 'country', 'island', 'desert', 'forest', 'prairie', 'canyon', 'lake', 'cape', 'delta',
	'echo', 'alpha', 'omega', 'zen', 'vivid', 'lucky', 'cosy', 'tiny', 'mega', 'hyper',
	'ultra', 'retro', 'vintage', 'rustic', 'savvy', 'handy', 'honest', 'simple', 'easy', 'quick',
	'daily', 'weekly', 'eastern', 'western', 'southern', 'polar', 'tropical', 'nordic', 'atlantic', 'pacific',
	'berlin', 'paris', 'london', 'tokyo', 'sydney', 'boston', 'austin', 'lisbon', 'madrid', 'vienna',
	'prague', 'oslo', 'dublin', 'milan', 'amber', 'coral', 'indigo', 'jade', 'ruby', 'saffron',
	'münchen', 'köln', 'zürich', 'café', 'malmö', 'kraków', 'genève', 'tromsø',
];

/** Second words of a domain label. Same rules as FIRST_WORDS, ASCII only. */
export const SECOND_WORDS: readonly string[] = [
	'market', 'hub', 'labs', 'studio', 'media', 'works', 'shop', 'store', 'news', 'press',
	'journal', 'travel', 'tours', 'foods', 'kitchen', 'bakery', 'coffee', 'tea', 'wine', 'beer',
	'garden', 'home', 'house', 'living', 'design', 'partners', 'systems', 'solutions', 'tech', 'software',
	'apps', 'network', 'connect', 'mail', 'bank', 'finance', 'capital', 'invest', 'insurance', 'health',
	'clinic', 'care', 'dental', 'fitness', 'yoga', 'sports', 'football', 'games', 'play', 'music',
	'radio', 'records', 'films', 'pictures', 'photo', 'art', 'gallery', 'books', 'reads', 'school',
	'academy', 'learning', 'kids', 'baby', 'pets', 'vet', 'auto', 'motors', 'cars', 'bikes',
	'parts', 'tools', 'supply', 'direct', 'depot', 'outlet', 'deals', 'fashion', 'style', 'boutique',
	'jewelry', 'beauty', 'cosmetics', 'hair', 'spa', 'hotel', 'hostel', 'resort', 'camping', 'trips',
	'flights', 'rentals', 'homes', 'realty', 'estates', 'builders', 'energy', 'power', 'water', 'farm',
	'organic', 'recipes', 'chef', 'pizza', 'burger', 'sushi', 'deli', 'blog', 'times', 'post',
	'herald', 'tribune', 'gazette', 'review', 'guide', 'wiki', 'forum', 'club', 'society', 'foundation',
	'project', 'events', 'tickets', 'consulting', 'agency', 'legal', 'tax', 'jobs',
];

/**
 * How a label is assembled from the two words: prefix + first + joiner + second + ending.
 * None of the fixed parts is a word of the lists above, so a label parses back unambiguously.
 */
export interface LabelPattern {
	prefix: string;
	joiner: string;
	ending: string;
}

export const LABEL_PATTERNS: readonly LabelPattern[] = [
	{ prefix: '', joiner: '', ending: '' },
	{ prefix: '', joiner: '-', ending: '' },
	{ prefix: 'get', joiner: '', ending: '' },
	{ prefix: '', joiner: '', ending: 'hq' },
	{ prefix: 'the', joiner: '', ending: '' },
	{ prefix: '', joiner: '', ending: 'online' },
	{ prefix: 'my', joiner: '', ending: '' },
	{ prefix: '', joiner: '', ending: 'app' },
	{ prefix: 'try', joiner: '', ending: '' },
	{ prefix: '', joiner: '', ending: 'web' },
	{ prefix: 'go', joiner: '', ending: '' },
	{ prefix: '', joiner: '', ending: 'now' },
	{ prefix: '', joiner: '', ending: 'group' },
	{ prefix: '', joiner: '', ending: 'world' },
	{ prefix: '', joiner: '', ending: 'plus' },
	{ prefix: '', joiner: '-', ending: 'official' },
];

/** A language and the country it is most often paired with on one public suffix, with a weight. */
export interface Locale {
	language: string; // ISO 639-1
	country: string; // ISO 3166-1 alpha-2
	weight: number;
}

/** Locales of the generic suffixes (.com, .net, ...). */
export const GENERIC_LOCALES: Locale[] = [
	{ language: 'en', country: 'US', weight: 55 },
	{ language: 'en', country: 'GB', weight: 6 },
	{ language: 'en', country: 'IN', weight: 4 },
	{ language: 'en', country: 'CA', weight: 3 },
	{ language: 'de', country: 'DE', weight: 5 },
	{ language: 'fr', country: 'FR', weight: 4 },
	{ language: 'es', country: 'ES', weight: 3 },
	{ language: 'es', country: 'MX', weight: 2 },
	{ language: 'pt', country: 'BR', weight: 3 },
	{ language: 'ja', country: 'JP', weight: 3 },
	{ language: 'zh', country: 'CN', weight: 3 },
	{ language: 'it', country: 'IT', weight: 2 },
	{ language: 'nl', country: 'NL', weight: 2 },
	{ language: 'ko', country: 'KR', weight: 1 },
	{ language: 'ru', country: 'RU', weight: 2 },
	{ language: 'pl', country: 'PL', weight: 1 },
	{ language: 'sv', country: 'SE', weight: 1 },
	{ language: 'tr', country: 'TR', weight: 1 },
];

function only(language: string, country: string): Locale[] {
	return [{ language, country, weight: 1 }];
}

/** A public suffix, how many label patterns it gets (its share of the names) and its locales. */
export interface PublicSuffix {
	suffix: string;
	patterns: number;
	locales: Locale[];
}

/** Pattern counts add up to 64; .com gets every pattern, so it is by far the most common suffix. */
export const PUBLIC_SUFFIXES: readonly PublicSuffix[] = [
	{ suffix: 'com', patterns: 16, locales: GENERIC_LOCALES },
	{ suffix: 'net', patterns: 4, locales: GENERIC_LOCALES },
	{ suffix: 'org', patterns: 4, locales: GENERIC_LOCALES },
	{ suffix: 'io', patterns: 3, locales: GENERIC_LOCALES },
	{ suffix: 'co', patterns: 2, locales: GENERIC_LOCALES },
	{
		suffix: 'de',
		patterns: 4,
		locales: [
			{ language: 'de', country: 'DE', weight: 9 },
			{ language: 'en', country: 'DE', weight: 1 },
		],
	},
	{ suffix: 'co.uk', patterns: 4, locales: only('en', 'GB') },
	{ suffix: 'fr', patterns: 3, locales: only('fr', 'FR') },
	{ suffix: 'es', patterns: 2, locales: only('es', 'ES') },
	{ suffix: 'it', patterns: 2, locales: only('it', 'IT') },
	{ suffix: 'nl', patterns: 2, locales: only('nl', 'NL') },
	{ suffix: 'com.au', patterns: 2, locales: only('en', 'AU') },
	{ suffix: 'co.jp', patterns: 2, locales: only('ja', 'JP') },
	{ suffix: 'com.br', patterns: 2, locales: only('pt', 'BR') },
	{
		suffix: 'ca',
		patterns: 2,
		locales: [
			{ language: 'en', country: 'CA', weight: 7 },
			{ language: 'fr', country: 'CA', weight: 3 },
		],
	},
	{ suffix: 'pl', patterns: 2, locales: only('pl', 'PL') },
	{ suffix: 'ru', patterns: 2, locales: only('ru', 'RU') },
	{
		suffix: 'ch',
		patterns: 1,
		locales: [
			{ language: 'de', country: 'CH', weight: 6 },
			{ language: 'fr', country: 'CH', weight: 4 },
		],
	},
	{ suffix: 'se', patterns: 1, locales: only('sv', 'SE') },
	{ suffix: 'at', patterns: 1, locales: only('de', 'AT') },
	{ suffix: 'co.nz', patterns: 1, locales: only('en', 'NZ') },
	{ suffix: 'com.mx', patterns: 1, locales: only('es', 'MX') },
	{ suffix: 'co.kr', patterns: 1, locales: only('ko', 'KR') },
];

/** Host labels in front of a registrable domain, e.g. shop.brightmarket.com (tld1 brightmarket.com). */
export const SUBDOMAINS: readonly string[] = ['shop', 'blog', 'store', 'news', 'app', 'en', 'docs', 'help', 'm', 'community'];

/**
 * Google-style content categories (leaves). A domain lists the leaf and every ancestor as separate
 * entries, e.g. "/Arts & Entertainment" and "/Arts & Entertainment/Music & Audio".
 */
export const CATEGORY_LEAVES: readonly string[] = [
	'/Arts & Entertainment/Music & Audio',
	'/Arts & Entertainment/Movies',
	'/Arts & Entertainment/Visual Art & Design',
	'/Arts & Entertainment/Music & Audio/Radio',
	'/Autos & Vehicles/Motor Vehicles (By Type)',
	'/Autos & Vehicles/Vehicle Parts & Accessories',
	'/Beauty & Fitness/Fitness',
	'/Beauty & Fitness/Hair Care',
	'/Books & Literature',
	'/Business & Industrial/Advertising & Marketing',
	'/Business & Industrial/Construction & Maintenance',
	'/Computers & Electronics/Software',
	'/Computers & Electronics/Software/Business & Productivity Software',
	'/Computers & Electronics/Consumer Electronics',
	'/Finance/Banking',
	'/Finance/Insurance',
	'/Finance/Investing',
	'/Food & Drink/Restaurants',
	'/Food & Drink/Cooking & Recipes',
	'/Food & Drink/Beverages/Coffee & Tea',
	'/Games/Computer & Video Games',
	'/Health/Medical Facilities & Services',
	'/Health/Oral & Dental Care',
	'/Hobbies & Leisure/Outdoors',
	'/Home & Garden/Gardening & Landscaping',
	'/Home & Garden/Home Furnishings',
	'/Internet & Telecom/Web Services',
	'/Internet & Telecom/Email & Messaging',
	'/Jobs & Education/Education',
	'/Jobs & Education/Jobs',
	'/Law & Government/Legal',
	'/News/Business News',
	'/News/Sports News',
	'/News/Local News',
	'/Online Communities/Social Networks',
	'/Pets & Animals/Pets',
	'/Real Estate/Real Estate Listings',
	'/Shopping/Apparel',
	'/Shopping/Consumer Resources',
	'/Sports/Team Sports/Soccer',
	'/Travel/Hotels & Accommodations',
	'/Travel/Air Travel',
];

/** Technologies detected on sites. */
export const TECHNOLOGIES: readonly string[] = [
	'Shopify', 'WordPress', 'React', 'Cloudflare', 'Google Analytics', 'Google Tag Manager', 'jQuery', 'Next.js',
	'Vue.js', 'Nginx', 'Apache', 'WooCommerce', 'Magento', 'HubSpot', 'Stripe', 'Bootstrap', 'Angular', 'Wix',
	'Squarespace', 'Amazon CloudFront', 'Fastly', 'Akamai', 'PHP', 'Node.js', 'Varnish', 'Drupal', 'Matomo',
	'Hotjar', 'Klaviyo', 'Intercom', 'Zendesk', 'Vercel', 'Netlify', 'Tailwind CSS', 'Font Awesome',
	'Google Fonts', 'Facebook Pixel', 'Microsoft ASP.NET', 'Laravel', 'Ruby on Rails',
];

/** Allowed contact_information types, in the order of the interface document. */
export const CONTACT_TYPES = [
	'email', 'phone', 'facebook', 'instagram', 'twitter', 'linkedin', 'tiktok', 'youtube', 'pinterest', 'snapchat',
	'yelp', 'whatsapp', 'discord',
] as const;
export type ContactType = (typeof CONTACT_TYPES)[number];

/** Calling codes for generated phone numbers, by country. */
export const CALLING_CODES: Record<string, string> = {
	US: '1', CA: '1', GB: '44', IN: '91', DE: '49', FR: '33', ES: '34', MX: '52', BR: '55', JP: '81', CN: '86',
	IT: '39', NL: '31', KR: '82', RU: '7', PL: '48', SE: '46', TR: '90', AU: '61', CH: '41', AT: '43', NZ: '64',
};
