/**
 * Search index maintenance: the indexes are rebuilt when churn bloats them and left
 * alone otherwise; the maintenance workflow runs the pass on a real Temporal dev server; the
 * worker's hourly schedule is created once.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Knex } from 'knex';
import { newId } from '../../src/lib/ids';
import { IndexMaintenance, maintainSearchIndexes } from '../../src/services/catalog/search/index-maintenance';
import { ensureMaintenanceSchedule } from '../../temporal/maintenance-schedule';
import { SEARCH_MAINTENANCE_ID } from '../../src/contracts/workflows';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { fakeEngine, RunningTestWorker, runTestWorker, startTestTemporal } from '../helpers/temporal';

const TASK_QUEUE = 'test-search-maintenance';
let knex: Knex;

beforeAll(() => {
  knex = testKnex();
});

afterAll(async () => {
  await closeTestKnex();
});

const byIndex = (reports: IndexMaintenance[], name: string): IndexMaintenance => reports.find((r) => r.index === name)!;

it('rebuilds an index bloated by churn, and only then', async () => {
  await knex('search_index_baselines').delete();
  const first = await maintainSearchIndexes(knex, { minRows: 0 });
  expect(first.map((r) => r.action)).toEqual(['rebuilt', 'rebuilt']); // no baseline yet
  const calm = await maintainSearchIndexes(knex, { minRows: 0 });
  expect(calm.map((r) => r.action)).toEqual(['checked', 'checked']);

  // Churn: 20,000 items written, rewritten twice with new words, then deleted.
  const { organizationId } = await createTestOrg('maintenance churn');
  const catalogId = await createTestCatalog(organizationId);
  await knex.raw(
    `INSERT INTO catalog_items (id, catalog_id, entity_type, business_key, data)
     SELECT gen_random_uuid(), ?, 'product', 'm-' || g, jsonb_build_object('sku', 'm-' || g, 'title', 'alpha' || g || ' beta' || (g * 7))
     FROM generate_series(1, 20000) AS g`,
    [catalogId],
  );
  for (const word of ['gamma', 'delta']) {
    await knex.raw(`UPDATE catalog_items SET data = data || jsonb_build_object('title', ? || business_key) WHERE catalog_id = ?`, [word, catalogId]);
  }
  await knex('catalog_items').where({ catalog_id: catalogId }).delete();
  await knex.raw('VACUUM catalog_items');

  const after = await maintainSearchIndexes(knex, { minRows: 0, maxBloat: 1.2 });
  const words = byIndex(after, 'catalog_items_search_words');
  expect(words.action).toBe('rebuilt');
  expect(words.bytes_per_row).toBeGreaterThan(words.baseline! * 1.2);
  expect(words.bytes_after!).toBeLessThan(words.bytes);
  // The new baseline is the rebuilt size: the next pass finds nothing to do.
  expect(byIndex(await maintainSearchIndexes(knex, { minRows: 0, maxBloat: 1.2 }), 'catalog_items_search_words').action).toBe('checked');
  // And below the row threshold nothing is touched.
  expect((await maintainSearchIndexes(knex, { minRows: Number.MAX_SAFE_INTEGER })).map((r) => r.action)).toEqual(['skipped', 'skipped']);
}, 120_000);

describe('on Temporal', () => {
  let env: TestWorkflowEnvironment;
  let worker: RunningTestWorker;

  beforeAll(async () => {
    env = await startTestTemporal();
    worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex, engine: fakeEngine(), searchMaintenance: { minRows: 0 } });
  });

  afterAll(async () => {
    await worker?.stop();
    await env?.teardown();
  });

  it('runs a maintenance pass as a workflow', async () => {
    const reports = await env.client.workflow.execute('searchIndexMaintenanceWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId: `maintenance-${newId()}`,
      args: [],
    });
    expect((reports as IndexMaintenance[]).map((r) => r.index)).toEqual(['catalog_items_search_words', 'catalog_items_catalog_id_created_at_id_index']);
  });

  it('creates the hourly schedule once', async () => {
    expect(await ensureMaintenanceSchedule(env.client, TASK_QUEUE)).toBe(true);
    expect(await ensureMaintenanceSchedule(env.client, TASK_QUEUE)).toBe(false);
    const schedule = await env.client.schedule.getHandle(SEARCH_MAINTENANCE_ID).describe();
    expect(schedule.action).toMatchObject({ type: 'startWorkflow', workflowType: 'searchIndexMaintenanceWorkflow', taskQueue: TASK_QUEUE });
    expect(schedule.spec.intervals?.[0].every).toBe(3_600_000);
    await env.client.schedule.getHandle(SEARCH_MAINTENANCE_ID).delete();
  });
});
