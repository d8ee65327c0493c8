/**
 * Durability of an apply (nothing lost, nothing applied twice): the
 * apply of a review activity survives (a) its worker PROCESS being SIGKILLed while the apply's
 * transaction runs and (b) the Temporal server being stopped and started again while it runs.
 * Either way the catalog ends fully applied exactly once: every item's `current_version` bumped
 * once, one `pre_apply` snapshot (the retry reused it), every change applied once, checked in SQL.
 *
 * Real everything, as test/durability/crash-restart.test.ts: the production worker entrypoint
 * (`node --import tsx temporal/worker.ts`), a dev server persisting to SQLite, the PostgreSQL
 * test database. The apply activity gets a 3 s heartbeat timeout so the killed worker's attempt
 * is retried within seconds. The moment is made, not waited for: the test holds a row lock on the
 * catalog's last item, so the apply's update of the items waits on it (`pg_stat_activity`
 * `wait_event_type = 'Lock'`) for as long as the test needs, and the kill (or stop) lands inside
 * the apply's transaction on any machine.
 */
import { TemporalJobRunner } from '../../temporal/client';
import { reviewApplyWorkflowId } from '../../src/contracts/workflows';
import { createNumberedCatalog } from '../helpers/catalogs';
import { waitUntil } from '../helpers/wait';
import { TEST_DATABASE_URL } from '../setup/env';
import { spawnWorker, stopWorker } from '../fixtures/worker-cluster';
import { scopeOf } from '../helpers/review-apply';
import { requestApply } from '../../src/services/review/apply';
import { useTestCluster } from '../fixtures/cluster-suite';

const TASK_QUEUE = 'test-apply-durability';
/** Enough updates that the apply's transaction runs for a second or more (about 3 s on a loaded 2-core machine). */
const ITEMS = 30_000;

let runner: TemporalJobRunner;

const cluster = useTestCluster({
  organization: 'apply durability',
  setUp({ client }) {
    runner = new TemporalJobRunner(client, { taskQueue: TASK_QUEUE, enrichConcurrency: 2 }, {}, {}, { heartbeat_timeout_s: 3, retry_initial_interval_s: 0.5 });
  },
});

/**
 * A catalog of {@link ITEMS} items (set-based) and a pending_review activity with one approved
 * update per item (`price` + 1), computed from version 1.
 */
async function seed(): Promise<{ catalogId: string; activityId: string }> {
  const { knex, organizationId } = cluster;
  const catalogId = await createNumberedCatalog(organizationId, ITEMS);
  const { rows } = await knex.raw(
    `INSERT INTO review_activities (id, organization_id, catalog_id, type, status, description)
     VALUES (gen_random_uuid(), ?, ?, 'custom_transform', 'pending_review', 'durability') RETURNING id`,
    [organizationId, catalogId],
  );
  const activityId = rows[0].id as string;
  await knex.raw(
    `INSERT INTO staged_changes (id, activity_id, organization_id, catalog_id, catalog_item_id, before_data, after_data, row_index, status, base_version)
     SELECT gen_random_uuid(), ?, ?, ?, ci.id, jsonb_build_object('price', ci.data->'price'), jsonb_build_object('price', (ci.data->>'price')::int + 1),
       (row_number() OVER (ORDER BY ci.business_key))::int, 'approved', 1
     FROM catalog_items ci WHERE ci.catalog_id = ?`,
    [activityId, organizationId, catalogId, catalogId],
  );
  await knex.raw('ANALYZE catalog_items');
  await knex.raw('ANALYZE staged_changes');
  return { catalogId, activityId };
}

/**
 * The workers of this test connect under their own application name, so the session checks below
 * see only this test's sessions, never another run's on the same server.
 */
const APPLICATION_NAME = `apply-crash-${process.pid}`;
const workerDatabaseUrl = (() => {
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('application_name', APPLICATION_NAME);
  return url.toString();
})();

/** True while a statement of an apply's transaction runs in one of this test's workers (its temporary table is in every one). */
async function applyStatementRunning(): Promise<boolean> {
  const { rows } = await cluster.knex.raw(
    `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = ? AND state = 'active'
       AND query LIKE '%review_apply_changes%' LIMIT 1`,
    [APPLICATION_NAME],
  );
  return rows.length > 0;
}

/** The apply's outcome and the invariants of exactly one apply, from SQL. */
async function invariants(catalogId: string, activityId: string) {
  const { knex } = cluster;
  const activity = await knex('review_activities').where('id', activityId).first('status', 'apply_result');
  const [items] = await knex('catalog_items')
    .where('catalog_id', catalogId)
    .select(
      knex.raw('count(*)::int AS rows'),
      knex.raw('count(*) FILTER (WHERE current_version = 2)::int AS bumped_once'),
      knex.raw("count(*) FILTER (WHERE (data->>'price')::int = (regexp_replace(business_key, '\\D', '', 'g'))::int + 1)::int AS price_plus_one"),
    );
  const [changes] = await knex('staged_changes')
    .where('activity_id', activityId)
    .select(knex.raw('count(*) FILTER (WHERE applied_at IS NOT NULL)::int AS applied'), knex.raw("count(*) FILTER (WHERE status <> 'approved')::int AS other"));
  const snapshots = await knex('catalog_snapshots').where({ catalog_id: catalogId, snapshot_type: 'pre_apply' }).select('id', 'item_count');
  return { activity, items, changes, snapshots };
}

/** Asserts the catalog is fully applied exactly once. */
function expectAppliedOnce(state: Awaited<ReturnType<typeof invariants>>): void {
  expect(state.activity.status).toBe('completed');
  expect(state.snapshots).toHaveLength(1);
  expect(state.snapshots[0].item_count).toBe(ITEMS);
  expect(state.activity.apply_result).toEqual({ applied: ITEMS, skipped_conflicts: 0, failed: 0, errors: [], pre_apply_snapshot_id: state.snapshots[0].id });
  expect(state.items).toEqual({ rows: ITEMS, bumped_once: ITEMS, price_plus_one: ITEMS });
  expect(state.changes).toEqual({ applied: ITEMS, other: 0 });
}

/**
 * Holds a row lock on the catalog's last item in a transaction of the test's own, so an apply's
 * update of the items waits until the returned release is called (which rolls the holder back).
 */
async function holdLastItem(catalogId: string): Promise<() => Promise<void>> {
  const holder = await cluster.knex.transaction();
  await holder('catalog_items')
    .where({ catalog_id: catalogId, business_key: `SKU-${ITEMS}` })
    .forUpdate()
    .first('id');
  return async () => {
    if (!holder.isCompleted()) await holder.rollback();
  };
}

/** True while an apply's statement in one of this test's workers waits on a lock (the one {@link holdLastItem} holds). */
async function applyWaitsOnLock(): Promise<boolean> {
  const { rows } = await cluster.knex.raw(
    `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = ? AND state = 'active'
       AND wait_event_type = 'Lock' AND query LIKE '%review_apply_changes%' LIMIT 1`,
    [APPLICATION_NAME],
  );
  return rows.length > 0;
}

/** Starts the apply as the route does. */
async function startApply(activityId: string): Promise<void> {
  const { knex, organizationId } = cluster;
  await requestApply({ knex: knex, jobRunner: runner }, scopeOf(organizationId), activityId, false);
}

test('the worker process SIGKILLed during the apply transaction: nothing half-applied, a new worker applies it once', async () => {
  const { temporal } = cluster;
  const { catalogId, activityId } = await seed();
  const first = await spawnWorker(temporal, TASK_QUEUE, { databaseUrl: workerDatabaseUrl });
  cluster.track(first);
  const release = await holdLastItem(catalogId);
  try {
    await startApply(activityId);
    await waitUntil(applyWaitsOnLock, "the apply's update to wait on the held item", 60_000, 20);
    first.child.kill('SIGKILL');
    await first.exited;
  } finally {
    await release();
  }
  // The killed worker's transaction never commits: once its backend is gone, nothing is applied.
  await waitUntil(async () => !(await applyStatementRunning()), 'the dead worker’s statement to end', 60_000);
  const atKill = await invariants(catalogId, activityId);
  expect(atKill.activity.status).toBe('pending_review');
  expect(atKill.items.bumped_once).toBe(0);
  expect(atKill.changes.applied).toBe(0);

  const second = await spawnWorker(temporal, TASK_QUEUE, { databaseUrl: workerDatabaseUrl });
  cluster.track(second);
  await runner.waitForClose(reviewApplyWorkflowId(activityId));
  await stopWorker(second);
  expectAppliedOnce(await invariants(catalogId, activityId));
}, 600_000);

test('the Temporal server stopped and started again during the apply: the catalog is applied exactly once', async () => {
  const { temporal } = cluster;
  const { catalogId, activityId } = await seed();
  const worker = await spawnWorker(temporal, TASK_QUEUE, { databaseUrl: workerDatabaseUrl });
  cluster.track(worker);
  const release = await holdLastItem(catalogId);
  try {
    await startApply(activityId);
    await waitUntil(applyWaitsOnLock, "the apply's update to wait on the held item", 60_000, 20);
    const logBeforeStop = worker.output().length;
    await temporal.stop();
    // Go on only once the worker has felt the outage (a reconnect, not a blip the client hid).
    await waitUntil(() => /Connection refused|Unavailable/.test(worker.output().slice(logBeforeStop)), 'the worker to see the server gone', 60_000);
  } finally {
    await release();
  }
  // The apply goes on while the server is down; its outcome reaches Temporal after the restart.
  await waitUntil(async () => !(await applyStatementRunning()), "the apply's statement to end", 60_000);
  await temporal.start(); // same port, same SQLite file

  await runner.waitForClose(reviewApplyWorkflowId(activityId));
  expect(worker.child.exitCode).toBeNull(); // the same process carried on
  await stopWorker(worker);
  expectAppliedOnce(await invariants(catalogId, activityId));
}, 600_000);
