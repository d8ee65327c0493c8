import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum, withDefault } from './common';

/** Ajv schemas of the readiness profile and completeness routes. */

/** Path of one readiness profile. */
export const readinessProfileParams = Type.Object({ catalog_id: Type.String(), profile_id: Type.String() });

/** A rule's field and grid filter `op` (`range`: `a..b`, either end open; `in`: comma list). */
const ruleFieldOp = {
  field: Type.String({ minLength: 1, maxLength: 200 }),
  op: StringEnum(['notempty', 'eq', 'contains', 'range', 'in']),
};

/** A rule as stored and returned: the item's `field` must pass the grid filter `op` with `value`. */
const readinessRule = Type.Object({ ...ruleFieldOp, value: Type.String({ maxLength: 2000 }) }, { additionalProperties: false });

/** A rule as sent: `value` may be left out (`''`, what `notempty` needs). */
const readinessRuleInput = Type.Object(
  { ...ruleFieldOp, value: Type.Optional(withDefault(Type.String({ maxLength: 2000 }), '')) },
  { additionalProperties: false },
);

/** `POST …/readiness-profiles` body. `required_fields` and `rules` may be left out (none); at least one of them must be given (422 otherwise). */
export const createReadinessProfileBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 120 }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    required_fields: Type.Optional(withDefault(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 500 }), [])),
    rules: Type.Optional(withDefault(Type.Array(readinessRuleInput, { maxItems: 100 }), [])),
  },
  { additionalProperties: false },
);

/** A readiness profile as returned. */
export const readinessProfileResponse = Type.Object({
  id: Type.String(),
  catalog_id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  required_fields: Type.Array(Type.String()),
  rules: Type.Array(readinessRule),
  created_by: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

/** `GET …/readiness-profiles` response. */
export const listReadinessProfilesResponse = Type.Object({ profiles: Type.Array(readinessProfileResponse) });

const missingCount = Type.Object({ field: Type.String(), empty: Type.Integer() });

/** `GET …/completeness` response: the catalog's completeness report (the console's completeness page). */
export const completenessResponse = Type.Object({
  total: Type.Integer({ description: 'Items (top-level ones in a product-grouped catalog)' }),
  complete: Type.Integer({ description: "Items whose required fields (schema required + their taxonomy node's required attributes) are all filled" }),
  fields: Type.Array(
    Type.Object({
      field: Type.String(),
      schema_required: Type.Boolean(),
      required_by_nodes: Type.Array(Type.String()),
      filled: Type.Integer(),
      empty: Type.Integer(),
    }),
  ),
  nodes: Type.Array(
    Type.Object({
      id: Type.String(),
      path: Type.Array(Type.String()),
      items: Type.Integer({ description: 'Items of the node and its descendants' }),
      complete: Type.Integer(),
      missing: Type.Array(missingCount),
    }),
  ),
  unclassified: Nullable(Type.Object({ items: Type.Integer(), complete: Type.Integer() })),
  profiles: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      ready: Type.Integer(),
      not_ready: Type.Integer(),
      missing: Type.Array(missingCount),
      failing_rules: Type.Array(Type.Integer(), { description: 'Items failing each rule, in rule order' }),
    }),
  ),
});
