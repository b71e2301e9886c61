/**
 * Title and description templates per language. `{brand}` is the brand built from the domain's words,
 * `{topic}` a topic word of the language. The texts deliberately carry non-ASCII characters
 * (accents, CJK, Cyrillic, Hangul) so that clients are exercised on real UTF-8.
 */
export interface LanguageTexts {
	titles: readonly string[];
	descriptions: readonly string[];
	topics: readonly string[];
	keywords: readonly string[];
}

export const TEXTS: Record<string, LanguageTexts> = {
	en: {
		titles: [
			'{brand} – {topic} you can trust',
			'{brand} | Official Site',
			'Welcome to {brand}: {topic} & more',
			'{brand} — The best {topic} online',
		],
		descriptions: [
			'{brand} offers {topic} for everyone. Free shipping on orders over $50 and a 30-day return policy.',
			'Discover {topic} at {brand}. Read reviews, compare prices and get expert advice from our team.',
			"{brand} is the home of {topic} since 2009. We're here to help — call us or drop by one of our stores.",
		],
		topics: [
			'outdoor gear',
			'fresh coffee',
			'home furniture',
			'travel deals',
			'music lessons',
			'cloud software',
			'pet supplies',
			'local news',
		],
		keywords: ['shop', 'online', 'deals', 'reviews', 'guide', 'best price'],
	},
	de: {
		titles: [
			'{brand} – {topic} günstig kaufen',
			'{brand} | Ihr Experte für {topic}',
			'Willkommen bei {brand}',
			'{brand}: {topic} für Groß und Klein',
		],
		descriptions: [
			'Bei {brand} finden Sie {topic} in großer Auswahl. Kostenloser Versand ab 50 € – jetzt bestellen!',
			'{brand} ist Ihr Partner für {topic}. Über 20 Jahre Erfahrung, persönliche Beratung und faire Preise.',
			'Entdecken Sie {topic} bei {brand}: Qualität aus Deutschland, schnelle Lieferung, zufriedene Kunden.',
		],
		topics: ['Möbel', 'Fahrräder', 'Küchengeräte', 'Reisen', 'Gesundheit', 'Nachrichten', 'Software', 'Gartenbedarf'],
		keywords: ['kaufen', 'günstig', 'Versand', 'Angebote', 'Ratgeber', 'Shop'],
	},
	fr: {
		titles: [
			'{brand} – {topic} à prix réduits',
			'{brand} | Site officiel',
			'Bienvenue chez {brand}',
			'{brand} : le spécialiste des {topic}',
		],
		descriptions: [
			'{brand} vous propose des {topic} de qualité. Livraison gratuite dès 49 € et retours offerts.',
			'Découvrez nos {topic} chez {brand} : conseils d’experts, avis clients et prix très compétitifs.',
			'Depuis 2005, {brand} accompagne ses clients avec des {topic} élégants et durables. Où que vous soyez.',
		],
		topics: ['vêtements', 'cafés', 'meubles', 'voyages', 'jeux vidéo', 'produits bio', 'vélos', 'logiciels'],
		keywords: ['achat', 'pas cher', 'livraison', 'promo', 'conseils', 'boutique'],
	},
	es: {
		titles: [
			'{brand} – {topic} al mejor precio',
			'{brand} | Tienda oficial',
			'Bienvenido a {brand}',
			'{brand}: expertos en {topic}',
		],
		descriptions: [
			'En {brand} encontrarás {topic} para toda la familia. Envío gratis a partir de 30 € y devolución fácil.',
			'{brand} es tu tienda de {topic} en línea. ¡Descubre nuestras ofertas y novedades de la temporada!',
			'Compra {topic} en {brand} con atención personalizada y pago seguro. Más de 10.000 clientes satisfechos.',
		],
		topics: ['zapatillas', 'muebles', 'viajes', 'juguetes', 'electrónica', 'vinos', 'libros', 'recetas de cocina'],
		keywords: ['comprar', 'ofertas', 'envío gratis', 'tienda', 'opiniones', 'barato'],
	},
	it: {
		titles: [
			'{brand} – {topic} di qualità',
			'{brand} | Sito ufficiale',
			'Benvenuti su {brand}',
			'{brand}: i migliori {topic}',
		],
		descriptions: [
			'{brand} offre {topic} made in Italy. Spedizione gratuita sopra i 39 € e resi facili entro 30 giorni.',
			'Scopri i {topic} di {brand}: qualità, cortesia e prezzi onesti dal 1998. Perché sceglierci? Ecco perché.',
		],
		topics: ['vini', 'abbigliamento', 'viaggi', 'mobili', 'caffè', 'giochi', 'libri', 'gioielli'],
		keywords: ['acquista', 'offerte', 'spedizione', 'negozio', 'qualità', 'sconti'],
	},
	pt: {
		titles: [
			'{brand} – {topic} com os melhores preços',
			'{brand} | Loja oficial',
			'Bem-vindo à {brand}',
			'{brand}: tudo sobre {topic}',
		],
		descriptions: [
			'Na {brand} você encontra {topic} com frete grátis para todo o Brasil. Parcele em até 10x sem juros.',
			'{brand} é referência em {topic} desde 2012. Atendimento rápido, promoções e avaliações de clientes.',
		],
		topics: ['eletrônicos', 'roupas', 'viagens', 'cosméticos', 'livros', 'móveis', 'café', 'brinquedos'],
		keywords: ['comprar', 'promoção', 'frete grátis', 'loja', 'ofertas', 'avaliações'],
	},
	nl: {
		titles: [
			'{brand} – {topic} voor een eerlijke prijs',
			'{brand} | Officiële website',
			'Welkom bij {brand}',
			'{brand}: alles over {topic}',
		],
		descriptions: [
			'Bij {brand} vind je {topic} voor het hele gezin. Gratis verzending vanaf € 20 en snel in huis.',
			'{brand} is dé specialist in {topic}. Bekijk ons assortiment, lees reviews en bestel vandaag nog.',
		],
		topics: ['fietsen', 'meubels', 'reizen', 'koffie', 'speelgoed', 'kleding', 'tuinartikelen', 'software'],
		keywords: ['kopen', 'aanbieding', 'gratis verzending', 'winkel', 'reviews', 'goedkoop'],
	},
	pl: {
		titles: [
			'{brand} – {topic} w najlepszej cenie',
			'{brand} | Oficjalna strona',
			'Witamy w {brand}',
			'{brand}: sklep z {topic}',
		],
		descriptions: [
			'{brand} oferuje {topic} najwyższej jakości. Darmowa dostawa od 199 zł i łatwy zwrot w ciągu 30 dni.',
			'Sprawdź {topic} w {brand}: szybka wysyłka, bezpieczne płatności i tysiące zadowolonych klientów.',
		],
		topics: ['meble', 'rowery', 'książki', 'kosmetyki', 'zabawki', 'podróże', 'elektronikę', 'odzież'],
		keywords: ['sklep', 'promocja', 'dostawa', 'tanio', 'opinie', 'kup teraz'],
	},
	sv: {
		titles: [
			'{brand} – {topic} till låga priser',
			'{brand} | Officiell webbplats',
			'Välkommen till {brand}',
			'{brand}: allt om {topic}',
		],
		descriptions: [
			'Hos {brand} hittar du {topic} för hela familjen. Fri frakt över 499 kr och 365 dagars öppet köp.',
			'{brand} är experter på {topic} sedan 1995. Handla tryggt och få snabb leverans i hela Sverige.',
		],
		topics: ['möbler', 'cyklar', 'kläder', 'resor', 'kaffe', 'leksaker', 'böcker', 'trädgård'],
		keywords: ['köpa', 'rea', 'fri frakt', 'butik', 'erbjudande', 'billigt'],
	},
	tr: {
		titles: [
			'{brand} – En uygun {topic}',
			'{brand} | Resmi Site',
			'{brand} ile tanışın',
			'{brand}: {topic} için doğru adres',
		],
		descriptions: [
			'{brand} ile {topic} alışverişi çok kolay. 250 TL üzeri ücretsiz kargo ve güvenli ödeme.',
			'{brand}, {topic} konusunda uzman ekibiyle hizmetinizde. Kampanyaları kaçırmayın!',
		],
		topics: ['giyim', 'mobilya', 'seyahat', 'kahve', 'kitap', 'oyuncak', 'elektronik', 'kozmetik'],
		keywords: ['satın al', 'indirim', 'kargo', 'mağaza', 'kampanya', 'ucuz'],
	},
	ru: {
		titles: [
			'{brand} — {topic} по выгодным ценам',
			'{brand} | Официальный сайт',
			'Добро пожаловать в {brand}',
			'{brand}: всё о теме «{topic}»',
		],
		descriptions: [
			'{brand} — интернет-магазин: {topic} с доставкой по всей России. Гарантия качества и удобная оплата.',
			'В {brand} вы найдёте {topic} для всей семьи. Скидки, акции и отзывы покупателей.',
		],
		topics: ['мебель', 'одежда', 'путешествия', 'книги', 'электроника', 'игрушки', 'косметика', 'кофе'],
		keywords: ['купить', 'недорого', 'доставка', 'магазин', 'отзывы', 'скидки'],
	},
	ja: {
		titles: [
			'{brand} | {topic}の公式通販サイト',
			'{brand}【公式】',
			'{brand} – {topic}なら当店へ',
			'ようこそ{brand}へ',
		],
		descriptions: [
			'{brand}は{topic}の専門店です。5,000円以上のご購入で送料無料。全国へスピード配送いたします。',
			'{topic}をお探しなら{brand}。豊富な品揃えとお客様レビューで、安心してお買い物いただけます。',
		],
		topics: ['家具', 'コーヒー', '旅行', 'ファッション', '日本酒', 'ゲーム', '書籍', 'アウトドア用品'],
		keywords: ['通販', '送料無料', '公式', 'セール', 'ランキング', '口コミ'],
	},
	zh: {
		titles: ['{brand} - {topic}官方网站', '{brand}｜{topic}专家', '欢迎来到{brand}', '{brand}：优质{topic}，值得信赖'],
		descriptions: [
			'{brand}专注于{topic}，提供正品保障、全国包邮和七天无理由退换货服务。',
			'在{brand}发现更多{topic}。每日更新优惠活动，欢迎选购！',
		],
		topics: ['家居', '茶叶', '旅游', '数码产品', '服装', '图书', '美妆', '软件'],
		keywords: ['官网', '正品', '包邮', '优惠', '购物', '评价'],
	},
	ko: {
		titles: [
			'{brand} - {topic} 전문 쇼핑몰',
			'{brand} | 공식 홈페이지',
			'{brand}에 오신 것을 환영합니다',
			'{brand}: 최고의 {topic}',
		],
		descriptions: [
			'{brand}에서 {topic}을(를) 만나보세요. 5만원 이상 무료배송, 빠르고 안전한 결제.',
			'{topic} 전문 {brand}. 고객 리뷰와 다양한 할인 혜택을 확인하세요.',
		],
		topics: ['가구', '커피', '여행', '패션', '화장품', '도서', '게임', '전자제품'],
		keywords: ['쇼핑', '무료배송', '할인', '공식', '후기', '추천'],
	},
};

/** A few emoji that sometimes decorate a title or description (surrogate pairs on purpose). */
export const EMOJI: readonly string[] = ['🚀', '✨', '🎵', '🌍', '🛒', '☕', '🔥', '💡'];

/** Where a template takes the brand or the topic. */
export const BRAND_SLOT = 0;
export const TOPIC_SLOT = 1;
type TemplatePart = string | typeof BRAND_SLOT | typeof TOPIC_SLOT;

/**
 * A template split once into literal parts and slots, with the UTF-8 bytes of the literals cached, so
 * that the stream can copy bytes instead of encoding strings (see chunk-writer.ts).
 */
export class TextTemplate {
	readonly parts: readonly TemplatePart[];
	readonly byteParts: ReadonlyArray<Buffer | typeof BRAND_SLOT | typeof TOPIC_SLOT>;

	constructor(template: string) {
		this.parts = template
			.split(/(\{brand\}|\{topic\})/)
			.filter((part) => part !== '')
			.map((part) => (part === '{brand}' ? BRAND_SLOT : part === '{topic}' ? TOPIC_SLOT : part));
		this.byteParts = this.parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part));
	}

	render(brand: string, topic: string): string {
		let text = '';
		for (const part of this.parts) text += part === BRAND_SLOT ? brand : part === TOPIC_SLOT ? topic : part;
		return text;
	}
}

export interface CompiledTexts {
	titles: TextTemplate[];
	descriptions: TextTemplate[];
	topics: readonly string[];
	topicBytes: readonly Buffer[];
	keywords: readonly string[];
}

export const COMPILED_TEXTS: Record<string, CompiledTexts> = Object.fromEntries(
	Object.entries(TEXTS).map(([language, texts]) => [
		language,
		{
			titles: texts.titles.map((t) => new TextTemplate(t)),
			descriptions: texts.descriptions.map((t) => new TextTemplate(t)),
			topics: texts.topics,
			topicBytes: texts.topics.map((topic) => Buffer.from(topic)),
			keywords: texts.keywords,
		},
	]),
);

export const EMOJI_BYTES: readonly Buffer[] = EMOJI.map((emoji) => Buffer.from(emoji));
