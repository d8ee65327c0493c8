/**
 * Quantities with units, from any source: JSON-LD QuantitativeValue `unitCode`s (UN/CEFACT
 * Recommendation 20 common codes), spec-table values ("45 cm", "1,2 kg"), and text
 * ("5 ft 6 in", `17.3"`). Conversion is delegated to `js-quantities` (NIST/SI unit
 * definitions); this module only maps how units are written onto its unit names.
 * Used for output fields with a `unit` (docs/api-enrichment.md "Enrichment jobs").
 */
import Qty from 'js-quantities';

/** A number with its unit as a `js-quantities` unit name (`cm`, `kg`, `floz`, `mAh`, …). */
export interface Quantity {
  value: number;
  unit: string;
}

/**
 * UN/CEFACT Recommendation 20 common codes (rev. 17) used by schema.org `unitCode`, mapped to
 * `js-quantities` units. Only codes with an unambiguous physical unit are listed.
 */
export const UNCEFACT_UNITS: Readonly<Record<string, string>> = {
  MMT: 'mm',
  CMT: 'cm',
  DMT: 'dm',
  MTR: 'm',
  KMT: 'km',
  INH: 'in',
  FOT: 'ft',
  YRD: 'yd',
  MGM: 'mg',
  GRM: 'g',
  KGM: 'kg',
  TNE: 'tonne',
  LBR: 'lb',
  ONZ: 'oz',
  MLT: 'ml',
  CLT: 'cl',
  DLT: 'dl',
  LTR: 'l',
  MTQ: 'm^3',
  CMQ: 'cm^3',
  GLL: 'gal',
  OZA: 'floz',
  QT: 'qt',
  WTT: 'W',
  KWT: 'kW',
  VLT: 'V',
  AMP: 'A',
  AMH: 'Ah',
  E09: 'mAh',
  WHR: 'Wh',
  KWH: 'kWh',
  HTZ: 'Hz',
  KHZ: 'kHz',
  MHZ: 'MHz',
  A86: 'GHz',
  AD: 'B',
  '2P': 'kB',
  '4L': 'MB',
  E34: 'GB',
  E35: 'TB',
  SEC: 's',
  MIN: 'min',
  HUR: 'h',
  CEL: 'tempC',
  FAH: 'tempF',
};

/** How units are written in product data (lower-cased, dots removed), longest first within a group. */
const ALIASES: Array<[RegExp, string]> = [
  [/^(fl ?oz|fluid ounces?)$/, 'floz'],
  [/^(ml|millilit(er|re)s?)$/, 'ml'],
  [/^(cl|centilit(er|re)s?)$/, 'cl'],
  [/^(l|ltrs?|lit(er|re)s?)$/, 'l'],
  [/^(gal|gallons?)$/, 'gal'],
  [/^(qt|quarts?)$/, 'qt'],
  [/^(mm|millimet(er|re)s?)$/, 'mm'],
  [/^(cm|centimet(er|re)s?)$/, 'cm'],
  [/^(m|met(er|re)s?)$/, 'm'],
  [/^(km|kilomet(er|re)s?)$/, 'km'],
  [/^(in|inch(es)?|"|''|”|″)$/, 'in'],
  [/^(ft|feet|foot|'|’|′)$/, 'ft'],
  [/^(yd|yds|yards?)$/, 'yd'],
  [/^(mg|milligrams?)$/, 'mg'],
  [/^(g|gr|grams?|grammes?)$/, 'g'],
  [/^(kg|kgs|kilos?|kilograms?|kilogrammes?)$/, 'kg'],
  [/^(lb|lbs|pounds?)$/, 'lb'],
  [/^(oz|ounces?)$/, 'oz'],
  [/^(w|watts?)$/, 'W'],
  [/^(kw|kilowatts?)$/, 'kW'],
  [/^(v|volts?|vac|vdc)$/, 'V'],
  [/^(a|amps?|amperes?)$/, 'A'],
  [/^(mah|milliamp(ere)? ?hours?)$/, 'mAh'],
  [/^(ah|amp(ere)? ?hours?)$/, 'Ah'],
  [/^(wh|watt ?hours?)$/, 'Wh'],
  [/^(kwh|kilowatt ?hours?)$/, 'kWh'],
  [/^(hz|hertz)$/, 'Hz'],
  [/^(khz)$/, 'kHz'],
  [/^(mhz)$/, 'MHz'],
  [/^(ghz)$/, 'GHz'],
  [/^(b|bytes?)$/, 'B'],
  [/^(kb|kilobytes?)$/, 'kB'],
  [/^(mb|megabytes?)$/, 'MB'],
  [/^(gb|gigabytes?)$/, 'GB'],
  [/^(tb|terabytes?)$/, 'TB'],
  [/^(°c|celsius|degc)$/, 'tempC'],
  [/^(°f|fahrenheit|degf)$/, 'tempF'],
];

/**
 * The `js-quantities` unit for a unit as written: an alias ("inches", `"`, "Liter", "mAh"),
 * a UN/CEFACT Rec 20 code ("CMT", "KGM") or a unit js-quantities knows itself.
 * @returns the unit name, or null when unknown
 */
export function unitName(written: string): string | null {
  const raw = written.trim();
  if (Object.prototype.hasOwnProperty.call(UNCEFACT_UNITS, raw.toUpperCase()) && /^[A-Z0-9]{2,3}$/.test(raw)) return UNCEFACT_UNITS[raw.toUpperCase()];
  const w = raw.toLowerCase().replace(/\.$/, '').replace(/\s+/g, ' ');
  for (const [re, unit] of ALIASES) if (re.test(w)) return unit;
  try {
    Qty(`1 ${raw}`);
    return raw;
  } catch {
    return null;
  }
}

/** Conventional symbols for the few `js-quantities` unit names that are not what people write. */
const SYMBOLS: Readonly<Record<string, string>> = { tempC: '°C', tempF: '°F', 'm^3': 'm³', 'cm^3': 'cm³' };

/**
 * How a unit is shown in a text value: a UN/CEFACT Rec 20 code or an alias as its usual symbol
 * (`KGM` → `kg`, `INH` → `in`, `CEL` → `°C`, "inches" → `in`); a unit {@link unitName} does not
 * know is returned as written (trimmed).
 */
export function unitSymbol(written: string): string {
  const name = unitName(written);
  return name ? (SYMBOLS[name] ?? name) : written.trim();
}

/** "1,000", "3.5", "3,5", "4 3/4", "8-1/2", "1/2", "½" as a number; NaN when not one. */
export function parseWrittenNumber(written: string): number {
  const s = written.trim().replace(/½/g, ' 1/2').replace(/¼/g, ' 1/4').replace(/¾/g, ' 3/4').trim();
  const mixed = /^(\d+)[\s-]+(\d+)\/(\d+)$/.exec(s);
  if (mixed) return Number(mixed[1]) + Number(mixed[2]) / Number(mixed[3]);
  const frac = /^(\d+)\/(\d+)$/.exec(s);
  if (frac) return Number(frac[1]) / Number(frac[2]);
  // "1,000" / "1.000,5": thousands separators; "3,5": a decimal comma.
  let n = s.replace(/\s/g, '');
  if (/^\d{1,3}(,\d{3})+(\.\d+)?$/.test(n)) n = n.replace(/,/g, '');
  else if (/^\d{1,3}(\.\d{3})+(,\d+)?$/.test(n)) n = n.replace(/\./g, '').replace(',', '.');
  else n = n.replace(',', '.');
  return /^-?\d+(\.\d+)?$/.test(n) ? Number(n) : Number.NaN;
}

/** A number as written (decimals, thousands separators, mixed and plain fractions). */
export const NUMBER = String.raw`\d+(?:[.,]\d+)*(?:[\s-]\d+\/\d+)?|\d+\/\d+|\d*[½¼¾]`;
const UNIT_TOKEN = String.raw`fl\.?\s?oz|fluid\s+ounces?|[a-zA-Z°]+(?:\s?hours?)?|"|''|”|″|'|’|′`;
const QUANTITY = new RegExp(String.raw`(?<![\p{L}\p{N}.,/])(${NUMBER})\s?-?\s?(${UNIT_TOKEN})(?![\p{L}\p{N}])`, 'gu');

/** A quantity found in a text, with the exact substring it was read from. */
export interface FoundQuantity extends Quantity {
  text: string;
  index: number;
}

/**
 * Every quantity in `text`, left to right: "45 cm", "1.2kg", `17.3"`, "45 CMT", "2 x 5 W"
 * (the "5 W"). Feet followed by inches ("5 ft 6 in", `5' 6"`) are one quantity in inches.
 * Unknown units are skipped.
 */
export function findQuantities(text: string): FoundQuantity[] {
  const out: FoundQuantity[] = [];
  QUANTITY.lastIndex = 0;
  for (let m = QUANTITY.exec(text); m !== null; m = QUANTITY.exec(text)) {
    const unit = unitName(m[2]);
    const value = parseWrittenNumber(m[1]);
    if (!unit || Number.isNaN(value)) continue;
    const prev = out[out.length - 1];
    if (unit === 'in' && prev?.unit === 'ft' && /^[\s,]*$/.test(text.slice(prev.index + prev.text.length, m.index))) {
      out[out.length - 1] = { value: prev.value * 12 + value, unit: 'in', text: text.slice(prev.index, m.index + m[0].length), index: prev.index };
      continue;
    }
    out.push({ value, unit, text: m[0], index: m.index });
  }
  return out;
}

/**
 * Converts a quantity to `target` (written as {@link unitName} accepts), rounded to 6
 * significant decimals to hide binary noise.
 * @returns the number in `target`, or null when the units are unknown or of different kinds
 */
export function convertQuantity(q: Quantity, target: string): number | null {
  const to = unitName(target);
  if (!to) return null;
  try {
    return Number(Qty(`${q.value} ${q.unit}`).to(to).scalar.toPrecision(12));
  } catch {
    return null;
  }
}

/** Whether two written units measure the same kind of thing (length, mass, …). */
export function sameKind(a: string, b: string): boolean {
  const ua = unitName(a);
  const ub = unitName(b);
  if (!ua || !ub) return false;
  try {
    return Qty(`1 ${ua}`).kind() === Qty(`1 ${ub}`).kind();
  } catch {
    return false;
  }
}

/**
 * The unit a label or header implies: "Width (cm)", "Weight [kg]", "Capacity in litres",
 * "Breite/mm". Only explicit unit mentions count.
 * @returns the written unit, or null
 */
export function labelUnit(label: string): string | null {
  const m = /[([/]\s*([^()[\]/]{1,14}?)\s*[)\]]?\s*:?\s*$|\bin\s+([a-zA-Z]{1,12})\s*:?\s*$/.exec(label.trim());
  const written = m?.[1] ?? m?.[2];
  return written && unitName(written) ? written : null;
}

/**
 * Reads a value of a number field with a unit (docs/api-enrichment.md "Enrichment jobs", Output-schema `unit`):
 * the first quantity of a compatible kind in `value`, converted to `target`. A bare number is
 * accepted only when `impliedUnit` (from the source's label or a QuantitativeValue unitCode)
 * is given and compatible; otherwise a unitless number is refused, because its unit is unknown.
 * @returns the number in the target unit, or undefined
 */
export function readInUnit(value: string | number, target: string, impliedUnit?: string | null): number | undefined {
  const text = String(value).trim();
  for (const q of findQuantities(text)) {
    const n = convertQuantity(q, target);
    if (n !== null) return n;
  }
  const bare = /^-?\d+(?:[.,]\d+)*(?:[\s-]\d+\/\d+)?$|^\d+\/\d+$/.test(text) ? parseWrittenNumber(text) : Number.NaN;
  if (impliedUnit && !Number.isNaN(bare)) {
    const unit = unitName(impliedUnit);
    const n = unit ? convertQuantity({ value: bare, unit }, target) : null;
    if (n !== null) return n;
  }
  return undefined;
}
