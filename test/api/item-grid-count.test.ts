/**
 * The console grid's count ("counts exact where cheap, otherwise capped and said
 * so"; src/services/catalog/grid/item-grid.ts gridCount) on real PostgreSQL: a 20,000-item catalog
 * seeded in SQL and ANALYZEd, with the estimate threshold lowered from 50,000 to 2,000 (the
 * `estimateAbove` option, `GRID_COUNT_ESTIMATE_ABOVE` for the app) so the estimate path is taken
 * without a 1,000,000-item catalog.
 *
 * - `f.brand=eq:Estimaco` (19,797 items) once the brand's grid index (with its statistics) is
 *   ready: the planner's estimate, said to be one ("about … items (estimated)"); before it is
 *   ready, counted ("10,000+").
 * - `f.brand=eq:Rarebrand` (200 items, estimated far below the threshold): counted, exact.
 * - A taxonomy node: estimated; `unclassified`, `missing`, `contains`, `not.` (no statistics):
 *   counted; an unindexed field: counted, exact; no filter: the catalog's item count.
 * - A first page that holds every match is exact even when the planner's estimate was used.
 *
 * The suite runs in a database of its own (the worker's test database's name with `_grid_count`
 * appended: created and migrated in `beforeAll`, dropped in `afterAll`), so `catalog_items` holds
 * this catalog only. The planner's statistics are table-wide: it multiplies the catalog's share of
 * the table by the value's share of the whole table, so Estimaco's estimate is
 * 20,000 × 19,797 / (rows in the table). In the worker's shared database, where other suites'
 * catalogs accumulate (hundreds of thousands of rows in a full run), that falls below 2,000 and
 * the count is exact instead of estimated; here the table holds these 20,000 rows, which ANALYZE
 * samples whole, and the estimate is Estimaco's 19,797.
 */
import type { Knex } from 'knex';
import request from 'supertest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { SESSION_COOKIE } from '../../src/middleware/session';
import { createOrganizationWithKey } from '../../src/services/access/auth';
import type { Scope } from '../../src/services/access/scope';
import { signIn } from '../../src/services/access/sessions';
import { createServiceCaches } from '../../src/services/service-caches';
import { ensureGridIndexes, reconcileGridIndexes } from '../../src/services/catalog/grid/grid-indexes';
import { buildSearchIndex } from '../../src/services/catalog/search/search-count-index';
import { COUNT_CAP, ESTIMATE_ABOVE, gridPage, loadGridCatalog, type GridPage } from '../../src/services/catalog/grid/item-grid';
import { parseGridQuery } from '../../src/services/catalog/grid/item-grid-query';
import { normalizeTaxonomy } from '../../src/services/catalog/taxonomy';
import { noJobs } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { createOwnDatabase, type OwnDatabase } from '../helpers/own-database';

/** Items of the catalog. */
const N = 20_000;
/** The lowered threshold: planner estimates of at least this many matches are shown as estimates. */
const ESTIMATE_AT = 2_000;

let own: OwnDatabase | undefined;
let knex: Knex;
let org: { organizationId: string; apiKey: string };
let catalogId: string;
let scope: Scope;
const caches = createServiceCaches();
/** What the grid's search count needs: the caches, and a runner that refuses index builds (this catalog is under the size that asks for one). */
const searchTotals = { caches: caches.catalog, jobRunner: noJobs };

beforeAll(async () => {
  // A fresh database (migrations: about a second), so the table's statistics are this catalog's alone.
  own = await createOwnDatabase('grid_count');
  knex = own.knex;
  org = await createOrganizationWithKey(knex, 'grid count estimate');
  scope = { organizationId: org.organizationId, principal: { kind: 'api_key', id: 'test', organizationIds: [org.organizationId] } };
  catalogId = await createTestCatalog(org.organizationId, {
    knex,
    schema_definition: {
      type: 'object',
      properties: {
        sku: { type: 'string' },
        brand: { type: 'string' },
        color: { type: 'string' },
        list_price: { type: 'number' },
        category_id: { type: 'string' },
      },
      required: ['sku'],
    },
    taxonomy: normalizeTaxonomy({ name: 'Gear', nodes: [{ id: 'gear', name: 'Gear', parent: null }] }, ['taxonomy']) as unknown as Record<string, unknown>,
  });
  // Brand: Solo for three items, Rarebrand for every 100th (200), Estimaco for the other 19,797;
  // category `gear` but for every 10th item (2,000 unclassified). Price: the number g % 100 but
  // for one item in 50 each of a string, a boolean, a list, an object, a JSON null and no price
  // (the JSON types a number range must leave out, sorting below and above the numbers).
  await knex.raw(
    `INSERT INTO catalog_items (id, catalog_id, entity_type, business_key, data, created_at, updated_at)
     SELECT gen_random_uuid(), ?, 'product', 'SKU-' || g,
            jsonb_build_object('sku', 'SKU-' || g,
                               'brand', CASE WHEN g IN (1, 2, 3) THEN 'Solo' WHEN g % 100 = 0 THEN 'Rarebrand' ELSE 'Estimaco' END,
                               'color', CASE WHEN g % 4 = 0 THEN 'red' ELSE 'blue' END)
            || CASE WHEN g % 10 = 0 THEN '{}'::jsonb ELSE '{"category_id": "gear"}'::jsonb END
            || CASE g % 50 WHEN 7 THEN '{"list_price": "15"}'::jsonb WHEN 8 THEN '{"list_price": true}' WHEN 9 THEN '{"list_price": [15]}'
                           WHEN 10 THEN '{"list_price": {"v": 15}}' WHEN 11 THEN '{"list_price": null}' WHEN 12 THEN '{}'
                           ELSE jsonb_build_object('list_price', g % 100) END,
            now() + g * interval '1 microsecond', now()
     FROM generate_series(0, ? - 1) AS g`,
    [catalogId, N],
  );
  await knex('catalogs').where('id', catalogId).update({ item_count: N });
  await knex.raw('ANALYZE catalog_items');
}, 120_000);

afterAll(async () => {
  await own?.drop();
}, 120_000);

/** The grid page of a URL query, through the service, with the lowered threshold (or `estimateAbove`). */
async function pageOf(qs: string, estimateAbove = ESTIMATE_AT): Promise<GridPage> {
  const grid = await loadGridCatalog({ knex, caches }, scope, catalogId);
  const q = parseGridQuery(Object.fromEntries(new URLSearchParams(qs)), grid.types);
  return gridPage(knex, grid, q, undefined, 50, { estimateAbove, searchTotals });
}

test('without the field grid index an equality filter is counted (capped), not estimated', async () => {
  const p = await pageOf('f.brand=eq:Estimaco');
  expect(p).toMatchObject({ count: COUNT_CAP, count_kind: 'capped' });
  expect(p.rows).toHaveLength(50);
});

test('with the index ready, a filter the planner expects to match ≥ the threshold shows its estimate', async () => {
  const catalog = await knex('catalogs').where('id', catalogId).first('id', 'organization_id', 'item_count');
  await ensureGridIndexes(knex, catalog, [{ field: 'brand', kind: 'text', use: 'filter' }], { minItems: 1000, maxPerCatalog: 8 });
  const built = await reconcileGridIndexes(knex, catalogId);
  expect(built.built).toHaveLength(1);

  const p = await pageOf('f.brand=eq:Estimaco');
  expect(p.count_kind).toBe('estimated');
  expect(p.count).toBeGreaterThanOrEqual(ESTIMATE_AT);
  expect(p.count).toBeLessThanOrEqual(N);
  expect(p.rows).toHaveLength(50);
  expect(new Set(p.rows.map((r) => r.data.brand))).toEqual(new Set(['Estimaco']));
  expect(p.next_cursor).not.toBeNull();
  // The same query under the default threshold (50,000, more than this catalog holds) is counted.
  expect(ESTIMATE_ABOVE).toBe(5 * COUNT_CAP);
  expect(await pageOf('f.brand=eq:Estimaco', ESTIMATE_ABOVE)).toMatchObject({ count: COUNT_CAP, count_kind: 'capped' });
  // A taxonomy node (statistics of the category index): estimated too.
  expect((await pageOf('category=gear')).count_kind).toBe('estimated');
});

test('estimated far below the threshold, without statistics, or unfiltered: exact or capped as before', async () => {
  expect(await pageOf('f.brand=eq:Rarebrand')).toMatchObject({ count: 200, count_kind: 'exact' });
  expect(await pageOf('f.brand=contains:Estima')).toMatchObject({ count: COUNT_CAP, count_kind: 'capped' });
  expect(await pageOf('f.color=eq:red')).toMatchObject({ count: N / 4, count_kind: 'exact' });
  expect(await pageOf('not.brand=eq:Rarebrand')).toMatchObject({ count: COUNT_CAP, count_kind: 'capped' });
  // `unclassified` is a NOT IN the planner guesses at 1 − 0.5 % per node of the catalog (99.5 % here): counted.
  expect(await pageOf('category=unclassified')).toMatchObject({ count: N / 10, count_kind: 'exact' });
  expect(await pageOf('missing=category_id')).toMatchObject({ count: N / 10, count_kind: 'exact' });
  expect(await pageOf('')).toMatchObject({ count: N, count_kind: 'exact' });
});

test('a first page holding every match is exact, whatever the planner estimated', async () => {
  // Threshold 1: any estimate reaches it; the three Solo items fit one page, which the count then is.
  const p = await pageOf('f.brand=eq:Solo', 1);
  expect(p).toMatchObject({ count: 3, count_kind: 'exact', next_cursor: null });
  expect(p.rows).toHaveLength(3);
  // A deep page of an estimated query keeps the estimate (the page alone does not know the total).
  const first = await pageOf('f.brand=eq:Estimaco');
  const grid = await loadGridCatalog({ knex, caches }, scope, catalogId);
  const q = parseGridQuery({ 'f.brand': 'eq:Estimaco' }, grid.types);
  const deep = await gridPage(knex, grid, { ...q, cursor: first.next_cursor ?? undefined }, undefined, 50, { estimateAbove: ESTIMATE_AT, searchTotals });
  expect(deep.count_kind).toBe('estimated');
  expect(deep.rows.map((r) => r.id)).not.toContain(first.rows[0].id);
});

test('the grid page says the count is an estimate; counted pages say what they always said', async () => {
  const config = { ...loadConfig(), databaseUrl: own!.url, gridIndexes: { minItems: 1000, maxPerCatalog: 8 }, gridCountEstimateAbove: ESTIMATE_AT };
  const app = createApp({ config, knex, jobRunner: noJobs }).callback();
  const cookie = `${SESSION_COOKIE}=${(await signIn(knex, org.apiKey, config.jwtSecret)).token}`;
  const get = async (path: string) => {
    const res = await request(app).get(path).set('Cookie', cookie);
    expect(res.status).toBe(200);
    const count = (suffix: string) => new RegExp(`data-count="([a-z]+)" id="grid-count${suffix}"\\s*>\\s*([^<]+)<`).exec(res.text)?.slice(1, 3);
    return { top: count(''), bottom: count('-bottom'), next: /id="next-page"\s+href="([^"]+)"/.exec(res.text)?.[1]?.replace(/&amp;/g, '&') ?? null };
  };
  const base = `/dashboard/catalogs/${catalogId}/items`;
  const estimated = await get(`${base}?f.brand=eq:Estimaco`);
  expect(estimated.top?.[0]).toBe('estimated');
  expect(estimated.top?.[1]).toMatch(/^about \d{1,3}(,\d{3})* items \(estimated\)$/);
  expect(estimated.bottom).toEqual(estimated.top);
  // Its "Next" link pages on, still saying the count is an estimate.
  expect(estimated.next).toContain('cursor=');
  expect((await get(estimated.next!)).top).toEqual(estimated.top);
  expect((await get(`${base}?f.brand=eq:Rarebrand`)).top).toEqual(['exact', '200 items']);
  expect((await get(`${base}?f.brand=contains:Estima`)).top).toEqual(['capped', '10,000+ items (counted up to 10,000)']);
  expect((await get(base)).top).toEqual(['exact', '20,000 items']);
});

/** The items of the test catalog whose price is a number in [lo, hi] (either end open), counted in SQL without the grid's conditions. */
async function pricedBetween(lo: number | null, hi: number | null): Promise<number> {
  const row = await knex('catalog_items')
    .where('catalog_id', catalogId)
    .whereRaw("jsonb_typeof(data -> 'list_price') = 'number'")
    .whereRaw("(data ->> 'list_price')::numeric >= ?", [lo ?? -1e9])
    .whereRaw("(data ->> 'list_price')::numeric <= ?", [hi ?? 1e9])
    .count<{ n: string }[]>('* as n')
    .first();
  return Number(row?.n);
}

test('a number range holds only numbers, open or closed; with the price index ready its estimate rests on statistics', async () => {
  // Counted (a threshold no estimate reaches): exactly the numbers in range, never the string,
  // boolean, list, object or null prices, whichever end is open.
  const counted = async (qs: string) => pageOf(qs, Number.MAX_SAFE_INTEGER);
  for (const [qs, lo, hi] of [
    ['f.list_price=range:10..20', 10, 20],
    ['f.list_price=range:90..', 90, null],
    ['f.list_price=range:..4', null, 4],
  ] as const) {
    const expected = await pricedBetween(lo, hi);
    expect(expected).toBeGreaterThan(0);
    expect(expected).toBeLessThan(COUNT_CAP);
    expect(await counted(qs)).toMatchObject({ count: expected, count_kind: 'exact' });
  }
  // The price's grid key index (and its statistics) ready: a closed range or a lower bound alone,
  // matching nearly every item, is estimated by the planner from those statistics (a type test
  // without statistics would be guessed at 0.5 %, 100 rows here, and counted); an upper bound alone
  // keeps its type test and is counted.
  const catalog = await knex('catalogs').where('id', catalogId).first('id', 'organization_id', 'item_count');
  await ensureGridIndexes(knex, catalog, [{ field: 'list_price', kind: 'key', use: 'filter' }], { minItems: 1000, maxPerCatalog: 8 });
  expect((await reconcileGridIndexes(knex, catalogId)).built).toHaveLength(1);
  for (const qs of ['f.list_price=range:0..99', 'f.list_price=range:0..']) {
    const p = await pageOf(qs);
    expect(p.count_kind).toBe('estimated');
    expect(p.rows.every((r) => typeof r.data.list_price === 'number')).toBe(true);
  }
  expect(await pageOf('f.list_price=range:..4')).toMatchObject({ count: await pricedBetween(null, 4), count_kind: 'exact' });
}, 60_000);

test('a query estimated to match few items pages through its matches read first, in order, with every cursor', async () => {
  // Rarebrand: 200 items, estimated below the threshold once the brand's index is ready, so each
  // page reads the matches first and sorts them (item-grid.ts pageStatement).
  const grid = await loadGridCatalog({ knex, caches }, scope, catalogId);
  const walk = async (qs: string) => {
    const ids: string[] = [];
    const q = parseGridQuery(Object.fromEntries(new URLSearchParams(qs)), grid.types);
    let cursor: GridPage['next_cursor'] | undefined;
    for (let guard = 0; guard < 20; guard++) {
      const p = await gridPage(knex, grid, { ...q, cursor: cursor ?? undefined }, undefined, 50, { estimateAbove: ESTIMATE_AT, searchTotals });
      ids.push(...p.rows.map((r) => r.id));
      if (!p.next_cursor) return ids;
      cursor = p.next_cursor;
    }
    throw new Error('more pages than items');
  };
  // In the order the rows were written (created_at holds microseconds, which a JS Date drops).
  const rare = (await knex('catalog_items')
    .where('catalog_id', catalogId)
    .whereRaw("data ->> 'brand' = 'Rarebrand'")
    .orderByRaw('created_at DESC, id DESC')
    .select('id', 'data')) as Array<{ id: string; data: { list_price?: unknown } }>;
  expect(rare).toHaveLength(200);
  const newestFirst = rare.map((r) => r.id);
  expect(await walk('f.brand=eq:Rarebrand')).toEqual(newestFirst);
  // Read whole, the matches are counted exactly on every page, deep ones too.
  const grid2 = parseGridQuery({ 'f.brand': 'eq:Rarebrand' }, grid.types);
  const first = await gridPage(knex, grid, grid2, undefined, 50, { estimateAbove: ESTIMATE_AT, searchTotals });
  const deep = await gridPage(knex, grid, { ...grid2, cursor: first.next_cursor ?? undefined }, undefined, 50, { estimateAbove: ESTIMATE_AT, searchTotals });
  expect([first.count, first.count_kind, deep.count, deep.count_kind]).toEqual([200, 'exact', 200, 'exact']);
  // Counted by the read itself, past the cap: with the threshold at the catalog's size, Estimaco
  // (19,797 items, estimated below it) is read whole and counted exactly, where the capped count
  // would stop at 10,000.
  expect(await pageOf('f.brand=eq:Estimaco', N)).toMatchObject({ count: N - 203, count_kind: 'exact' });
  // Sorted by price (Rarebrand items are g % 100 = 0: price 0, or none): numbers by price then id, then the rest by id.
  const priced = rare
    .filter((r) => typeof r.data.list_price === 'number')
    .sort((a, b) => (a.data.list_price as number) - (b.data.list_price as number) || (a.id < b.id ? -1 : 1));
  const rest = rare.filter((r) => typeof r.data.list_price !== 'number').sort((a, b) => (a.id < b.id ? -1 : 1));
  expect(await walk('f.brand=eq:Rarebrand&sort=list_price')).toEqual([...priced, ...rest].map((r) => r.id));
});

test('a words-only search is counted exactly by the search count index once the catalog has one, never capped', async () => {
  // Without the index: the capped count (or, above the threshold, an estimate): not exact.
  const before = await pageOf('q=estimaco');
  expect(before.count_kind).not.toBe('exact');
  const built = await buildSearchIndex(knex, catalogId, { minDf: 100 });
  expect(built?.items).toBe(N);
  const p = await pageOf('q=estimaco');
  expect(p).toMatchObject({ count: N - 203, count_kind: 'exact' }); // every brand but Solo (3) and Rarebrand (200)
  expect(p.rows).toHaveLength(50);
  // Anything beside the words (a filter, a literal term) is not the index's to count.
  expect((await pageOf('q=estimaco&f.color=eq:blue')).count_kind).toBe('capped');
  expect((await pageOf('q=rarebrand')).count).toBe(200);
});
