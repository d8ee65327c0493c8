/**
 * The console grid read through a field's keys (src/services/catalog/grid/grid-keys.ts) on real
 * PostgreSQL gives the same pages as without them: a 2,400-item catalog whose `brand` (a text
 * field) and `price` (a number) hold every kind of value a grid filter or sort must place
 * (strings, numbers and booleans in the text field, strings and booleans in the number field, a
 * list, an object, JSON null, a missing value, and a text value too large for a key), walked
 * page by page through the cursors with the keys ready and again with them marked not ready (the
 * plain reads). Then one key is made wrong on purpose: the keyed answers change and the plain
 * ones do not, so the keyed reads were really taken.
 */
import type { Knex } from 'knex';
import type { Scope } from '../../src/services/access/scope';
import { createServiceCaches } from '../../src/services/service-caches';
import { gridPage, loadGridCatalog, type GridPage } from '../../src/services/catalog/grid/item-grid';
import { parseGridQuery } from '../../src/services/catalog/grid/item-grid-query';
import { textKeys } from '../../src/services/catalog/grid/grid-keys';
import { buildSortKeys } from '../../src/services/catalog/items/sort-keys';
import { noJobs } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';

const N = 2400;
/** A brand value longer than a key may be (1,000 bytes of JSON text): kept as `oversize`. */
const LONG = 'L'.repeat(1200);

let knex: Knex;
let catalogId: string;
let scope: Scope;
const caches = createServiceCaches();
const searchTotals = { caches: caches.catalog, jobRunner: noJobs };

beforeAll(async () => {
  knex = testKnex();
  const org = await createTestOrg('grid keys');
  scope = { organizationId: org.organizationId, principal: { kind: 'api_key', id: 'test', organizationIds: [org.organizationId] } };
  catalogId = await createTestCatalog(org.organizationId, {
    schema_definition: {
      type: 'object',
      properties: { sku: { type: 'string' }, brand: { type: 'string' }, price: { type: 'number' } },
      required: ['sku'],
    },
  });
  // brand by g % 12: four names, the number 5, the string "5", true, a list, an object, JSON null, missing, the long text (one item in 100).
  // price by g % 10: g % 37 (ties), 2.5, the string "7", false, JSON null, missing.
  await knex.raw(
    `INSERT INTO catalog_items (id, catalog_id, entity_type, business_key, data, created_at)
     SELECT gen_random_uuid(), ?, 'product', 'K-' || g,
            jsonb_build_object('sku', 'K-' || g)
            || CASE WHEN g % 100 = 0 THEN jsonb_build_object('brand', ?::text)
                    ELSE CASE g % 12 WHEN 0 THEN '{"brand": "Acme"}'::jsonb WHEN 1 THEN '{"brand": "Borealis"}' WHEN 2 THEN '{"brand": "Contoso"}'
                         WHEN 3 THEN '{"brand": "Zephyr"}' WHEN 4 THEN '{"brand": 5}' WHEN 5 THEN '{"brand": "5"}' WHEN 6 THEN '{"brand": true}'
                         WHEN 7 THEN '{"brand": ["Acme"]}' WHEN 8 THEN '{"brand": {"n": "Acme"}}' WHEN 9 THEN '{"brand": null}' WHEN 10 THEN '{}'
                         ELSE '{"brand": "acme"}' END END
            || CASE g % 10 WHEN 6 THEN '{"price": "7"}'::jsonb WHEN 7 THEN '{"price": false}' WHEN 8 THEN '{"price": null}' WHEN 9 THEN '{}'
                           WHEN 5 THEN '{"price": 2.5}' ELSE jsonb_build_object('price', g % 37) END,
            now() + g * interval '1 microsecond'
     FROM generate_series(1, ?) AS g`,
    [catalogId, LONG, N],
  );
  await knex('catalogs').where('id', catalogId).update({ item_count: N });
  await knex('catalog_sort_fields').insert([
    { catalog_id: catalogId, field: 'brand' },
    { catalog_id: catalogId, field: 'price' },
  ]);
  expect((await buildSortKeys(knex, catalogId)).map((b) => [b.field, b.items]).sort()).toEqual([
    ['brand', N],
    ['price', N],
  ]);
}, 120_000);

afterAll(async () => {
  await closeTestKnex();
});

/** Every page of a grid query through its cursors: the ids in order, and each page's count. */
async function walk(qs: string): Promise<{ ids: string[]; counts: Array<[number, string]> }> {
  const grid = await loadGridCatalog({ knex, caches }, scope, catalogId);
  const q = parseGridQuery(Object.fromEntries(new URLSearchParams(qs)), grid.types);
  const ids: string[] = [];
  const counts: Array<[number, string]> = [];
  let cursor: GridPage['next_cursor'] | undefined;
  for (let guard = 0; guard <= N / 100 + 1; guard++) {
    const p = await gridPage(knex, grid, { ...q, cursor: cursor ?? undefined }, undefined, 100, { searchTotals });
    ids.push(...p.rows.map((r) => r.id));
    counts.push([p.count, p.count_kind]);
    if (!p.next_cursor) return { ids, counts };
    cursor = p.next_cursor;
  }
  throw new Error(`more pages than items: ${qs}`);
}

/** Marks the catalog's keys ready or not (not ready: the grid reads the plain way). */
async function keysReady(ready: boolean): Promise<void> {
  await knex('catalog_sort_fields').where('catalog_id', catalogId).update({ ready });
}

const QUERIES = [
  'sort=price',
  'sort=price&dir=desc',
  'sort=brand',
  'f.brand=eq:Acme',
  'f.brand=eq:5',
  'f.brand=eq:true',
  `f.brand=eq:${LONG}`,
  'f.brand=eq:Nobody',
  'f.brand=in:Acme,Zephyr,5',
  'f.brand=range:B..D',
  'f.brand=range:..B',
  'f.brand=range:M..',
  'f.price=eq:5',
  'f.price=range:3..10',
  'f.price=range:30..',
  'f.price=range:..2.5',
  'f.price=range:3..10&sort=price&dir=desc',
  'f.brand=eq:Acme&sort=price',
  'f.brand=in:Contoso,5&f.price=range:..20&sort=price',
  'not.brand=eq:Acme&sort=price',
];

test('every query pages through the same items in the same order, with the same counts, with keys and without', async () => {
  for (const qs of QUERIES) {
    await keysReady(true);
    const keyed = await walk(qs);
    await keysReady(false);
    const plain = await walk(qs);
    expect({ qs, ...keyed }).toEqual({ qs, ...plain });
    expect(plain.ids.length).toBe(new Set(plain.ids).size);
  }
  // The queries are not vacuous: the sort walks every item, the filters find what they should.
  await keysReady(true);
  expect((await walk('sort=price')).ids).toHaveLength(N);
  const fives = await knex('catalog_items').where('catalog_id', catalogId).whereRaw("data ->> 'brand' = '5'").pluck('id');
  expect(fives.length).toBeGreaterThan(N / 12); // the number 5 and the string "5"
  expect((await walk('f.brand=eq:5')).ids.sort()).toEqual(fives.sort());
  expect((await walk(`f.brand=eq:${LONG}`)).ids).toHaveLength(N / 100);
  expect((await walk('f.brand=eq:Nobody')).ids).toEqual([]);
}, 180_000);

test('a wrong key changes the keyed answers only: the keyed reads are the ones taken', async () => {
  await keysReady(true);
  const acme = (await walk('f.brand=eq:Acme')).ids;
  const byPrice = (await walk('sort=price')).ids;
  const victim = acme[0];
  await knex('catalog_sort_keys')
    .where({ catalog_id: catalogId, item_id: victim, field: 'brand' })
    .update({ k: JSON.stringify('Zzz') });
  await knex('catalog_sort_keys')
    .where({ catalog_id: catalogId, item_id: victim, field: 'price' })
    .update({ k: JSON.stringify(-1) });
  try {
    // Keyed: the filter's candidates miss the item; the sort places it by its (wrong) key: the
    // least number, right after the string prices (jsonb orders strings before numbers).
    expect((await walk('f.brand=eq:Acme')).ids).toEqual(acme.filter((id) => id !== victim));
    const strings = await knex('catalog_items')
      .where('catalog_id', catalogId)
      .whereRaw("jsonb_typeof(data -> 'price') = 'string'")
      .count<{ n: string }[]>('* as n');
    const rest = byPrice.filter((id) => id !== victim);
    const at = Number(strings[0].n);
    expect(at).toBeGreaterThan(0);
    expect((await walk('sort=price')).ids).toEqual([...rest.slice(0, at), victim, ...rest.slice(at)]);
    await keysReady(false);
    expect((await walk('f.brand=eq:Acme')).ids).toEqual(acme);
    expect((await walk('sort=price')).ids).toEqual(byPrice);
  } finally {
    await knex.raw(
      `UPDATE catalog_sort_keys s SET k = NULLIF(ci.data -> s.field, 'null'::jsonb) FROM catalog_items ci WHERE ci.id = s.item_id AND s.item_id = ?`,
      [victim],
    );
    await keysReady(true);
  }
}, 120_000);

test('the keys of a text value: its string, and the JSON number or boolean it also reads as; none for what jsonb refuses', () => {
  expect(textKeys('Acme')).toEqual(['"Acme"']);
  expect(textKeys('5')).toEqual(['"5"', '5']);
  expect(textKeys(' 5')).toEqual(['" 5"']);
  expect(textKeys('true')).toEqual(['"true"', 'true']);
  // A number of 151 digits (PostgreSQL writes kept numbers without an exponent) is still looked up.
  const big = '1' + '0'.repeat(150);
  expect(textKeys(big)).toEqual([JSON.stringify(big), big]);
  expect(textKeys('[1]')).toBeNull();
  expect(textKeys('a\uD800b')).toBeNull();
  expect(textKeys('😀')).toEqual(['"😀"']);
  // A NUL is refused with the query (422), before any key is looked up.
  expect(() => parseGridQuery({ 'f.brand': 'eq:a\u0000b' }, { brand: 'string' })).toThrow(/NUL/);
});
