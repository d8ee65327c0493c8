/**
 * The schema and taxonomy part of an apply (docs/api-review.md "Apply": "schema and taxonomy
 * changes of a custom transform as one new schema version"), run inside the apply's transaction
 * by src/services/review/apply.ts. Reuses the schema fields batch (schema-field-batch.ts) and
 * the taxonomy service (taxonomy.ts), so the checks and the version bump rules are theirs.
 */
import type { Knex } from 'knex';
import { CatalogSchema } from '../../models/catalog-schema';
import type { Scope } from '../access/scope';
import type { CatalogCaches } from '../catalog/catalog-caches';
import { applyFieldBatch } from '../catalog/schema/schema-field-batch';
import type { FieldBatch } from '../catalog/schema/schema-fields';
import { normalizeTaxonomy, setTaxonomy, TaxonomyInput } from '../catalog/taxonomy';

/**
 * What an activity's `input_data` may carry for the catalog (stored by the custom-transform
 * route): `schema_changes` as the schema fields batch takes them, `taxonomy_changes` a taxonomy
 * as `PUT …/taxonomy` takes it.
 */
export interface CatalogChanges {
  schema_changes?: FieldBatch | null;
  taxonomy_changes?: TaxonomyInput | null;
}

/** True when a fields batch names at least one change. */
function hasFieldChanges(b: FieldBatch | null | undefined): b is FieldBatch {
  return Boolean(b && (b.fields_to_add?.length || b.fields_to_update?.length || b.fields_to_remove?.length));
}

/**
 * Applies the activity's schema and taxonomy changes as ONE new schema version inside `trx`:
 * the fields batch creates it (its bump: patch, minor or major), and a taxonomy given as well is
 * stored on that same version (its `migration_rules` gain `taxonomy_set`); a taxonomy alone is a
 * minor version as `PUT …/taxonomy`.
 * @returns the new schema version, or null when there is nothing to change
 * @throws ValidationError (422, `loc` under `input_data`) when the changes are invalid
 */
export async function applyCatalogChanges(
  trx: Knex.Transaction,
  caches: CatalogCaches,
  scope: Scope,
  catalogId: string,
  input: CatalogChanges,
): Promise<string | null> {
  const fields = hasFieldChanges(input.schema_changes) ? input.schema_changes : null;
  const taxonomy = input.taxonomy_changes && typeof input.taxonomy_changes === 'object' ? input.taxonomy_changes : null;
  if (!fields && !taxonomy) return null;
  if (!fields) return (await setTaxonomy(trx, caches.taxonomies, scope, catalogId, taxonomy as TaxonomyInput)).version;
  const changed = await applyFieldBatch(trx, scope, catalogId, { ...fields, reason: fields.reason ?? 'Schema changes of an applied custom transform' }, [
    'input_data',
    'schema_changes',
  ]);
  if (taxonomy) {
    const stored = normalizeTaxonomy(taxonomy, ['input_data', 'taxonomy_changes']);
    const row = (await CatalogSchema.query(trx).where({ catalog_id: catalogId, version: changed.new_schema_version }).first()) as CatalogSchema;
    await CatalogSchema.query(trx)
      .findById(row.id)
      .patch({
        taxonomy: stored,
        migration_rules: { ...(row.migration_rules ?? {}), taxonomy_set: { name: stored.name, node_count: Object.keys(stored.nodes).length } },
      });
  }
  return changed.new_schema_version;
}
