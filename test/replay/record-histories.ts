/**
 * Records the replay fixtures (docs/workflows.md "Rules of the craft"): runs a completed, a cancelled
 * and a continued-as-new job, a job with a webhook (parent + its `webhookDeliveryWorkflow` child
 * whose receiver fails once) on a local dev server against the PostgreSQL test database (fake
 * engine), and a job whose worker PROCESS is SIGKILLed mid-job (test/durability/harness.ts), and
 * exports their histories next to this file with temporal/export-history.ts as
 * `enrichment-batched-*.json`, `enrichment-webhook.json`, `webhook-delivery.json` and
 * `enrichment-worker-crash.json`; and a search count index build of a small catalog
 * (`searchIndexBuildWorkflow`: the build activity, then its cool-down timer) as
 * `search-index-build.json` (recorded before the `searchWordsPending` signal existed and kept
 * as it is), and one signalled during its cool-down to catch up a restored catalog's word index
 * (`catchUpSearchWords`, then the rest of the cool-down) as `search-index-words-signal.json`.
 *
 * The four `enrichment-{completed,cancelled,continued-as-new,continued-last-run}.json` were
 * recorded before row batching (one processRow per row) and are kept as they are: they prove
 * that runs started by the old code still replay (the `row-batches` patch). This script no
 * longer writes them. Re-run after a deliberate, `patched()`-guarded workflow change:
 *
 *   npx tsx test/setup/prepare.ts && npx tsx test/replay/record-histories.ts [group...]
 *
 * Groups (all when none is named): `enrichment` (the batched jobs and the webhook pair),
 * `search-index`, `search-words`, `crash`, `apply` (activityApplyWorkflow completed and failed:
 * `activity-apply-*.json`), `maintenance` (searchIndexMaintenanceWorkflow:
 * `search-index-maintenance.json`), `flows` (flowRunWorkflow completed through every node type,
 * failed, cancelled: `flow-run-*.json`), `import` (catalogImportWorkflow:
 * `catalog-import-completed.json`), `research-archive` (researchArchiveIndexWorkflow: an uploaded
 * WARC indexed, and a file that is no WARC failing: `research-archive-{ready,failed}.json`),
 * `restore` (snapshotRestoreWorkflow completed, and failed as not applicable:
 * `snapshot-restore-{completed,failed}.json`); naming some re-records only those fixtures.
 * `bulk-stage` (bulkStageWorkflow, three pages: `bulk-stage-completed.json`), `grid-index`
 * (gridIndexWorkflow: an index built, then signalled while lingering to drop it:
 * `grid-index-built-dropped.json`), `feed` (feedRunWorkflow in three pages and a scheduled start:
 * `feed-run-streamed.json`, `feed-scheduled-run.json`; ./record-feed.ts); naming some re-records only those fixtures.
 */
import '../setup/env';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { newId } from '../../src/lib/ids';
import { createEnrichmentJob } from '../../src/services/enrichment/jobs/jobs';
import { stageImport } from '../../src/services/sheets/import';
import { saveFlowFromReviewActivity } from '../../src/services/flows/flows';
import { executeFlow } from '../../src/services/flows/runs';
import { createResearchArchive } from '../../src/services/research-archives/archives';
import { writeWarc } from '../fixtures/warc';
import { recordFeedRuns } from './record-feed';
import { exportHistory } from '../../temporal/export-history';
import { createCatalogCaches } from '../../src/services/catalog/catalog-caches';
import { createBulkAction } from '../../src/services/review/bulk-edit';
import { bulkStageWorkflowId, gridIndexWorkflowId } from '../../src/contracts/workflows';
import { ensureGridIndexes, markGridIndexesDropping } from '../../src/services/catalog/grid/grid-indexes';
import { TemporalJobRunner } from '../../temporal/client';
import { createWorker } from '../../temporal/worker';
import { loadConfig } from '../../src/config';
import { enrichmentStorage } from '../../src/services/enrichment/rows/artifacts';
import {
  reviewApplyWorkflowId,
  catalogImportWorkflowId,
  enrichmentWorkflowId,
  researchArchiveWorkflowId,
  SEARCH_MAINTENANCE_ID,
  searchIndexWorkflowId,
  snapshotRestoreWorkflowId,
  webhookWorkflowId,
} from '../../src/contracts/workflows';
import { clientFor, createArchiveJob, RestartableTemporal, spawnWorker, stopWorker } from '../fixtures/worker-cluster';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { createTestJob, fakeEngine, startTestTemporal, workflowBundle } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';

const TASK_QUEUE = 'record-replay-histories';

/** Fixture groups named on the command line; none = all. */
const GROUPS = new Set(process.argv.slice(2));
const wanted = (
  group:
    | 'enrichment'
    | 'search-index'
    | 'search-words'
    | 'crash'
    | 'apply'
    | 'maintenance'
    | 'flows'
    | 'import'
    | 'research-archive'
    | 'restore'
    | 'bulk-stage'
    | 'grid-index'
    | 'feed',
): boolean => GROUPS.size === 0 || GROUPS.has(group);

async function main(): Promise<void> {
  const knex = testKnex();
  const env = await startTestTemporal();
  const { organizationId } = await createTestOrg('replay recording');
  const engineOptions = { delayMs: 0, errorFor: (item: Record<string, unknown>) => item.name === 'item 1' };
  const worker = await createWorker({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue: TASK_QUEUE,
    config: loadConfig(),
    knex,
    engine: fakeEngine(engineOptions),
    workflowBundle: await workflowBundle(),
    allowHttpWebhooks: true,
  });
  const running = worker.run();
  const out = (name: string): string => path.join(__dirname, name);
  try {
    if (wanted('enrichment')) await recordEnrichment(env, organizationId, engineOptions, out);
    if (wanted('search-index')) {
      // A catalog of 60 items; a 1 s minimum interval so the cool-down timer is in the history.
      const catalogId = await seededCatalog(organizationId, 60, 'S', 'red wool');
      const indexRunner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 1 }, {}, { min_interval_s: 1 });
      await indexRunner.startSearchIndexBuild({ id: catalogId, organization_id: organizationId });
      console.log('search index build:', await env.client.workflow.getHandle(searchIndexWorkflowId(catalogId)).result());
      console.log('search index build:', await exportHistory(env.client, searchIndexWorkflowId(catalogId), out('search-index-build.json')), 'events');
    }
    if (wanted('apply')) await recordApply(env, organizationId, out);
    if (wanted('restore')) await recordRestores(env, organizationId, out);
    if (wanted('import')) await recordImport(env, organizationId, out);
    if (wanted('research-archive')) await recordResearchArchives(env, organizationId, out);
    if (wanted('bulk-stage')) await recordBulkStage(env, organizationId, out);
    if (wanted('grid-index')) await recordGridIndex(env, organizationId, out);
    if (wanted('feed')) await recordFeedRuns(env, organizationId, TASK_QUEUE, out);
    if (wanted('flows')) await recordFlows(env, organizationId, out);
    if (wanted('maintenance')) {
      // One pass over the test database's indexes (rebuilt or checked, as they stand).
      await env.client.workflow.execute('searchIndexMaintenanceWorkflow', { taskQueue: TASK_QUEUE, workflowId: SEARCH_MAINTENANCE_ID, args: [] });
      console.log('maintenance:', await exportHistory(env.client, SEARCH_MAINTENANCE_ID, out('search-index-maintenance.json')), 'events');
    }
    if (wanted('search-words')) {
      // A build with a 3 s cool-down, signalled once it is cooling down, with rows of the
      // catalog left behind as a restore leaves them (src/services/search-words.ts).
      const catalogId = await seededCatalog(organizationId, 30, 'W', 'silk scarf');
      const indexRunner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 1 }, {}, { min_interval_s: 3 });
      await indexRunner.startSearchIndexBuild({ id: catalogId, organization_id: organizationId });
      await waitUntil(() => knex('catalog_search_index').where('catalog_id', catalogId).first('catalog_id'), 'first build done');
      await knex.raw("UPDATE catalog_items SET search_tsv_pending = search_tsv, search_tsv = to_tsvector('simple', 'wool') WHERE catalog_id = ?", [catalogId]);
      await knex('catalogs').where('id', catalogId).update({ search_words_pending: true });
      await indexRunner.startSearchIndexBuild({ id: catalogId, organization_id: organizationId }, { wordsPending: true });
      console.log('signalled build:', await env.client.workflow.getHandle(searchIndexWorkflowId(catalogId)).result());
      console.log('signalled build:', await exportHistory(env.client, searchIndexWorkflowId(catalogId), out('search-index-words-signal.json')), 'events');
    }
  } finally {
    worker.shutdown();
    await running;
    await env.teardown();
  }

  if (wanted('crash')) await recordWorkerCrash(organizationId, out);
  await closeTestKnex();
}

/**
 * researchArchiveIndexWorkflow: an uploaded two-page WARC indexed (`research-archive-ready.json`)
 * and a `.warc` file that is not one, which fails for good (`research-archive-failed.json`).
 */
async function recordResearchArchives(env: TestWorkflowEnvironment, organizationId: string, out: (name: string) => string): Promise<void> {
  const runner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 1 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'record-archives-'));
  const scope = { organizationId, principal: { kind: 'api_key' as const, id: 'recording', organizationIds: [organizationId] } };
  // The worker's blob store (its configuration's), where it reads uploads from.
  const deps = { knex: testKnex(), jobRunner: runner, blobs: enrichmentStorage(loadConfig()).blobs };
  try {
    const good = path.join(dir, 'pages.warc.gz');
    await writeWarc(
      good,
      [1, 2].map((i) => ({ url: `https://shop.example/p/${i}`, date: '2024-01-02T03:04:05Z', body: `<html><title>Product ${i}</title></html>` })),
      {
        gzip: true,
      },
    );
    const bad = path.join(dir, 'broken.warc');
    fs.writeFileSync(bad, 'this is not a WARC file\r\n\r\n');
    for (const [file, name] of [
      [good, 'research-archive-ready.json'],
      [bad, 'research-archive-failed.json'],
    ]) {
      const archive = await createResearchArchive(deps, scope, { path: file, originalname: path.basename(file) });
      console.log('research archive:', await env.client.workflow.getHandle(researchArchiveWorkflowId(archive.id)).result());
      console.log('research archive:', await exportHistory(env.client, researchArchiveWorkflowId(archive.id), out(name)), 'events');
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * catalogImportWorkflow: a staged 3-line CSV import (two lines written, one failing strict
 * validation) that completes, as `catalog-import-completed.json`.
 */
async function recordImport(env: TestWorkflowEnvironment, organizationId: string, out: (name: string) => string): Promise<void> {
  const knex = testKnex();
  const runner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 1 });
  const catalogId = await createTestCatalog(organizationId, { strict_mode: true });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'record-import-'));
  const file = path.join(dir, 'items.csv');
  fs.writeFileSync(file, 'sku,title,price\nR-1,Chair,12.5\nR-2,Table,not a number\nR-3,Stool,3\n');
  const scope = { organizationId, principal: { kind: 'api_key' as const, id: 'recording', organizationIds: [organizationId] } };
  const imp = await stageImport(knex, scope, catalogId, { path: file, name: 'items.csv' }, {});
  fs.rmSync(dir, { recursive: true, force: true });
  await runner.startImport({ id: imp.id, organization_id: organizationId, catalog_id: catalogId, total_lines: imp.total_lines });
  console.log('import:', await env.client.workflow.getHandle(catalogImportWorkflowId(imp.id)).result());
  console.log('import:', await exportHistory(env.client, catalogImportWorkflowId(imp.id), out('catalog-import-completed.json')), 'events');
}

/**
 * snapshotRestoreWorkflow: a restore that completes as `snapshot-restore-completed.json`,
 * and one whose snapshot's schema version is gone, so it fails as not applicable and is recorded
 * failed, as `snapshot-restore-failed.json`. The restore rows are inserted as the API inserts them.
 */
async function recordRestores(env: TestWorkflowEnvironment, organizationId: string, out: (name: string) => string): Promise<void> {
  const knex = testKnex();
  const runner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 1 });
  const catalogId = await seededCatalog(organizationId, 3, 'R', 'linen shirt');
  const snapshot = async (schemaVersion: string): Promise<string> => {
    const id = newId();
    await knex('catalog_snapshots').insert({
      id,
      catalog_id: catalogId,
      snapshot_type: 'manual',
      item_count: 0,
      schema_version: schemaVersion,
      created_by: 'replay',
    });
    return id;
  };
  for (const [name, snapshotId] of [
    ['snapshot-restore-completed.json', await snapshot('1.0.0')],
    ['snapshot-restore-failed.json', await snapshot('9.9.9')],
  ]) {
    const id = newId();
    await knex('snapshot_restores').insert({
      id,
      organization_id: organizationId,
      catalog_id: catalogId,
      snapshot_id: snapshotId,
      requested_by_kind: 'api_key',
      requested_by_id: 'replay',
    });
    await runner.startSnapshotRestore({ id, organization_id: organizationId, catalog_id: catalogId, snapshot_id: snapshotId });
    console.log('restore:', await env.client.workflow.getHandle(snapshotRestoreWorkflowId(id)).result());
    console.log('restore:', await exportHistory(env.client, snapshotRestoreWorkflowId(id), out(name)), 'events');
  }
}

/**
 * activityApplyWorkflow: an apply that completes (an update, a create and a conflict; then the
 * word-index catch-up, a no-op) as `activity-apply-completed.json`, and one whose schema change
 * is invalid, so the apply fails for good and is recorded as failed, as `activity-apply-failed.json`.
 */
/** bulkStageWorkflow: a console bulk action over 1,200 items, staged in three pages (`bulk-stage-completed.json`). */
async function recordBulkStage(env: TestWorkflowEnvironment, organizationId: string, out: (name: string) => string): Promise<void> {
  const knex = testKnex();
  const catalogId = await seededCatalog(organizationId, 1200, 'B', 'pine shelf');
  const scope = { organizationId, principal: { kind: 'api_key' as const, id: 'replay', organizationIds: [organizationId] } };
  const created = await createBulkAction({ knex, caches: { catalog: createCatalogCaches() }, config: { publicUrl: 'http://127.0.0.1:1' } }, scope, catalogId, {
    action: 'set',
    query: '',
    field: 'title',
    value: 'pine shelf (new)',
  });
  const runner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 1 });
  await runner.startBulkStage({ activity_id: created.activity.id, organization_id: organizationId, catalog_id: catalogId });
  const workflowId = bulkStageWorkflowId(created.activity.id);
  await env.client.workflow.getHandle(workflowId).result();
  console.log('bulk stage:', await exportHistory(env.client, workflowId, out('bulk-stage-completed.json')), 'events');
}

/**
 * gridIndexWorkflow: a catalog's sort index on `title` built in a first pass, then, while the
 * workflow lingers, the field's index marked for dropping and the workflow signalled again, which
 * drops it in a second pass before it completes (`grid-index-built-dropped.json`).
 */
async function recordGridIndex(env: TestWorkflowEnvironment, organizationId: string, out: (name: string) => string): Promise<void> {
  const knex = testKnex();
  const catalogId = await seededCatalog(organizationId, 60, 'G', 'oak table');
  const catalog = { id: catalogId, organization_id: organizationId, item_count: 60 };
  await ensureGridIndexes(knex, catalog, [{ field: 'title', kind: 'key', use: 'sort' }], { minItems: 0, maxPerCatalog: 8 });
  const runner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 1 }, {}, {}, {}, {}, {}, { linger_s: 3 });
  await runner.startGridIndexes(catalog);
  await waitUntil(() => knex('catalog_field_indexes').where({ catalog_id: catalogId, state: 'ready' }).first('index_name'), 'title index built');
  await markGridIndexesDropping(knex, catalogId, []);
  await runner.startGridIndexes(catalog);
  const workflowId = gridIndexWorkflowId(catalogId);
  console.log('grid index:', await env.client.workflow.getHandle(workflowId).result());
  console.log('grid index:', await exportHistory(env.client, workflowId, out('grid-index-built-dropped.json')), 'events');
}

async function recordApply(env: TestWorkflowEnvironment, organizationId: string, out: (name: string) => string): Promise<void> {
  const knex = testKnex();
  const runner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 1 });
  const catalogId = await seededCatalog(organizationId, 3, 'A', 'oak table');
  const items: Array<{ id: string; business_key: string }> = await knex('catalog_items')
    .where('catalog_id', catalogId)
    .orderBy('business_key')
    .select('id', 'business_key');
  const activity = async (changes: Array<Record<string, unknown>>, inputData: Record<string, unknown> | null): Promise<string> => {
    const id = newId();
    await knex('review_activities').insert({
      id,
      organization_id: organizationId,
      catalog_id: catalogId,
      type: 'custom_transform',
      status: 'pending_review',
      input_data: inputData,
    });
    await knex('staged_changes').insert(
      changes.map((c, i) => ({ id: newId(), activity_id: id, organization_id: organizationId, catalog_id: catalogId, row_index: i, status: 'approved', ...c })),
    );
    return id;
  };
  const completed = await activity(
    [
      {
        catalog_item_id: items[0].id,
        before_data: JSON.stringify({ title: 'oak table 0' }),
        after_data: JSON.stringify({ title: 'oak desk 0' }),
        base_version: 1,
      },
      { is_new_item: true, after_data: JSON.stringify({ sku: 'A-new', title: 'oak chair' }) },
      { catalog_item_id: items[1].id, before_data: JSON.stringify({ title: 'oak table 1' }), after_data: JSON.stringify({ title: 'x' }), base_version: 0 },
    ],
    null,
  );
  const failed = await activity(
    [{ catalog_item_id: items[2].id, before_data: JSON.stringify({ title: 'oak table 2' }), after_data: JSON.stringify({ title: 'y' }), base_version: 1 }],
    { schema_changes: { fields_to_remove: ['no_such_field'] } },
  );
  for (const [name, activityId] of [
    ['activity-apply-completed.json', completed],
    ['activity-apply-failed.json', failed],
  ]) {
    await runner.startApply({
      activity_id: activityId,
      organization_id: organizationId,
      catalog_id: catalogId,
      force: false,
      actor: { kind: 'api_key', id: 'test' },
    });
    console.log(`${name}:`, await env.client.workflow.getHandle(reviewApplyWorkflowId(activityId)).result());
    console.log(`${name}:`, await exportHistory(env.client, reviewApplyWorkflowId(activityId), out(name)), 'events');
  }
}

/**
 * flowRunWorkflow: an enrichment job saved with python_code (input → custom_code → enrich (the
 * child enrichment workflow) → stage) run to completion as `flow-run-completed.json`; the same
 * flow failing in its code as `flow-run-failed.json`; a slow run cancelled as `flow-run-cancelled.json`.
 */
async function recordFlows(env: TestWorkflowEnvironment, organizationId: string, out: (name: string) => string): Promise<void> {
  const knex = testKnex();
  const runner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 1 });
  const scope = { organizationId, principal: { kind: 'api_key' as const, id: 'test', organizationIds: [organizationId] } };
  const catalogId = await createTestCatalog(organizationId);
  const job = await createTestJob(knex, runner, organizationId, 1);
  await runner.waitForClose(job.workflowId);
  const code =
    'import time\ndef transform(rows):\n    time.sleep(rows[0].get("sleep", 0))\n    print(len(rows))\n    if rows[0].get("boom"):\n        raise ValueError("boom")\n    return rows\n';
  const flow = await saveFlowFromReviewActivity(knex, scope, catalogId, job.jobId, { workflow_name: 'recorded', python_code: code, timeout_seconds: 60 });
  for (const [name, input, cancel] of [
    ['flow-run-completed.json', [{ sku: 'F1', name: 'item 0' }], false],
    ['flow-run-failed.json', [{ sku: 'F2', boom: true }], false],
    ['flow-run-cancelled.json', [{ sku: 'F3', sleep: 30 }], true],
  ] as const) {
    const { run } = await executeFlow({ knex, jobRunner: runner }, scope, flow.id, { input: [...input] });
    if (cancel) {
      await waitUntil(
        async () => (await knex('flow_run_nodes').where({ run_id: run.id, node_id: 'custom_code' }).first()).status === 'running',
        'the code to run',
      );
      await runner.cancel(run.workflow_id);
    }
    await runner.waitForClose(run.workflow_id);
    console.log(`${name}:`, (await knex('flow_runs').where('id', run.id).first()).status);
    console.log(`${name}:`, await exportHistory(env.client, run.workflow_id, out(name)), 'events');
  }
}

/** A test catalog with `count` items `<prefix>-<i>` titled `<title> <i>`, inserted directly. */
async function seededCatalog(organizationId: string, count: number, prefix: string, title: string): Promise<string> {
  const catalogId = await createTestCatalog(organizationId);
  await testKnex()('catalog_items').insert(
    Array.from({ length: count }, (_, i) => ({
      id: newId(),
      catalog_id: catalogId,
      business_key: `${prefix}-${i}`,
      data: JSON.stringify({ sku: `${prefix}-${i}`, title: `${title} ${i}` }),
    })),
  );
  return catalogId;
}

/** The batched enrichment jobs (completed, cancelled, continued-as-new) and the webhook pair. */
async function recordEnrichment(
  env: TestWorkflowEnvironment,
  organizationId: string,
  engineOptions: { delayMs: number },
  out: (name: string) => string,
): Promise<void> {
  const knex = testKnex();
  const runner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 3 });
  const completed = await createTestJob(knex, runner, organizationId, 5);
  await runner.waitForClose(completed.workflowId);
  console.log('completed:', await exportHistory(env.client, completed.workflowId, out('enrichment-batched-completed.json')), 'events');

  engineOptions.delayMs = 200;
  const cancelled = await createTestJob(knex, runner, organizationId, 20);
  await waitUntil(async () => (await knex('enrichment_jobs').where({ id: cancelled.jobId }).first('completed_items')).completed_items >= 3, 'rows done');
  await runner.cancel(cancelled.workflowId);
  await runner.waitForClose(cancelled.workflowId);
  console.log('cancelled:', await exportHistory(env.client, cancelled.workflowId, out('enrichment-batched-cancelled.json')), 'events');

  engineOptions.delayMs = 0;
  const paged = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 2 }, { page_size: 2, pages_per_run: 1 });
  const continued = await createTestJob(knex, paged, organizationId, 3);
  await paged.waitForClose(continued.workflowId);
  const last = await env.client.workflow.getHandle(continued.workflowId).describe();
  const firstRunId = (await env.client.workflow.getHandle(continued.workflowId, last.runId).fetchHistory()).events![0].workflowExecutionStartedEventAttributes!
    .firstExecutionRunId!;
  console.log(
    'continued-as-new (first run):',
    await exportHistory(env.client, continued.workflowId, out('enrichment-batched-continued-as-new.json'), firstRunId),
    'events',
  );
  console.log(
    'continued-as-new (last run):',
    await exportHistory(env.client, continued.workflowId, out('enrichment-batched-continued-last-run.json'), last.runId),
    'events',
  );

  // Webhook path: a receiver on 127.0.0.1 that answers 500 once, then 200.
  let hits = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(++hits === 1 ? 500 : 200).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const hooked = new TemporalJobRunner(
    env.client,
    { taskQueue: TASK_QUEUE, enrichConcurrency: 2 },
    { webhook: { initial_interval_s: 0.2, maximum_attempts: 3 } },
  );
  const scope = { organizationId, principal: { kind: 'api_key' as const, id: 'test', organizationIds: [organizationId] } };
  const job = await createEnrichmentJob({ knex, jobRunner: hooked, config: { allowHttpWebhooks: true } }, scope, {
    items: [{ name: 'item 0' }, { name: 'item 1' }],
    async_mode: true,
    webhook_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    output_schema: [{ name: 'enriched', type: 'boolean', description: 'whether the item was enriched' }],
  });
  const hookedId = enrichmentWorkflowId(job.job.id);
  await hooked.waitForClose(hookedId);
  await env.client.workflow.getHandle(webhookWorkflowId(hookedId)).result();
  server.close();
  console.log('webhook parent:', await exportHistory(env.client, hookedId, out('enrichment-webhook.json')), 'events');
  console.log('webhook delivery:', await exportHistory(env.client, webhookWorkflowId(hookedId), out('webhook-delivery.json')), 'events');
}

/** Worker crash: a real worker process SIGKILLed mid-job, a second one finishes the job. */
async function recordWorkerCrash(organizationId: string, out: (name: string) => string): Promise<void> {
  const knex = testKnex();
  const temporal = new RestartableTemporal();
  await temporal.start();
  const client = await clientFor(temporal);
  try {
    const first = await spawnWorker(temporal, 'record-crash');
    const crash = await createArchiveJob(knex, client, 'record-crash', organizationId, 150, { row_heartbeat_timeout_s: 3, batch_size: 5 });
    await waitUntil(async () => (await knex('enrichment_jobs').where({ id: crash.jobId }).first('completed_items')).completed_items >= 30, 'rows done', 60_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await spawnWorker(temporal, 'record-crash');
    await crash.runner.waitForClose(crash.workflowId);
    await stopWorker(second);
    console.log('worker crash:', await exportHistory(client, crash.workflowId, out('enrichment-worker-crash.json')), 'events');
  } finally {
    await client.connection.close();
    await temporal.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
