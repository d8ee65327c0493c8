/**
 * The tool server's walk as an agent and a person use it:
 * the SDK's own MCP client drives `npm run mcp` over stdio against the real service (PostgreSQL,
 * Temporal dev server and worker): pull → transform locally → diff → validate → stage → the person
 * opens review_url, approves and applies in the dashboard (never a tool) → the catalog changed
 * exactly as the diff said. Also: a transform that breaks the schema is refused before anything is
 * staged, and the tools list carries a schema and a one-line purpose for every tool.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Knex } from 'knex';
import { stringify } from 'csv-stringify/sync';
import sharp from 'sharp';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { enrichmentStorage, hostBytes } from '../../src/services/enrichment/rows/artifacts';
import { TemporalJobRunner } from '../../temporal/client';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { approveAndApply, listen, ListeningApp, McpSession, signInToDashboard, startMcp } from '../helpers/mcp';
import { itemsBySku, seedItems } from '../helpers/review-apply';
import { fakeEngine, RunningTestWorker, runTestWorker, startTestTemporal } from '../helpers/temporal';

const TASK_QUEUE = 'test-mcp-walk';

let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let knex: Knex;
let service: ListeningApp;
let mcp: McpSession;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let workspace: string;

const SCHEMA = {
  type: 'object',
  properties: {
    sku: { type: 'string' },
    title: { type: 'string' },
    price: { type: 'number' },
    tags: { type: 'array', items: { type: 'string' } },
    color: { type: 'string', enum: ['red', 'blue', 'green'] },
  },
  required: ['sku', 'title'],
};

const SEED = [
  { sku: 'A-1', title: 'Lamp', price: 1, tags: ['home'], color: 'red' },
  { sku: 'A-2', title: 'Chair', price: 2, tags: ['home', 'office'], color: 'blue' },
  { sku: 'A-3', title: 'Desk', price: 3, color: 'green' },
  { sku: 'A-4', title: 'Mug', price: 4.5, tags: [] },
  { sku: 'A-5', title: 'Pen', price: 0.99, color: 'blue' },
  { sku: 'A-6', title: 'Shelf', price: 60 },
];

beforeAll(async () => {
  knex = testKnex();
  org = await createTestOrg('mcp walk');
  env = await startTestTemporal();
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex, engine: fakeEngine() });
  const runner = new TemporalJobRunner(
    env.client,
    { taskQueue: TASK_QUEUE, enrichConcurrency: 2 },
    {},
    {},
    { retry_initial_interval_s: 0.1, maximum_attempts: 2 },
  );
  const app = createApp({ config: loadConfig(), knex, jobRunner: runner });
  service = await listen(app);
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-walk-'));
  mcp = await startMcp({
    CATALOG_API_KEY: org.apiKey,
    CATALOG_BASE_URL: service.baseUrl,
    CATALOG_MCP_WORKSPACE: workspace,
    CATALOG_MCP_STAGE_BATCH_SIZE: '2',
    CATALOG_MCP_CREDENTIALS_FILE: path.join(workspace, 'no-credentials.json'),
  });
});

afterAll(async () => {
  await mcp?.close();
  await service?.close();
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
  if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
});

test('every tool has an input schema and a one-line purpose; none approves or applies', async () => {
  const { tools } = await mcp.client.listTools();
  const names = tools.map((t) => t.name).sort();
  for (const name of [
    'catalog_list',
    'catalog_get',
    'catalog_schema_get',
    'catalog_taxonomy_get',
    'catalog_items_query',
    'catalog_item_get',
    'catalog_activity_list',
    'catalog_activity_get',
    'catalog_activity_staged_changes',
    'catalog_activity_create_transform',
    'catalog_activity_audit',
    'catalog_activity_clear',
    'catalog_snapshot_list',
    'catalog_snapshot_create',
    'catalog_snapshot_restore',
    'catalog_channel_list',
    'catalog_channel_readiness',
    'catalog_feed_run',
    'catalog_feed_run_get',
    'catalog_feed_run_issues',
    'execution_catalog_snapshot_pull',
    'execution_local_diff_compute',
    'execution_bundle_validate',
    'execution_catalog_stage_dataset',
    'service_map_to_catalog_schema',
    'service_image_run',
    'service_image_status',
    'service_image_list',
  ])
    expect(names).toContain(name);
  for (const t of tools) {
    expect(t.inputSchema.type).toBe('object');
    expect(t.description).toMatch(/^[^\n]{20,160}$/);
    expect(t.name).not.toMatch(/approve|apply/);
  }
});

test('pull → transform → diff → validate → stage → the person applies in the dashboard → the catalog changed exactly as the diff said', async () => {
  const catalogId = await createTestCatalog(org.organizationId, { schema_definition: SCHEMA });
  const ids = await seedItems(knex, org.organizationId, catalogId, SEED);
  const before = await itemsBySku(knex, catalogId);

  // 1. Pull.
  const pull = await mcp.call<{
    rows: number;
    total: number;
    snapshot_path: string;
    jsonl_path: string;
    csv_path: string;
    manifest_path: string;
    schema_path: string;
  }>('execution_catalog_snapshot_pull', { catalog_id: catalogId, output_dir: 'snap', page_size: 4 });
  expect(pull).toMatchObject({ rows: 6, total: 6 });
  // The baseline release's default format: the snapshot is Parquet (JSON Lines and CSV beside it).
  expect(pull.snapshot_path).toMatch(/\.parquet$/);
  const manifest = JSON.parse(fs.readFileSync(pull.manifest_path, 'utf8'));
  expect(manifest).toMatchObject({ version: 1, rows: 6, catalog_id: catalogId });
  expect(manifest.rows_hash).toMatch(/^[0-9a-f]{64}$/);
  const header = fs.readFileSync(pull.csv_path, 'utf8').split('\n')[0].split(',');
  expect(header.slice(0, 4)).toEqual(['__catalog_item_id', '__entity_type', '__parent_id', '__current_version']);
  expect(header.slice(4).sort()).toEqual(['color', 'price', 'sku', 'tags', 'title']);
  const rows = fs
    .readFileSync(pull.jsonl_path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(new Set(rows.map((r) => r.__catalog_item_id))).toEqual(new Set(ids.values()));

  // 2. Transform locally, written as CSV (every cell a string, arrays as their JSON text): A-1's price changes,
  // A-2 gets a tag, A-3's price is rewritten as "3.0" (no change), A-6 is dropped, one new row without an id.
  const after = rows
    .filter((r) => r.sku !== 'A-6')
    .map((r) => {
      if (r.sku === 'A-1') return { ...r, price: 99.5 };
      if (r.sku === 'A-2') return { ...r, tags: ['home', 'office', 'sale'] };
      if (r.sku === 'A-3') return { ...r, price: '3.0' };
      return r;
    });
  after.push({
    __catalog_item_id: '',
    __entity_type: '',
    __parent_id: '',
    __current_version: '',
    sku: 'A-7',
    title: 'Stool',
    price: 12,
    tags: ['home'],
    color: 'red',
  });
  const columns = header;
  const cell = (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  fs.mkdirSync(path.join(workspace, 'work'));
  fs.writeFileSync(path.join(workspace, 'work/after.csv'), stringify([columns, ...after.map((r) => columns.map((c) => cell(r[c])))]));

  // 3. Diff against the Parquet snapshot: typed comparison, so "3.0" vs 3 and the untouched arrays are no change.
  const diff = await mcp.call<Record<string, unknown> & { staged_changes_path: string; diff_summary: Record<string, number> }>('execution_local_diff_compute', {
    before_path: path.relative(workspace, pull.snapshot_path),
    after_path: 'work/after.csv',
  });
  expect(diff.diff_summary).toEqual({
    rows_before: 6,
    rows_after: 6,
    rows_added: 1,
    rows_removed: 1,
    rows_modified: 2,
    columns_added: [],
    columns_removed: [],
  });
  expect(diff.field_change_counts).toEqual({ price: 1, tags: 1 });
  expect(diff.key_diagnostics).toMatchObject({ key_field_present_before: true, after_missing_key_values: 1, before_duplicate_key_values: 0 });
  const staged = fs
    .readFileSync(diff.staged_changes_path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(staged).toHaveLength(4);

  // 4. Validate.
  const report = await mcp.call<{ valid: boolean; errors: unknown[] }>('execution_bundle_validate', {
    catalog_id: catalogId,
    before_path: path.relative(workspace, pull.jsonl_path),
    after_path: 'work/after.csv',
    staged_changes_path: path.relative(workspace, diff.staged_changes_path),
    diff_summary: diff.diff_summary,
  });
  expect(report.errors).toEqual([]);
  expect(report.valid).toBe(true);

  // 5. Stage one review activity (batches of 2: two appends).
  const stagedOut = await mcp.call<{ activity_id: string; status: string; staged_count: number; review_url: string; batches: number }>(
    'execution_catalog_stage_dataset',
    {
      catalog_id: catalogId,
      before_path: path.relative(workspace, pull.jsonl_path),
      after_path: 'work/after.csv',
      activity_message: 'Reprice A-1, tag A-2, drop A-6, add A-7',
    },
  );
  expect(stagedOut).toMatchObject({ status: 'pending_review', staged_count: 4, batches: 2 });
  const reviewUrl = new URL(stagedOut.review_url);
  expect(reviewUrl.pathname).toBe(`/dashboard/catalogs/${catalogId}/activities/${stagedOut.activity_id}`);
  const activity = await mcp.call<{ status: string; metadata: { source: string; diff_summary: unknown } }>('catalog_activity_get', {
    activity_id: stagedOut.activity_id,
  });
  expect(activity.metadata.source).toBe('mcp_custom_transform');
  expect(activity.metadata.diff_summary).toEqual(diff.diff_summary);
  // Nothing changed yet: the tool server never applies.
  expect(await itemsBySku(knex, catalogId)).toEqual(before);

  // 6. The person opens review_url in the dashboard, approves and applies.
  const person = await signInToDashboard(service.origin, org.apiKey, reviewUrl.pathname);
  const page = await person.get(reviewUrl.pathname);
  expect(page.text).toContain('Reprice A-1');
  const applied = await approveAndApply(person, stagedOut.activity_id);
  expect(applied.apply_result).toMatchObject({ applied: 4, skipped_conflicts: 0, failed: 0 });

  // 7. The catalog is the before state with exactly the diff's changes.
  const now = await itemsBySku(knex, catalogId);
  const expected = new Map([...before].filter(([sku]) => sku !== 'A-6').map(([sku, r]) => [sku, { ...r.data }]));
  expected.get('A-1')!.price = 99.5;
  expected.get('A-2')!.tags = ['home', 'office', 'sale'];
  expected.set('A-7', { sku: 'A-7', title: 'Stool', price: 12, tags: ['home'], color: 'red' });
  expect(new Map([...now].map(([sku, r]) => [sku, r.data]))).toEqual(expected);
  for (const sku of ['A-3', 'A-4', 'A-5']) expect(now.get(sku)!.current_version).toBe(before.get(sku)!.current_version);

  // The audit tool reports what the activity changed.
  const audit = await mcp.call<{ activities: Array<{ activity_id: string; status: string; total_changes: number }> }>('catalog_activity_audit', {
    catalog_id: catalogId,
    activity_ids: [stagedOut.activity_id],
  });
  expect(audit.activities[0]).toMatchObject({ activity_id: stagedOut.activity_id, status: 'completed', total_changes: 4 });
});

test('a transform that breaks the schema is refused with every error, and nothing is staged', async () => {
  const catalogId = await createTestCatalog(org.organizationId, { schema_definition: SCHEMA });
  await seedItems(knex, org.organizationId, catalogId, SEED.slice(0, 3));
  const pull = await mcp.call<{ jsonl_path: string }>('execution_catalog_snapshot_pull', { catalog_id: catalogId, output_dir: 'bad' });
  const rows = fs
    .readFileSync(pull.jsonl_path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  rows[0].color = 'purple';
  rows[1].price = 'cheap';
  rows.push({ sku: 'N-1', price: 5 });
  fs.writeFileSync(path.join(workspace, 'bad/after.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n'));
  const err = await mcp.callError('execution_catalog_stage_dataset', {
    catalog_id: catalogId,
    before_path: path.relative(workspace, pull.jsonl_path),
    after_path: 'bad/after.jsonl',
    activity_message: 'broken',
  });
  expect(err.message).toMatch(/^Bundle validation failed/);
  const codes = (err.report as { errors: Array<{ code: string; field?: string }> }).errors.map((e) => `${e.code}:${e.field}`).sort();
  expect(codes).toEqual(['INVALID_ENUM_VALUE:color', 'MISSING_REQUIRED_FIELD:title', 'TYPE_MISMATCH:price']);
  const list = await mcp.call<{ activities: unknown[] }>('catalog_activity_list', { catalog_id: catalogId });
  expect(list.activities).toEqual([]);
  // A path outside the workspace is refused by the guard.
  const outside = await mcp.callError('execution_local_diff_compute', { before_path: '/etc/hostname', after_path: 'bad/after.jsonl' });
  expect(outside.error).toBe('UnsafePathError');
});

test('service tools: rows mapped into the catalog schema through /public/enrich; an image upscaled on hosted media', async () => {
  const catalogId = await createTestCatalog(org.organizationId, { schema_definition: SCHEMA });
  const mapped = await mcp.call<{ status: string; total_items: number; results: Array<{ after_data: Record<string, unknown> }> }>(
    'service_map_to_catalog_schema',
    {
      catalog_id: catalogId,
      items: [
        { product_code: 'X-1', name: 'Kettle' },
        { product_code: 'X-2', name: 'Toaster' },
      ],
    },
  );
  expect(mapped).toMatchObject({ status: 'completed', total_items: 2 });
  expect(mapped.results.map((r) => r.after_data.name)).toEqual(['Kettle', 'Toaster']);
  const job = await knex('enrichment_jobs').where('catalog_id', catalogId).first('id', 'config');
  expect(job.config.output_schema.map((f: { name: string }) => f.name).sort()).toEqual(['color', 'price', 'sku', 'tags', 'title']);
  expect(job.config).toMatchObject({ web_search: false, validate_semantics: true, staged_status: 'draft' });
  // The drafts it staged read back through the activity tools, which send no draft flag (docs/review.md "Vendor drafts").
  const staged = await mcp.call<{ total: number; total_pages: number; items: Array<{ status: string; row_index: number }> }>(
    'catalog_activity_staged_changes',
    { activity_id: job.id, page: 2, page_size: 1 },
  );
  expect(staged).toMatchObject({ total: 2, total_pages: 2, items: [{ status: 'draft', row_index: 1 }] });
  const activities = await mcp.call<{ total: number; activities: Array<Record<string, unknown>> }>('catalog_activity_list', {
    catalog_id: catalogId,
    limit: 20,
    offset: 0,
  });
  expect(activities.activities).toEqual([expect.objectContaining({ id: job.id, type: 'enrichment', staged_count: 2 })]);
  expect(await mcp.call('catalog_activity_get', { activity_id: job.id })).toMatchObject({ id: job.id, staged_count: 2, draft_count: 2 });

  const png = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#ff0000' } })
    .png()
    .toBuffer();
  const url = await hostBytes(knex, enrichmentStorage(loadConfig()), org.organizationId, png, 'image/png', 'test:red');
  const runOut = await mcp.call<{ run_id: string; status: string; result_urls: string[] }>('service_image_run', {
    tool: 'upscale',
    image_url: url,
    size: '40x40',
  });
  expect(runOut.status).toBe('completed');
  expect(await mcp.call('service_image_status', { run_id: runOut.run_id })).toEqual(runOut);
  const list = await mcp.call<{ runs: Array<{ run_id: string }> }>('service_image_list', { tool: 'upscale' });
  expect(list.runs.map((r) => r.run_id)).toContain(runOut.run_id);
});
