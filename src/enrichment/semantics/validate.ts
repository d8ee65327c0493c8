/**
 * Deterministic checks that a value fits its output field (`validate_semantics`,
 * docs/api-enrichment.md "Enrichment jobs"; constraint keys of an output-schema field and the
 * inferred-field keys `pattern`, `min_length`, `max_length`, `minimum`, `maximum`,
 * `semantic_type`). Rules: declared type; pattern and bounds; enum / items_enum membership;
 * semantic types — GTIN/EAN/UPC by GS1 check digit (GS1 General Specifications §7.9), URLs
 * http(s) absolute (RFC 3986), e-mail addresses, ISO 4217 currency codes, prices > 0.
 */
import currencyCodes from 'currency-codes';
import { fieldRole } from '../extract/roles';
import { validGtin } from '../normalize/identifiers';
import type { OutputField } from '../types';
import { enumKey } from './enum';

function httpUrl(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  try {
    return /^https?:$/.test(new URL(v).protocol);
  } catch {
    return false;
  }
}

function typeProblem(value: unknown, field: OutputField): string | null {
  switch (field.type) {
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'is not a number';
    case 'integer':
      return Number.isInteger(value) ? null : 'is not an integer';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'is not a boolean';
    case 'array':
      return Array.isArray(value) ? null : 'is not a list';
    default:
      return typeof value === 'string' ? null : 'is not text';
  }
}

/** Semantic kind of a field: its `semantic_type`, else what its name/description imply. */
function semanticKind(field: OutputField): string {
  const declared = (field.semantic_type ?? '').toLowerCase().replace(/[\s-]+/g, '_');
  if (declared) return declared;
  if (field.type === 'array' && field.array_element_type === 'image_url') return 'image_url';
  const role = fieldRole(field);
  return role === 'gtin' || role === 'price' || role === 'currency' ? role : '';
}

function semanticProblem(value: unknown, kind: string): string | null {
  const items = Array.isArray(value) ? value : [value];
  if (/^(gtin(8|12|13|14)?|ean(8|13)?|upc|barcode)$/.test(kind))
    return items.every((v) => validGtin(String(v)) !== null) ? null : 'is not a valid GTIN (check digit)';
  if (/^(url|uri|image_url|image|link|website)$/.test(kind)) return items.every(httpUrl) ? null : 'is not an absolute http(s) URL';
  if (/^e_?mail$/.test(kind)) return items.every((v) => /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/.test(String(v))) ? null : 'is not an e-mail address';
  if (/^(currency|currency_code)$/.test(kind))
    return items.every((v) => currencyCodes.code(String(v).toUpperCase()) !== undefined) ? null : 'is not an ISO 4217 currency code';
  if (/^(price|money|amount)$/.test(kind)) return items.every((v) => Number(v) > 0) ? null : 'is not a plausible price (must be > 0)';
  return null;
}

/**
 * The problems of `value` for `field`, as short phrases completing "The value …"; empty when
 * the value fits. Never throws (an invalid `pattern` is ignored).
 */
export function validateValue(value: unknown, field: OutputField): string[] {
  const problems: string[] = [];
  const type = typeProblem(value, field);
  if (type) return [type];
  const items = Array.isArray(value) ? value : [value];
  if (typeof value === 'string') {
    if (field.pattern) {
      try {
        if (!new RegExp(field.pattern, 'u').test(value))
          problems.push(field.pattern_message ? `does not match the pattern (${field.pattern_message})` : `does not match the pattern ${field.pattern}`);
      } catch {
        // An invalid pattern is the schema's problem, not the value's.
      }
    }
    if (field.min_length !== undefined && value.length < field.min_length) problems.push(`is shorter than ${field.min_length} characters`);
    if (field.max_length !== undefined && value.length > field.max_length) problems.push(`is longer than ${field.max_length} characters`);
  }
  if (typeof value === 'number') {
    if (field.minimum !== undefined && value < field.minimum) problems.push(`is below the minimum ${field.minimum}`);
    if (field.maximum !== undefined && value > field.maximum) problems.push(`is above the maximum ${field.maximum}`);
  }
  const members = field.type === 'array' ? field.items_enum : field.enum;
  if (members && members.length > 0 && !items.every((v) => members.some((m) => enumKey(m) === enumKey(v)))) problems.push('is not one of the allowed values');
  const semantic = semanticProblem(value, semanticKind(field));
  if (semantic) problems.push(semantic);
  return problems;
}
