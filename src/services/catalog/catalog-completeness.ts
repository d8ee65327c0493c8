/**
 * Catalog completeness (issue 28 §1, the home page; the catalog completeness page
 * `/dashboard/catalogs/{catalog_id}/completeness` may reuse or replace this).
 */
import type { Knex } from 'knex';

/** A catalog's completeness. */
export interface CatalogCompleteness {
  catalog_id: string;
  /** The current schema's `required` fields (the ones counted). */
  required_fields: string[];
  /** Items counted: every item but a product that has variants (its variants are counted: the schema describes them). */
  items: number;
  /** Required field values filled over those items (at most items × required fields). */
  filled: number;
  /**
   * filled ÷ (items × required fields), 0..1; null when there is nothing to count (no required
   * field, or no item).
   */
  share: number | null;
}

/**
 * Completeness of each catalog in `catalogIds`: the share of the required fields of its current
 * schema (`schema_definition.required`) that its items fill. A value is filled unless it is
 * absent, JSON null, an empty or blank string, an empty list or an empty object. One aggregate
 * per catalog (a scan of its items; they run concurrently).
 * @param catalogIds catalogs the caller already checked belong to its organization
 * @returns one entry per catalog, in the order given
 */
export async function catalogCompleteness(knex: Knex, catalogIds: string[]): Promise<CatalogCompleteness[]> {
  if (!catalogIds.length) return [];
  const schemas: Array<{ catalog_id: string; schema_definition: { required?: unknown } }> = await knex('catalog_schemas as s')
    .join('catalogs as c', function () {
      this.on('c.id', 's.catalog_id').andOn('c.current_schema_version', 's.version');
    })
    .whereIn('c.id', catalogIds)
    .select('s.catalog_id', 's.schema_definition');
  const required = new Map(
    schemas.map((s) => [
      s.catalog_id,
      Array.isArray(s.schema_definition?.required) ? s.schema_definition.required.filter((f): f is string => typeof f === 'string') : [],
    ]),
  );
  return Promise.all(
    catalogIds.map(async (id) => {
      const fields = required.get(id) ?? [];
      const filledSql = fields.length
        ? fields
            .map(
              () =>
                `(CASE WHEN jsonb_typeof(data->?) IS NULL OR jsonb_typeof(data->?) = 'null' OR (jsonb_typeof(data->?) = 'string' AND btrim(data->>?) = '')
                       OR data->? IN ('[]'::jsonb, '{}'::jsonb) THEN 0 ELSE 1 END)`,
            )
            .join(' + ')
        : '0';
      const bindings = fields.flatMap((f) => [f, f, f, f, f]);
      const [row] = (
        await knex.raw(
          `SELECT count(*)::int AS items, coalesce(sum(${filledSql}), 0)::bigint AS filled FROM catalog_items i WHERE i.catalog_id = ? AND NOT EXISTS (SELECT 1 FROM catalog_items v WHERE v.parent_id = i.id)`,
          [...bindings, id],
        )
      ).rows as Array<{ items: number; filled: string }>;
      const items = Number(row.items);
      const filled = Number(row.filled);
      return { catalog_id: id, required_fields: fields, items, filled, share: fields.length && items ? filled / (items * fields.length) : null };
    }),
  );
}
