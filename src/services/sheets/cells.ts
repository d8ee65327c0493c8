/**
 * What one spreadsheet cell holds, read from its text alone ("What it must get
 * right"): empty/null markers, booleans, integers and decimals (decimal points or commas,
 * thousands groups, scientific notation), dates, URLs and image URLs, e-mail addresses, JSON
 * objects and arrays, HTML, money ("SR 2,375", "$25.00") and quantities with units ("10 kg",
 * "51x51 cm"). Column-level decisions (types, enums, arrays) are made in columns.ts from
 * counts of these kinds.
 */
import { parsePrice } from '../../enrichment/normalize/price';
import { findQuantities, unitName } from '../../enrichment/normalize/units';

/** Kinds of cell, most specific first. */
export const CELL_KINDS = [
  'empty',
  'boolean',
  'integer',
  'number',
  'scientific',
  'date',
  'datetime',
  'image_url',
  'url',
  'email',
  'json_object',
  'json_array',
  'html',
  'money',
  'quantity',
  'dimensions',
  'text',
] as const;

/** One of {@link CELL_KINDS}. */
export type CellKind = (typeof CELL_KINDS)[number];

/** A classified cell: its kind and, for numbers, money and quantities, the value read. */
export interface Cell {
  kind: CellKind;
  /** The number (integer, number, scientific, money amount, quantity value). */
  number?: number;
  /** ISO 4217 code (money) or `js-quantities` unit name (quantity, dimensions). */
  unit?: string;
  /** The decimal separator the number was written with, when it had a fraction. */
  decimal?: '.' | ',';
}

/** Texts spreadsheets and exports use for "no value" (compared lower-cased). */
const NULL_MARKERS = new Set(['', 'null', 'nil', 'none', 'n/a', '#n/a', 'nan', '-', '--', '—', 'undefined', '(blank)']);
/** Boolean spellings (lower-cased); 0/1 are integers here and become booleans at column level. */
const TRUE_WORDS = new Set(['true', 'yes', 'y', 'ja', 'oui', 'si', 'sí', 'wahr', 'vrai']);
const FALSE_WORDS = new Set(['false', 'no', 'n', 'nein', 'non', 'falsch', 'faux']);
/** Image file extensions recognised at the end of a URL path (before a query). */
const IMAGE_URL = /^https?:\/\/\S+\.(?:jpe?g|png|gif|webp|avif|svg|bmp|tiff?|heic)(?:[?#]\S*)?$/i;
const URL_RE = /^(?:https?:\/\/|www\.)[^\s]+$/i;
const EMAIL = /^[^\s@]+@[^\s@]+\.[a-z]{2,}$/i;
/** ISO 8601 dates and date-times, and the day/month orders spreadsheets write (`31/12/2024`, `12/31/2024`, `31.12.2024`). */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;
const LOCAL_DATE = /^(\d{1,2})[/.](\d{1,2})[/.](\d{4})$/;
/** Plain numbers: `-1234`, `1234.5`, `1,234.5`, `1.234,5`, `1 234,5`, `265,0`. */
const INTEGER = /^[-+]?\d+$/;
const DOT_DECIMAL = /^[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)\.\d+$/;
const COMMA_DECIMAL = /^[-+]?(?:\d{1,3}(?:[.\s\u00a0]\d{3})+|\d+),\d+$/;
const GROUPED_INTEGER = /^[-+]?\d{1,3}(?:,\d{3})+$/;
const SCIENTIFIC = /^[-+]?\d+(?:[.,]\d+)?[eE][-+]?\d+$/;
/** "51x51 cm", "80 x 200 cm", "10×20×30 mm": two or three numbers with one unit. */
const DIMENSIONS = /^(\d+(?:[.,]\d+)?)\s*[x×]\s*(\d+(?:[.,]\d+)?)(?:\s*[x×]\s*(\d+(?:[.,]\d+)?))?\s*([a-zA-Z"]{1,6})$/;
/**
 * Currency abbreviations shops print that are not ISO 4217 codes and not in the engine's symbol
 * table (price.ts): `SR` (Saudi riyal, as ikea.com/sa prints it), `QR`, `RM`, `Dhs`.
 */
const LOCAL_CURRENCY: ReadonlyArray<readonly [RegExp, string]> = [
  [/^SR\s?(?=\d)|(?<=\d)\s?SR$/i, 'SAR'],
  [/^QR\s?(?=\d)|(?<=\d)\s?QR$/i, 'QAR'],
  [/^RM\s?(?=\d)|(?<=\d)\s?RM$/i, 'MYR'],
  [/^Dhs\.?\s?(?=\d)|(?<=\d)\s?Dhs\.?$/i, 'AED'],
];

/** Whether a cell's text means "no value". */
export function isNullMarker(text: string): boolean {
  return NULL_MARKERS.has(text.trim().toLowerCase());
}

/** A number written with `.` or `,` as decimal separator (and optional groups) as a JS number; NaN when not a plain number. */
export function readNumber(text: string, decimalComma = false): number {
  const t = text.trim();
  if (INTEGER.test(t)) return Number(t);
  if (GROUPED_INTEGER.test(t)) return decimalComma ? Number.NaN : Number(t.replace(/,/g, ''));
  if (DOT_DECIMAL.test(t)) return Number(t.replace(/,/g, ''));
  if (COMMA_DECIMAL.test(t)) return Number(t.replace(/[.\s\u00a0]/g, '').replace(',', '.'));
  if (SCIENTIFIC.test(t)) return Number(t.replace(',', '.'));
  return Number.NaN;
}

function money(t: string): Cell | null {
  if (!/\d/.test(t) || t.length > 30 || /[a-z]{4,}/i.test(t.replace(/[A-Z]{3}/g, ''))) return null;
  for (const [re, code] of LOCAL_CURRENCY) {
    if (re.test(t)) {
      const n = readNumber(t.replace(re, '').trim());
      if (!Number.isNaN(n)) return { kind: 'money', number: n, unit: code };
    }
  }
  const p = parsePrice(t);
  if (!p?.currency || p.amount === null) return null;
  // Only the number and the currency: "$25.00", "25,50 €", "EUR 12" (not "2 for $5").
  const rest = t
    .replace(p.currency_text ?? p.currency, '')
    .replace(/[\d.,\s\u00a0'’]/g, '')
    .trim();
  return rest === '' || rest === p.currency ? { kind: 'money', number: Number(p.amount), unit: p.currency } : null;
}

function quantity(t: string): Cell | null {
  if (t.length > 40 || !/\d/.test(t)) return null;
  const dims = DIMENSIONS.exec(t);
  if (dims && unitName(dims[4])) return { kind: 'dimensions', number: readNumber(dims[1]), unit: unitName(dims[4]) ?? undefined };
  const found = findQuantities(t);
  if (found.length === 1 && found[0].text.trim() === t.trim()) return { kind: 'quantity', number: found[0].value, unit: found[0].unit };
  return null;
}

/**
 * Classifies one cell.
 * @param decimalComma the file writes decimals with a comma (then `1,234` is 1.234, not 1234)
 */
export function classifyCell(text: string, decimalComma = false): Cell {
  const t = text.trim();
  if (isNullMarker(t)) return { kind: 'empty' };
  const lower = t.toLowerCase();
  if (TRUE_WORDS.has(lower) || FALSE_WORDS.has(lower)) return { kind: 'boolean' };
  if (INTEGER.test(t)) return { kind: 'integer', number: Number(t) };
  if (SCIENTIFIC.test(t)) return { kind: 'scientific', number: Number(t.replace(',', '.')) };
  const n = readNumber(t, decimalComma);
  if (!Number.isNaN(n)) {
    const decimal = DOT_DECIMAL.test(t) ? '.' : COMMA_DECIMAL.test(t) ? ',' : undefined;
    return Number.isInteger(n) && !decimal ? { kind: 'integer', number: n } : { kind: 'number', number: n, decimal };
  }
  if (ISO_DATETIME.test(t) && !Number.isNaN(Date.parse(t.replace(' ', 'T')))) return { kind: 'datetime' };
  if (ISO_DATE.test(t) && !Number.isNaN(Date.parse(t))) return { kind: 'date' };
  const local = LOCAL_DATE.exec(t);
  if (local && Number(local[1]) <= 31 && Number(local[2]) <= 31 && (Number(local[1]) <= 12 || Number(local[2]) <= 12)) return { kind: 'date' };
  if (IMAGE_URL.test(t)) return { kind: 'image_url' };
  if (URL_RE.test(t)) return { kind: 'url' };
  if (EMAIL.test(t)) return { kind: 'email' };
  if ((t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'))) {
    try {
      const v: unknown = JSON.parse(t);
      if (Array.isArray(v)) return { kind: 'json_array' };
      if (typeof v === 'object' && v !== null) return { kind: 'json_object' };
    } catch {
      // not JSON: read on
    }
  }
  if (/<\/?[a-z][a-z0-9]*(?:\s[^<>]*)?\/?>/i.test(t)) return { kind: 'html' };
  return money(t) ?? quantity(t) ?? { kind: 'text' };
}

/** Whether a cell is `true` (for boolean columns); 1 counts as true. */
export function booleanValue(text: string): boolean | null {
  const l = text.trim().toLowerCase();
  if (TRUE_WORDS.has(l) || l === '1') return true;
  if (FALSE_WORDS.has(l) || l === '0') return false;
  return null;
}
