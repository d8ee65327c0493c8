import { Static, TSchema, TUnsafe, Type, UnsafeOptions } from '@sinclair/typebox';

/**
 * Small TypeBox builders for the JSON Schema shapes the request schemas use but TypeBox spells
 * differently: TypeBox writes enums and nullables as `anyOf`, which would change both the OpenAPI
 * document and Ajv's 422 details, so these keep the `enum` / `type: [.., 'null']` keywords and
 * only attach the TypeScript type. Why TypeBox at all: src/lib/validation.ts.
 */

/** `{type: 'string', enum: values}` typed as the union of `values`. */
export function StringEnum<const V extends readonly string[]>(values: V, options: UnsafeOptions = {}): TUnsafe<V[number]> {
  return Type.Unsafe<V[number]>({ type: 'string', ...options, enum: [...values] });
}

/** `schema` with `null` added to its `type` (`type: [T, 'null']`), typed `Static<schema> | null`. */
export function Nullable<S extends TSchema>(schema: S): TUnsafe<Static<S> | null> {
  const { type, ...rest } = schema;
  return Type.Unsafe<Static<S> | null>({ ...rest, type: [type, 'null'] });
}

/** An object whose keys are not described: `{type: 'object', ...options}` typed `Record<string, unknown>`. */
export function AnyObject(options: UnsafeOptions = {}): TUnsafe<Record<string, unknown>> {
  return Type.Unsafe<Record<string, unknown>>({ type: 'object', ...options });
}

/** An array whose elements are not described: `{type: 'array', ...options}` typed `unknown[]`. */
export function AnyArray(options: UnsafeOptions = {}): TUnsafe<unknown[]> {
  return Type.Unsafe<unknown[]>({ type: 'array', ...options });
}

/**
 * `schema` with a `default` keyword. Ajv (`useDefaults`) fills it in, so the property is marked in
 * the type as well: `Validated<>` (src/lib/validation.ts) then makes it non-optional.
 */
export function withDefault<S extends TSchema>(schema: S, value: Static<S>): S & { default: Static<S> } {
  return { ...schema, default: value };
}

/**
 * Largest `offset` or `page` a list accepts: PostgreSQL's int4 range, far beyond any real list.
 * Without a bound, `offset=99999999999999999999` overflowed bigint and `1e309` became Infinity
 * (which Ajv's integer check lets through): a 500 instead of a 422.
 */
export const POSITION_MAX = 2_147_483_647;
