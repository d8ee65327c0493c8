/**
 * Product identifiers in text: GTIN/UPC/EAN (8, 12, 13 or 14 digits with a valid GS1 check
 * digit) and code-shaped tokens (part, model, stock numbers) compared by character shape
 * with the codes a catalog already holds.
 */
import { findAll, type Span } from './spans';

/**
 * GS1 check-digit test (GS1 General Specifications §7.9: weights 3,1 from the right,
 * excluding the check digit). Accepts 8, 12, 13 or 14 digits; anything else is false.
 */
export function isValidGtin(digits: string): boolean {
  if (!/^(\d{8}|\d{12,14})$/.test(digits)) return false;
  let sum = 0;
  for (let i = digits.length - 2, w = 3; i >= 0; i -= 1, w = 4 - w) sum += Number(digits[i]) * w;
  return (10 - (sum % 10)) % 10 === Number(digits[digits.length - 1]);
}

/** Every digit run in `text` that is a valid GTIN (see {@link isValidGtin}). */
export function findGtins(text: string): Span[] {
  return findAll(text, /(?<![\p{L}\p{N}])\d{8,14}(?![\p{N}])/gu).filter((s) => isValidGtin(s.text));
}

/**
 * Shape of a code: upper-case letters → "A", lower-case → "a", digits → "9", runs collapsed,
 * other characters kept ("XER106R01409" → "A9A9", "413931-B21" → "9-A9").
 */
export function codeShape(code: string): string {
  return code
    .replace(/\p{Lu}/gu, 'A')
    .replace(/\p{Ll}/gu, 'a')
    .replace(/\p{N}/gu, '9')
    .replace(/(.)\1+/g, '$1');
}

/**
 * Code-like tokens: runs of letters, digits and inner marks (-./#) that contain a digit and
 * are at least 3 characters long ("AVE12505", "413931-B21", "HT2520CU75", "YA24a").
 */
export function findCodeTokens(text: string): Span[] {
  return findAll(text, /(?<![\p{L}\p{N}\-./#])[\p{L}\p{N}]+(?:[-./#][\p{L}\p{N}]+)*(?![\p{L}\p{N}])/gu).filter((s) => s.text.length >= 3 && /\d/.test(s.text));
}
