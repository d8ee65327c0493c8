/**
 * Field semantics applied to a built result (interface-spec.md, Output-schema field and
 * enrich parameters): `merge` (arrays: union with the item's existing list; other types keep
 * the existing value), `validate_semantics` (see ./validate: failing values leave the output
 * and become low-confidence candidates when requested, else field issues — never silently
 * kept), and `required` (a required field left empty is a field issue and flags the result
 * for review). The LLM step validates the values it adds or changes with the same
 * {@link semanticProblems} and {@link recordWithheld} (src/enrichment/llm/merge.ts).
 */
import type { EnrichInput, EnrichOptions, EnrichmentResult, OutputField } from '../types';
import { enumKey } from './enum';
import { addCandidates, lowConfidenceWanted } from './low-confidence';
import { validateValue } from './validate';

/** Whether a field value counts as given: not undefined/null, not blank text, not an empty list. */
export function present(v: unknown): boolean {
  return v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '') && !(Array.isArray(v) && v.length === 0);
}

/** Whether the engine must extract a field even though the item has a value: only array fields with `merge`. */
export function extractsDespiteInput(field: OutputField): boolean {
  return field.merge === true && field.type === 'array';
}

/** Union of two lists, existing items first, de-duplicated by folded value. */
export function unionValues(existing: unknown[], extracted: unknown[]): unknown[] {
  const seen = new Set<string>();
  const out: unknown[] = [];
  for (const v of [...existing, ...extracted]) {
    const key = enumKey(typeof v === 'string' ? v : JSON.stringify(v));
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(v);
  }
  return out;
}

function mergeField(result: EnrichmentResult, item: Record<string, unknown>, field: OutputField): void {
  const existing = item[field.name];
  if (!extractsDespiteInput(field) || !present(existing)) return;
  const after = result.after_data;
  const own = [`INPUT:${field.name}`];
  const cited = after.sources[field.name] ?? [];
  const extracted = cited.length > 0 && !cited.every((s) => s.startsWith('INPUT:')) ? after[field.name] : undefined;
  const list = Array.isArray(existing) ? existing : [existing];
  if (!Array.isArray(extracted)) {
    after[field.name] = existing;
    after.sources[field.name] = own;
    after.source_explanations[field.name] = `Kept from the input item's ${field.name}.`;
    result.review_info.field_methods[field.name] = 'input';
    result.review_info.field_confidence[field.name] = 'high';
    return;
  }
  const merged = unionValues(list, extracted);
  after[field.name] = merged;
  after.sources[field.name] = [...own, ...cited];
  after.source_explanations[field.name] =
    `Merged ${list.length} existing value(s) with ${merged.length - list.length} new one(s): ${after.source_explanations[field.name] ?? ''}`.trim();
}

/** The flag a result carries when `validate_semantics` withheld one of its values (interface-spec.md review flags). */
export const SEMANTIC_FLAG = 'semantic_check_failed';

/**
 * The problems `validate_semantics` finds in a value for `field` (see ./validate): empty when
 * the option is off, the value is empty, or it fits. The one check both the deterministic
 * engine and the LLM merge (src/enrichment/llm/merge.ts) apply, so a value fails the same
 * way whoever proposed it.
 */
export function semanticProblems(value: unknown, field: OutputField, options: EnrichOptions): string[] {
  return options.validate_semantics && present(value) ? validateValue(value, field) : [];
}

/** A value kept out of the output by semantic validation, with what supported it. */
export interface WithheldValue {
  field: OutputField;
  value: unknown;
  /** Phrases completing "The value …" (from {@link semanticProblems}). */
  problems: string[];
  sources: string[];
  explanation: string;
}

/**
 * Records a value that failed semantic validation and is not in the output: a LOW `field`
 * candidate when those are requested (decisions.md §4 low-confidence scopes), else a field
 * issue `Withheld "<value>": The value <problems>.` (once per field and value); adds
 * {@link SEMANTIC_FLAG} and lowers the result's confidence to `low`. Mutates `result`; the
 * caller removes the value from `after_data` if it was there.
 */
export function recordWithheld(result: EnrichmentResult, options: EnrichOptions, withheld: WithheldValue): void {
  const { field, value, problems, sources, explanation } = withheld;
  const reason = `The value ${problems.join('; ')}.`;
  const text = Array.isArray(value) ? value.join(', ') : String(value);
  // The same value withheld twice (the engine's reading, then the LLM's) is recorded once.
  if (lowConfidenceWanted(options, 'field')) {
    if (!(result.low_confidence_candidates ?? []).some((c) => c.name === field.name && c.scope === 'field' && c.candidate_value === text)) {
      addCandidates(result, options, [
        { name: field.name, scope: 'field', candidate_value: text, confidence: 'LOW', reason, sources, source_explanation: explanation },
      ]);
    }
  } else {
    const message = `Withheld "${text.slice(0, 80)}": ${reason}`;
    if (!result.review_info.field_issues.some((i) => i.field === field.name && i.message === message))
      result.review_info.field_issues.push({ field: field.name, message });
  }
  if (!result.review_info.flags.includes(SEMANTIC_FLAG)) result.review_info.flags.push(SEMANTIC_FLAG);
  result.review_info.confidence = 'low';
}

function withhold(result: EnrichmentResult, input: EnrichInput, field: OutputField, problems: string[]): void {
  const after = result.after_data;
  const value = after[field.name];
  const sources = after.sources[field.name] ?? [];
  const explanation = after.source_explanations[field.name] ?? '';
  delete after[field.name];
  delete after.sources[field.name];
  delete after.source_explanations[field.name];
  delete result.review_info.field_methods[field.name];
  delete result.review_info.field_confidence[field.name];
  recordWithheld(result, input.options, { field, value, problems, sources, explanation });
}

/**
 * Applies merge, semantic validation (when `options.validate_semantics`) and required checks
 * to `result` in place. Values taken from the input item itself are never withheld.
 */
export function applySemantics(result: EnrichmentResult, input: EnrichInput): void {
  const { item, output_schema: fields } = input;
  for (const field of fields) {
    mergeField(result, item, field);
    const value = result.after_data[field.name];
    const fromInput = (result.after_data.sources[field.name] ?? []).every((s) => s.startsWith('INPUT:'));
    const problems = fromInput ? [] : semanticProblems(value, field, input.options);
    if (problems.length > 0) withhold(result, input, field, problems);
    if (field.required && !present(result.after_data[field.name])) {
      result.review_info.field_issues.push({ field: field.name, message: 'Required field has no value.' });
      if (!result.review_info.flags.includes('missing_required')) result.review_info.flags.push('missing_required');
    }
  }
  result.review_info.flags = [...new Set(result.review_info.flags)];
  if (result.review_info.flags.includes('missing_required') || result.review_info.flags.includes(SEMANTIC_FLAG)) result.review_info.confidence = 'low';
}
