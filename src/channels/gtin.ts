/**
 * GTIN handling after the GS1 General Specifications (https://www.gs1.org/standards/barcodes-epcrfid-id-keys/gs1-general-specifications):
 * the lengths a GTIN may have (GTIN-8, -12, -13, -14), the mod-10 check digit (§7.9.1)
 * and the prefixes that are not trade item numbers at all (the sections on restricted circulation numbers,
 * coupons and refund receipts). Written here rather than taken from npm: the rule is a few lines,
 * and the restricted ranges would have to be added to any package (`gtin` on npm offers general
 * GTIN utilities) anyway, so the whole check stays in one small file. Pure functions.
 */

/** GTIN lengths GS1 defines. */
export const GTIN_LENGTHS = [8, 12, 13, 14] as const;

/** Why a GTIN is not usable as a product identifier (GS1 General Specifications, restricted circulation numbers and coupons). */
export type RestrictedKind = 'restricted_circulation' | 'company_internal' | 'coupon' | 'refund_receipt';

/** The result of {@link parseGtin}. */
export type GtinCheck =
  | { ok: true; gtin: string; gtin14: string; restricted: RestrictedKind | null }
  | { ok: false; reason: 'not_digits' | 'length' | 'check_digit' | 'zero'; gtin: string };

/**
 * The GTIN as digits: spaces, dashes and dots removed (printed GTINs group their digits).
 * Returns the input trimmed when other characters remain, so the caller can report it.
 */
export function normaliseGtin(raw: string): string {
  return raw.trim().replace(/[\s\-.]/g, '');
}

/**
 * The GS1 mod-10 check digit of `body` (all digits of a GTIN but the last): from the right,
 * digits are weighted 3, 1, 3, 1, …; the check digit brings the sum up to a multiple of 10
 * (GS1 General Specifications §7.9.1).
 * @throws Error when `body` is not all digits
 */
export function gtinCheckDigit(body: string): number {
  if (!/^\d+$/.test(body)) throw new Error('gtinCheckDigit: digits only');
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const digit = body.charCodeAt(body.length - 1 - i) - 48;
    sum += i % 2 === 0 ? digit * 3 : digit;
  }
  return (10 - (sum % 10)) % 10;
}

/** The GTIN padded with leading zeros to 14 digits, the form GS1 compares GTINs in. */
export function toGtin14(gtin: string): string {
  return gtin.padStart(14, '0');
}

/**
 * Which restricted range a valid GTIN falls in, or null for an ordinary trade item number
 * (GS1 General Specifications, restricted circulation numbers and coupons; GS1 prefix list):
 * - GTIN-8 starting 0 or 2: restricted circulation (RCN-8);
 * - GTIN-12/13/14 by their GS1 prefix (the first three digits of the GTIN-13 form; a GTIN-12 is
 *   a GTIN-13 with a leading 0, a GTIN-14's first digit is the packaging indicator):
 *   020–029 and 200–299 restricted circulation (in-store, variable measure), 040–049 restricted
 *   to the issuing company, 050–059 and 981–984, 990–999 coupons, 980 refund receipts.
 */
export function restrictedKind(gtin: string): RestrictedKind | null {
  if (gtin.length === 8) return gtin[0] === '0' || gtin[0] === '2' ? 'restricted_circulation' : null;
  const g13 = gtin.length === 14 ? gtin.slice(1) : gtin.padStart(13, '0');
  // A GTIN-8 carried in a longer field (eight digits behind zeros) keeps the GTIN-8 rule.
  if (g13.startsWith('00000')) return restrictedKind(g13.slice(5));
  const p = Number(g13.slice(0, 3));
  if ((p >= 20 && p <= 29) || (p >= 200 && p <= 299)) return 'restricted_circulation';
  if (p >= 40 && p <= 49) return 'company_internal';
  if (p === 980) return 'refund_receipt';
  if ((p >= 50 && p <= 59) || (p >= 981 && p <= 984) || p >= 990) return 'coupon';
  return null;
}

/**
 * Checks a GTIN as given: normalised ({@link normaliseGtin}), 8/12/13/14 digits, not all zeros,
 * with a correct check digit; a valid one says whether it is restricted ({@link restrictedKind}).
 * Never throws.
 */
export function parseGtin(raw: string): GtinCheck {
  const gtin = normaliseGtin(raw);
  if (!/^\d+$/.test(gtin)) return { ok: false, reason: 'not_digits', gtin };
  if (!(GTIN_LENGTHS as readonly number[]).includes(gtin.length)) return { ok: false, reason: 'length', gtin };
  if (/^0+$/.test(gtin)) return { ok: false, reason: 'zero', gtin };
  if (gtinCheckDigit(gtin.slice(0, -1)) !== Number(gtin[gtin.length - 1])) return { ok: false, reason: 'check_digit', gtin };
  return { ok: true, gtin, gtin14: toGtin14(gtin), restricted: restrictedKind(gtin) };
}
