import { Type } from '@sinclair/typebox';
import { AnyObject, withDefault } from './common';

/** JSON Schemas of `POST /public/judge` (decisions.md §4 G20). */

/** Most rows one judge request reads. */
export const JUDGE_MAX_ROWS = 1000;

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
    catalog_id: Type.Optional(Type.String({ description: "Judge against this catalog's current schema (and note its quality prompt)" })),
    schema: Type.Optional(AnyObject({ description: 'A JSON Schema with properties (and required); wins over the catalog schema' })),
    prompt: Type.Optional(Type.String({ maxLength: 20000 })),
    model: Type.Optional(Type.String({ maxLength: 200 })),
    max_rows: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: JUDGE_MAX_ROWS }), 100)),
    images: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

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
  meta: AnyObject(),
});
