/**
 * Post-enrichment audit (docs/api-enrichment.md "Extra request fields" `audit_decisions_enabled` / `review_mode`): an
 * independent, deterministic second look at one finished result before it is staged, judged
 * with the decision vocabulary of the judge (docs/api-enrichment.md "Judging": `pass` | `review_required` |
 * `fail`, with reasons and field issues). It re-checks what a reviewer would otherwise check by
 * hand, from the result, the item as given and the research the result came from; it never
 * changes a value.
 *
 * Rules (the first group fails a result, the second asks for a human):
 * - fail: item-level error; an output value that does not fit its field (type, enum, bounds,
 *   pattern, GS1 check digit, URL… — the `validate_semantics` checks, applied whether or not the
 *   request asked for them); an extracted value without a source; a source URL that the research
 *   never read (a citation must point at evidence); an identifier (GTIN, MPN, SKU) that differs
 *   from the one the item already carries (the page describes another product).
 * - review_required: a required field without value; a field of low confidence; a field the
 *   extraction itself raised an issue about (e.g. another source read a different value) unless
 *   its confidence is high; an identifier read from the web that none of its cited documents
 *   contains; an existing value replaced by a different one; nothing extracted at all; the
 *   engine's warning flags (no matching page, research problems, withheld values, uncertain
 *   category, LLM failure).
 *
 * Measured on the pages dev set (`npm run eval -- pages`, tier A, 98 items): 50 pass with a
 * value precision of 0.959, 48 need review at 0.903; flagging every disagreement regardless of
 * confidence sent 67 items to review for a smaller gap (0.954 / 0.922).
 */
import { fieldRole } from './extract/roles';
import { sameValue } from './llm/grounding';
import { present } from './semantics';
import { validateValue } from './semantics/validate';
import type { EnrichmentResult, Evidence, OutputField, ReviewInfo } from './types';

/** Decision of the audit (the judge's vocabulary, docs/api-enrichment.md "Judging"). */
export type AuditDecision = 'pass' | 'review_required' | 'fail';

/**
 * The audit of one result, stored as `review_info.audit`. `reasons` are sentences for the
 * reviewer, most severe first; `field_issues` the same findings tied to a field.
 * `confidence`: how sure the audit is of its decision (`high` for rule failures and for passes
 * of high-confidence results, else the result's own confidence, `medium` for review).
 */
export interface AuditJudgment {
  decision: AuditDecision;
  confidence: 'high' | 'medium' | 'low';
  reasons: string[];
  field_issues: Array<{ field: string; message: string }>;
}

/** Engine flags (src/enrichment) that always send a result to a reviewer. */
const REVIEW_FLAGS: Record<string, string> = {
  no_matching_page: 'No page matching the item was found.',
  research_problems: 'Search or fetch failed during research.',
  semantic_check_failed: 'Some values were withheld by semantic validation.',
  low_confidence_category: 'The category is uncertain.',
  no_category: 'No category could be assigned.',
  llm_failed: 'The LLM step failed; only deterministic values are present.',
};

/** Identifier roles whose change means the result describes another product. */
const IDENTITY_ROLES = new Set(['gtin', 'mpn', 'sku']);

/** An identifier folded for comparison: GTINs by their digits without leading zeros (GTIN-13 = GTIN-14 with a 0), others upper-case alphanumerics. */
function identifierKey(value: unknown, role: string): string {
  const s = String(value).toUpperCase();
  return role === 'gtin' ? s.replace(/\D/g, '').replace(/^0+/, '') : s.replace(/[^0-9A-Z]/g, '');
}

/** Whether `source` is a web page (not `INPUT:<field>` or a knowledge-base `SOURCE_X`). */
function isWebSource(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

/** The URLs research read and the documents' text (serialised, for identifier look-up), by URL. */
function researchIndex(evidence: Evidence | null): Map<string, string> | null {
  if (!evidence || !Array.isArray(evidence.documents)) return null;
  const out = new Map<string, string>();
  for (const d of evidence.documents as Array<Record<string, unknown>>) {
    // A document stored by reference only (no `doc`) still names the URL read, with no text to search.
    const doc = d?.doc && typeof d.doc === 'object' ? (d.doc as Record<string, unknown>) : undefined;
    const text = doc ? JSON.stringify(doc) : '';
    for (const url of [d?.url, doc?.url, doc?.canonical]) if (typeof url === 'string') out.set(url, (out.get(url) ?? '') + text);
  }
  return out;
}

/**
 * Audits one result (see the module comment for the rules).
 * @param result the finished result (after semantics, LLM merge and media hosting)
 * @param item the item as the job received it (its values are the ones the result may replace)
 * @param fields the row's output schema
 * @param evidence the research the result was extracted from, with parsed documents (`null`
 *   when the row has none, e.g. an error; documents stored only by reference, without `doc`,
 *   still name the URLs read but cannot be searched for identifiers)
 * @returns the judgment; never throws
 */
export function auditResult(result: EnrichmentResult, item: Record<string, unknown>, fields: OutputField[], evidence: Evidence | null): AuditJudgment {
  const fails: Array<{ field?: string; message: string }> = [];
  const reviews: Array<{ field?: string; message: string }> = [];
  if (result.error) fails.push({ message: `Enrichment failed: ${result.error}` });
  const after = result.after_data;
  const sources = after.sources ?? {};
  const read = researchIndex(evidence);
  const review: ReviewInfo = result.review_info;
  let extracted = 0;
  for (const field of fields) {
    const value = after[field.name];
    if (!present(value)) {
      if (field.required && !result.error) reviews.push({ field: field.name, message: 'Required field has no value.' });
      continue;
    }
    const cited = sources[field.name] ?? [];
    const fromInput = cited.length > 0 && cited.every((s) => s.startsWith('INPUT:'));
    if (!fromInput) extracted += 1;
    for (const problem of validateValue(value, field)) fails.push({ field: field.name, message: `The value ${problem}.` });
    if (!fromInput && cited.length === 0) fails.push({ field: field.name, message: 'The value has no source.' });
    const unread = read ? cited.filter((s) => isWebSource(s) && !read.has(s)) : [];
    if (unread.length > 0) fails.push({ field: field.name, message: `Cites a page research never read: ${unread[0]}.` });
    const role = fieldRole(field);
    const before = item[field.name];
    const identifier = IDENTITY_ROLES.has(role) && !Array.isArray(value);
    if (identifier && present(before)) {
      if (identifierKey(before, role) !== identifierKey(value, role))
        fails.push({
          field: field.name,
          message: `Identifier ${String(value)} differs from the item's ${String(before)}: the source may describe another product.`,
        });
    } else if (!fromInput && present(before) && !field.merge && !sameValue(before, value)) {
      reviews.push({ field: field.name, message: `Replaces the existing value ${JSON.stringify(before).slice(0, 80)}.` });
    }
    if (identifier && !fromInput && read) {
      const key = identifierKey(value, role);
      const docs = cited.filter(isWebSource).map((s) => read.get(s) ?? '');
      const searchable = docs.filter((t) => t.length > 0);
      if (searchable.length > 0 && !searchable.some((t) => identifierKey(t, role).includes(key))) {
        reviews.push({ field: field.name, message: 'The identifier does not appear in the cited page.' });
      }
    }
    const confidence = review.field_confidence?.[field.name];
    if (confidence === 'low') reviews.push({ field: field.name, message: 'Low confidence.' });
    const issue = confidence !== 'high' ? (review.field_issues ?? []).find((i) => i.field === field.name) : undefined;
    if (issue) reviews.push({ field: field.name, message: `Flagged by extraction: ${issue.message}` });
  }
  if (!result.error && extracted === 0) reviews.push({ message: 'Nothing was extracted.' });
  for (const flag of review.flags ?? []) if (REVIEW_FLAGS[flag]) reviews.push({ message: REVIEW_FLAGS[flag] });
  const decision: AuditDecision = fails.length > 0 ? 'fail' : reviews.length > 0 ? 'review_required' : 'pass';
  const findings = [...fails, ...reviews];
  return {
    decision,
    confidence: decision === 'fail' ? 'high' : decision === 'review_required' ? 'medium' : review.confidence,
    reasons:
      decision === 'pass'
        ? ['All values fit their fields, cite the research they came from and agree with the item.']
        : findings.map((f) => (f.field ? `${f.field}: ${f.message}` : f.message)),
    field_issues: findings.filter((f): f is { field: string; message: string } => f.field !== undefined).map((f) => ({ field: f.field, message: f.message })),
  };
}
