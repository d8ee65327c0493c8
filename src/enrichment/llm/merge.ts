import { fieldRole } from '../extract/roles';
import { coerce } from '../extract/coerce';
import { recordWithheld, semanticProblems, SEMANTIC_FLAG, type WithheldValue } from '../semantics';
import type { EnrichInput, EnrichmentResult, LowConfidenceCandidate, OutputField } from '../types';
import { quoteGrounded, sameValue, valueGrounded } from './grounding';
import type { Passage } from './passages';
import type { FieldAnswer, LlmAnswer } from './schema';

const RANK = { low: 0, medium: 1, high: 2 } as const;

function show(v: unknown): string {
  return (Array.isArray(v) ? v.join(', ') : String(v)).slice(0, 80);
}

/** The model's value in the field's declared type (enum mapping, number parsing as in extraction), or undefined. */
function typed(answer: FieldAnswer, field: OutputField): unknown {
  const v = answer.value;
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'boolean') return field.type === 'boolean' ? v : undefined;
  if (typeof v === 'number' && (field.type === 'number' || field.type === 'integer') && !field.enum?.length)
    return field.type === 'integer' ? Math.round(v) : v;
  return coerce(Array.isArray(v) ? v.map(String) : String(v), field, fieldRole(field));
}

/**
 * Whether the answer is supported by its cited passage: the value is written there
 * ({@link valueGrounded}), or, for booleans and enum members (which the page words differently),
 * the model's quote is ({@link quoteGrounded}).
 */
function grounded(answer: FieldAnswer, value: unknown, field: OutputField, passage: Passage): boolean {
  if (valueGrounded(answer.value, passage.text) || valueGrounded(value, passage.text)) return true;
  const mapped = field.type === 'boolean' || (field.enum?.length ?? 0) > 0 || (field.items_enum?.length ?? 0) > 0;
  return mapped && quoteGrounded(answer.quote, passage.text);
}

/** What {@link mergeLlmAnswer} did, per field, for the reasoning line and tests. */
export interface MergeReport {
  added: string[];
  kept: string[];
  replaced: string[];
  rejected: string[];
  /** Fields whose LLM value failed `validate_semantics` (also listed as `rejected`, or `kept` when a deterministic value stayed). */
  invalid: string[];
}

/**
 * Merges the model's answer into the deterministic result (copied, not mutated). Per field:
 * - no deterministic value: the model's value is taken (method `llm`, confidence at most
 *   `medium`) only when it cites a passage and is grounded in it; otherwise it becomes a field
 *   issue and, when `lowConfidence`, a LOW candidate;
 * - a deterministic value that the model confirms (same value) or does not address: kept;
 * - a different value: the deterministic one is **contradicted**, and replaced, only when the
 *   model cites a passage AND its value appears verbatim in that passage; otherwise it is kept
 *   and the disagreement is a field issue.
 * Values from the item itself (`INPUT:` sources) are replaced only by a value the model read
 * in research (not in the item) for a field without `merge` (docs/api-enrichment.md "Refresh and merge").
 * With `options.validate_semantics`, a value the model would add or put in place of a
 * deterministic one first goes through the same semantic checks as deterministic values
 * (src/enrichment/semantics: GTIN check digit, price > 0, bounds, pattern, enum, …): a failing
 * value is withheld exactly as the engine withholds its own (a LOW candidate when requested,
 * else a `Withheld` field issue; flag `semantic_check_failed`, confidence `low`), and a
 * deterministic value it would have replaced stays. A required field the model fills loses its
 * `missing_required` issue (and the flag, once no required field is empty).
 * @param passages the passages the model saw (grounding is checked against exactly these)
 * @param input the request: `output_schema` (the fields merged), `options.low_confidence`,
 *   `options.validate_semantics`
 * One function on purpose: every field goes once through the same precedence rules (input,
 * deterministic, model, semantic checks), which read best in one place, in order.
 */
export function mergeLlmAnswer(
  result: EnrichmentResult,
  llmAnswer: LlmAnswer,
  passages: Passage[],
  input: Pick<EnrichInput, 'output_schema' | 'options'>,
): { result: EnrichmentResult; report: MergeReport } {
  const fields = input.output_schema;
  const lowConfidence = input.options.low_confidence?.enabled === true;
  const after: EnrichmentResult['after_data'] = {
    ...result.after_data,
    sources: { ...result.after_data.sources },
    source_explanations: { ...result.after_data.source_explanations },
  };
  const review = {
    ...result.review_info,
    flags: [...result.review_info.flags],
    field_issues: [...result.review_info.field_issues],
    field_confidence: { ...result.review_info.field_confidence },
    field_methods: { ...result.review_info.field_methods },
  };
  const low: LowConfidenceCandidate[] = [...(result.low_confidence_candidates ?? [])];
  const all = new Set(result.all_sources);
  const report: MergeReport = { added: [], kept: [], replaced: [], rejected: [], invalid: [] };
  const withheld: WithheldValue[] = [];

  for (const field of fields) {
    const answer = fieldAnswer(llmAnswer, field.name);
    if (!answer || answer.value === null || answer.source_url === null) continue;
    const value = typed(answer, field);
    const passage = passages.find((p) => p.source === answer.source_url);
    const hasDet = field.name in after.sources;
    if (value === undefined || !passage) {
      if (!hasDet) report.rejected.push(field.name);
      review.field_issues.push({
        field: field.name,
        message: `The LLM's reading "${show(answer.value)}" ${value === undefined ? 'does not fit the declared type' : 'cites no evidence passage'}.`,
      });
      continue;
    }
    const supported = grounded(answer, value, field, passage);
    // An item value stays unless research refreshes it: a field without merge, a value not read from the item.
    const keepsInput =
      hasDet && after.sources[field.name].some((s) => s.startsWith('INPUT:')) && (field.merge === true || answer.source_url.startsWith('INPUT:'));
    // A value that would enter the output is checked as a deterministic one is (applySemantics).
    const problems = supported && !keepsInput ? semanticProblems(value, field, input.options) : [];
    if (problems.length > 0 && !(hasDet && sameValue(after[field.name], value))) {
      report.invalid.push(field.name);
      (hasDet ? report.kept : report.rejected).push(field.name);
      withheld.push({ field, value, problems, sources: [answer.source_url], explanation: answer.explanation });
      continue;
    }
    if (hasDet) {
      const current = after[field.name];
      if (sameValue(current, value)) {
        report.kept.push(field.name);
        continue;
      }
      if (!supported || keepsInput) {
        report.kept.push(field.name);
        review.field_issues.push({
          field: field.name,
          message: `The LLM read "${show(value)}" from ${answer.source_url}, ${keepsInput ? 'but the item states' : 'unsupported by that passage; kept'} "${show(current)}".`,
        });
        continue;
      }
      report.replaced.push(field.name);
      review.field_issues.push({
        field: field.name,
        message: `Replaced "${show(current)}" (${review.field_methods[field.name]}): ${answer.source_url} states "${show(value)}".`,
      });
    } else if (!supported) {
      report.rejected.push(field.name);
      review.field_issues.push({ field: field.name, message: `The LLM's reading "${show(value)}" is not found in its cited source ${answer.source_url}.` });
      if (lowConfidence)
        low.push({
          name: field.name,
          scope: 'field',
          candidate_value: show(value),
          confidence: 'LOW',
          reason: 'Suggested by the LLM but not found in the cited source.',
          sources: [answer.source_url],
          source_explanation: answer.explanation,
        });
      continue;
    } else {
      report.added.push(field.name);
    }
    after[field.name] = value;
    after.sources[field.name] = [answer.source_url];
    after.source_explanations[field.name] = answer.explanation;
    review.field_methods[field.name] = 'llm';
    review.field_confidence[field.name] = RANK[answer.confidence] >= RANK.medium ? 'medium' : 'low';
    all.add(answer.source_url);
  }
  // Required fields the model filled are no longer missing (applySemantics flagged them before the LLM step).
  const filled = new Set(fields.filter((f) => f.required && report.added.includes(f.name)).map((f) => f.name));
  if (filled.size > 0) {
    review.field_issues = review.field_issues.filter((i) => !(filled.has(i.field) && i.message === 'Required field has no value.'));
    if (!review.field_issues.some((i) => i.message === 'Required field has no value.')) review.flags = review.flags.filter((f) => f !== 'missing_required');
  }
  const levels = Object.values(review.field_confidence);
  review.confidence = levels.includes('low') ? 'low' : levels.includes('medium') || levels.length === 0 ? 'medium' : 'high';
  // Flags that make a result low-confidence whatever its fields' levels (applySemantics).
  if (review.flags.includes('missing_required') || review.flags.includes(SEMANTIC_FLAG)) review.confidence = 'low';
  if (review.field_issues.length > 0 && !review.flags.includes('conflicting_values')) review.flags.push('conflicting_values');
  const rejected = report.rejected.length - report.invalid.filter((f) => report.rejected.includes(f)).length;
  review.reasoning = `${review.reasoning} LLM review: ${report.added.length} added, ${report.replaced.length} replaced, ${rejected} rejected as unsupported${report.invalid.length > 0 ? `, ${report.invalid.length} withheld by semantic checks` : ''}.`;
  const merged: EnrichmentResult = { ...result, after_data: after, all_sources: [...all], review_info: review };
  if (result.low_confidence_candidates || (lowConfidence && low.length > 0)) {
    merged.low_confidence_candidates = low;
    merged.low_confidence_fields = [...new Set(low.map((c) => c.name))];
  }
  for (const w of withheld) recordWithheld(merged, input.options, w);
  return { result: merged, report };
}

function fieldAnswer(answer: LlmAnswer, name: string): FieldAnswer | undefined {
  const a = answer.fields?.[name];
  return a && typeof a === 'object' ? a : undefined;
}
