/**
 * Validates a GTIN (GTIN-8/12/13/14, i.e. EAN-8, UPC-A, EAN-13, ITF-14) by its GS1 mod-10
 * check digit (GS1 General Specifications §7.9). Spaces and dashes are ignored.
 * @returns the digits when valid, else null
 */
export function validGtin(value: string | null | undefined): string | null {
  const digits = (value ?? '').replace(/[\s-]/g, '');
  if (!/^\d{8}$|^\d{12,14}$/.test(digits)) return null;
  let sum = 0;
  for (let i = digits.length - 2, w = 3; i >= 0; i--, w = w === 3 ? 1 : 3) sum += Number(digits[i]) * w;
  return (10 - (sum % 10)) % 10 === Number(digits[digits.length - 1]) ? digits : null;
}

/**
 * Whether a string looks like a product code (SKU/MPN): 2–40 characters, no inner
 * sentence-like spacing (at most two spaces), and not a plain word — it holds a digit, or is
 * an upper-case code.
 */
export function looksLikeCode(value: string | null | undefined): boolean {
  const v = (value ?? '').trim();
  if (v.length < 2 || v.length > 40) return false;
  if ((v.match(/\s/g) ?? []).length > 2) return false;
  return /\d/.test(v) || /^[A-Z][A-Z0-9\-_.]{2,}$/.test(v);
}
