import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ValidationDetail, ValidationError } from './errors';

/** Where a value came from; the first element of every 422 `loc` (decisions.md §1). */
export type InputPart = 'body' | 'query' | 'path' | 'header';

/** A JSON Schema (draft 2020-12 subset that Ajv and OpenAPI 3.1 both accept). */
export type JsonSchema = Record<string, unknown>;

const bodyAjv = addFormats(new Ajv({ allErrors: true, strict: false, useDefaults: true }));
// Query strings and path params arrive as strings: coerce to the declared types, fill defaults.
const queryAjv = addFormats(new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: 'array' }));

const cache = new WeakMap<JsonSchema, ValidateFunction>();

/** Compiles (once per schema object) an Ajv validator for one input part. */
export function compile(schema: JsonSchema, part: InputPart): ValidateFunction {
  let fn = cache.get(schema);
  if (!fn) {
    fn = (part === 'body' ? bodyAjv : queryAjv).compile(schema);
    cache.set(schema, fn);
  }
  return fn;
}

function pathOf(instancePath: string): Array<string | number> {
  return instancePath
    .split('/')
    .filter(Boolean)
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((seg) => (/^\d+$/.test(seg) ? Number(seg) : seg));
}

/** Maps Ajv errors to the spec's 422 detail entries: `{loc: [part, ...path], msg, type}`. */
export function toDetails(errors: ErrorObject[] | null | undefined, part: InputPart): ValidationDetail[] {
  return (errors ?? []).map((e) => {
    const loc: Array<string | number> = [part, ...pathOf(e.instancePath)];
    switch (e.keyword) {
      case 'required':
        return { loc: [...loc, (e.params as any).missingProperty], msg: 'Field required', type: 'missing' };
      case 'additionalProperties':
        return { loc: [...loc, (e.params as any).additionalProperty], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' };
      case 'type':
        return { loc, msg: `Input should be of type ${(e.params as any).type}`, type: 'type_error' };
      case 'enum':
        return { loc, msg: `Input should be one of: ${((e.params as any).allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`, type: 'enum' };
      default:
        return { loc, msg: e.message ?? 'Invalid value', type: `value_error.${e.keyword}` };
    }
  });
}

/**
 * Validates `value` against `schema` (coercing and defaulting in place for query/path parts).
 * @returns the (possibly coerced) value
 * @throws ValidationError (422) listing every problem
 */
export function validate<T>(schema: JsonSchema, value: unknown, part: InputPart): T {
  const fn = compile(schema, part);
  if (!fn(value)) throw new ValidationError(toDetails(fn.errors, part));
  return value as T;
}
