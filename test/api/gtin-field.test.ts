/**
 * Which catalog field the console flags as the GTIN, and which values it flags (docs/console.md
 * "GTIN flags"; src/services/channels/gtin-field.ts) on the real database: the proposal's field
 * (`ean` before `barcode`) until a feed maps `gtin` from another field, then that feed's; a
 * catalog with no GTIN-like field has none. Values: a good GTIN-13 (as text or a number), a wrong
 * check digit, a wrong length, a coupon number.
 */
import { gtinCheckDigit } from '../../src/channels';
import { getCurrentSchema } from '../../src/services/catalog/schema/schema';
import { catalogGtinField, gtinProblem } from '../../src/services/channels/gtin-field';
import { createFeed, deleteFeed } from '../../src/services/feeds/feeds';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';

afterAll(closeTestKnex);

const props = (names: string[]) => ({ type: 'object', properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])), required: ['sku'] });

test("the proposal's field until a feed maps gtin from another field; none without a GTIN-like field", async () => {
  const org = await createTestOrg('gtin field org');
  const scope = { organizationId: org.organizationId, principal: { kind: 'api_key' as const, id: 'test', organizationIds: [org.organizationId] } };
  const catalogId = await createTestCatalog(org.organizationId, { schema_definition: props(['sku', 'name', 'barcode', 'ean']) });
  const field = async () => catalogGtinField(testKnex(), catalogId, await getCurrentSchema(testKnex(), catalogId));
  expect(await field()).toBe('ean');
  const { feed } = await createFeed(testKnex(), scope, catalogId, {
    channel: 'meta_catalog',
    format: 'csv',
    target_country: 'FR',
    language: 'fr',
    mapping: { id: 'sku', title: 'name', gtin: 'barcode' },
  });
  expect(await field()).toBe('barcode');
  await deleteFeed(testKnex(), scope, feed.id);
  expect(await field()).toBe('ean');
  const plain = await createTestCatalog(org.organizationId, { schema_definition: props(['sku', 'name']) });
  expect(await catalogGtinField(testKnex(), plain, await getCurrentSchema(testKnex(), plain))).toBeNull();
});

test('values: good GTINs pass, a wrong check digit, a wrong length and a coupon number are flagged with the reason', () => {
  expect(gtinProblem('4006381333931')).toBeNull();
  expect(gtinProblem(4006381333931)).toBeNull();
  expect(gtinProblem('400-638133393-1')).toBeNull();
  expect(gtinProblem('')).toBeNull();
  expect(gtinProblem({ gtin: '4006381333932' })).toBeNull();
  expect(gtinProblem('4006381333932')).toMatchObject({ code: 'invalid_gtin', message: 'The GTIN has a wrong check digit' });
  expect(gtinProblem('4000001')).toMatchObject({ code: 'invalid_gtin', message: 'The GTIN is not 8, 12, 13 or 14 digits long' });
  const coupon = `991234567890${gtinCheckDigit('991234567890')}`;
  expect(gtinProblem(coupon)).toMatchObject({ code: 'restricted_gtin', message: 'The GTIN is in a GS1 coupon range, not a trade item number' });
});
