import type { JudgeAnswer } from '../services/enrichment/judge/judge-request';

/**
 * Wire JSON of `POST /public/judge` (docs/api-enrichment.md "Judging"): the judgments, the older answer's
 * `summary {pass, review_required, fail, notes}` and meta as the service returns
 * them (already snake_case).
 */
export function presentJudgeResult(r: JudgeAnswer): Record<string, unknown> {
  return {
    judgments: r.judgments.map((j) => ({
      row_index: j.row_index,
      item_id: j.item_id,
      decision: j.decision,
      confidence: j.confidence,
      reasons: j.reasons,
      field_issues: j.field_issues,
      suggested_updates: j.suggested_updates,
      ...(j.method ? { method: j.method } : {}),
      ...(j.rule_decision ? { rule_decision: j.rule_decision } : {}),
      ...(j.flags ? { flags: j.flags } : {}),
    })),
    summary: { pass: r.summary.pass, review_required: r.summary.review_required, fail: r.summary.fail, notes: r.summary.notes },
    meta: r.meta,
  };
}
