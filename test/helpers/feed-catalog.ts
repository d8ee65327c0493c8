/**
 * The small catalog the feed tests publish (docs/feeds.md): a product P1 with two variants V1 and
 * V2 (valid GTINs, colour and size), a product P2 whose GTIN has a wrong GS1 check digit, and a
 * plain product P3, with the fields a Google Merchant Center feed reads.
 */
import type { Knex } from 'knex';
import { newId } from '../../src/lib/ids';

/** The catalog fields of the feed tests' items. */
export const FEED_FIELDS = ['sku', 'product_id', 'title', 'description', 'link', 'image_link', 'price', 'availability', 'brand', 'gtin', 'color', 'size'];

/** Their JSON schema: every field a string but `price`, `sku` required. */
export const FEED_SCHEMA = {
  type: 'object',
  properties: Object.fromEntries(FEED_FIELDS.map((f) => [f, { type: f === 'price' ? 'number' : 'string' }])),
  required: ['sku'],
};

/** Google attribute → catalog field, given so a test does not depend on the mapping proposal. */
export const FEED_MAPPING: Record<string, string | { value: string }> = {
  ...Object.fromEntries(FEED_FIELDS.filter((f) => f !== 'sku' && f !== 'product_id').map((f) => [f, f])),
  id: 'sku',
  condition: { value: 'new' },
};

/** A product's data: every attribute Google requires, price 19.50, brand Acme. */
export function feedProductData(sku: string, title: string): Record<string, unknown> {
  return {
    sku,
    product_id: sku,
    title,
    description: `${title}, described`,
    link: `https://shop.example/${sku}`,
    image_link: `https://shop.example/${sku}.jpg`,
    price: 19.5,
    availability: 'in_stock',
    brand: 'Acme',
  };
}

/**
 * Inserts P1 (variants V1, V2), P2 (bad GTIN check digit) and P3 into a catalog whose product id
 * field is `product_id`; returns the item ids by SKU.
 */
export async function seedFeedCatalog(knex: Knex, catalogId: string): Promise<Record<string, string>> {
  const ids: Record<string, string> = { P1: newId(), V1: newId(), V2: newId(), P2: newId(), P3: newId() };
  const row = (sku: string, data: Record<string, unknown>, parent?: string) => ({
    id: ids[sku],
    catalog_id: catalogId,
    entity_type: parent ? 'variant' : 'product',
    parent_id: parent ?? null,
    business_key: sku,
    data: JSON.stringify(data),
  });
  await knex('catalog_items').insert([
    row('P1', feedProductData('P1', 'Trail shirt')),
    row('V1', { sku: 'V1', product_id: 'P1', gtin: '4006381333931', color: 'red', size: 'M' }, ids.P1),
    row('V2', { sku: 'V2', product_id: 'P1', gtin: '5901234123457', color: 'blue', size: 'L' }, ids.P1),
    row('P2', { ...feedProductData('P2', 'Broken mug'), gtin: '4006381333932' }),
    row('P3', { ...feedProductData('P3', 'Lamp'), gtin: '9780201379624' }),
  ]);
  return ids;
}
