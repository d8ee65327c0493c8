/**
 * Field semantics applied to a built result (docs/api-enrichment.md "Refresh and merge"
 * and "Enrichment jobs"): refresh and `merge` against the item's own values (./refresh),
 * `validate_semantics` (see ./validate: failing values leave the output
 * and become low-confidence candidates when requested, else field issues — never silently
 * kept), and `required` (a required field left empty is a field issue and flags the result
 * for review). The LLM step validates the values it adds or changes with the same
 * {@link semanticProblems} and {@link recordWithheld} (src/enrichment/llm/merge.ts).
 */
import type { EnrichInput, EnrichOptions, EnrichmentResult, OutputField } from '../types';
import { addCandidates, lowConfidenceWanted } from './low-confidence';
import { present, reconcileWithItem } from './refresh';
import { validateValue } from './validate';

export { mergeValues, present, unionValues } from './refresh';

/** The flag a result carries when `validate_semantics` withheld one of its values (docs/api-enrichment.md "Review info" `flags`). */
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
 * candidate when those are requested (docs/api-enrichment.md "Low-confidence candidates" low-confidence scopes), else a field
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
 * Applies refresh and merge against the item's values (./refresh `reconcileWithItem`), semantic
 * validation (when `options.validate_semantics`) and required checks to `result` in place.
 * Values taken from the input item itself are never withheld.
 */
export function applySemantics(result: EnrichmentResult, input: EnrichInput): void {
  for (const field of input.output_schema) {
    reconcileWithItem(result, input, field);
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
