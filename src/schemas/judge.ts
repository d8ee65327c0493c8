import { Type } from '@sinclair/typebox';
import type { Validated } from '../lib/validation';
import { AnyObject, StringEnum, withDefault } from './common';

/**
 * JSON Schemas of `POST /public/judge` (docs/enrich-options.md "Judging rows"), with the shapes both
 * generations of clients send: `images` as `{"<row index>": [urls]}`, `model` any string (a tier
 * `fast|medium|high` or a model name), `max_rows` 1–500, and the older body `{rows, rubric,
 * strictness, context, model, max_rows, schema?, catalog_id?}` whose `strictness` is
 * `lenient|balanced|standard|strict` or `low|medium|high` (normalised by
 * src/services/enrichment/judge/judge-request.ts).
 */

/** Most rows one judge request carries. */
export const JUDGE_MAX_ROWS = 1000;
/** Most rows one judge request judges (`max_rows`). */
export const JUDGE_MAX_JUDGED = 500;

/** `strictness` of the older body: how `review_required` is counted (src/services/enrichment/judge/judge-request.ts). */
export const JUDGE_STRICTNESS = ['lenient', 'balanced', 'standard', 'strict'] as const;

/**
 * `strictness` as the other client generation names it, and the level each stands for
 * (docs/enrich-options.md "Judging rows"): low = lenient, medium = balanced, high = strict.
 */
export const JUDGE_STRICTNESS_LEVELS = { low: 'lenient', medium: 'balanced', high: 'strict' } as const;

/** `POST /public/judge` body. */
export const judgeBody = Type.Object(
  {
    rows: Type.Array(
      AnyObject({ description: 'An enriched result {data, before?, sources?, review_info?, item_id?, row_index?} or a plain object of field values' }),
      {
        minItems: 1,
        maxItems: JUDGE_MAX_ROWS,
      },
    ),
    catalog_id: Type.Optional(Type.String({ description: "Judge against this catalog's current schema (and its quality prompt)" })),
    schema: Type.Optional(AnyObject({ description: 'A JSON Schema with properties (and required); wins over the catalog schema' })),
    prompt: Type.Optional(Type.String({ maxLength: 20000 })),
    model: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'The judge model: a tier (fast, medium, high) or a model name such as gpt-5.2, passed to the configured model endpoint and echoed in meta.model. ' +
          'Without a configured model the rules judge and meta.notices says the model was not used.',
      }),
    ),
    max_rows: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: JUDGE_MAX_JUDGED }), 100)),
    images: Type.Optional(
      Type.Unsafe<Record<string, string[]> | boolean>({
        // One schema with a union type (not anyOf), so a bad value gets one error, not one per branch.
        type: ['object', 'boolean'],
        propertyNames: { pattern: '^(0|[1-9][0-9]{0,5})$' },
        additionalProperties: { type: 'array', items: { type: 'string', format: 'uri', maxLength: 2000 }, maxItems: 20 },
        description: 'Image URLs per row: {"<row index>": [url, …]} (row index as a string); true/false is accepted from older clients.',
      }),
    ),
    rubric: Type.Optional(
      Type.Unsafe<string | string[]>({
        type: ['string', 'array'],
        maxLength: 20000,
        items: { type: 'string', maxLength: 2000 },
        maxItems: 100,
        description: 'Older body: the criteria to judge by (text, or one criterion per entry); read as part of the prompt.',
      }),
    ),
    strictness: Type.Optional(
      StringEnum([...JUDGE_STRICTNESS, ...(Object.keys(JUDGE_STRICTNESS_LEVELS) as Array<keyof typeof JUDGE_STRICTNESS_LEVELS>)], {
        description:
          'Older body. strict (or high): every review_required row is a fail; lenient (or low): a review_required row of medium or high confidence passes; ' +
          'balanced / standard / medium (default): decisions as judged.',
      }),
    ),
    context: Type.Optional(
      Type.Unsafe<string | Record<string, unknown>>({
        type: ['string', 'object'],
        maxLength: 20000,
        description: 'Older body: what the rows are (text or an object); read as part of the prompt.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** A validated judge body. */
export type JudgeBody = Validated<typeof judgeBody>;

/** `POST /public/judge` response (documentation). */
export const judgeResponse = Type.Object({
  judgments: Type.Array(
    Type.Object({
      row_index: Type.Integer(),
      item_id: Type.Union([Type.String(), Type.Null()]),
      decision: Type.String({ enum: ['pass', 'review_required', 'fail'] }),
      confidence: Type.String({ enum: ['high', 'medium', 'low'] }),
      reasons: Type.Array(Type.String()),
      field_issues: Type.Array(Type.Object({ field: Type.String(), message: Type.String() })),
      suggested_updates: AnyObject(),
      method: Type.Optional(Type.String({ enum: ['llm', 'rules'], description: 'With a model: who decided (rules when the model call failed)' })),
      rule_decision: Type.Optional(Type.String({ enum: ['pass', 'review_required', 'fail'], description: "With a model: the rules' cross-check" })),
      flags: Type.Optional(Type.Array(Type.String(), { description: 'model_passed_rule_failure, rules_disagree, llm_failed' })),
    }),
  ),
  summary: Type.Object(
    {
      pass: Type.Integer(),
      review_required: Type.Integer(),
      fail: Type.Integer(),
      notes: Type.Array(Type.String(), { description: 'What shaped the decisions: rows left out by max_rows, strictness, options not read' }),
    },
    { description: 'Counts of the decisions (the older answer shape)' },
  ),
  meta: AnyObject(),
});
