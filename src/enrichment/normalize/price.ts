import currencyCodes from 'currency-codes';
import { CURRENCY_NOTATIONS, SINGLE_LETTER_CURRENCIES } from './currency-symbols';
import { own } from '../../lib/objects';

/** A parsed price: `amount` is a plain decimal string ("1234.5"), never a float. */
export interface ParsedPrice {
  /** Decimal string with `.` as separator and no grouping, or null when no number was found. */
  amount: string | null;
  /** ISO 4217 code of the currency when it can be told, else null. */
  currency: string | null;
  /** The currency notation exactly as it appears in the text (e.g. `руб.`, `US$`), else null. */
  currency_text: string | null;
}

/** Optional hints: a currency text found near the price, and the page's decimal separator. */
export interface PriceHints {
  /** Text near the price (a separate element, a `priceCurrency`), searched when the price text has no currency. */
  currency_hint?: string | null;
  /** `.` or `,` when the page or locale tells it. */
  decimal_separator?: string | null;
}

interface Notation {
  text: string;
  code: string | null;
  weak: boolean;
}

const ISO = new Set(currencyCodes.codes());
const NOTATIONS: Notation[] = [
  ...CURRENCY_NOTATIONS.map(([text, code]) => ({ text, code, weak: false })),
  ...[...ISO].filter((c) => !CURRENCY_NOTATIONS.some(([t]) => t === c)).map((c) => ({ text: c, code: c, weak: false })),
  ...SINGLE_LETTER_CURRENCIES.map(([text, code]) => ({ text, code, weak: true })),
].sort((a, b) => b.text.length - a.text.length);

const LETTER = /\p{L}/u;
const SPACES = /[\s\u00a0\u202f\u2009\u2007]+/g;
/** Grouped or plain digits with an optional fraction; or a bare fraction (`.99`). */
const NUMBER = /\d{1,3}(?:[ .,'’]\d{3}(?!\d))+(?:[.,]\d+)?|\d+(?:[.,]\d+)?|[.,]\d+/g;
/** "119. 95", "1.837, 32": a separator, one space, then exactly two cents digits. */
const SPLIT_CENTS = /(\d[.,]) (\d{2})(?!\d)/g;
/** Words meaning the price is zero. */
const FREE = /\b(?:free|gratis|kostenlos|gratuit)\b/i;

interface CurrencyMatch {
  index: number;
  end: number;
  notation: Notation;
  text: string;
}

function isLetter(ch: string | undefined): boolean {
  return ch !== undefined && LETTER.test(ch);
}

function nextToNumber(text: string, start: number, end: number): boolean {
  return /\d\s?$/.test(text.slice(Math.max(0, start - 2), start)) || /^\s?\d/.test(text.slice(end, end + 2));
}

/**
 * Finds currency notations in text. Notations made of letters need word boundaries, except
 * that a non-Latin notation may be the stem of a longer word (`рублей` → `руб`). ISO codes
 * match in upper case anywhere, in lower case only next to a number; single letters only
 * next to a number.
 */
function findCurrencies(text: string): CurrencyMatch[] {
  const found: CurrencyMatch[] = [];
  const lower = text.toLowerCase();
  for (const notation of NOTATIONS) {
    const needles = notation.code !== null && notation.text === notation.code ? [notation.text, notation.text.toLowerCase()] : [notation.text];
    for (const needle of needles) {
      const hay = needle === notation.text ? text : lower;
      let from = 0;
      for (;;) {
        const index = hay.indexOf(needle, from);
        if (index < 0) break;
        from = index + 1;
        const end = index + needle.length;
        const startsWithLetter = isLetter(needle[0]);
        const endsWithLetter = isLetter(needle[needle.length - 1]);
        if (startsWithLetter && isLetter(text[index - 1])) continue;
        const stem = !/[A-Za-z]/.test(needle) && needle.length >= 3;
        if (endsWithLetter && isLetter(text[end]) && !stem) continue;
        const lowerIso = needle !== notation.text && text.slice(index, end) !== notation.text;
        if ((notation.weak || lowerIso) && !nextToNumber(text, index, end)) continue;
        if (lowerIso && needle === notation.text.toLowerCase() && text.slice(index, end) !== needle) continue;
        found.push({ index, end, notation, text: text.slice(index, end) });
      }
    }
  }
  return found;
}

function pickCurrency(matches: CurrencyMatch[]): CurrencyMatch | null {
  if (matches.length === 0) return null;
  matches = matches.filter((m) => !matches.some((o) => o !== m && o.index <= m.index && o.end >= m.end && o.text.length > m.text.length));
  const codes = matches.filter((m) => m.notation.code !== null && m.text === m.notation.code && m.text.length === 3);
  const strong = matches.filter((m) => !m.notation.weak);
  const pool = codes.length > 0 ? codes : strong.length > 0 ? strong : matches;
  return [...pool].sort((a, b) => a.index - b.index || b.text.length - a.text.length)[0];
}

/**
 * Turns one number token into a plain decimal string. With both `.` and `,` the last one is
 * the decimal separator; a single separator followed by exactly three digits is a thousands
 * separator (as in price-parser), unless the integer part is 0; spaces and apostrophes always
 * group. Returns null for a token without digits.
 */
export function normalizeNumber(raw: string, decimalSeparator?: string | null): string | null {
  const token = raw.replace(/[ '’]/g, '');
  if (!/\d/.test(token)) return null;
  let decimal: string | null = null;
  if (decimalSeparator === '.' || decimalSeparator === ',') {
    decimal = token.includes(decimalSeparator) ? decimalSeparator : null;
  } else {
    const lastDot = token.lastIndexOf('.');
    const lastComma = token.lastIndexOf(',');
    if (lastDot >= 0 && lastComma >= 0) decimal = lastDot > lastComma ? '.' : ',';
    else if (lastDot >= 0 || lastComma >= 0) {
      const sep = lastDot >= 0 ? '.' : ',';
      const parts = token.split(sep);
      const tail = parts[parts.length - 1];
      if (parts.length > 2) decimal = tail.length === 3 ? null : sep;
      else decimal = tail.length === 3 && parts[0] !== '' && !/^0+$/.test(parts[0]) ? null : sep;
    }
  }
  let intPart = token;
  let frac = '';
  if (decimal) {
    const at = token.lastIndexOf(decimal);
    intPart = token.slice(0, at);
    frac = token.slice(at + 1);
  }
  intPart = intPart.replace(/[.,]/g, '').replace(/^0+(?=\d)/, '') || '0';
  frac = frac.replace(/[.,]/g, '').replace(/0+$/, '');
  return frac ? `${intPart}.${frac}` : intPart;
}

function pickNumber(text: string, currency: CurrencyMatch | null): { raw: string; index: number } | null {
  const numbers: Array<{ raw: string; index: number }> = [];
  for (const m of text.matchAll(NUMBER)) {
    const raw = m[0].replace(/[ .,'’]+$/, '');
    const after = text.slice((m.index ?? 0) + m[0].length).trimStart();
    if (after.startsWith('%')) continue;
    numbers.push({ raw, index: m.index ?? 0 });
  }
  if (numbers.length === 0) return null;
  if (currency) {
    let best: { raw: string; index: number } | null = null;
    let bestGap = Infinity;
    for (const n of numbers) {
      const gap = n.index >= currency.end ? n.index - currency.end : currency.index - (n.index + n.raw.length);
      if (
        gap >= 0 &&
        gap < bestGap &&
        /^[\s:]*$/.test(n.index >= currency.end ? text.slice(currency.end, n.index) : text.slice(n.index + n.raw.length, currency.index))
      ) {
        best = n;
        bestGap = gap;
      }
    }
    if (best) return best;
  }
  return numbers[0];
}

/**
 * Parses a human-written price ("1.234,56 €", "$ 1,234.56", "1 234,56 zł", "EUR 12", "from
 * $9.99 to $19.99"): the currency is looked for in `text` first, then in `hints.currency_hint`;
 * the amount is the number written next to the currency, else the first number of `text`.
 * Locale rules: see {@link normalizeNumber}. Method after scrapinghub/price-parser
 * (BSD-3-Clause), re-implemented. Returns null when neither an amount nor a currency is found.
 */
export function parsePrice(text: string | null | undefined, hints: PriceHints = {}): ParsedPrice | null {
  const clean = (text ?? '').replace(SPACES, ' ').trim().replace(SPLIT_CENTS, '$1$2');
  const inText = pickCurrency(findCurrencies(clean));
  const hint = (hints.currency_hint ?? '').replace(SPACES, ' ').trim();
  const currency = inText ?? (hint ? pickCurrency(findCurrencies(hint)) : null);
  const number = pickNumber(clean, inText);
  const amount = number ? normalizeNumber(number.raw, hints.decimal_separator) : FREE.test(clean) ? '0' : null;
  if (amount === null && currency === null) return null;
  return { amount, currency: currency?.notation.code ?? null, currency_text: currency?.text ?? null };
}

/**
 * Maps a currency notation or code (`€`, `eur`, `руб.`) to its ISO 4217 code, or null when it
 * is not a known notation.
 */
export function currencyCode(text: string | null | undefined): string | null {
  const t = (text ?? '').trim();
  if (!t) return null;
  if (ISO.has(t.toUpperCase()) && t.length === 3) return t.toUpperCase();
  const exact = NOTATIONS.find((n) => n.text === t);
  if (exact) return exact.code;
  const m = pickCurrency(findCurrencies(t));
  return m?.notation.code ?? null;
}

/**
 * Every ISO 4217 code a notation may denote (`$` → USD, CAD, AUD, …), used to compare a
 * shown symbol with a code without guessing the country. Returns [] for unknown notations.
 */
export function possibleCurrencyCodes(text: string): string[] {
  const code = currencyCode(text);
  const t = text.trim();
  const dollars = ['USD', 'CAD', 'AUD', 'NZD', 'HKD', 'SGD', 'MXN', 'TWD', 'ARS', 'CLP', 'COP'];
  if (t === '$') return dollars;
  if (t.toLowerCase() === 'kr' || t === 'kr.') return ['SEK', 'NOK', 'DKK', 'ISK'];
  if (t === '£') return ['GBP', 'EGP', 'GIP'];
  if (t === '¥') return ['JPY', 'CNY'];
  if (t === '元') return ['CNY', 'TWD'];
  if (/^(rs\.?|₨)$/i.test(t)) return ['INR', 'PKR', 'LKR', 'NPR', 'MUR', 'SCR'];
  return code ? [code] : [];
}

/** Currency of a country or territory (ISO 3166 alpha-2), for the regions whose sign is shared with others. */
const REGION_CURRENCY: Record<string, string> = {
  US: 'USD',
  CA: 'CAD',
  AU: 'AUD',
  NZ: 'NZD',
  HK: 'HKD',
  SG: 'SGD',
  MX: 'MXN',
  AR: 'ARS',
  CL: 'CLP',
  CO: 'COP',
  TW: 'TWD',
  CN: 'CNY',
  JP: 'JPY',
  SE: 'SEK',
  NO: 'NOK',
  DK: 'DKK',
  IS: 'ISK',
  EG: 'EGP',
  GI: 'GIP',
  GB: 'GBP',
  UK: 'GBP',
};

/**
 * The region of a page: the region subtag of its language (`zh-TW` → TW), else the country
 * code top-level domain of its URL (`.tw`, `.com.ar`). Undefined when neither tells.
 */
export function pageRegion(lang: string | undefined, url: string): string | undefined {
  const sub = /^[a-z]{2,3}[-_]([a-z]{2})\b/i.exec(lang ?? '')?.[1];
  if (sub) return sub.toUpperCase();
  try {
    const tld = new URL(url).hostname.split('.').pop() ?? '';
    return /^[a-z]{2}$/i.test(tld) ? tld.toUpperCase() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Resolves a sign shared by several currencies (`$`, `元`, `kr`, `¥`, `£`) with the page's
 * region: the region's currency when the sign can denote it, else `code` unchanged.
 */
export function regionalCurrency(sign: string, code: string, region: string | undefined): string {
  const local = region ? own(REGION_CURRENCY, region) : undefined;
  return local && possibleCurrencyCodes(sign).includes(local) ? local : code;
}
