/**
 * Durability of grid index builds through real processes (docs/testing.md, "Durability"): the
 * console grid of a large catalog sorted by `price` on the production API (`src/main.ts`, "large"
 * lowered to 1,000 items with GRID_INDEX_MIN_ITEMS) records the missing index in
 * `catalog_field_indexes` and asks for `grid-index-<catalog_id>` (workflows/grid-index.ts); the
 * production worker (`temporal/worker.ts`) is SIGKILLed in the middle of its CREATE INDEX
 * CONCURRENTLY, after the build registered the (still invalid) index and before it filled it.
 *
 * The moment is made, not waited for: before the page is asked the test opens a transaction that
 * holds `catalog_items` in ROW EXCLUSIVE mode (as a writer does). A concurrent build commits its
 * invalid catalog entry, then waits for every older writer of the table, so the worker's backend
 * waits on the test's transaction (`pg_stat_activity` `wait_event_type = 'Lock'`) until the kill.
 * The worker's connections carry `client_connection_check_interval` (PGOPTIONS), so PostgreSQL
 * ends the dead worker's backend while it still waits: the interrupted build leaves its index
 * invalid (`pg_index.indisvalid` false), as a crash or a cancel in production does.
 *
 * Proves: a second worker's attempt (after the activity's heartbeat timeout) drops the invalid
 * leftover and builds the index again; the row ends `ready` with exactly one index of that name,
 * valid and ready, and no other index of the catalog. Fails if the retry took the invalid index
 * for built (CREATE INDEX … IF NOT EXISTS skips a name that exists, valid or not): the row would
 * be `ready` over an index the planner never uses; or if it built a second index beside it, or
 * never retried.
 */
import { gridIndexName, GRID_INDEX_PREFIX, markGridIndexesDropping, reconcileGridIndexes } from '../../src/services/catalog/grid/grid-indexes';
import { spawnApi, spawnWorker, waitForBackendsGone, CONNECTION_CHECK_ENV } from '../fixtures/worker-cluster';
import { createNumberedCatalog } from '../helpers/catalogs';
import { consoleSession } from '../helpers/console-session';
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

/** Every index on catalog_items named for this catalog's grid indexes, with its pg_index flags. */
async function catalogIndexes(catalogId: string): Promise<Array<{ name: string; valid: boolean; ready: boolean }>> {
  const prefix = `${GRID_INDEX_PREFIX}${catalogId.replace(/-/g, '')}`.replace(/_/g, '\\_');
  const { rows } = await cluster.knex.raw(
    `SELECT c.relname AS name, i.indisvalid AS valid, i.indisready AS ready FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
     WHERE i.indrelid = 'catalog_items'::regclass AND c.relname LIKE ? ORDER BY c.relname`,
    [`${prefix}%`],
  );
  return rows;
}

test('the worker SIGKILLed in the middle of CREATE INDEX CONCURRENTLY: the retry drops the invalid index and builds it once', async () => {
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

  // A writer of catalog_items that stays open: a concurrent build waits for it after registering its index.
  const writer = await knex.transaction();
  try {
    await writer.raw('LOCK TABLE catalog_items IN ROW EXCLUSIVE MODE');
    const res = await fetch(`${base}/dashboard/catalogs/${catalogId}/items?sort=price`, { headers: { cookie: session.cookie } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('sorting by price is being indexed');
    expect((await knex('catalog_field_indexes').where('index_name', name).first('state'))?.state).toBe('building');

    await waitUntil(
      async () => {
        const { rows } = await knex.raw(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = ? AND wait_event_type = 'Lock'
             AND query LIKE 'CREATE INDEX CONCURRENTLY%' LIMIT 1`,
          [first.appName],
        );
        return rows.length > 0;
      },
      'the build to wait on the open writer',
      60_000,
      20,
    );
    // Mid-build: the index is registered, not yet filled or valid.
    expect(await catalogIndexes(catalogId)).toEqual([{ name, valid: false, ready: false }]);
    first.child.kill('SIGKILL');
    await first.exited;
    // PostgreSQL notices the dead client while the build still waits, and ends it there.
    await waitForBackendsGone(knex, first);
  } finally {
    await writer.rollback();
  }
  // The interrupted build left its index invalid; the row still asks for it.
  expect(await catalogIndexes(catalogId)).toEqual([{ name, valid: false, ready: false }]);
  expect((await knex('catalog_field_indexes').where('index_name', name).first('state'))?.state).toBe('building');

  const second = cluster.track(await spawnWorker(temporal, TASK_QUEUE, { env: WORKER_ENV }));
  await waitUntil(
    async () => (await knex('catalog_field_indexes').where('index_name', name).first('state'))?.state === 'ready',
    'the index row to be ready',
    180_000,
    200,
  );
  expect(await catalogIndexes(catalogId)).toEqual([{ name, valid: true, ready: true }]);
  // The retried attempt (attempt 2, on the second worker) built it.
  await waitUntil(() => second.output().includes('"grid indexes reconciled"'), 'the attempt to log its result', 30_000);
  const reconciled = second
    .output()
    .split('\n')
    .filter((l) => l.includes('"grid indexes reconciled"'))
    .map((l) => JSON.parse(l) as { attempt: number; result: { built: Array<{ index: string }> } });
  expect(reconciled.map((r) => [r.attempt, r.result.built.map((b) => b.index)])).toEqual([[2, [name]]]);
}, 300_000);
