/**
 * Request validation: Ajv over the request schemas of src/schemas/, and the 422 detail format.
 *
 * The schemas are written with TypeBox (`@sinclair/typebox`) because a TypeBox schema IS a plain
 * JSON Schema object: Ajv validates it and the OpenAPI document shows it unchanged (TypeBox's
 * own markers are Symbol keys, which Ajv ignores and JSON.stringify drops), while `Static<>`
 * gives the TypeScript type of what the schema accepts, without `as const` gymnastics or deep
 * type-level JSON Schema interpretation that slows the compiler. It is widely used for exactly
 * this (Fastify's type provider). json-schema-to-ts was the alternative: it derives types from
 * `as const` literals, which is slower to type-check and needs the literal kept readonly.
 */
import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Evaluate, Static, TArray, TObject, TOptional, TProperties, TSchema } from '@sinclair/typebox';
import { ValidationDetail, ValidationError } from './errors';
import { jsonTextProblem, MAX_JSON_DEPTH, unstorableTextPaths } from './text';

/** Where a value came from; the first element of every 422 `loc` (docs/api-reference.md "Errors"). */
export type InputPart = 'body' | 'query' | 'path' | 'header';

/** Keys of an object schema's properties that may be absent after validation: optional and without a `default`. */
type AbsentKeys<P extends TProperties> = { [K in keyof P]: P[K] extends TOptional<TSchema> ? (P[K] extends { default: unknown } ? never : K) : never }[keyof P];

/**
 * The type of a value after validation by {@link Validator}: `Static<S>`, except that object
 * properties with a default (declared through `withDefault`, src/schemas/common.ts) are not
 * optional, at any depth of objects and arrays, since Ajv's `useDefaults` fills them. Inside
 * `Type.Unsafe` schemas (anyOf, nullable, enums) the declared type is taken as it is.
 */
export type Validated<S extends TSchema> =
  S extends TObject<infer P>
    ? Evaluate<{ [K in Exclude<keyof P, AbsentKeys<P>>]: Validated<P[K]> } & { [K in AbsentKeys<P>]?: Validated<P[K]> }>
    : S extends TArray<infer I>
      ? Array<Validated<I>>
      : Static<S>;

/**
 * The Ajv instances of one app: bodies as sent; query strings and path params, which arrive as
 * strings, coerced to the declared types. Both fill defaults in place. Create one per app
 * (createApp) and pass it down: compiled validators are cached by Ajv per schema object, so the
 * cache lives and dies with the app.
 */
export class Validator {
  private readonly bodyAjv = addFormats(new Ajv({ allErrors: true, strict: false, useDefaults: true }));
  private readonly queryAjv = addFormats(new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: 'array' }));

  /** The validator of `schema` for one input part (compiled on first use; Ajv caches it by schema object). */
  compile(schema: TSchema, part: InputPart): ValidateFunction {
    return (part === 'body' ? this.bodyAjv : this.queryAjv).compile(schema);
  }

  /**
   * Validates `value` against `schema` (coercing query/path values and filling defaults in place).
   * @returns the same value, typed as what the schema accepts
   * @throws ValidationError (422) listing every problem
   */
  validate<S extends TSchema>(schema: S, value: unknown, part: InputPart): Validated<S> {
    assertStorableText(value, part);
    const fn = this.compile(schema, part);
    if (!fn(value)) throw new ValidationError(toDetails(fn.errors, part));
    // The one place a type is asserted: TypeBox guarantees that a value the schema accepts has
    // type Static<S> (Ajv's own generic, JSONSchemaType<T>, is too deep for these schemas).
    return value as Validated<S>;
  }
}

function pathOf(instancePath: string): Array<string | number> {
  return instancePath
    .split('/')
    .filter(Boolean)
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((seg) => (/^\d+$/.test(seg) ? Number(seg) : seg));
}

/** Maps Ajv errors to the 422 detail entries `{loc: [part, ...path], msg, type}` (docs/api-reference.md "Errors"). */
export function toDetails(errors: ErrorObject[] | null | undefined, part: InputPart): ValidationDetail[] {
  return (errors ?? []).map((e) => {
    const loc: Array<string | number> = [part, ...pathOf(e.instancePath)];
    const params: Record<string, unknown> = e.params;
    switch (e.keyword) {
      case 'required':
        return { loc: [...loc, String(params.missingProperty)], msg: 'Field required', type: 'missing' };
      case 'additionalProperties':
        return { loc: [...loc, String(params.additionalProperty)], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' };
      case 'type':
        return { loc, msg: `Input should be of type ${params.type}`, type: 'type_error' };
      case 'enum':
        return { loc, msg: `Input should be one of: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`, type: 'enum' };
      default:
        return { loc, msg: e.message ?? 'Invalid value', type: `value_error.${e.keyword}` };
    }
  });
}

/**
 * Refuses text PostgreSQL cannot store (NUL, unpaired surrogates; src/lib/text.ts) anywhere in an
 * input part, keys included, and inputs nested deeper than MAX_JSON_DEPTH, before they reach a
 * service.
 * @throws ValidationError (422) with one detail per offending string: `loc` = part + JSON path,
 *   type `value_error.unstorable_text`
 */
export function assertStorableText(value: unknown, part: InputPart): void {
  const problem = jsonTextProblem(value);
  if (problem === null) return;
  if (problem === 'too_deep') {
    throw ValidationError.at([part], `Input nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, 'value_error.too_deep');
  }
  const paths = unstorableTextPaths(value);
  throw new ValidationError(
    paths.map((p) => ({ loc: [part, ...p], msg: 'Text must not contain NUL characters or unpaired UTF-16 surrogates', type: 'value_error.unstorable_text' })),
  );
}
