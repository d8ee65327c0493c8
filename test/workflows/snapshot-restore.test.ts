/**
 * Snapshot restore as the durable workflow `snapshot-restore-<restore_id>` (docs/api-reference.md "Snapshots") on the real Temporal dev server and PostgreSQL: the synchronous route answers the result from the workflow, the restore's status is recorded, retried requests join the open
 * restore (one safety snapshot, one restore), a large restore's word index is caught up by the
 * workflow, and a worker killed mid-restore neither loses the
 * restore nor restores twice (its transaction rolls back; the next worker's attempt restores once).
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Knex } from 'knex';
import request from 'supertest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import type { Scope } from '../../src/services/access/scope';
import { requestSnapshotRestore } from '../../src/services/catalog/snapshots/snapshot-restores';
import { TemporalJobRunner } from '../../temporal/client';
import { snapshotRestoreWorkflowId } from '../../src/contracts/workflows';
import { restoreProgressQuery } from '../../workflows/definitions';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { seedItems } from '../helpers/review-apply';
import { fakeEngine, RunningTestWorker, runTestWorker, startTestTemporal } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';

const TASK_QUEUE = 'test-snapshot-restore';

let env: TestWorkflowEnvironment;
let worker: RunningTestWorker | null = null;
let knex: Knex;
let jobRunner: TemporalJobRunner;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
let org: Awaited<ReturnType<typeof createTestOrg>>;

beforeAll(async () => {
  knex = testKnex();
  org = await createTestOrg('snapshot restore workflow');
  env = await startTestTemporal();
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex, engine: fakeEngine(), shutdownGraceTime: '100 ms', restoreDeferWordsMinItems: 3 });
  jobRunner = new TemporalJobRunner(
    env.client,
    { taskQueue: TASK_QUEUE, enrichConcurrency: 2 },
    {},
    {},
    {},
    {},
    {
      heartbeat_timeout_s: 2,
      retry_initial_interval_s: 0.2,
      maximum_attempts: 5,
    },
  );
  app = createApp({ config: loadConfig(), knex, jobRunner }).callback();
});

/** Transactions a test holds open; rolled back after each test, also when it fails. */
const holders: Knex.Transaction[] = [];

afterEach(async () => {
  for (const h of holders.splice(0)) if (!h.isCompleted()) await h.rollback();
});

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
});

const url = (catalogId: string, path: string) => `/api/public/catalogs/${catalogId}${path}`;

/** A catalog of three items, a manual snapshot of it, then one item edited and one added. */
async function changedCatalog(): Promise<{ catalogId: string; snapshotId: string }> {
  const catalogId = await createTestCatalog(org.organizationId);
  await seedItems(knex, org.organizationId, catalogId, [
    { sku: 'A', title: 'Alpha', price: 1 },
    { sku: 'B', title: 'Beta', price: 2 },
    { sku: 'C', title: 'Gamma', price: 3 },
  ]);
  const snap = await request(app).post(url(catalogId, '/snapshots')).set(org.auth).send({ reason: 'before edits' });
  expect(snap.status).toBe(200);
  await seedItems(knex, org.organizationId, catalogId, [
    { sku: 'A', title: 'Alpha edited', price: 10 },
    { sku: 'D', title: 'Delta', price: 4 },
  ]);
  return { catalogId, snapshotId: snap.body.id };
}

async function titles(catalogId: string): Promise<string[]> {
  const rows = await knex('catalog_items').where('catalog_id', catalogId).select('data');
  return rows.map((r: { data: { title: string } }) => r.data.title).sort();
}

async function safetySnapshots(snapshotId: string): Promise<Array<{ id: string }>> {
  return knex('catalog_snapshots').where({ restored_snapshot_id: snapshotId, snapshot_type: 'safety' }).select('id');
}

describe('POST …/snapshots/{id}/restore through snapshotRestoreWorkflow', () => {
  it('answers the result from the workflow and records the restore', async () => {
    const { catalogId, snapshotId } = await changedCatalog();
    const res = await request(app)
      .post(url(catalogId, `/snapshots/${snapshotId}/restore`))
      .set(org.auth);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ message: 'Snapshot restored successfully', snapshot_id: snapshotId, items_restored: 3, schema_version: '1.0.0' });
    expect(await titles(catalogId)).toEqual(['Alpha', 'Beta', 'Gamma']);
    const safety = await safetySnapshots(snapshotId);
    expect(safety.map((s) => s.id)).toEqual([res.body.safety_snapshot_id]);

    // The fields, and the run's id, which names the recorded restore.
    expect(Object.keys(res.body).sort()).toEqual(['items_restored', 'message', 'restore_id', 'safety_snapshot_id', 'schema_version', 'snapshot_id']);
    const restoreId = (await knex('snapshot_restores').where('snapshot_id', snapshotId).first('id')).id as string;
    expect(res.body.restore_id).toBe(restoreId);
    const status = await request(app)
      .get(url(catalogId, `/snapshot-restores/${restoreId}`))
      .set(org.auth);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      restore_id: restoreId,
      snapshot_id: snapshotId,
      status: 'completed',
      workflow_id: `snapshot-restore-${restoreId}`,
      result: { safety_snapshot_id: res.body.safety_snapshot_id, items_restored: 3 },
      error: null,
    });
    const handle = env.client.workflow.getHandle(snapshotRestoreWorkflowId(restoreId));
    expect(await handle.result()).toMatchObject({ status: 'completed', result: { safety_snapshot_id: res.body.safety_snapshot_id } });
    expect(await handle.query(restoreProgressQuery)).toMatchObject({ phase: 'completed' });
    // The 3-item restore left the word index behind (restoreDeferWordsMinItems 3): the workflow caught it up.
    expect((await knex('catalogs').where('id', catalogId).first('search_words_pending')).search_words_pending).toBe(false);
    expect(await knex('catalog_items').where('catalog_id', catalogId).whereNotNull('search_tsv_pending')).toHaveLength(0);
    const activities = (await handle.fetchHistory())
      .events!.filter((e) => e.activityTaskScheduledEventAttributes)
      .map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name);
    expect(activities).toEqual(['restoreSnapshotActivity', 'catchUpSearchWords']);

    const unknown = await request(app)
      .get(url(catalogId, `/snapshot-restores/${snapshotId}`))
      .set(org.auth);
    expect(unknown.status).toBe(404);
  });

  it('joins the open restore on a retried request: one workflow, one safety snapshot, the same answer', async () => {
    const { catalogId, snapshotId } = await changedCatalog();
    const [a, b] = await Promise.all([
      request(app)
        .post(url(catalogId, `/snapshots/${snapshotId}/restore`))
        .set(org.auth),
      request(app)
        .post(url(catalogId, `/snapshots/${snapshotId}/restore`))
        .set(org.auth),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body.safety_snapshot_id).toBe(a.body.safety_snapshot_id);
    expect(await safetySnapshots(snapshotId)).toHaveLength(1);
    expect(await knex('snapshot_restores').where('snapshot_id', snapshotId).count({ n: '*' })).toEqual([{ n: '1' }]);
    expect(await titles(catalogId)).toEqual(['Alpha', 'Beta', 'Gamma']);
  });

  it('answers 409 before starting anything when the snapshot’s schema version is gone', async () => {
    const { catalogId, snapshotId } = await changedCatalog();
    await knex('catalog_snapshots').where('id', snapshotId).update({ schema_version: '9.9.9' });
    const res = await request(app)
      .post(url(catalogId, `/snapshots/${snapshotId}/restore`))
      .set(org.auth);
    expect(res.status).toBe(409);
    expect(await knex('snapshot_restores').where('snapshot_id', snapshotId)).toHaveLength(0);
  });

  it('a worker killed mid-restore: the restore is not lost and runs once', async () => {
    const { catalogId, snapshotId } = await changedCatalog();
    const scope: Scope = { organizationId: org.organizationId, principal: { kind: 'api_key', id: 'test', organizationIds: [org.organizationId] } };
    // Hold the catalog's row lock so the restore's transaction waits inside, after its safety
    // snapshot began (takeSnapshot locks the catalog).
    const holder = await knex.transaction();
    holders.push(holder);
    await holder.raw('SELECT id FROM catalogs WHERE id = ? FOR UPDATE', [catalogId]);
    const restore = await requestSnapshotRestore({ knex, jobRunner }, scope, catalogId, snapshotId);
    const waiting = await waitUntil(async () => {
      const rows = await knex.raw(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid() AND query ILIKE '%from "catalogs"%for update%'`,
      );
      return rows.rows.length ? (rows.rows as Array<{ pid: number }>) : null;
    }, 'the restore to wait on the catalog lock');
    expect((await knex('snapshot_restores').where('id', restore.id).first()).status).toBe('restoring');

    // Kill the worker: it stops, and its attempt's connection dies (the transaction rolls back).
    const stopping = worker!.stop();
    worker = null;
    for (const { pid } of waiting) await knex.raw('SELECT pg_terminate_backend(?)', [pid]);
    await stopping;
    await holder.rollback();
    expect(await safetySnapshots(snapshotId)).toHaveLength(0);
    expect(await titles(catalogId)).toEqual(['Alpha edited', 'Beta', 'Delta', 'Gamma']);

    // A new worker takes the retry and restores once.
    worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex, engine: fakeEngine(), shutdownGraceTime: '100 ms', restoreDeferWordsMinItems: 3 });
    const done = await waitUntil(async () => {
      const row = await knex('snapshot_restores').where('id', restore.id).first();
      return row.status === 'completed' ? row : null;
    }, 'the restore to complete on the new worker');
    expect(done.attempts).toBeGreaterThanOrEqual(2);
    expect(await titles(catalogId)).toEqual(['Alpha', 'Beta', 'Gamma']);
    const safety = await safetySnapshots(snapshotId);
    expect(safety.map((s) => s.id)).toEqual([done.result.safety_snapshot_id]);
    const outcome = await env.client.workflow.getHandle(snapshotRestoreWorkflowId(restore.id)).result();
    expect(outcome).toMatchObject({ status: 'completed', result: { safety_snapshot_id: done.result.safety_snapshot_id } });
  });
});
