import { newId } from '../../src/lib/ids';
import { createTestCatalog } from '../helpers/catalogs';
import { testKnex } from '../helpers/db';

/** A catalog item of the dashboard fixture. */
interface FixtureItem {
  sku: string;
  title: string;
  brand?: string;
  color?: string;
  price?: number;
}

/** What {@link createReviewFixture} made. */
export interface ReviewFixture {
  catalogId: string;
  activityId: string;
  /** Item ids by SKU. */
  items: Record<string, string>;
  /** Staged change ids by SKU. */
  changes: Record<string, string>;
}

/** Text that must render as text: an XSS probe in a staged value. */
export const XSS_PROBE = '<img src=x onerror="window.__xss=1">';

/**
 * A catalog with four items and a `pending_review` activity staging one change per item, as an
 * enrichment job targeting the catalog stages them (before = the item, after = item + enriched
 * fields; sources, explanations, field confidence and methods in source_data / review_info).
 * Rows are inserted directly so the page can be tested without running a job. `xssProbe`: the
 * headphones' staged color is {@link XSS_PROBE}.
 */
export async function createReviewFixture(organizationId: string, options: { xssProbe?: boolean } = {}): Promise<ReviewFixture> {
  const knex = testKnex();
  const catalogId = await createTestCatalog(organizationId, {
    schema_definition: {
      type: 'object',
      properties: { sku: { type: 'string' }, title: { type: 'string' }, brand: { type: 'string' }, color: { type: 'string' }, price: { type: 'number' } },
      required: ['sku'],
    },
  });
  const base: FixtureItem[] = [
    { sku: 'KB-100', title: 'Mechanical keyboard', price: 89 },
    { sku: 'MS-200', title: 'Wireless mouse', brand: 'Logi', price: 25 },
    { sku: 'HD-300', title: 'Studio headphones', price: 149 },
    { sku: 'CB-400', title: 'USB-C cable 1m', price: 9.5 },
  ];
  const items: Record<string, string> = {};
  for (const data of base) {
    const id = newId();
    items[data.sku] = id;
    await knex('catalog_items').insert({ id, catalog_id: catalogId, business_key: data.sku, data: JSON.stringify(data), current_version: 1 });
  }
  await knex('catalogs').where({ id: catalogId }).update({ item_count: base.length });
  const activityId = newId();
  await knex('review_activities').insert({
    id: activityId,
    organization_id: organizationId,
    catalog_id: catalogId,
    type: 'custom_transform',
    status: 'pending_review',
    description: 'Enrich brand and color',
    last_message: 'Brands and colors found on the manufacturers’ pages.',
  });
  const enriched: Record<string, Partial<FixtureItem>> = {
    'KB-100': { brand: 'Keychron', color: 'Space gray', title: 'Mechanical keyboard K2 (wireless)' },
    'MS-200': { brand: 'Logitech', color: 'Graphite' },
    'HD-300': { brand: 'Beyerdynamic', color: options.xssProbe ? XSS_PROBE : 'Black' },
    'CB-400': { brand: 'Anker', color: 'White' },
  };
  const changes: Record<string, string> = {};
  let rowIndex = 0;
  for (const data of base) {
    const after = { ...data, ...enriched[data.sku] };
    const fields = Object.keys(enriched[data.sku]);
    const id = newId();
    changes[data.sku] = id;
    await knex('staged_changes').insert({
      id,
      activity_id: activityId,
      organization_id: organizationId,
      catalog_id: catalogId,
      catalog_item_id: items[data.sku],
      catalog_item_entity_type: 'product',
      before_data: JSON.stringify(data),
      after_data: JSON.stringify(after),
      source_data: JSON.stringify({
        sources: Object.fromEntries(fields.map((f) => [f, [`https://www.example-shop.com/p/${data.sku.toLowerCase()}`, 'javascript:alert(1)']])),
        source_explanations: Object.fromEntries(fields.map((f) => [f, `${f} as listed on the product page`])),
      }),
      review_info: JSON.stringify({
        reasoning: 'matched the product page',
        confidence: data.sku === 'CB-400' ? 'low' : 'high',
        flags: [],
        field_issues: [],
        field_confidence: Object.fromEntries(fields.map((f) => [f, data.sku === 'CB-400' ? 'low' : f === 'color' ? 'medium' : 'high'])),
        field_methods: Object.fromEntries(fields.map((f) => [f, f === 'brand' ? 'jsonld' : 'text'])),
      }),
      is_new_item: false,
      row_index: rowIndex++,
      status: 'pending',
      base_version: 1,
    });
  }
  return { catalogId, activityId, items, changes };
}
