/**
 * Validation with the catalogs' own JSON Schemas (docs/api-reference.md "Schema versions"): whether a schema definition
 * is usable, and the validator of item data for one schema version (`strict_mode`).
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { BoundedCache } from '../../../lib/bounded-cache';
import { errorFields, ValidationDetail, ValidationError } from '../../../lib/errors';
import { toDetails } from '../../../lib/validation';
import type { CatalogSchema } from '../../../models/catalog-schema';
import type { ItemValidator } from '../catalog-caches';

/**
 * A fresh Ajv for item data and user schemas: user schemas carry extra keywords (`unit`,
 * `x-field-category`), so Ajv's strict mode is off; every error is reported. One per use, never
 * shared: an Ajv instance keeps every schema it compiled (and the values its code refers to) for
 * its whole life, so a shared one grew with every schema ever checked or compiled (41 MB after
 * 2,000 checks of schemas with 500-value enums); a fresh one costs about 4 ms, and is paid once
 * per schema check and once per cached validator.
 */
function newItemAjv(): Ajv {
  return addFormats(new Ajv({ allErrors: true, strict: false }));
}
/**
 * Checks that `definition` is a usable catalog schema (docs/api-reference.md "Schema versions", POST catalogs): a JSON
 * Schema accepted by Ajv's meta-schema and compiler, with a `properties` object of property
 * objects, `type` absent or `object`, and every `required` name among the properties.
 * @param loc where the definition sits in the request (prefix of each detail's `loc`)
 * @throws ValidationError (422) listing the problems
 */
export function assertValidSchemaDefinition(definition: unknown, loc: Array<string | number>): asserts definition is CatalogSchema['schema_definition'] {
  const details: ValidationDetail[] = [];
  const def = definition as Record<string, unknown>;
  if (typeof def !== 'object' || def === null || Array.isArray(def)) throw ValidationError.at(loc, 'Input should be a JSON Schema object', 'type_error');
  if (typeof def.properties !== 'object' || def.properties === null || Array.isArray(def.properties)) {
    details.push({ loc: [...loc, 'properties'], msg: 'A schema needs a `properties` object', type: 'missing' });
  } else {
    const properties = def.properties;
    for (const [name, prop] of Object.entries(properties)) {
      if (typeof prop !== 'object' || prop === null || Array.isArray(prop))
        details.push({ loc: [...loc, 'properties', name], msg: 'Property definitions must be objects', type: 'type_error' });
    }
    if (def.required !== undefined) {
      if (!Array.isArray(def.required)) details.push({ loc: [...loc, 'required'], msg: 'Input should be an array of field names', type: 'type_error' });
      else
        def.required.forEach((r: unknown, i: number) => {
          if (typeof r !== 'string' || !(r in properties))
            details.push({ loc: [...loc, 'required', i], msg: `Required field ${JSON.stringify(r)} is not among the properties`, type: 'value_error' });
        });
    }
  }
  if (def.type !== undefined && def.type !== 'object')
    details.push({ loc: [...loc, 'type'], msg: "A catalog schema's type must be 'object'", type: 'value_error' });
  if (details.length === 0) {
    const itemAjv = newItemAjv();
    if (!itemAjv.validateSchema(def)) {
      for (const e of itemAjv.errors ?? []) {
        const path = e.instancePath.split('/').filter(Boolean);
        details.push({ loc: [...loc, ...path], msg: `Invalid JSON Schema: ${e.message ?? 'invalid'}`, type: 'value_error.json_schema' });
      }
    } else {
      try {
        itemAjv.compile(def);
      } catch (err) {
        details.push({ loc, msg: `Invalid JSON Schema: ${errorFields(err).message ?? 'does not compile'}`, type: 'value_error.json_schema' });
      }
    }
  }
  if (details.length) throw new ValidationError(details);
}

/**
 * A validator of item data for one schema version (docs/api-reference.md "Catalogs", `strict_mode`), compiled
 * once per version id and kept in `validators` (the app's CatalogCaches.validators). Unknown top-level fields are rejected unless the schema sets
 * `additionalProperties` itself; system keys starting with `__` (e.g. `__catalog_item_id`) are
 * always allowed.
 * @returns a function giving `[]` for valid data, else one detail per problem whose `loc` is
 *   the data path (e.g. `['price']`); callers prefix it with `body`, `items`, an index, …
 */
export function itemValidator(validators: BoundedCache<ItemValidator>, schema: CatalogSchema): ItemValidator {
  const cached = validators.get(schema.id);
  if (cached) return cached;
  const def = schema.schema_definition;
  const strict = {
    ...def,
    type: 'object',
    patternProperties: { '^__': {}, ...(def.patternProperties as Record<string, unknown> | undefined) },
    additionalProperties: def.additionalProperties ?? false,
  };
  const validateFn = newItemAjv().compile(strict);
  const validator = (data: Record<string, unknown>): ValidationDetail[] =>
    validateFn(data) ? [] : toDetails(validateFn.errors, 'body').map((d) => ({ ...d, loc: d.loc.slice(1) }));
  validators.set(schema.id, validator);
  return validator;
}
