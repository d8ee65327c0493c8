/**
 * Units of spreadsheet columns with their codes: physical units as UN/CEFACT Recommendation 20
 * common codes (the codes schema.org `unitCode` uses), currencies as ISO 4217 codes (UN/CEFACT
 * Recommendation 9). Units are read from headers ("Weight (lbs)", "Variant Grams") and from
 * values ("10 kg", "51x51 cm", "SR 2,375"; src/services/sheets/cells.ts).
 */
import { labelUnit, UNCEFACT_UNITS, unitName, unitSymbol } from '../../enrichment/normalize/units';

/** A column's unit: how it is shown and its code. */
export interface ColumnUnit {
  /** Symbol as shown to people (`cm`, `kg`, `°C`) or the ISO 4217 code of a currency. */
  symbol: string;
  /** UN/CEFACT Rec 20 common code (`CMT`, `KGM`) or ISO 4217 code (`SAR`); null when Rec 20 has none listed here. */
  code: string | null;
  /** `quantity` for physical units, `currency` for money. */
  kind: 'quantity' | 'currency';
}

/** `js-quantities` unit name → UN/CEFACT Rec 20 code (the inverse of the engine's table). */
const CODE_OF: ReadonlyMap<string, string> = new Map(Object.entries(UNCEFACT_UNITS).map(([code, unit]) => [unit, code]));

/**
 * Unit words read from the end of a header ("Variant Grams", "weight_kg"): only spellings that
 * are nothing but a unit (short ones like `in`, `m`, `g`, `min` are also words or letters).
 */
const HEADER_UNIT_WORD =
  /^(grams?|kg|kgs|kilos?|kilograms?|lbs?|pounds?|oz|ounces?|mm|cm|millimet(er|re)s?|centimet(er|re)s?|met(er|re)s?|inch(es)?|ml|millilit(er|re)s?|lit(er|re)s?|watts?|volts?|mah|ghz|mhz|gb|tb|celsius|fahrenheit)$/;

/** The unit of a `js-quantities` unit name with its Rec 20 code. */
export function physicalUnit(name: string): ColumnUnit {
  return { symbol: unitSymbol(name), code: CODE_OF.get(name) ?? null, kind: 'quantity' };
}

/** A currency as a unit (ISO 4217 code, which UN/CEFACT Rec 9 adopts). */
export function currencyUnit(code: string): ColumnUnit {
  return { symbol: code, code, kind: 'currency' };
}

/**
 * The unit a header names: in brackets or after a slash ("Weight (lbs)", "Width [cm]",
 * "Breite/mm", "Capacity in litres"), or as the header's last word when that word is
 * unambiguously a unit ("Variant Grams", "weight_kg").
 * @returns the unit, or null when the header names none
 */
export function headerUnit(header: string): ColumnUnit | null {
  const written = labelUnit(header);
  if (written) {
    const name = unitName(written);
    if (name) return physicalUnit(name);
  }
  const last = header
    .trim()
    .split(/[\s_\-.]+/)
    .pop()
    ?.toLowerCase();
  if (!last || !HEADER_UNIT_WORD.test(last)) return null;
  const name = unitName(last);
  return name ? physicalUnit(name) : null;
}
