/**
 * Grid field indexes (src/services/catalog/grid/grid-indexes.ts) on a real Temporal dev
 * server and PostgreSQL: a large catalog's grid sorted or filtered on a field without its index
 * says so and asks for it; the workflow `grid-index-<catalog_id>` builds it (the field's keys in
 * `catalog_sort_keys`, one per item, and no index on `catalog_items` that reads `data`, so
 * updates of `data` stay heap-only); the page then says nothing and pages through the catalog
 * in the right order (values ascending or descending, missing values and JSON nulls last); a
 * catalog at its maximum of indexes says the field is not indexed; removing the field, and
 * deleting the catalog, drops its indexes. "Large" is lowered to 1,000 items for the test. An item
 * list sorted by a data field asks the same workflow for the field's sort keys (docs/large-catalogs.md
 * "Sorting by a data field"), which then serve the list in the plain SQL order.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Knex } from 'knex';
import request from 'supertest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { SESSION_COOKIE } from '../../src/middleware/session';
import { signIn } from '../../src/services/access/sessions';
import { ensureGridIndexes, gridIndexName, gridStatsName, markGridIndexesDropping, reconcileGridIndexes } from '../../src/services/catalog/grid/grid-indexes';
import { SORT_KEYS_MIN_ITEMS } from '../../src/services/catalog/items/sort-keys';
import { TemporalJobRunner } from '../../temporal/client';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { createGridFixture, dataIndexes, type GridFixtureItem } from '../helpers/grid-catalog';
import { fakeEngine, RunningTestWorker, runTestWorker, startTestTemporal } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';

const TASK_QUEUE = 'test-grid-indexes';

let env: TestWorkflowEnvironment;
let worker: RunningTestWorker | null = null;
let knex: Knex;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let cookie: string;
let catalogId: string;
let items: GridFixtureItem[];

beforeAll(async () => {
  knex = testKnex();
  org = await createTestOrg('grid indexes');
  env = await startTestTemporal();
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex, engine: fakeEngine(), shutdownGraceTime: '100 ms' });
  const jobRunner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 2 }, {}, {}, {}, {}, {}, { linger_s: 1 });
  const config = { ...loadConfig(), gridIndexes: { minItems: 1000, maxPerCatalog: 2 } };
  app = createApp({ config, knex, jobRunner }).callback();
  ({ catalogId, items } = await createGridFixture(org.organizationId));
  cookie = `${SESSION_COOKIE}=${(await signIn(knex, org.apiKey, config.jwtSecret)).token}`;
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
});

const gridPath = (qs: string) => `/dashboard/catalogs/${catalogId}/items${qs ? `?${qs}` : ''}`;

async function page(path: string): Promise<{ ids: string[]; next: string | null; notices: string[]; count: string }> {
  const res = await request(app).get(path).set('Cookie', cookie);
  expect(res.status).toBe(200);
  const body = res.text;
  return {
    ids: [...body.matchAll(/data-item-id="([0-9a-f-]+)"/g)].map((m) => m[1]),
    next: /id="next-page"\s+href="([^"]+)"/.exec(body)?.[1]?.replace(/&amp;/g, '&') ?? null,
    notices: [...body.matchAll(/data-index-state="([a-z]+)">([^<]*)</g)].map((m) => `${m[1]}: ${m[2].replace(/\s+/g, ' ').trim()}`),
    count: /id="grid-count"\s*>\s*([^<]+)</.exec(body)?.[1]?.trim() ?? '',
  };
}

/** Every item id of the grid in page order, following the pages' own "Next" links. */
async function walk(qs: string): Promise<string[]> {
  const ids: string[] = [];
  for (let next: string | null = gridPath(qs); next;) {
    const p = await page(next);
    ids.push(...p.ids);
    next = p.next;
  }
  return ids;
}

/** The field's key rows when its keys are kept and ready (catalog_sort_fields), else null. */
async function keysOf(id: string, field: string): Promise<Array<{ item_id: string; k: unknown }> | null> {
  const kept = await knex('catalog_sort_fields').where({ catalog_id: id, field }).first('ready');
  if (!kept?.ready) return null;
  return knex('catalog_sort_keys').where({ catalog_id: id, field }).select('item_id', 'k');
}

/** Whether the keys of (catalog, field) are kept at all (a dropped field keeps none). */
async function keysKept(id: string, field: string): Promise<boolean> {
  return Boolean(await knex('catalog_sort_fields').where({ catalog_id: id, field }).first('field'));
}

/**
 * Whether an update of one item's `data` is heap-only: the update and the transaction's own
 * statistics (pg_stat_xact_user_tables, counted as the statement runs), rolled back. The table's
 * fillfactor (50) leaves room in the item's page and the change alters no search word, so only
 * an index reading `data` makes it not.
 */
async function updateIsHeapOnly(itemId: string): Promise<boolean> {
  const trx = await knex.transaction();
  // The view counts what this backend has not reported yet, so the update is read as a difference.
  const counts = async () =>
    (await trx.raw("SELECT n_tup_upd::int AS upd, n_tup_hot_upd::int AS hot FROM pg_stat_xact_user_tables WHERE relname = 'catalog_items'")).rows[0] as {
      upd: number;
      hot: number;
    };
  try {
    const before = await counts();
    // A boolean: no search word changes (words are the strings and numbers), so no column an index reads but `data`.
    await trx.raw(`UPDATE catalog_items SET data = data || '{"hot_probe": true}' WHERE id = ?`, [itemId]);
    const after = await counts();
    expect(after.upd - before.upd).toBe(1);
    return after.hot - before.hot === 1;
  } finally {
    await trx.rollback();
  }
}

const rowState = async (name: string) => (await knex('catalog_field_indexes').where('index_name', name).first('state'))?.state as string | undefined;

/** The expected order of a price sort: priced items by price then id (in the direction), then the rest by id ascending. */
function expectedPriceOrder(dir: 'asc' | 'desc'): string[] {
  const priced = items.filter((i) => typeof i.data.price === 'number');
  const rest = items.filter((i) => typeof i.data.price !== 'number').sort((a, b) => (a.id < b.id ? -1 : 1));
  const sign = dir === 'asc' ? 1 : -1;
  priced.sort((a, b) => sign * ((a.data.price as number) - (b.data.price as number) || (a.id < b.id ? -1 : 1)));
  return [...priced, ...rest].map((i) => i.id);
}

it('builds the sort field index in the background, then pages in the right order through it', async () => {
  const name = gridIndexName(catalogId, 'key', 'price');
  const first = await page(gridPath('sort=price'));
  expect(first.notices).toEqual(['building: sorting by price is being indexed; this page may be slow until it is.']);
  await waitUntil(async () => (await rowState(name)) === 'ready', 'the price index is ready', 60_000, 200);
  // One key per item: its price (JSON null and missing as SQL NULL); nothing on catalog_items reads data.
  const keys = new Map((await keysOf(catalogId, 'price'))?.map((r) => [r.item_id, r.k]));
  expect(keys.size).toBe(items.length);
  for (const i of items) expect(keys.get(i.id)).toEqual(i.data.price ?? null);
  expect(await dataIndexes(knex)).toEqual([]);
  expect(await updateIsHeapOnly(items[0].id)).toBe(true);
  expect((await knex('pg_statistic_ext').where('stxname', gridStatsName('key', 'price')).first('stxname'))?.stxname).toBe(gridStatsName('key', 'price'));

  expect((await page(gridPath('sort=price'))).notices).toEqual([]);
  expect(await walk('sort=price')).toEqual(expectedPriceOrder('asc'));
  expect(await walk('sort=price&dir=desc')).toEqual(expectedPriceOrder('desc'));
  // A number range over the same index: the right items.
  const inRange = items.filter((i) => typeof i.data.price === 'number' && (i.data.price as number) >= 10 && (i.data.price as number) <= 12.5);
  expect((await walk('f.price=range:10..12.5&sort=price')).sort()).toEqual(inRange.map((i) => i.id).sort());
}, 120_000);

it('indexes a filter field, counts a filter matching nothing as 0, and stops at the catalog maximum', async () => {
  const name = gridIndexName(catalogId, 'text', 'brand');
  expect((await page(gridPath('f.brand=eq:Nobody'))).notices).toEqual(['building: filtering on brand is being indexed; this page may be slow until it is.']);
  await waitUntil(async () => (await rowState(name)) === 'ready', 'the brand index is ready', 60_000, 200);
  expect((await keysOf(catalogId, 'brand'))?.length).toBe(items.length);
  expect(await dataIndexes(knex)).toEqual([]);
  const none = await page(gridPath('f.brand=eq:Nobody'));
  expect(none).toMatchObject({ ids: [], notices: [], count: '0 items' });
  const acme = items.filter((i) => i.data.brand === 'Acme').map((i) => i.id);
  expect((await walk('f.brand=eq:Acme')).sort()).toEqual(acme.sort());
  // Two indexes is this catalog's maximum: a third field is not indexed, and the page says so.
  expect((await page(gridPath('f.color=eq:red'))).notices).toEqual([
    'capped: filtering on color is not indexed: this catalog holds its maximum of grid indexes; this page may be slow.',
  ]);
  expect(await knex('catalog_field_indexes').where('catalog_id', catalogId).pluck('field')).toEqual(expect.arrayContaining(['price', 'brand']));
  expect(await knex('catalog_field_indexes').where({ catalog_id: catalogId, field: 'color' }).first()).toBeUndefined();
}, 120_000);

it('drops the index of a removed field, then every index of a deleted catalog', async () => {
  const price = gridIndexName(catalogId, 'key', 'price');
  const brand = gridIndexName(catalogId, 'text', 'brand');
  expect(await keysKept(catalogId, 'price')).toBe(true);
  const removed = await request(app)
    .put(`/api/public/catalogs/${catalogId}/schema/fields/batch`)
    .set(org.auth)
    .send({ fields_to_remove: ['price'], reason: 'price moves to the price list' });
  expect(removed.status).toBe(200);
  await waitUntil(async () => !(await keysKept(catalogId, 'price')) && (await rowState(price)) === undefined, 'the price index is dropped', 60_000, 200);
  expect(await knex('pg_statistic_ext').where('stxname', gridStatsName('key', 'price')).first()).toBeUndefined();
  expect(await knex('catalog_sort_keys').where({ catalog_id: catalogId, field: 'price' }).first()).toBeUndefined();
  expect(await keysKept(catalogId, 'brand')).toBe(true);

  const deleted = await request(app).delete(`/api/public/catalogs/${catalogId}`).set(org.auth);
  expect(deleted.status).toBe(200);
  await waitUntil(async () => !(await keysKept(catalogId, 'brand')) && (await rowState(brand)) === undefined, 'the brand index is dropped', 60_000, 200);
  expect(await knex('catalog_sort_keys').where({ catalog_id: catalogId }).first()).toBeUndefined();
}, 120_000);

it('builds and drops the index of a field whose name holds quotes and SQL, as a literal', async () => {
  const weird = `it's "x"); DROP TABLE catalog_items; --`;
  const id = await createTestCatalog(org.organizationId, {
    schema_definition: { type: 'object', properties: { sku: { type: 'string' }, [weird]: { type: 'number' } }, required: ['sku'] },
  });
  await knex.raw(
    `INSERT INTO catalog_items (id, catalog_id, entity_type, business_key, data)
     SELECT gen_random_uuid(), ?, 'product', 'w-' || g, jsonb_build_object('sku', 'w-' || g, ?::text, g) FROM generate_series(1, 30) AS g`,
    [id, weird],
  );
  const need = { field: weird, kind: 'key' as const, use: 'sort' as const };
  const settings = { minItems: 0, maxPerCatalog: 8 };
  expect(await ensureGridIndexes(knex, { id, organization_id: org.organizationId, item_count: 30 }, [need], settings)).toEqual([
    { ...need, state: 'building' },
  ]);
  const built = await reconcileGridIndexes(knex, id);
  expect(built.built.map((b) => b.field)).toEqual([weird]);
  // The keys its build made ready are in the answer (the activity reports them).
  expect(built.sort_keys.map((k) => [k.field, k.items])).toEqual([[weird, 30]]);
  expect((await keysOf(id, weird))?.map((r) => r.k).sort((a, b) => (a as number) - (b as number))).toEqual(Array.from({ length: 30 }, (_, g) => g + 1));
  expect(await ensureGridIndexes(knex, { id, organization_id: org.organizationId, item_count: 30 }, [need], settings)).toEqual([]);
  expect(await markGridIndexesDropping(knex, id, ['sku'])).toBe(1);
  expect((await reconcileGridIndexes(knex, id)).dropped).toEqual([gridIndexName(id, 'key', weird)]);
  expect(await keysKept(id, weird)).toBe(false);
  expect(await knex('catalog_items').where('catalog_id', id).count<{ count: string }[]>('* as count')).toEqual([{ count: '30' }]);
}, 60_000);

it('builds the sort keys an item list of a large catalog asked for, then lists through them in the plain SQL order', async () => {
  const id = await createTestCatalog(org.organizationId);
  await knex.raw(
    `INSERT INTO catalog_items (id, catalog_id, entity_type, business_key, data, created_at)
     SELECT gen_random_uuid(), ?, 'product', 'k-' || g, jsonb_build_object('sku', 'k-' || g) || CASE WHEN g % 5 = 0 THEN '{}'::jsonb
            WHEN g % 5 = 1 THEN jsonb_build_object('price', 'p' || (g % 7)) ELSE jsonb_build_object('price', (g % 13) * 1.5) END,
            now() + g * interval '1 microsecond'
     FROM generate_series(1, 60) AS g`,
    [id],
  );
  // "Large" for sort keys (10,000 items) without writing them: the recorded count says so.
  await knex('catalogs').where('id', id).update({ item_count: SORT_KEYS_MIN_ITEMS });
  const list = async (qs: string) => {
    const res = await request(app).get(`/api/public/catalogs/${id}/items?${qs}`).set(org.auth);
    expect(res.status).toBe(200);
    return res.body as { items: Array<{ id: string }>; next_cursor: string | null };
  };
  const plain = async (dir: 'ASC' | 'DESC') =>
    (await knex.raw(`SELECT id FROM catalog_items WHERE catalog_id = ? ORDER BY NULLIF(data -> 'price', 'null') ${dir} NULLS LAST, id`, [id])).rows.map(
      (r: { id: string }) => r.id,
    );
  expect((await list('sort=price:desc&limit=5')).items.map((i) => i.id)).toEqual((await plain('DESC')).slice(0, 5));
  await waitUntil(
    async () => Boolean((await knex('catalog_sort_fields').where({ catalog_id: id, field: 'price' }).first('ready'))?.ready),
    'the price keys are ready',
    60_000,
    200,
  );
  expect(await knex('catalog_sort_keys').where({ catalog_id: id, field: 'price' }).count<{ n: string }[]>('* as n')).toEqual([{ n: '60' }]);
  for (const dir of ['ASC', 'DESC'] as const) {
    const ids: string[] = [];
    for (let cursor: string | null = null, guard = 0; guard < 20; guard++) {
      const p = await list(`sort=price:${dir.toLowerCase()}&limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      ids.push(...p.items.map((i) => i.id));
      cursor = p.next_cursor;
      if (!cursor) break;
    }
    expect(ids).toEqual(await plain(dir));
  }
  await knex('catalogs').where('id', id).delete();
  expect(await knex('catalog_sort_keys').where({ catalog_id: id }).count<{ n: string }[]>('* as n')).toEqual([{ n: '0' }]);
}, 120_000);
