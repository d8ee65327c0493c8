/**
 * Staging and validation of the tool server against the real service (docs/tool-server-design.md "Validate"): a retried append batch is never appended twice (the answer of the first attempt is lost
 * by a proxy after the service committed it; the retry carries the same `batch_key`), a failed
 * finalize is retried, the call sequence is shell → ⌈n/batch⌉ appends → pending-review, and the
 * validator reports every kind of error it knows.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { ApiClient } from '../../packages/tool-server/src/api-client';
import { createTransform, StageSettings } from '../../packages/tool-server/src/stage';
import { validateBundle, ValidateInput } from '../../packages/tool-server/src/validate';
import { testApp } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { listen, ListeningApp } from '../helpers/mcp';
import { seedItems } from '../helpers/review-apply';

let knex: Knex;
let service: ListeningApp;
let proxy: http.Server;
let proxyBase: string;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let dir: string;
/** Requests the proxy saw: method, path and (for appends) batch_key. */
let seen: Array<{ method: string; path: string; batch_key?: string }> = [];
/** Paths whose first request is forwarded but whose answer is then dropped. */
let dropAnswerOnce = new Set<string>();
/** Paths whose first request answers 503 without reaching the service. */
let fail503Once = new Set<string>();

beforeAll(async () => {
  knex = testKnex();
  org = await createTestOrg('mcp stage');
  service = await listen(testApp());
  proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const p = req.url ?? '/';
      const parsed = body.length ? (JSON.parse(body.toString()) as { batch_key?: string }) : {};
      seen.push({ method: req.method ?? 'GET', path: p.replace(/[0-9a-f-]{36}/g, ':id').split('?')[0], batch_key: parsed.batch_key });
      const key = `${seen.filter((s) => s.path === seen[seen.length - 1].path).length}:${p.replace(/[0-9a-f-]{36}/g, ':id').split('?')[0]}`;
      if (fail503Once.delete(key)) {
        res.writeHead(503, { 'Content-Type': 'application/json' }).end('{"detail":"proxy says try again"}');
        return;
      }
      const upstream = await fetch(service.origin + p, {
        method: req.method,
        headers: { Authorization: String(req.headers.authorization ?? ''), 'Content-Type': 'application/json' },
        body: body.length ? body : undefined,
      });
      const text = await upstream.text();
      if (dropAnswerOnce.delete(key)) {
        req.socket.destroy();
        return;
      }
      res.writeHead(upstream.status, { 'Content-Type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyBase = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api`;
});
afterAll(async () => {
  await new Promise<void>((r) => proxy.close(() => r()));
  await service.close();
  await closeTestKnex();
});
beforeEach(() => {
  seen = [];
  dropAnswerOnce = new Set();
  fail503Once = new Set();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-stage-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const SCHEMA = {
  type: 'object',
  properties: { sku: { type: 'string' }, title: { type: 'string' }, price: { type: 'number' }, color: { type: 'string', enum: ['red', 'blue'] } },
  required: ['sku', 'title'],
};

const api = () => new ApiClient({ baseUrl: proxyBase, token: org.apiKey, organizationId: null, retryBaseMs: 1 });
const settings = (): StageSettings => ({ batchSize: 3, retries: 3, retryBaseMs: 1, workspace: dir });

test('a batch whose answer was lost is retried with the same batch_key and appended once; a 503 finalize is retried', async () => {
  const catalogId = await createTestCatalog(org.organizationId, { schema_definition: SCHEMA });
  const changes = Array.from({ length: 8 }, (_, i) => ({
    catalog_item_id: null,
    is_new_item: true,
    after_data: { sku: `N${i}`, title: `New ${i}`, price: i },
  }));
  dropAnswerOnce.add('1:/api/public/activities/:id/staged-changes/append');
  dropAnswerOnce.add('3:/api/public/activities/:id/staged-changes/append');
  fail503Once.add('1:/api/public/activities/:id/pending-review');
  const out = await createTransform(api(), settings(), {
    catalog_id: catalogId,
    activity_message: 'eight new items',
    staged_changes: changes,
    diff_summary: { rows_added: 8, rows_removed: 0, rows_modified: 0 },
    rules: { allow_row_deletes: true, max_change_ratio_warning: 0.2 },
  });
  expect(out).toMatchObject({ status: 'pending_review', staged_count: 8, batches: 3 });
  const rows = await knex('staged_changes').where('activity_id', out.activity_id!).orderBy('row_index').select('row_index', 'after_data');
  expect(rows.map((r) => r.after_data.sku)).toEqual(['N0', 'N1', 'N2', 'N3', 'N4', 'N5', 'N6', 'N7']);
  expect(rows.map((r) => r.row_index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  // shell, then the appends (two of them sent twice, same key each time), then pending-review (twice: the 503, then the real one).
  const writes = seen.filter((s) => s.method === 'POST' && !s.path.endsWith('/schema'));
  expect(writes.map((s) => s.path.replace('/api/public', ''))).toEqual([
    '/catalogs/:id/activities',
    '/activities/:id/staged-changes/append',
    '/activities/:id/staged-changes/append',
    '/activities/:id/staged-changes/append',
    '/activities/:id/staged-changes/append',
    '/activities/:id/staged-changes/append',
    '/activities/:id/pending-review',
    '/activities/:id/pending-review',
  ]);
  const keys = writes.filter((s) => s.path.endsWith('/append')).map((s) => s.batch_key);
  expect(keys[0]).toBe(keys[1]);
  expect(keys[2]).toBe(keys[3]);
  expect(new Set(keys).size).toBe(3);
});

test("nothing to stage: shell and pending-review only; the shell carries the later release's input_data", async () => {
  const catalogId = await createTestCatalog(org.organizationId, { schema_definition: SCHEMA });
  const out = await createTransform(api(), settings(), {
    catalog_id: catalogId,
    activity_message: 'no changes',
    staged_changes: [],
    rules: { allow_row_deletes: true, max_change_ratio_warning: 0.2 },
    schema_changes: { fields_to_add: [{ field_name: 'color', field_type: 'string' }] },
    taxonomy_changes: { nodes: {} },
    attachments: [{ name: 'notes.md' }],
    session_context: { agent: 'test' },
    activity_context: { ticket: 'T-1' },
    base_snapshot_id: 'snap-1',
  });
  expect(out).toMatchObject({ staged_count: 0, batches: 0 });
  const stored = await knex('review_activities').where('id', out.activity_id!).first('input_data');
  expect(stored.input_data).toEqual({
    description: 'no changes',
    schema_changes: { fields_to_add: [{ field_name: 'color', field_type: 'string' }] },
    taxonomy_changes: { nodes: {} },
    activity_context: { ticket: 'T-1', attachments: [{ name: 'notes.md' }], session_context: { agent: 'test' }, base_snapshot_id: 'snap-1' },
  });
  expect(seen.filter((s) => s.method === 'POST').map((s) => s.path.split('/').pop())).toEqual(['activities', 'pending-review']);
});

describe('bundle validation reports every error', () => {
  let catalogId: string;
  beforeAll(async () => {
    catalogId = await createTestCatalog(org.organizationId, { schema_definition: SCHEMA });
    await seedItems(knex, org.organizationId, catalogId, [{ sku: 'A', title: 'a', price: 1 }]);
  });
  const run = (more: Partial<ValidateInput>) =>
    validateBundle(api(), dir, { catalog_id: catalogId, rules: { allow_row_deletes: true, max_change_ratio_warning: 0.2 }, ...more });
  const codes = (r: { errors: Array<{ code: string }> }) => r.errors.map((e) => e.code).sort();
  const write = (name: string, text: string) => (fs.writeFileSync(path.join(dir, name), text), name);

  test('paths: outside the workspace, missing, wrong extension', async () => {
    expect(codes(await run({ before_path: '/etc/passwd' }))).toEqual(['INVALID_PATH']);
    expect(codes(await run({ after_path: 'missing.csv' }))).toEqual(['FILE_NOT_READABLE']);
    const r = await run({ after_path: write('x.xlsx', 'x') });
    expect(r.errors[0]).toMatchObject({ code: 'INVALID_FORMAT', fix_hint: expect.stringContaining('.csv') });
  });

  test('datasets: missing system column, duplicate keys (error) and null keys (warning)', async () => {
    expect(codes(await run({ after_path: write('a.csv', 'sku,title\nA,a\n') }))).toEqual(['MISSING_SYSTEM_COLUMN']);
    const r = await run({ after_path: write('b.csv', '__catalog_item_id,sku,title\n1,A,a\n1,B,b\n,C,c\n') });
    expect(codes(r)).toEqual(['DUPLICATE_KEY']);
    expect(r.warnings.map((w) => w.code)).toContain('NULL_KEYS');
    expect(r.computed.after_key_diagnostics).toEqual({ duplicate_keys: 1, null_keys: 1, rows: 3 });
  });

  test('staged changes: schema (type, enum, required), unknown columns, count mismatch, blocked deletes, invalid entries', async () => {
    const staged = [
      { catalog_item_id: 'x1', before_data: { sku: 'A', title: 'a' }, after_data: { sku: 'A', title: 'a', price: 'ten' } },
      { catalog_item_id: null, is_new_item: true, after_data: { sku: 'N', color: 'green', weight: 3 } },
      { catalog_item_id: 'x2', before_data: { sku: 'B', title: 'b' }, after_data: {}, is_delete: true },
      'not a change',
    ];
    const r = await run({
      staged_changes: staged,
      diff_summary: { rows_added: 1, rows_removed: 0, rows_modified: 1, rows_before: 1 },
      rules: { allow_row_deletes: false, max_change_ratio_warning: 0.2 },
    });
    expect(codes(r)).toEqual([
      'COUNT_MISMATCH',
      'INVALID_ENUM_VALUE',
      'INVALID_STAGED_CHANGE',
      'MISSING_REQUIRED_FIELD',
      'ROW_DELETES_BLOCKED',
      'TYPE_MISMATCH',
      'UNKNOWN_COLUMN',
    ]);
    expect(r.errors.find((e) => e.code === 'TYPE_MISMATCH')).toMatchObject({ field: 'price', row_index: 0 });
    expect(r.errors.find((e) => e.code === 'MISSING_REQUIRED_FIELD')).toMatchObject({ field: 'title', row_index: 1 });
    expect(r.errors.find((e) => e.code === 'UNKNOWN_COLUMN')).toMatchObject({ field: 'weight' });
    expect(r.warnings.map((w) => w.code)).toContain('LARGE_CHANGESET');
    expect(r.computed.staged_summary).toEqual({ total: 4, rows_added: 1, rows_removed: 1, rows_modified: 1 });
    expect(r.valid).toBe(false);
  });

  test('a valid bundle: no errors; numbers as CSV text are accepted for number fields', async () => {
    const r = await run({
      staged_changes: [{ catalog_item_id: 'x1', before_data: { sku: 'A', title: 'a', price: 1 }, after_data: { sku: 'A', title: 'a', price: '2.5' } }],
      diff_summary: { rows_added: 0, rows_removed: 0, rows_modified: 1 },
    });
    expect(r).toMatchObject({ valid: true, errors: [] });
  });
});
