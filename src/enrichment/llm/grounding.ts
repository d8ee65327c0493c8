import { normalizeNumber } from '../normalize/price';

/** Text folded for verbatim comparison: Unicode NFKC, lower case, whitespace collapsed. */
export function foldText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Every number written in a text, parsed with the price normaliser (`1.299,00` and `1,299.00` → 1299). */
function numbersIn(text: string): number[] {
  return (text.match(/\d[\d.,' \u00a0]*\d|\d/g) ?? [])
    .map((m) => normalizeNumber(m.trim()))
    .filter((n): n is string => n !== null)
    .map(Number);
}

/**
 * Whether a value is stated in a passage ("grounded"): a string appears in it after
 * {@link foldText}; a number equals a number written in it (any decimal/grouping convention);
 * an array when every element is grounded; a boolean never (it needs a quote, see
 * {@link quoteGrounded}).
 */
export function valueGrounded(value: unknown, passage: string): boolean {
  if (Array.isArray(value)) return value.length > 0 && value.every((v) => valueGrounded(v, passage));
  if (typeof value === 'number') return numbersIn(passage).some((n) => Math.abs(n - value) < 1e-9);
  if (typeof value === 'string') return value.trim() !== '' && foldText(passage).includes(foldText(value));
  return false;
}

/** Whether the model's quote (at least 3 characters) appears verbatim in the passage after {@link foldText}. */
export function quoteGrounded(quote: string | null, passage: string): boolean {
  return !!quote && foldText(quote).length >= 3 && foldText(passage).includes(foldText(quote));
}

/** Whether two typed field values are the same reading: numbers numerically, strings folded, arrays as sets. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    const fa = new Set(a.map((v) => foldText(String(v))));
    const fb = new Set(b.map((v) => foldText(String(v))));
    return fa.size === fb.size && [...fa].every((v) => fb.has(v));
  }
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) < 1e-9;
  return foldText(String(a)) === foldText(String(b));
}
