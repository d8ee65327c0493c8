import type { Knex } from 'knex';
import { newId } from '../../src/lib/ids';
import { testKnex } from './db';

/**
 * The schema of the spreadsheet export and import tests: products (`product_id`) with variants, and
 * a field of every cell kind a sheet carries (text, number, integer, boolean, array, object).
 */
export const SHEET_SCHEMA = {
  type: 'object',
  properties: {
    sku: { type: 'string' },
    product_id: { type: 'string' },
    product_name: { type: 'string' },
    title: { type: 'string' },
    price: { type: 'number' },
    stock: { type: 'integer' },
    active: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    dims: { type: 'object' },
  },
};

/** Options of {@link createTestCatalog}; anything left out takes the catalog defaults. */
export interface TestCatalogOptions {
  unique_id_field?: string;
  product_id_field?: string | null;
  product_enabled?: boolean;
  strict_mode?: boolean;
  auto_evolve_schema?: boolean;
  schema_definition?: Record<string, unknown>;
  taxonomy?: Record<string, unknown> | null;
  catalog_md?: string | null;
  quality_prompt?: string | null;
  /** The database to insert into (a suite's own database); default the shared test database. */
  knex?: Knex;
}

/**
 * Inserts a catalog and its schema version 1.0.0 directly (item tests do not depend on the
 * catalog routes). Default schema: `sku` (string, required), `title` (string), `price` (number).
 * @returns the catalog id
 */
export async function createTestCatalog(organizationId: string, o: TestCatalogOptions = {}): Promise<string> {
  const knex = o.knex ?? testKnex();
  const id = newId();
  await knex('catalogs').insert({
    id,
    organization_id: organizationId,
    name: `catalog ${id.slice(0, 8)}`,
    unique_id_field: o.unique_id_field ?? 'sku',
    product_id_field: o.product_id_field ?? null,
    product_enabled: o.product_enabled ?? false,
    strict_mode: o.strict_mode ?? false,
    auto_evolve_schema: o.auto_evolve_schema ?? false,
    current_schema_version: '1.0.0',
    catalog_md: o.catalog_md ?? null,
    quality_prompt: o.quality_prompt ?? null,
    created_by_user_id: 'test',
  });
  await knex('catalog_schemas').insert({
    id: newId(),
    catalog_id: id,
    version: '1.0.0',
    schema_definition: JSON.stringify(
      o.schema_definition ?? {
        type: 'object',
        properties: { sku: { type: 'string' }, title: { type: 'string' }, price: { type: 'number' } },
        required: ['sku'],
      },
    ),
    taxonomy: o.taxonomy ? JSON.stringify(o.taxonomy) : null,
    created_by: 'test',
    change_reason: 'test catalog',
  });
  return id;
}

/** Rows and recorded item count of a catalog, to assert that a refused request changed nothing. */
export async function catalogState(catalogId: string): Promise<{ rows: number; item_count: number; versions: number; data: unknown[] }> {
  const knex = testKnex();
  const rows = await knex('catalog_items').where('catalog_id', catalogId).orderBy('id').select('id', 'data', 'current_version');
  const catalog = await knex('catalogs').where('id', catalogId).first('item_count');
  const versions = await knex('catalog_schemas').where('catalog_id', catalogId).count<{ n: string }[]>({ n: '*' });
  return { rows: rows.length, item_count: catalog.item_count, versions: Number(versions[0].n), data: rows };
}

/**
 * A test catalog (default schema) of `count` items inserted in one set-based statement: item `g`
 * (1..count) is `{ sku: 'SKU-<g>', title: 'Item <g>', price: g }` with business key `SKU-<g>`;
 * the catalog's `item_count` is set to `count`. For tests that need many rows fast (durability).
 * @returns the catalog id
 */
export async function createNumberedCatalog(organizationId: string, count: number): Promise<string> {
  const knex = testKnex();
  const catalogId = await createTestCatalog(organizationId);
  await knex.raw(
    `INSERT INTO catalog_items (id, catalog_id, entity_type, business_key, data, created_at, updated_at)
     SELECT gen_random_uuid(), ?, 'product', 'SKU-' || g, jsonb_build_object('sku', 'SKU-' || g, 'title', 'Item ' || g, 'price', g), now(), now()
     FROM generate_series(1, ?) g`,
    [catalogId, count],
  );
  await knex('catalogs').where('id', catalogId).update({ item_count: count });
  return catalogId;
}
