import type { Knex } from 'knex';
import type { OutputField } from '../../../enrichment/types';
import { ConflictError } from '../../../lib/errors';
import { EnrichmentJob } from '../../../models/enrichment-job';
import { EnrichmentRow } from '../../../models/enrichment-row';
import { Catalog } from '../../../models/catalog';
import type { CatalogSchema } from '../../../models/catalog-schema';
import type { CatalogCaches } from '../../catalog/catalog-caches';
import { writeItems } from '../../catalog/items/items-write';
import { getCurrentSchema, inferType } from '../../catalog/schema/schema';
import { createCatalog } from '../../catalog/catalogs';
import { rowOutputSchema } from '../rows/rows';
import { loadOwned } from '../../access/ownership';
import type { Scope } from '../../access/scope';

/**
 * `POST /public/enrich/{job_id}/to-catalog` (docs/api-enrichment.md "Job to catalog"): a new catalog built from an
 * enrichment run. Its schema comes from the job's output schema (types, descriptions, units,
 * enums; image URLs as `format: uri` strings) plus the input fields the items carried (types
 * inferred); its items are the results' `after_data` without `sources` / `source_explanations`
 * and without the service's control keys.
 */

/** Items are written in pages of this many (the bulk write limit of the item service). */
const PAGE = 1000;
/** Keys of `after_data` that are provenance or control keys, never catalog data. */
const DROPPED = new Set(['sources', 'source_explanations', 'attribute_set_id', 'source_hint_set_id']);

/** JSON Schema property of one output field. */
export function propertyOf(f: OutputField): Record<string, unknown> {
  const p: Record<string, unknown> = { type: f.type, description: f.description, 'x-field-category': 'enriched' };
  if (f.unit) p['x-unit'] = f.unit;
  if (f.enum?.length) p.enum = f.enum;
  if (f.type === 'array') {
    p.items =
      f.array_element_type === 'image_url'
        ? { type: 'string', format: 'uri' }
        : { type: f.array_element_type ?? 'string', ...(f.items_enum?.length ? { enum: f.items_enum } : {}) };
  }
  if (f.minimum !== undefined) p.minimum = f.minimum;
  if (f.maximum !== undefined) p.maximum = f.maximum;
  return p;
}

/** The catalog data of one result: its after_data without provenance and control keys. */
function itemData(afterData: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(afterData).filter(([k]) => !DROPPED.has(k) && !k.startsWith('__')));
}

/** Writes the data of every processed row of a job into `catalog`, in pages of {@link PAGE} rows, in row order. */
async function copyResults(trx: Knex.Transaction, caches: CatalogCaches, scope: Scope, catalog: Catalog, jobId: string): Promise<void> {
  for (let after = -1; ;) {
    const rows = await EnrichmentRow.query(trx)
      .where({ job_id: jobId })
      .whereNotNull('result')
      .where('row_index', '>', after)
      .orderBy('row_index')
      .limit(PAGE)
      .select('row_index', trx.raw("result -> 'after_data' AS after_data"))
      .castTo<Array<{ row_index: number; after_data: Record<string, unknown> | null }>>();
    if (rows.length === 0) break;
    await writeItems(
      trx,
      caches,
      scope,
      catalog,
      rows.map((r) => itemData(r.after_data ?? {})),
      { source_info: { source: 'enrichment_job', job_id: jobId } },
    );
    after = rows[rows.length - 1].row_index;
    if (rows.length < PAGE) break;
  }
}

/**
 * Creates the catalog and writes every processed row's data, in ONE transaction (this function
 * owns the use case: a failed write leaves no catalog behind).
 * `unique_id_field`: the job's target catalog's when it has one, else `sku` (or the first of
 * `id`, `gtin`, `mpn` the items carry).
 * @param caches the app's catalog caches (item validators of the write)
 * @returns the new catalog as stored after the writes (its item count included) and its schema
 * @throws NotFoundError `Job not found` (404) / ForbiddenError (403); ConflictError (409) while
 *   the job runs; ValidationError (422) from catalog creation
 */
export async function jobToCatalog(
  knex: Knex,
  caches: CatalogCaches,
  scope: Scope,
  jobId: string,
  body: { name: string; description?: string },
): Promise<{ catalog: Catalog; schema: CatalogSchema }> {
  const job = await loadOwned<EnrichmentJob>(knex, EnrichmentJob, jobId, scope, 'Job not found');
  if (job.status === 'running') throw new ConflictError('The job is still running; convert it once it has finished');
  const fields = new Map<string, OutputField>();
  for (const f of rowOutputSchema(job.config, {}) as OutputField[]) fields.set(f.name, f);
  for (const entry of Object.values((job.config.attribute_sets ?? {}) as Record<string, unknown>)) {
    for (const f of (Array.isArray(entry) ? entry : ((entry as { attributes?: OutputField[] }).attributes ?? [])) as OutputField[])
      if (!fields.has(f.name)) fields.set(f.name, f);
  }
  // Input fields: every other key of the results, with a type inferred from a sample of values.
  const { rows: keys } = await knex.raw(
    `SELECT e.key, jsonb_agg(e.value) FILTER (WHERE e.value <> 'null'::jsonb) AS samples
     FROM (SELECT result -> 'after_data' AS d FROM enrichment_rows WHERE job_id = ? AND result IS NOT NULL LIMIT 2000) r
     CROSS JOIN LATERAL jsonb_each(r.d) e GROUP BY e.key ORDER BY min(e.key)`,
    [jobId],
  );
  const properties: Record<string, Record<string, unknown>> = {};
  for (const k of keys as Array<{ key: string; samples: unknown[] | null }>) {
    if (DROPPED.has(k.key) || k.key.startsWith('__') || fields.has(k.key)) continue;
    properties[k.key] = { type: inferType(k.samples ?? []), 'x-field-category': 'input' };
  }
  for (const f of fields.values()) properties[f.name] = propertyOf(f);
  const target = job.config.catalog_target as { catalog_id: string; unique_id_field: string } | undefined;
  const uniqueIdField = target?.unique_id_field ?? ['sku', 'id', 'gtin', 'mpn'].find((k) => k in properties) ?? 'sku';
  const catalog = await knex.transaction(async (trx) => {
    const created = await createCatalog(trx, scope, {
      name: body.name,
      description: body.description ?? `Created from enrichment job ${jobId}`,
      unique_id_field: uniqueIdField,
      schema_definition: { type: 'object', properties },
    });
    await copyResults(trx, caches, scope, created.catalog, jobId);
    return created.catalog;
  });
  const fresh = await Catalog.query(knex).findById(catalog.id).throwIfNotFound();
  return { catalog: fresh, schema: await getCurrentSchema(knex, catalog.id) };
}
