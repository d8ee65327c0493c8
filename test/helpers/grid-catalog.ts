import { gtinCheckDigit } from '../../src/channels';
import type { Knex } from 'knex';
import { newId } from '../../src/lib/ids';
import { normalizeTaxonomy } from '../../src/services/catalog/taxonomy';
import { createTestCatalog } from './catalogs';
import { testKnex } from './db';

/**
 * The catalog of the item grid and completeness browser tests: a few thousand
 * items made by {@link gridItem} (so a test computes every expected count and order from the same
 * data), a schema with required `sku` and `title` and an enum `color`, and a taxonomy whose
 * `shirts` node requires `size` and `shoes` node requires `material`.
 */

/** Items of the fixture catalog. */
export const GRID_ITEMS = 3000;

const BRANDS = ['Acme', 'Northwind', 'Contoso', 'Fabrikam'];
const COLORS = ['red', 'blue', 'green'];
/** `category_id` by `i % 6`: two leaves, their root, another root, none, and an id no node has. */
const CATEGORIES = ['shirts', 'shoes', 'apparel', 'electronics', undefined, 'retired-node'];

/** The schema of the fixture catalog. */
export const GRID_SCHEMA = {
  type: 'object',
  properties: {
    sku: { type: 'string' },
    title: { type: 'string' },
    brand: { type: 'string' },
    color: { type: 'string', enum: COLORS },
    price: { type: 'number' },
    gtin: { type: 'string' },
    category_id: { type: 'string' },
    size: { type: 'string' },
    material: { type: 'string' },
  },
  required: ['sku', 'title'],
};

/** The taxonomy of the fixture catalog (input form). */
export const GRID_TAXONOMY = {
  name: 'Shop',
  nodes: [
    { id: 'apparel', name: 'Apparel', parent: null },
    { id: 'shirts', name: 'Shirts', parent: 'apparel', attributes: [{ name: 'size', type: 'string', required: true }] },
    { id: 'shoes', name: 'Shoes', parent: 'apparel', attributes: [{ name: 'material', type: 'string', required: true }] },
    { id: 'electronics', name: 'Electronics', parent: null },
  ],
};

/**
 * The GTIN of item `i`: a GTIN-13 with GS1 prefix 400 and a correct check digit, but for every
 * 25th item from the fourth on, whose check digit is off by one (the console flags those).
 */
export function fixtureGtin(i: number): string {
  const body = `400${String(i).padStart(9, '0')}`;
  const check = gtinCheckDigit(body);
  return `${body}${i % 25 === 3 ? (check + 1) % 10 : check}`;
}

/** Item `i` of the fixture: some fields left out or blank on a pattern, so each count is known. */
export function gridItem(i: number): Record<string, unknown> {
  const category = CATEGORIES[i % 6];
  const data: Record<string, unknown> = {
    sku: `SKU-${String(i).padStart(5, '0')}`,
    title: i % 10 === 0 ? '' : `Item ${i}`,
    color: COLORS[i % 3],
    gtin: fixtureGtin(i),
  };
  if (i % 7 !== 0) data.brand = BRANDS[i % 4];
  // No price: left out (i % 10 = 0) or an explicit JSON null (i % 10 = 5).
  if (i % 5 !== 0) data.price = (i % 200) + 0.5;
  else if (i % 10 === 5) data.price = null;
  if (category) data.category_id = category;
  if (category === 'shirts' && i % 4 !== 0) data.size = ['S', 'M', 'L'][i % 3];
  if (category === 'shoes' && i % 8 !== 1) data.material = 'leather';
  return data;
}

/** One item of the fixture as inserted. */
export interface GridFixtureItem {
  id: string;
  data: Record<string, unknown>;
}

/** Creates the fixture catalog for an organization; returns its id and its items (insertion order = creation order). */
export async function createGridFixture(organizationId: string): Promise<{ catalogId: string; items: GridFixtureItem[] }> {
  const knex = testKnex();
  const catalogId = await createTestCatalog(organizationId, {
    schema_definition: GRID_SCHEMA,
    taxonomy: normalizeTaxonomy(GRID_TAXONOMY, ['taxonomy']) as unknown as Record<string, unknown>,
  });
  const items: GridFixtureItem[] = [];
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  for (let i = 0; i < GRID_ITEMS; i++) items.push({ id: newId(), data: gridItem(i) });
  for (let at = 0; at < items.length; at += 500) {
    await knex('catalog_items').insert(
      items.slice(at, at + 500).map((it, j) => ({
        id: it.id,
        catalog_id: catalogId,
        business_key: it.data.sku,
        data: JSON.stringify(it.data),
        current_version: 1,
        created_at: new Date(t0 + (at + j) * 1000),
        updated_at: new Date(t0 + (at + j) * 1000),
      })),
    );
  }
  await knex('catalogs').where({ id: catalogId }).update({ item_count: items.length, name: 'Grid fixture <b>shop</b>' });
  return { catalogId, items };
}

/** Empty as the grid means it: missing, null, blank string, empty list or object. */
export function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && v.length === 0);
}

/** The required fields of an item of the fixture: `sku`, `title`, and its node's (`shirts` → size, `shoes` → material). */
export function fixtureRequired(data: Record<string, unknown>): string[] {
  return ['sku', 'title', ...(data.category_id === 'shirts' ? ['size'] : data.category_id === 'shoes' ? ['material'] : [])];
}

/** Whether an item of the fixture is complete. */
export function fixtureComplete(data: Record<string, unknown>): boolean {
  return fixtureRequired(data).every((f) => !isEmpty(data[f]));
}

/**
 * The definitions of the indexes on `catalog_items` that read `data` (a grid field index is the
 * field's sort keys, never such an index: docs/console.md "Grid field indexes").
 */
export async function dataIndexes(knex: Knex): Promise<string[]> {
  const { rows } = await knex.raw("SELECT indexdef FROM pg_indexes WHERE tablename = 'catalog_items' AND indexdef ~ '\\mdata\\M'");
  return rows.map((r: { indexdef: string }) => r.indexdef);
}
