/**
 * "Fast right after churn": a snapshot restore that rewrote a large share of
 * a catalog starts a search index maintenance pass at its end (workflows/churn-maintenance.ts),
 * as the child `search-index-maintenance-after-churn`, on the real Temporal dev server; a small
 * restore starts none; before the pass the restore settles the items table itself (activity
 * `settleAfterLargeWrite`: the table analyzed, src/services/catalog/search/post-write-maintenance.ts);
 * and the thresholds (src/services/catalog/search/index-maintenance.ts
 * churnWarrantsMaintenance) against real catalogs.
 */
import type { Knex } from 'knex';
import request from 'supertest';
import { churnWarrantsMaintenance, type IndexMaintenance } from '../../src/services/catalog/search/index-maintenance';
import { CHURN_MAINTENANCE_ID, snapshotRestoreWorkflowId } from '../../src/contracts/workflows';
import { testApp } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { startRestores, type RestoreTemporal } from '../helpers/restores';

let knex: Knex;
let restores: RestoreTemporal;
let app: ReturnType<ReturnType<typeof testApp>['callback']>;
let org: Awaited<ReturnType<typeof createTestOrg>>;

beforeAll(async () => {
  knex = testKnex();
  org = await createTestOrg('churn maintenance');
  restores = await startRestores('test-churn-maintenance');
  app = testApp(restores.jobRunner).callback();
}, 120_000);

afterAll(async () => {
  await restores?.stop();
  await closeTestKnex();
});

const url = (catalogId: string, path: string) => `/api/public/catalogs/${catalogId}${path}`;

/** A catalog of `n` items (seeded in SQL), a snapshot of it, then every item's title changed. */
async function churnedCatalog(n: number): Promise<{ catalogId: string; snapshotId: string }> {
  const catalogId = await createTestCatalog(org.organizationId);
  await knex.raw(
    `INSERT INTO catalog_items (id, catalog_id, entity_type, business_key, data)
     SELECT gen_random_uuid(), ?, 'product', 'c-' || g, jsonb_build_object('sku', 'c-' || g, 'title', 'before ' || g)
     FROM generate_series(1, ?) AS g`,
    [catalogId, n],
  );
  await knex('catalogs').where('id', catalogId).update({ item_count: n });
  const snap = await request(app).post(url(catalogId, '/snapshots')).set(org.auth).send({ reason: 'before churn' });
  expect(snap.status).toBe(200);
  await knex.raw(`UPDATE catalog_items SET data = data || jsonb_build_object('title', 'after ' || business_key) WHERE catalog_id = ?`, [catalogId]);
  return { catalogId, snapshotId: snap.body.id };
}

/** The ids of the child workflows a restore's workflow started, and its activities' types, once it ended. */
async function historyOf(catalogId: string, snapshotId: string): Promise<{ children: string[]; activities: string[] }> {
  const restoreId = (await knex('snapshot_restores').where({ catalog_id: catalogId, snapshot_id: snapshotId }).first('id')).id as string;
  const handle = restores.env.client.workflow.getHandle(snapshotRestoreWorkflowId(restoreId));
  await handle.result(); // the route answers once the restore is recorded; the workflow goes on
  const { events } = await handle.fetchHistory();
  return {
    children: events!
      .filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)
      .map((e) => e.startChildWorkflowExecutionInitiatedEventAttributes!.workflowId!),
    activities: events!.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name!),
  };
}
const childrenOf = async (catalogId: string, snapshotId: string) => (await historyOf(catalogId, snapshotId)).children;

/** The items table's last ANALYZE (epoch ms, 0 when never). */
async function lastAnalyze(): Promise<number> {
  const { rows } = await knex.raw(
    "SELECT pg_stat_clear_snapshot(), extract(epoch FROM last_analyze) * 1000 AS t FROM pg_stat_user_tables WHERE relid = 'catalog_items'::regclass",
  );
  return Number(rows[0].t ?? 0);
}

it('a restore that rewrote the whole catalog starts the search index maintenance itself', async () => {
  const { catalogId, snapshotId } = await churnedCatalog(1200);
  const analyzedBefore = await lastAnalyze();
  const res = await request(app)
    .post(url(catalogId, `/snapshots/${snapshotId}/restore`))
    .set(org.auth);
  expect(res.status).toBe(200);
  expect(res.body.items_restored).toBe(1200);
  const history = await historyOf(catalogId, snapshotId);
  expect(history.children).toEqual([CHURN_MAINTENANCE_ID]);
  // The table was settled by the restore's own workflow before the pass: statistics are fresh.
  expect(history.activities).toContain('settleAfterLargeWrite');
  expect(await lastAnalyze()).toBeGreaterThan(analyzedBefore);
  // The pass ran to its end on its own (abandoned by the restore, which did not wait for it).
  const reports = (await restores.env.client.workflow.getHandle(CHURN_MAINTENANCE_ID).result()) as IndexMaintenance[];
  expect(reports.map((r) => r.index)).toEqual(['catalog_items_search_words', 'catalog_items_catalog_id_created_at_id_index']);
}, 120_000);

it('a small restore starts none', async () => {
  const { catalogId, snapshotId } = await churnedCatalog(20);
  const res = await request(app)
    .post(url(catalogId, `/snapshots/${snapshotId}/restore`))
    .set(org.auth);
  expect(res.status).toBe(200);
  expect(await childrenOf(catalogId, snapshotId)).toEqual([]);
}, 60_000);

it('counts a rewrite as churn from 50,000 rows, or from 10 % of the catalog and 1,000 rows', async () => {
  const catalogId = await createTestCatalog(org.organizationId);
  await knex('catalogs').where('id', catalogId).update({ item_count: 100_000 });
  expect(await churnWarrantsMaintenance(knex, catalogId, 9_999)).toBe(false);
  expect(await churnWarrantsMaintenance(knex, catalogId, 10_000)).toBe(true);
  await knex('catalogs').where('id', catalogId).update({ item_count: 2_000_000 });
  expect(await churnWarrantsMaintenance(knex, catalogId, 49_999)).toBe(false);
  expect(await churnWarrantsMaintenance(knex, catalogId, 50_000)).toBe(true);
  await knex('catalogs').where('id', catalogId).update({ item_count: 500 });
  expect(await churnWarrantsMaintenance(knex, catalogId, 500)).toBe(false);
  expect(await churnWarrantsMaintenance(knex, '00000000-0000-4000-8000-000000000000', 60_000)).toBe(false);
});
