/**
 * The request shapes of `POST /public/judge` that both client generations send (docs/review.md
 * "Judging rows"), turned into the judge's own request ({@link JudgeRequest}, src/services/enrichment/judge/judge.ts)
 * and its answer completed with the older `summary {pass, review_required, fail, notes}`:
 *
 * - `images` `{"<row index>": [urls]}`: keys are checked against the rows; `true` (an earlier
 *   form) has a model judge read each row's own image fields; `false` is dropped.
 * - The older body `{rows, rubric, strictness, context, model, max_rows, schema?, catalog_id?}`:
 *   `rubric` and `context` join `prompt` (what a model judge reads), `strictness` re-counts
 *   `review_required` after judging ({@link applyStrictness}).
 *
 * Kept apart from the judging itself so that how a row is judged (rules or a model) and how a
 * request is read change independently.
 */
import type { Knex } from 'knex';
import type { LlmClient } from '../../../enrichment/llm/client';
import { ValidationDetail, ValidationError } from '../../../lib/errors';
import { JUDGE_STRICTNESS, JUDGE_STRICTNESS_LEVELS, type JudgeBody } from '../../../schemas/judge';
import type { Scope } from '../../access/scope';
import { judgeRows, type JudgeRequest, type JudgeResult, type Judgment } from './judge';

/** `strictness` as judged: `balanced` and `standard` leave decisions as judged. */
export type JudgeStrictness = (typeof JUDGE_STRICTNESS)[number];

/**
 * The level a body's `strictness` names: the levels themselves, or `low|medium|high` of the other
 * client generation (low = lenient, medium = balanced, high = strict; docs/enrich-options.md "Judging rows").
 */
export function strictnessLevel(strictness: JudgeBody['strictness']): JudgeStrictness | undefined {
  if (strictness === undefined) return undefined;
  return strictness in JUDGE_STRICTNESS_LEVELS ? JUDGE_STRICTNESS_LEVELS[strictness as keyof typeof JUDGE_STRICTNESS_LEVELS] : (strictness as JudgeStrictness);
}

/** The older answer's counts with what shaped them. */
export interface JudgeSummary {
  pass: number;
  review_required: number;
  fail: number;
  notes: string[];
}

/** A judge answer with its {@link JudgeSummary}. */
export type JudgeAnswer = JudgeResult & { summary: JudgeSummary };

/** `rubric` as text: one criterion per line when given as a list. */
function rubricText(rubric: string | string[]): string {
  return Array.isArray(rubric) ? rubric.map((r) => `- ${r}`).join('\n') : rubric;
}

/**
 * The judge's request from a validated body: `prompt` with the older `rubric` and `context`
 * appended (labelled), `images` checked to name rows of the request.
 * @throws ValidationError (422) at `body.images.<key>` for a row index outside `rows`
 */
export function normalizeJudgeRequest(body: JudgeBody): JudgeRequest {
  const { rubric, context, strictness: _strictness, images, prompt, ...rest } = body;
  const parts = [
    prompt ?? '',
    rubric !== undefined && rubricText(rubric).trim() ? `Rubric:\n${rubricText(rubric)}` : '',
    context !== undefined ? `Context:\n${typeof context === 'string' ? context : JSON.stringify(context)}` : '',
  ].filter((p) => p.trim() !== '');
  const details: ValidationDetail[] = [];
  const perRow = typeof images === 'object' ? images : undefined;
  for (const key of Object.keys(perRow ?? {})) {
    if (Number(key) >= body.rows.length)
      details.push({
        loc: ['body', 'images', key],
        msg: `No row ${key}: the request has ${body.rows.length} rows (keys are 0-based row indexes)`,
        type: 'value_error',
      });
  }
  if (details.length) throw new ValidationError(details);
  const imagesOption = images === true ? { images: true as const } : perRow && Object.keys(perRow).length ? { images: perRow } : {};
  return { ...rest, ...(parts.length ? { prompt: parts.join('\n\n') } : {}), ...imagesOption };
}

/**
 * One judgment re-counted under `strictness`: `strict` turns every `review_required` into `fail`
 * (nothing in doubt is accepted); `lenient` turns a `review_required` of medium or high confidence
 * into `pass` (only a low-confidence doubt still asks for a human). `fail` and `pass` stay.
 */
function strictJudgment(j: Judgment, strictness: JudgeStrictness): Judgment {
  if (j.decision !== 'review_required') return j;
  if (strictness === 'strict') return { ...j, decision: 'fail', reasons: [...j.reasons, 'strictness strict: a row in doubt fails'] };
  if (strictness === 'lenient' && j.confidence !== 'low')
    return { ...j, decision: 'pass', reasons: [...j.reasons, `strictness lenient: a ${j.confidence}-confidence doubt passes`] };
  return j;
}

/** The judgments re-counted under `strictness` (see {@link strictJudgment}), with `meta.counts` to match. */
export function applyStrictness(result: JudgeResult, strictness: JudgeStrictness | undefined): JudgeResult {
  if (!strictness || strictness === 'balanced' || strictness === 'standard') return result;
  const judgments = result.judgments.map((j) => strictJudgment(j, strictness));
  return { ...result, judgments, meta: { ...result.meta, counts: countDecisions(judgments) } };
}

function countDecisions(judgments: Judgment[]): Record<Judgment['decision'], number> {
  const counts = { pass: 0, review_required: 0, fail: 0 };
  for (const j of judgments) counts[j.decision]++;
  return counts;
}

/**
 * The older answer's `summary`: counts of the decisions, and notes on what shaped them (rows
 * beyond `max_rows`, `strictness`, the prompt, rubric and images when the rules judged, which
 * read none of them).
 */
export function judgeSummary(result: JudgeResult, body: JudgeBody): JudgeSummary {
  const notes: string[] = [];
  const { rows_received: received, rows_judged: judged } = result.meta;
  if (judged < received) notes.push(`${judged} of ${received} rows judged (max_rows ${body.max_rows}); the rest were not judged`);
  const level = strictnessLevel(body.strictness);
  if (level && level !== 'balanced' && level !== 'standard')
    notes.push(`strictness ${body.strictness}${level !== body.strictness ? ` (${level})` : ''} applied to review_required rows`);
  if (result.meta.method === 'rules') {
    const unread = [
      ...(body.prompt ? ['prompt'] : []),
      ...(body.rubric !== undefined ? ['rubric'] : []),
      ...(body.context !== undefined ? ['context'] : []),
      ...(body.images === true || (typeof body.images === 'object' && Object.keys(body.images).length) ? ['images'] : []),
      ...(body.model ? ['model'] : []),
    ];
    if (unread.length) notes.push(`${unread.join(', ')}: not read; no model judge is configured, so the rules of the post-enrichment audit decided`);
  }
  return { ...countDecisions(result.judgments), notes };
}

/**
 * `POST /public/judge` for any accepted body shape: normalised ({@link normalizeJudgeRequest}),
 * judged (src/services/enrichment/judge/judge.ts `judgeRows`), re-counted under `strictness` and
 * summarised.
 * @throws ValidationError (422) for images of unknown rows or no schema; NotFoundError (404) /
 *   ForbiddenError (403) for the catalog
 */
export async function judge(knex: Knex, scope: Scope, body: JudgeBody, llm: LlmClient | null = null): Promise<JudgeAnswer> {
  const result = applyStrictness(await judgeRows(knex, scope, normalizeJudgeRequest(body), llm), strictnessLevel(body.strictness));
  return { ...result, summary: judgeSummary(result, body) };
}
