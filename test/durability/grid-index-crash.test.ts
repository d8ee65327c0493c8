/**
 * Durability of grid index builds through real processes (docs/testing.md, "Durability"): the
 * console grid of a large catalog sorted by `price` on the production API (`src/main.ts`, "large"
 * lowered to 1,000 items with GRID_INDEX_MIN_ITEMS) records the missing index in
 * `catalog_field_indexes` and asks for `grid-index-<catalog_id>` (workflows/grid-index.ts); the
 * production worker (`temporal/worker.ts`) is SIGKILLed in the middle of the build of the field's
 * keys (src/services/catalog/items/sort-keys.ts buildSortKeys), after it recorded the field (from
 * then on the items' triggers keep its keys) and before it copied the existing items' keys.
 *
 * The moment is made, not waited for: before the page is asked the test opens a transaction that
 * writes an item of the catalog (it started before the field was recorded, so its trigger wrote no
 * key for it). The build waits for every transaction older than itself before copying, so the
 * worker waits on the test's writer until the kill; the writer then commits.
 *
 * Proves: a second worker's attempt (after the activity's heartbeat timeout) builds the keys; the
 * row ends `ready` with exactly one key per item, the writer's item included, each the item's
 * price, and no index on `catalog_items`. Fails if the retry took the recorded field for built
 * (no keys copied: the grid would walk an empty key set), if it missed the late writer's item,
 * or never retried.
 */
import { gridIndexName, markGridIndexesDropping, reconcileGridIndexes } from '../../src/services/catalog/grid/grid-indexes';
import { spawnApi, spawnWorker, waitForBackendsGone, CONNECTION_CHECK_ENV } from '../fixtures/worker-cluster';
import { createNumberedCatalog } from '../helpers/catalogs';
import { consoleSession } from '../helpers/console-session';
import { dataIndexes } from '../helpers/grid-catalog';
import { createTestOrg } from '../helpers/db';
import { waitUntil } from '../helpers/wait';
import { useTestCluster } from '../fixtures/cluster-suite';

const TASK_QUEUE = 'test-grid-index-durability';
const ITEMS = 2000;
const WORKER_ENV = CONNECTION_CHECK_ENV;

/** Catalogs this file seeded: their grid indexes are dropped at the end. */
const seeded: string[] = [];

const cluster = useTestCluster({
  async tearDown({ knex }) {
    // The statistics object of a (kind, field) is shared by every catalog indexing it, table-wide
    // (src/services/catalog/grid/grid-indexes.ts): drop this file's indexes as a deleted catalog's are, so
    // no other suite finds a `price` statistics object left behind by this one.
    for (const catalogId of seeded) {
      await markGridIndexesDropping(knex, catalogId, null);
      await reconcileGridIndexes(knex, catalogId);
    }
  },
});

/** A catalog of {@link ITEMS} items with a numeric `price` (createNumberedCatalog), remembered in {@link seeded}. */
async function seedCatalog(organizationId: string): Promise<string> {
  const catalogId = await createNumberedCatalog(organizationId, ITEMS);
  seeded.push(catalogId);
  return catalogId;
}

/** The catalog's `price` keys: whether recorded and ready, and the key rows against the items' prices (mismatches counted). */
async function priceKeys(catalogId: string): Promise<{ recorded: boolean; ready: boolean; keys: number; items: number; wrong: number }> {
  const { knex } = cluster;
  const field = await knex('catalog_sort_fields').where({ catalog_id: catalogId, field: 'price' }).first('ready');
  const { rows } = await knex.raw(
    `SELECT (SELECT count(*)::int FROM catalog_sort_keys WHERE catalog_id = ? AND field = 'price') AS keys,
            (SELECT count(*)::int FROM catalog_items WHERE catalog_id = ?) AS items,
            (SELECT count(*)::int FROM catalog_items ci LEFT JOIN catalog_sort_keys s ON s.catalog_id = ci.catalog_id AND s.field = 'price' AND s.item_id = ci.id
              WHERE ci.catalog_id = ? AND (s.item_id IS NULL OR s.k IS DISTINCT FROM NULLIF(ci.data -> 'price', 'null'::jsonb))) AS wrong`,
    [catalogId, catalogId, catalogId],
  );
  return { recorded: Boolean(field), ready: Boolean(field?.ready), ...rows[0] };
}

test("the worker SIGKILLed in the middle of a field key build: the retry copies every key once, the late writer's item too", async () => {
  const org = await createTestOrg('grid index durability');
  const catalogId = await seedCatalog(org.organizationId);
  const name = gridIndexName(catalogId, 'key', 'price');
  const { knex, temporal } = cluster;
  const [api, first] = await Promise.all([
    spawnApi(temporal, TASK_QUEUE, { env: { GRID_INDEX_MIN_ITEMS: '1000' } }).then((p) => cluster.track(p)),
    spawnWorker(temporal, TASK_QUEUE, { env: WORKER_ENV }).then((w) => cluster.track(w)),
  ]);
  const base = `http://127.0.0.1:${api.port}`;
  const session = await consoleSession(base, org.apiKey);

  // A writer of the catalog that stays open: it started before the field is recorded, so its item has no key yet.
  const writer = await knex.transaction();
  let committed = false;
  try {
    await writer.raw(
      `INSERT INTO catalog_items (id, catalog_id, entity_type, business_key, data) VALUES (gen_random_uuid(), ?, 'product', 'late-writer', '{"sku": "late-writer", "price": 4242}')`,
      [catalogId],
    );
    const res = await fetch(`${base}/dashboard/catalogs/${catalogId}/items?sort=price`, { headers: { cookie: session.cookie } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('sorting by price is being indexed');
    expect((await knex('catalog_field_indexes').where('index_name', name).first('state'))?.state).toBe('building');

    // The build recorded the field, then waits for the writer (and copies nothing before it ends).
    await waitUntil(async () => (await priceKeys(catalogId)).recorded, 'the build to record the field', 60_000, 20);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await priceKeys(catalogId)).toMatchObject({ recorded: true, ready: false, keys: 0 });
    first.child.kill('SIGKILL');
    await first.exited;
    await waitForBackendsGone(knex, first);
    await writer.commit();
    committed = true;
  } finally {
    if (!committed) await writer.rollback();
  }
  expect(await priceKeys(catalogId)).toMatchObject({ recorded: true, ready: false, keys: 0, items: ITEMS + 1 });
  expect((await knex('catalog_field_indexes').where('index_name', name).first('state'))?.state).toBe('building');

  const second = cluster.track(await spawnWorker(temporal, TASK_QUEUE, { env: WORKER_ENV }));
  await waitUntil(
    async () => (await knex('catalog_field_indexes').where('index_name', name).first('state'))?.state === 'ready',
    'the index row to be ready',
    180_000,
    200,
  );
  expect(await priceKeys(catalogId)).toEqual({ recorded: true, ready: true, keys: ITEMS + 1, items: ITEMS + 1, wrong: 0 });
  expect(await dataIndexes(knex)).toEqual([]);
  // The retried attempt (attempt 2, on the second worker) built it.
  await waitUntil(() => second.output().includes('"grid indexes reconciled"'), 'the attempt to log its result', 30_000);
  const reconciled = second
    .output()
    .split('\n')
    .filter((l) => l.includes('"grid indexes reconciled"'))
    .map((l) => JSON.parse(l) as { attempt: number; result: { built: Array<{ index: string }> } });
  expect(reconciled.map((r) => [r.attempt, r.result.built.map((b) => b.index)])).toEqual([[2, [name]]]);
}, 300_000);
