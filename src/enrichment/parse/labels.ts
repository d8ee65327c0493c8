/**
 * Identifier labels written in a page's visible text ("Artikel-Nr. 2800395267", "Код: 01245",
 * "〈商品編號：M67296549〉", "EAN-Nummer7610186303159") and identifier-like tokens of a page
 * URL. Site-independent: the label vocabulary is the common spec/retail wording of about 20
 * languages; nothing here knows a shop.
 */

/** Identifier kinds read from labels. */
export type LabelledRole = 'sku' | 'mpn' | 'gtin';

/** A code read after a label in visible text. */
export interface LabelledCode {
  /** The label as written on the page (e.g. `Artikel-Nr.`). */
  label: string;
  value: string;
}

/**
 * Label words per role, as regular-expression source, longest first within a role.
 * SKU: the shop's own article/item/ad number; MPN: manufacturer part / model number;
 * GTIN: EAN/UPC/ISBN/barcode labels.
 */
const LABELS: Record<LabelledRole, string[]> = {
  sku: [
    'sku',
    'item no\\.?',
    'item #',
    'item number',
    'item code',
    'article number',
    'article no\\.?',
    'artikelnummer',
    'artikel-?nr\\.?',
    'art\\.?-?nr\\.?',
    'art\\.',
    'product code',
    'product no\\.?',
    'product number',
    'product id',
    'ad id',
    'ad #',
    'ad no\\.?',
    'post id',
    'listing id',
    'web code',
    'deal no\\.?',
    'référence produit',
    'référence',
    'réf\\.',
    'ref\\.?',
    'referência produto',
    'referência',
    'referencia',
    'código do produto',
    'código',
    'codice articolo',
    'codice prodotto',
    'nr ref\\.?',
    'numer referencyjny',
    'numer katalogowy',
    'kod produktu',
    'kód produktu',
    'šifra',
    'tuotenumero',
    'varenummer',
    'varenr\\.?',
    'artikelnr\\.?',
    'id produto',
    'код товара',
    'код',
    'артикул',
    '商品編號',
    '商品编号',
    '商品番号',
    '货号',
    '품번',
    '상품번호',
    '딜번호',
    'קוד מוצר',
    'מק"ט',
  ],
  mpn: [
    'manufacturer part number(?: \\(mpn\\))?',
    'mfr\\.? part (?:number|no\\.?)',
    'mpn',
    'model name ?/ ?number',
    'item model number',
    'model number',
    'model no\\.?',
    'modellnummer',
    'herstellernummer',
    'hersteller-?nr\\.?',
    'réf\\.? fabricant',
    'référence fabricant',
    'numéro de modèle',
    'numero modello',
    'número de modelo',
    'codice (?:del )?produttore',
    'manufacturer (?:part )?(?:number|no\\.?|code)',
    'mfg\\.? part (?:number|no\\.?)',
    'mfr\\.? (?:no\\.?|#)',
    'part number',
    'part no\\.?',
    'part #',
    'p/n',
    'hersteller-?(?:artikel|teile)nummer',
    'teilenummer',
    'kód výrobcu',
    'kód výrobce',
    'číslo dílu',
    'číslo dielu',
    'numéro de pièce',
    'numéro de référence fabricant',
    'référence constructeur',
    'réf\\.? constructeur',
    'número de pieza',
    'numero de pieza',
    'número de parte',
    'número da peça',
    'referencia (?:del )?fabricante',
    'kod producenta',
    'numer części',
    'tillverkarens artikelnummer',
    'fabrikantnummer',
    'onderdeelnummer',
    'номер детали',
    'артикул производителя',
    'メーカー型番',
    '型番',
    '型号',
  ],
  gtin: ['ean-?(?:nummer|code|13)?', 'kod ean', 'gtin(?:-?1[234]|-?8)?', 'upc', 'isbn(?:-?1[03])?', 'barcode', 'código de barras', 'штрихкод', 'штрих-код'],
};

/** Manufacturer words right before a SKU label, which make it a manufacturer's (MPN) label. */
const MAKER_BEFORE = /(hersteller|manufacturer|mfr|mfg|fabricant|fabricante|produttore|výrobce|výrobcu|producenta|tillverkarens|fabrikant)[\s-]*$/iu;

/** A code token: letters/digits with inner `-_/.`, holding a digit. */
const CODE = /^[\p{L}\p{N}][\p{L}\p{N}_\-/.]*/u;

function compile(role: LabelledRole): RegExp {
  return new RegExp(`(${LABELS[role].join('|')})\\s*[:：#\\-–]?\\s*`, 'giu');
}

const PATTERNS: Record<LabelledRole, RegExp> = { sku: compile('sku'), mpn: compile('mpn'), gtin: compile('gtin') };

/**
 * Whether a label match starts a word: preceded by a non-letter, or by a lower-case letter
 * while the label itself starts upper-case (text of adjacent elements runs together:
 * `schliessenArt.1049084`).
 */
function startsWord(text: string, at: number): boolean {
  const prev = text[at - 1];
  if (prev === undefined || !/\p{L}/u.test(prev)) return true;
  return /\p{Ll}/u.test(prev) && /\p{Lu}/u.test(text[at]);
}

/** The code at the start of `rest`, trimmed of trailing punctuation and of glued following words (`K11Size` → `K11`, `1049084LieferbarCHF` → `1049084`). */
function codeAt(rest: string, role: LabelledRole): string | null {
  if (role === 'gtin') {
    const m = /^\d[\d -]{6,17}\d/.exec(rest);
    return m ? m[0] : null;
  }
  const m = CODE.exec(rest);
  if (!m) return null;
  const code = m[0].replace(/(?<=[\p{N}\p{Lu}])\p{Lu}\p{Ll}{2,}.*$/u, '').replace(/[.\-/_]+$/, '');
  return code.length >= 3 && code.length <= 40 && /\p{N}/u.test(code) ? code : null;
}

/**
 * Codes written after a label of `role` in visible text, in document order (at most `limit`).
 * A label followed by no code-like token yields nothing. Values are not validated here
 * (GTIN check digits are the caller's business).
 */
export function labelledCodes(text: string, role: LabelledRole, limit = 5): LabelledCode[] {
  const out: LabelledCode[] = [];
  const re = new RegExp(PATTERNS[role].source, PATTERNS[role].flags);
  for (let m = re.exec(text); m && out.length < limit; m = re.exec(text)) {
    if (!startsWord(text, m.index)) continue;
    // "Hersteller-Artikelnummer", "Manufacturer item number": the manufacturer's code, not the shop's.
    if (role === 'sku' && MAKER_BEFORE.test(text.slice(Math.max(0, m.index - 16), m.index))) continue;
    const value = codeAt(text.slice(m.index + m[0].length, m.index + m[0].length + 60), role);
    if (value) out.push({ label: m[1], value });
  }
  return out;
}

/**
 * Identifier-like tokens of a URL's path, last first: runs of 5+ digits (the last run of a
 * token such as `c7200a278526196`), or a whole token of one or two capitals plus 5+ digits
 * (`M67296549`). Shops name product pages by their article number, so the last such token is
 * a weak reading of the SKU. Returns [] for URLs that do not parse.
 */
export function urlIdTokens(url: string): string[] {
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(url).pathname);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const token of pathname.split(/[^A-Za-z0-9]+/).filter(Boolean)) {
    if (/^[A-Z]{1,2}\d{5,}$/.test(token)) out.push(token);
    else {
      const runs = token.match(/\d{5,}/g);
      if (runs) out.push(runs[runs.length - 1]);
    }
  }
  return out.reverse();
}

/** A price label and the text right after it (where the amount is written), from visible text. */
export interface LabelledPriceText {
  label: string;
  /** Up to 24 characters after the label. */
  text: string;
}

/** Words that name a selling price before an amount in running text, in about 20 languages. */
const PRICE_LABEL =
  /(our price|sale price|special price|price|now|angebotspreis|preis|prix|precio|prezzo|preço|cena|цена|fiyat|hinta|pris|prijs|ár|τιμή|מחיר|販売価格|価格|판매가|가격|直購[價价]|優惠[價价]|促銷[價价]|售[價价]|特[價价]|[價价]格)\s*[:：]?\s*/giu;
/** Words right before a price label that make it another price than the selling one (list, shipping, instalment). */
const NOT_SELLING =
  /(list|regular|original|old|was|rrp|uvp|msrp|suggested|recommended|statt|shipping|delivery|versand|livraison|envío|建議|建议|原|定|市|運費|运费|每期|分期)\s*$/iu;

/**
 * Texts following a selling-price label in visible text ("Price: $12.50", "直購價：$294",
 * "一次付清特價 72 折 2320 元"), in document order, at most `limit`, each holding a digit.
 * Alphabetic labels must start a word (CJK ones need not); labels preceded by list-price,
 * shipping or instalment words are skipped. Parsing the amount is the caller's business.
 */
export function labelledPriceTexts(text: string, limit = 3): LabelledPriceText[] {
  const out: LabelledPriceText[] = [];
  const re = new RegExp(PRICE_LABEL.source, PRICE_LABEL.flags);
  for (let m = re.exec(text); m && out.length < limit; m = re.exec(text)) {
    const alphabetic = /^[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}]/u.test(m[1]);
    if (alphabetic && /\p{L}/u.test(text[m.index - 1] ?? '')) continue;
    if (NOT_SELLING.test(text.slice(Math.max(0, m.index - 12), m.index))) continue;
    const after = text.slice(m.index + m[0].length, m.index + m[0].length + 24).trim();
    if (/\d/.test(after)) out.push({ label: m[1], text: after });
  }
  return out;
}
