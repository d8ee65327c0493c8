/**
 * Refresh and merge (docs/api-enrichment.md "Refresh and merge"; docs/api-enrichment.md "Enrichment jobs" `merge`): every requested field is researched whether or not the item already has a
 * value, and the result is then reconciled with the item's own value here.
 *
 * Per requested field whose item value is present:
 * - nothing sourced (no value, or only values read from the item's own text, `INPUT:*`): the
 *   item's value stays, cited `INPUT:<field>`;
 * - a sourced value (a web page, a knowledge-base `SOURCE_X`) equal to the item's once
 *   normalised (case, accents, spacing, punctuation; numbers as numbers; a brand also when one
 *   contains the other): the item's spelling stays, the research is cited;
 * - a different sourced value without `merge`: it replaces the item's value (overwrite is the
 *   default), so a staged change shows before → after with the value's source;
 * - with `merge: true`: lists become the union (existing first, duplicates by normalised value
 *   dropped), objects merge key by key (the same rules per key), and a scalar keeps the item's
 *   value: a different sourced value is offered as a LOW `field` candidate with its sources
 *   when low-confidence candidates are requested (docs/api-enrichment.md "Low-confidence candidates"), else named in a field issue
 *   (never silently dropped).
 */
import { fieldRole } from '../extract/roles';
import type { EnrichInput, EnrichmentResult, OutputField } from '../types';
import { enumKey } from './enum';
import { addCandidates, lowConfidenceWanted } from './low-confidence';

/** Whether a field value counts as given: not undefined/null, not blank text, not an empty list. */
export function present(v: unknown): boolean {
  return v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '') && !(Array.isArray(v) && v.length === 0);
}

/** A value's comparison key: folded text for strings (see `enumKey`), JSON for anything else. */
function valueKey(v: unknown): string {
  return enumKey(typeof v === 'string' ? v : JSON.stringify(v));
}

/** Folded text without any punctuation (`De’Longhi` → `delonghi`). */
function textKey(v: unknown): string {
  return valueKey(v).replace(/[\p{P}\p{S}]/gu, '');
}

/** Whether two values are the same once normalised (case, accents, spacing, punctuation; numbers and numeric text compare as numbers). */
export function sameNormalised(a: unknown, b: unknown): boolean {
  if ((typeof a === 'number' || typeof b === 'number') && Number(a) === Number(b) && String(a).trim() !== '' && String(b).trim() !== '') return true;
  return valueKey(a) === valueKey(b) || (typeof a === 'string' && typeof b === 'string' && textKey(a) !== '' && textKey(a) === textKey(b));
}

/**
 * Whether a sourced value names the same thing as the item's: {@link sameNormalised}, or, for a
 * brand (a name the item gave that identified the product's page), one containing the other
 * (`adidas` / `adidas Performance`, `Roborock` / `Marca: Roborock`).
 */
function sameAsItem(field: OutputField, existing: unknown, found: unknown): boolean {
  if (sameNormalised(existing, found)) return true;
  if (fieldRole(field) !== 'brand' || typeof existing !== 'string' || typeof found !== 'string') return false;
  const [a, b] = [textKey(existing), textKey(found)];
  return a.length >= 3 && b.length >= 3 && (a.includes(b) || b.includes(a));
}

/** Union of two lists, existing items first, de-duplicated by normalised value. */
export function unionValues(existing: unknown[], extracted: unknown[]): unknown[] {
  const seen = new Set<string>();
  const out: unknown[] = [];
  for (const v of [...existing, ...extracted]) {
    const key = valueKey(v);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(v);
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The `merge: true` combination of an existing value with a found one: lists (or a list and a
 * single value) → {@link unionValues}; two objects → key by key with these same rules (keys
 * only one side has are kept); anything else → the existing value.
 */
export function mergeValues(existing: unknown, found: unknown): unknown {
  if (!present(existing)) return found;
  if (!present(found)) return existing;
  if (Array.isArray(existing) || Array.isArray(found)) {
    return unionValues(Array.isArray(existing) ? existing : [existing], Array.isArray(found) ? found : [found]);
  }
  if (isPlainObject(existing) && isPlainObject(found)) {
    const out: Record<string, unknown> = { ...existing };
    for (const [k, v] of Object.entries(found)) out[k] = k in existing ? mergeValues(existing[k], v) : v;
    return out;
  }
  return existing;
}

/** Whether any of a field's sources is research (a page or a knowledge-base document), not the item itself. */
export function isSourced(cited: string[] | undefined): boolean {
  return (cited ?? []).some((s) => !s.startsWith('INPUT:'));
}

/** Puts the item's own value back in the output, cited `INPUT:<field>`. */
function keepExisting(result: EnrichmentResult, field: OutputField, existing: unknown): void {
  const after = result.after_data;
  after[field.name] = existing;
  after.sources[field.name] = [`INPUT:${field.name}`];
  after.source_explanations[field.name] = `Kept from the input item's ${field.name}.`;
  result.review_info.field_methods[field.name] = 'input';
  result.review_info.field_confidence[field.name] = 'high';
}

/** Offers a sourced value that `merge` kept out, as a LOW candidate or a field issue (see the module comment). */
function offerKeptOut(
  result: EnrichmentResult,
  input: EnrichInput,
  field: OutputField,
  existing: unknown,
  value: unknown,
  cited: string[],
  explanation: string,
): void {
  const text = Array.isArray(value) ? value.join(', ') : typeof value === 'object' ? JSON.stringify(value) : String(value);
  const reason = `merge keeps the item's value ${JSON.stringify(existing).slice(0, 80)}; research found a different one.`;
  if (lowConfidenceWanted(input.options, 'field')) {
    addCandidates(result, input.options, [
      { name: field.name, scope: 'field', candidate_value: text, confidence: 'LOW', reason, sources: cited, source_explanation: explanation },
    ]);
  } else {
    result.review_info.field_issues.push({ field: field.name, message: `Kept the item's value (merge); ${cited.join(', ')} gives "${text.slice(0, 80)}".` });
  }
}

/**
 * Reconciles one requested field of a built result with the item's own value (see the module
 * comment). Mutates `result`; a field the item has no value for is left as extracted.
 */
export function reconcileWithItem(result: EnrichmentResult, input: EnrichInput, field: OutputField): void {
  const existing = input.item[field.name];
  if (!present(existing)) return;
  const after = result.after_data;
  const cited = after.sources[field.name] ?? [];
  const found = after[field.name];
  if (!isSourced(cited) || !present(found)) return keepExisting(result, field, existing);
  // The same value once normalised (`Kärcher` / `KÄRCHER`), confirmed by research: the item's spelling stays, the research is cited.
  if (!Array.isArray(existing) && !isPlainObject(existing) && sameAsItem(field, existing, found)) {
    after[field.name] = existing;
    return;
  }
  if (!field.merge) return;
  const merged = mergeValues(existing, found);
  if (merged === existing) {
    const explanation = after.source_explanations[field.name] ?? '';
    keepExisting(result, field, existing);
    if (!sameNormalised(existing, found)) offerKeptOut(result, input, field, existing, found, cited, explanation);
    return;
  }
  after[field.name] = merged;
  after.sources[field.name] = [`INPUT:${field.name}`, ...cited.filter((s) => s !== `INPUT:${field.name}`)];
  const added = Array.isArray(merged) ? merged.length - (Array.isArray(existing) ? existing.length : 1) : null;
  after.source_explanations[field.name] =
    `Merged with the item's ${field.name}${added === null ? '' : ` (${added} new value(s))`}: ${after.source_explanations[field.name] ?? ''}`.trim();
}

/** Roles of the fields that identify a product (research matches pages by them). */
const IDENTITY_ROLES = new Set(['name', 'brand', 'gtin', 'mpn', 'sku']);

/**
 * The keys of `data` that identify the product: name, brand, GTIN, MPN and SKU, recognised by
 * name as output fields are (`fieldRole`: `ean` is a GTIN, `title` a name, …). Given as input
 * but not requested, they are never rewritten (docs/api-enrichment.md "Refresh and merge").
 */
export function identityKeys(data: Record<string, unknown>): string[] {
  return Object.keys(data).filter((key) => IDENTITY_ROLES.has(fieldRole({ name: key, type: 'string', description: '' })));
}

/**
 * Puts back the item's values of its identity fields that were not requested ({@link
 * identityKeys} minus `input.output_schema`), whatever a later step (taxonomy attributes, the
 * LLM) wrote there. Mutates `result`.
 */
export function keepIdentity(result: EnrichmentResult, input: EnrichInput): void {
  const requested = new Set(input.output_schema.map((f) => f.name));
  for (const key of identityKeys(input.item)) if (!requested.has(key)) result.after_data[key] = input.item[key];
}
