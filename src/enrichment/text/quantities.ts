/**
 * Measurements in product text: a number (decimal, thousands separators, fractions such as
 * "4 3/4" or "8-1/2") followed by a unit alias. Units are grouped by dimension; conversion
 * between units is delegated to `js-quantities` (unit definitions from NIST/SI tables).
 */
import Qty from 'js-quantities';
import { findAll, type Span } from './spans';

/** Physical or commercial dimension of a measurement. */
export type Dimension = 'mass' | 'volume' | 'length' | 'data' | 'frequency' | 'power' | 'voltage' | 'rotation' | 'count';

/** One unit alias: how it is written and the `js-quantities` unit it denotes ('' = count). */
interface UnitAlias {
  pattern: string;
  dimension: Dimension;
  qty: string;
}

/** Unit aliases, most specific first (order matters inside the alternation). */
const UNITS: UnitAlias[] = [
  { pattern: 'fl\\.?\\s?oz\\.?|fluid\\s+ounces?', dimension: 'volume', qty: 'floz' },
  { pattern: 'millilit(?:er|re)s?|ml', dimension: 'volume', qty: 'ml' },
  { pattern: 'lit(?:er|re)s?|ltrs?|l', dimension: 'volume', qty: 'l' },
  { pattern: 'gallons?|gal\\.?', dimension: 'volume', qty: 'gal' },
  { pattern: 'quarts?|qt\\.?', dimension: 'volume', qty: 'qt' },
  { pattern: 'milligrams?|mg', dimension: 'mass', qty: 'mg' },
  { pattern: 'micrograms?|mcg', dimension: 'mass', qty: 'ug' },
  { pattern: 'kilograms?|kgs?', dimension: 'mass', qty: 'kg' },
  { pattern: 'grams?|gr?', dimension: 'mass', qty: 'g' },
  { pattern: 'ounces?|oz\\.?', dimension: 'mass', qty: 'oz' },
  { pattern: 'pounds?|lbs?\\.?', dimension: 'mass', qty: 'lb' },
  { pattern: 'carats?|ctw|ct\\.?\\s?t\\.?w\\.?', dimension: 'mass', qty: 'ct' },
  { pattern: 'millimet(?:er|re)s?|mm', dimension: 'length', qty: 'mm' },
  { pattern: 'centimet(?:er|re)s?|cm', dimension: 'length', qty: 'cm' },
  { pattern: 'met(?:er|re)s?|m', dimension: 'length', qty: 'm' },
  { pattern: "inch(?:es)?|in\\.?|\"|''", dimension: 'length', qty: 'in' },
  { pattern: "feet|foot|ft\\.?|'", dimension: 'length', qty: 'ft' },
  { pattern: 'yards?|yds?\\.?', dimension: 'length', qty: 'yd' },
  { pattern: '[kmgt]i?b(?:ytes?)?|[kmgt]igabytes?|(?:kilo|mega|giga|tera)bytes?', dimension: 'data', qty: 'B' },
  { pattern: '[kmg]?hz', dimension: 'frequency', qty: 'Hz' },
  { pattern: 'k?watts?|k?w', dimension: 'power', qty: 'W' },
  { pattern: 'volts?|v(?:ac|dc)?', dimension: 'voltage', qty: 'V' },
  { pattern: 'rpm', dimension: 'rotation', qty: 'rpm' },
  {
    pattern:
      'count|ct\\.?|pcs\\.?|pc|pieces?|packs?|pk|sheets?|sh|ea|each|rolls?|bags?|tea\\s?bags|capsules?|tablets?|softgels?|caplets?|gummies|veg(?:gie)?\\s?caps|loads|servings?|sachets?|pods|k-cups?|cups',
    dimension: 'count',
    qty: '',
  },
];

/** A number as written: "1,000", "3.5", "4 3/4", "8-1/2", "1/2". */
export const NUMBER_SOURCE = '(?:\\d+(?:[.,]\\d+)*(?:[\\s-]\\d+\\/\\d+)?|\\d+\\/\\d+)';

const QUANTITY_RE = new RegExp(`(?<![\\p{L}\\p{N}.,/])(${NUMBER_SOURCE})\\s?-?\\s?(${UNITS.map((u) => `(${u.pattern})`).join('|')})(?![\\p{L}\\p{N}])`, 'giu');

/** A measurement found in text. `value` is the number in `unit` (fractions resolved). */
export interface Measurement extends Span {
  value: number;
  /** `js-quantities` unit name; '' for counts. */
  unit: string;
  dimension: Dimension;
  /** Span of the number alone (without the unit). */
  number: Span;
}

/** Parses a written number ("1,000", "3.5", "4 3/4", "8-1/2", "1/2"); NaN when not one. */
export function parseNumber(written: string): number {
  const s = written.trim();
  const mixed = /^(\d+)[\s-]+(\d+)\/(\d+)$/.exec(s);
  if (mixed) return Number(mixed[1]) + Number(mixed[2]) / Number(mixed[3]);
  const frac = /^(\d+)\/(\d+)$/.exec(s);
  if (frac) return Number(frac[1]) / Number(frac[2]);
  // "1,000" is a thousands separator; "3,5" (one or two digits after) a decimal comma.
  const normalised = /,\d{3}(?!\d)/.test(s) ? s.replace(/,/g, '') : s.replace(',', '.');
  return /^\d+(\.\d+)?$/.test(normalised) ? Number(normalised) : Number.NaN;
}

/** Resolves a matched alias to its unit, scaling SI prefixes written in the alias (GB, MHz, kW). */
function unitOf(alias: UnitAlias, written: string): string {
  const w = written.toLowerCase();
  if (alias.dimension === 'data') return `${w.startsWith('k') ? 'k' : w.startsWith('m') ? 'M' : w.startsWith('g') ? 'G' : 'T'}B`;
  if (alias.dimension === 'frequency') return w.startsWith('g') ? 'GHz' : w.startsWith('m') ? 'MHz' : w.startsWith('k') ? 'kHz' : 'Hz';
  if (alias.dimension === 'power') return w.startsWith('k') ? 'kW' : 'W';
  return alias.qty;
}

/** Every measurement in `text`, left to right. */
export function findMeasurements(text: string): Measurement[] {
  const out: Measurement[] = [];
  QUANTITY_RE.lastIndex = 0;
  for (let m = QUANTITY_RE.exec(text); m !== null; m = QUANTITY_RE.exec(text)) {
    const aliasIndex = m.slice(3).findIndex((g) => g !== undefined);
    const alias = UNITS[aliasIndex];
    const value = parseNumber(m[1]);
    if (alias === undefined || Number.isNaN(value)) continue;
    out.push({
      start: m.index,
      end: m.index + m[0].length,
      text: m[0],
      value,
      unit: unitOf(alias, m[2]),
      dimension: alias.dimension,
      number: { start: m.index, end: m.index + m[1].length, text: m[1] },
    });
  }
  return out;
}

/** Measurement of a whole value ("12 Ounce" → mass); null when the value is not one. */
export function parseMeasurement(value: string): Measurement | null {
  const found = findMeasurements(value.trim());
  const first = found[0];
  return first !== undefined && first.start === 0 && first.end === value.trim().length ? first : null;
}

/**
 * Converts a measurement to `targetUnit` with js-quantities; null when the units are
 * incompatible or unknown (counts convert only to themselves).
 */
export function convert(m: Pick<Measurement, 'value' | 'unit'>, targetUnit: string): number | null {
  if (m.unit === '') return targetUnit === '' ? m.value : null;
  try {
    return Qty(`${m.value} ${m.unit}`).to(targetUnit).scalar;
  } catch {
    return null;
  }
}

/** Spans of a list of pack-size phrasings: "Pack of 6", "Case of 25", "1,000/Box", "6/PK". */
export function findPackPhrases(text: string): Span[] {
  const re = new RegExp(
    `(?<![\\p{L}\\p{N}])(?:(?:pack|case|box|set|bundle|lot)\\s+of\\s+${NUMBER_SOURCE}|${NUMBER_SOURCE}\\s?(?:\\/|per\\s)\\s?(?:box|pack|pk|carton|ctn|case|set|bag|roll|pad|bx|rm|ream|cs))(?![\\p{L}\\p{N}])`,
    'giu',
  );
  return findAll(text, re);
}
