/**
 * Durability of console bulk staging through real processes (docs/testing.md, "Durability"): a
 * bulk action "set title" over every item of a catalog of {@link ITEMS} items is asked through
 * the console's form on the production API (`src/main.ts`, `POST /dashboard/catalogs/{id}/items/bulk`)
 * and staged page by page by the production worker (`temporal/worker.ts`, workflows/bulk-stage.ts),
 * which is SIGKILLed mid-way: after page 1 committed, while page 2's transaction has written its
 * staged changes and waits to record its batch. A second worker retries page 2 (after the page
 * activity's heartbeat timeout) and stages the rest.
 *
 * The moment is made, not waited for: before the form is posted the test holds
 * `staged_change_batches` in SHARE mode (its transaction A), so page 1 waits on its batch insert.
 * A second transaction B asks for the same lock and queues behind page 1; when A lets go, page 1
 * commits and B gets the table before page 2 starts (a lock queue is first come, first served),
 * so page 2 waits on B (`pg_stat_activity` `wait_event_type = 'Lock'`) until the kill. The worker's
 * connections carry `client_connection_check_interval` (PGOPTIONS), so PostgreSQL ends the dead
 * worker's backend while it still waits: page 2's transaction never commits.
 *
 * Proves, in SQL: every item of the selection has exactly one staged change, each with the new
 * title; five batches, one per page; row indexes 0..N-1 once each; the activity `pending_review`.
 * Fails if a page is staged twice (the retried page or a page re-run from the start), a page is
 * lost, or the page of the dead worker is never retried (before its heartbeat it waited out the
 * whole 10-minute start-to-close, far past this test's deadline).
 */
import type { Knex } from 'knex';
import { bulkStageWorkflowId } from '../../src/contracts/workflows';
import { BULK_STAGE_PAGE } from '../../src/services/review/bulk-edit';
import { spawnApi, spawnWorker, stopWorker, waitForBackendsGone, CONNECTION_CHECK_ENV } from '../fixtures/worker-cluster';
import { createNumberedCatalog } from '../helpers/catalogs';
import { consoleSession, postConsoleForm } from '../helpers/console-session';
import { createTestOrg } from '../helpers/db';
import { waitUntil } from '../helpers/wait';
import { useTestCluster } from '../fixtures/cluster-suite';

const TASK_QUEUE = 'test-bulk-stage-durability';
/** Five pages, the last one half full: the kill lands on the second with three still to stage. */
const ITEMS = BULK_STAGE_PAGE * 4 + BULK_STAGE_PAGE / 2;
const NEW_TITLE = 'Bulk title after the crash';
const WORKER_ENV = CONNECTION_CHECK_ENV;

const cluster = useTestCluster();

/** True while a backend of `appName` waits on a lock in a statement on `table`. */
async function waitsOnLock(appName: string, table: string): Promise<boolean> {
  const { rows } = await cluster.knex.raw(
    `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = ? AND wait_event_type = 'Lock' AND query LIKE ? LIMIT 1`,
    [appName, `%${table}%`],
  );
  return rows.length > 0;
}

/** A transaction of the test's own holding `staged_change_batches` in SHARE mode (inserts wait); `pid` its backend. */
async function holdBatches(): Promise<{ trx: Knex.Transaction; pid: number; locked: Promise<void> }> {
  const trx = await cluster.knex.transaction();
  const { rows } = await trx.raw('SELECT pg_backend_pid() AS pid');
  // `.then` sends the statement now (a Knex query is lazy); the promise settles once the lock is held.
  const locked = trx.raw('LOCK TABLE staged_change_batches IN SHARE MODE').then(() => undefined);
  return { trx, pid: rows[0].pid as number, locked };
}

/** What the activity has staged, committed, from SQL. */
async function staged(activityId: string) {
  const { knex } = cluster;
  const [changes] = await knex('staged_changes')
    .where('activity_id', activityId)
    .select(
      knex.raw('count(*)::int AS rows'),
      knex.raw('count(DISTINCT catalog_item_id)::int AS items'),
      knex.raw('count(DISTINCT row_index)::int AS row_indexes'),
      knex.raw('coalesce(min(row_index), -1)::int AS min_row'),
      knex.raw('coalesce(max(row_index), -1)::int AS max_row'),
      knex.raw("count(*) FILTER (WHERE after_data->>'title' = ? AND status = 'pending')::int AS retitled", [NEW_TITLE]),
    );
  const batches = (await knex('staged_change_batches').where('activity_id', activityId).orderBy('first_row_index').select('batch_key', 'count')) as Array<{
    batch_key: string;
    count: number;
  }>;
  return { changes, batches };
}

test('the worker SIGKILLed while page 2 of a bulk action waits to commit: a second worker stages every item exactly once', async () => {
  const org = await createTestOrg('bulk stage durability');
  const catalogId = await createNumberedCatalog(org.organizationId, ITEMS);
  const { knex, temporal, client } = cluster;
  const [api, first] = await Promise.all([
    spawnApi(temporal, TASK_QUEUE).then((p) => cluster.track(p)),
    spawnWorker(temporal, TASK_QUEUE, { env: WORKER_ENV }).then((w) => cluster.track(w)),
  ]);
  const base = `http://127.0.0.1:${api.port}`;
  const session = await consoleSession(base, org.apiKey);

  const a = await holdBatches();
  await a.locked;
  let b: Awaited<ReturnType<typeof holdBatches>> | null = null;
  let activityId = '';
  try {
    const res = await postConsoleForm(base, session, `/dashboard/catalogs/${catalogId}/items/bulk`, {
      action: 'set',
      field: 'title',
      value: NEW_TITLE,
      query: '',
    });
    expect(res.status).toBe(303);
    activityId = /\/items\/bulk\/([0-9a-f-]{36})$/.exec(res.headers.get('location') ?? '')![1];

    // Page 1 waits on A; B queues behind page 1; A lets go: page 1 commits, then B holds the table.
    await waitUntil(() => waitsOnLock(first.appName, 'staged_change_batches'), 'page 1 to wait on the held batches table', 60_000, 20);
    b = await holdBatches();
    const bPid = b.pid;
    await waitUntil(
      async () => (await knex('pg_stat_activity').where({ pid: bPid, wait_event_type: 'Lock' }).first('pid')) !== undefined,
      'B to queue behind page 1',
      30_000,
      20,
    );
    await a.trx.rollback();
    await b.locked;
    const afterPage1 = await staged(activityId);
    expect(afterPage1.changes.rows).toBe(BULK_STAGE_PAGE);
    expect(afterPage1.batches).toEqual([{ batch_key: 'bulk:start', count: BULK_STAGE_PAGE }]);

    // Page 2 has written its staged changes and waits on B to record its batch: the kill lands inside its transaction.
    await waitUntil(() => waitsOnLock(first.appName, 'staged_change_batches'), 'page 2 to wait on the held batches table', 60_000, 20);
    first.child.kill('SIGKILL');
    await first.exited;
    // PostgreSQL notices the dead client while page 2 still waits, and rolls its transaction back.
    await waitForBackendsGone(knex, first);
  } finally {
    if (!a.trx.isCompleted()) await a.trx.rollback();
    if (b && !b.trx.isCompleted()) await b.trx.rollback();
  }
  const atKill = await staged(activityId);
  expect(atKill.changes.rows).toBe(BULK_STAGE_PAGE);
  expect(atKill.batches).toHaveLength(1);
  expect((await knex('review_activities').where('id', activityId).first('status')).status).toBe('created');

  const second = cluster.track(await spawnWorker(temporal, TASK_QUEUE, { env: WORKER_ENV }));
  const total = await client.workflow.getHandle(bulkStageWorkflowId(activityId)).result();
  await stopWorker(second);

  expect(total).toBe(ITEMS);
  const end = await staged(activityId);
  expect(end.changes).toEqual({ rows: ITEMS, items: ITEMS, row_indexes: ITEMS, min_row: 0, max_row: ITEMS - 1, retitled: ITEMS });
  expect(end.batches.map((x) => x.count)).toEqual([...Array(4).fill(BULK_STAGE_PAGE), BULK_STAGE_PAGE / 2]);
  expect(new Set(end.batches.map((x) => x.batch_key)).size).toBe(5);
  // Every item of the selection (the whole catalog) has exactly one staged change.
  const { rows: perItem } = await knex.raw(
    `SELECT count(*) FILTER (WHERE n = 1)::int AS once, count(*)::int AS items FROM (
       SELECT ci.id, count(sc.id) AS n FROM catalog_items ci LEFT JOIN staged_changes sc ON sc.catalog_item_id = ci.id AND sc.activity_id = ?
       WHERE ci.catalog_id = ? GROUP BY ci.id) x`,
    [activityId, catalogId],
  );
  expect(perItem[0]).toEqual({ once: ITEMS, items: ITEMS });
  expect((await knex('review_activities').where('id', activityId).first('status')).status).toBe('pending_review');
}, 300_000);
