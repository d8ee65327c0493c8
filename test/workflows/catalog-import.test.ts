/**
 * Spreadsheet import through the HTTP route, the real Temporal dev server
 * (catalogImportWorkflow and its activities) and PostgreSQL: the round trip export → import into
 * an empty catalog reproduces every item exactly (CSV and XLSX, products and variants, arrays
 * and objects); legacy .xls; a re-import of equal lines writes nothing, a changed one updates; bad lines fail alone with their errors in the per-line
 * report (JSON and CSV); the `progress` query; a mapping; 404/403/422; cancel:
 * nothing written after it, the lines not reached stay pending, the workflow closes cancelled; an
 * import acts with its starter's current role (a person demoted before it ran stops it, not retried).
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Knex } from 'knex';
import request from 'supertest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { newId } from '../../src/lib/ids';
import { catalogImportWorkflowId, CHURN_MAINTENANCE_ID } from '../../src/contracts/workflows';
import { importProgressQuery } from '../../workflows/definitions';
import { createCatalogCaches } from '../../src/services/catalog/catalog-caches';
import { importBatch } from '../../src/services/sheets/import';
import { createApiKey } from '../../src/services/access/api-keys';
import { createPerson } from '../../src/services/access/people';
import { createTestCatalog, SHEET_SCHEMA } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { idempotentIdOf, loseAnswer } from '../helpers/idempotency';
import { fakeEngine, RunningTestWorker, runTestWorker, startTestTemporal, testApiFor } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';
import { xlsBuffer } from '../helpers/xls';
import { bufferBody } from '../helpers/wire';

const TASK_QUEUE = 'test-catalog-import';
const schema = SHEET_SCHEMA;

let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let knex: Knex;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;

beforeAll(async () => {
  knex = testKnex();
  org = await createTestOrg('import tests');
  other = await createTestOrg('import tests, other org');
  env = await startTestTemporal();
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex, engine: fakeEngine() });
  app = testApiFor(env, TASK_QUEUE);
});

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
});

const grouped = () =>
  createTestCatalog(org.organizationId, { product_id_field: 'product_id', product_enabled: true, strict_mode: true, schema_definition: schema });

/** Items of a catalog as {entity_type, parent's product_id, data}, sorted, for comparison. */
async function snapshot(catalog: string): Promise<Array<{ entity_type: string; parent: string | null; data: Record<string, unknown> }>> {
  const rows = await knex('catalog_items as i')
    .leftJoin('catalog_items as p', 'p.id', 'i.parent_id')
    .where('i.catalog_id', catalog)
    .select('i.entity_type', 'i.data', knex.raw(`p.data->>'product_id' AS parent`));
  return rows
    .map((r: { entity_type: string; data: Record<string, unknown>; parent: string | null }) => ({ entity_type: r.entity_type, parent: r.parent, data: r.data }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

async function importFile(catalog: string, file: Buffer, name: string, mapping?: Record<string, string>): Promise<request.Response> {
  let r = request(app).post(`/api/public/catalogs/${catalog}/items/import`).set(org.auth).attach('file', file, name);
  if (mapping) r = r.field('mapping', JSON.stringify(mapping));
  return r;
}

async function finished(catalog: string, importId: string): Promise<Record<string, unknown>> {
  return waitUntil(async () => {
    const res = await request(app).get(`/api/public/catalogs/${catalog}/items/import/${importId}`).set(org.auth);
    return res.body.status === 'running' ? null : (res.body as Record<string, unknown>);
  }, `import ${importId}`);
}

describe('POST …/items/import', () => {
  it.each(['csv', 'xlsx'] as const)('round trip: export (%s) → import into an empty catalog reproduces every item', async (format) => {
    const source = await grouped();
    const rows: Array<Record<string, unknown>> = [];
    for (let p = 0; p < 3; p++) {
      const pid = newId();
      rows.push({ id: pid, catalog_id: source, entity_type: 'product', data: JSON.stringify({ product_id: `P${p}`, product_name: `Shirt, "${p}"\nline 2` }) });
      for (let v = 0; v < 3; v++) {
        const data = {
          sku: `S-${p}-${v}`,
          product_id: `P${p}`,
          title: `Größe ${v}`,
          price: 19.99 + v,
          stock: v,
          active: v === 1,
          tags: ['a', `t${v}`],
          dims: { w: 1.5, u: 'cm' },
        };
        rows.push({ id: newId(), catalog_id: source, entity_type: 'variant', parent_id: pid, business_key: data.sku, data: JSON.stringify(data) });
      }
    }
    await knex('catalog_items').insert(rows);
    const exported = await request(app).get(`/api/public/catalogs/${source}/items/export?format=${format}`).set(org.auth).buffer(true).parse(bufferBody);
    expect(exported.status).toBe(200);

    const target = await grouped();
    const res = await importFile(target, exported.body as Buffer, `export.${format}`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'running', total_lines: 12 });
    const done = await finished(target, res.body.import_id);
    expect(done).toMatchObject({ status: 'completed', created: 12, updated: 0, failed: 0, processed_lines: 12 });
    expect(await snapshot(target)).toEqual(await snapshot(source));

    const progress = await env.client.workflow.getHandle(catalogImportWorkflowId(res.body.import_id)).query(importProgressQuery);
    expect(progress).toMatchObject({ phase: 'completed', counters: { created: 12, updated: 0, failed: 0 } });
  });

  it.each(['csv', 'xlsx'] as const)(
    'export (%s) → import into the same catalog: lists and booleans read back, typed or not; equal lines write nothing (no version bump)',
    async (format) => {
      const catalog = await createTestCatalog(org.organizationId, { schema_definition: schema });
      const items = [
        { sku: 'R-1', title: 'Chair', price: 12.5, active: true, tags: ['oak', 'red, dark'], clearance: false, labels: ['new', 'eco'], note: 'plain' },
        { sku: 'R-2', title: 'Table', price: 99, active: false, tags: [], clearance: true, labels: ['x'], dims: { w: 1.5 } },
      ];
      const bulk = await request(app).post(`/api/public/catalogs/${catalog}/items/bulk`).set(org.auth).send({ items });
      expect(bulk.body).toMatchObject({ items_created: 2, items_failed: 0 });
      const before = await snapshot(catalog);
      const exported = await request(app).get(`/api/public/catalogs/${catalog}/items/export?format=${format}`).set(org.auth).buffer(true).parse(bufferBody);
      expect(exported.status).toBe(200);
      expect((exported.body as Buffer).subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false);

      const again = await importFile(catalog, exported.body as Buffer, `export.${format}`);
      expect(again.status).toBe(202);
      expect(await finished(catalog, again.body.import_id)).toMatchObject({
        status: 'completed',
        created: 0,
        updated: 0,
        unchanged: 2,
        failed: 0,
        processed_lines: 2,
      });
      const lines = await request(app).get(`/api/public/catalogs/${catalog}/items/import/${again.body.import_id}/lines`).set(org.auth);
      expect(lines.body.lines.map((l: { status: string }) => l.status)).toEqual(['unchanged', 'unchanged']);
      expect(await snapshot(catalog)).toEqual(before);
      const versions = await knex('catalog_items').where({ catalog_id: catalog }).pluck('current_version');
      expect(versions).toEqual([1, 1]);

      // A changed line still updates (one version up); the equal one still writes nothing.
      const edited = Buffer.from('sku,title,clearance\nR-1,Armchair,false\nR-2,Table,true\n');
      const edit = await importFile(catalog, edited, 'edited.csv');
      expect(await finished(catalog, edit.body.import_id)).toMatchObject({ created: 0, updated: 1, unchanged: 1 });
      const r1 = await knex('catalog_items').where({ catalog_id: catalog, business_key: 'R-1' }).first();
      expect(r1).toMatchObject({ current_version: 2, data: { ...items[0], title: 'Armchair' } });
    },
  );

  it('imports a legacy Excel 97-2003 .xls (spec: "CSV .csv or Excel .xlsx/.xls")', async () => {
    const catalog = await createTestCatalog(org.organizationId, { schema_definition: schema });
    const xls = xlsBuffer([
      ['sku', 'title', 'price', 'stock', 'active', 'tags'],
      ['X-1', 'Größe 1', 12.5, 3, true, '["a","b"]'],
      ['X-2', 'Table', 99, 0, false, ''],
    ]);
    const res = await importFile(catalog, xls, 'legacy.xls');
    expect(res.status).toBe(202);
    expect(await finished(catalog, res.body.import_id)).toMatchObject({ status: 'completed', created: 2, failed: 0 });
    expect((await snapshot(catalog)).map((i) => i.data)).toEqual([
      { sku: 'X-1', title: 'Größe 1', price: 12.5, stock: 3, active: true, tags: ['a', 'b'] },
      { sku: 'X-2', title: 'Table', price: 99, stock: 0, active: false },
    ]);
  });

  it('a bad line fails alone, with its errors in the per-line report; a re-import updates; a mapping renames columns', async () => {
    const catalog = await grouped();
    const csv = Buffer.from('SKU,title,price\nA-1,Chair,12.5\nA-2,Table,not a number\nA-3,Stool,3\n');
    const res = await importFile(catalog, csv, 'items.csv', { SKU: 'sku' });
    expect(res.status).toBe(202);
    const done = await finished(catalog, res.body.import_id);
    expect(done).toMatchObject({ status: 'completed', created: 2, failed: 1 });
    // Absolute, on the review_url's base.
    expect(res.body.lines_url).toBe(`${loadConfig().publicUrl}/api/public/catalogs/${catalog}/items/import/${res.body.import_id}/lines`);
    const lines = await request(app).get(`/api/public/catalogs/${catalog}/items/import/${res.body.import_id}/lines`).set(org.auth);
    expect(lines.status).toBe(200);
    expect(lines.body.lines.map((l: { line: number; status: string }) => [l.line, l.status])).toEqual([
      [2, 'created'],
      [3, 'failed'],
      [4, 'created'],
    ]);
    expect(lines.body.lines[1].errors[0].msg).toBeTruthy();
    const report = await request(app).get(`/api/public/catalogs/${catalog}/items/import/${res.body.import_id}/lines?format=csv`).set(org.auth);
    expect(report.status).toBe(200);
    expect(report.text.split('\n')[0]).toBe('line,status,item_id,errors');
    expect(report.text.split('\n')).toHaveLength(5);

    const again = await importFile(catalog, Buffer.from('SKU,title\nA-1,Armchair\n'), 'again.csv', { SKU: 'sku' });
    expect(await finished(catalog, again.body.import_id)).toMatchObject({ status: 'completed', created: 0, updated: 1 });
    const item = await knex('catalog_items').where({ catalog_id: catalog, business_key: 'A-1' }).first();
    expect(item.data).toEqual({ sku: 'A-1', title: 'Armchair', price: 12.5 });
  });

  it('a retry whose first attempt staged the import and died before its answer was stored starts and answers that import, staging nothing again', async () => {
    const catalog = await createTestCatalog(org.organizationId, { schema_definition: schema });
    const file = Buffer.from('sku,title\nK-1,Lamp\nK-2,Desk\n');
    const send = () =>
      request(app).post(`/api/public/catalogs/${catalog}/items/import`).set(org.auth).set('Idempotency-Key', 'import-crash-1').attach('file', file, 'k.csv');
    const first = await send();
    expect(first.status).toBe(202);
    expect(first.body.import_id).toBe(await idempotentIdOf(knex, org.organizationId, 'import-crash-1'));
    expect(await finished(catalog, first.body.import_id)).toMatchObject({ created: 2, failed: 0 });
    // The process died after staging and starting, before the answer was stored.
    await loseAnswer(knex, org.organizationId, 'import-crash-1');
    const retry = await send();
    expect(retry.status).toBe(202);
    expect(retry.body.import_id).toBe(first.body.import_id);
    expect(await knex('catalog_imports').where({ catalog_id: catalog }).count({ n: '*' })).toEqual([{ n: '1' }]);
    expect(await knex('catalog_import_lines').where({ import_id: first.body.import_id }).count({ n: '*' })).toEqual([{ n: '2' }]);
    expect(await finished(catalog, retry.body.import_id)).toMatchObject({ created: 2, failed: 0 });
    expect(await knex('catalog_items').where({ catalog_id: catalog }).pluck('current_version')).toEqual([1, 1]);
  });

  it('answers 404, 403 and 422', async () => {
    const catalog = await grouped();
    const csv = Buffer.from('sku\nX\n');
    expect((await request(app).post(`/api/public/catalogs/${newId()}/items/import`).set(org.auth).attach('file', csv, 'a.csv')).status).toBe(404);
    expect((await request(app).post(`/api/public/catalogs/${catalog}/items/import`).set(other.auth).attach('file', csv, 'a.csv')).status).toBe(403);
    expect((await importFile(catalog, csv, 'a.csv', { nope: 'x' })).status).toBe(422);
    expect((await importFile(catalog, Buffer.from('sku\n'), 'a.csv')).status).toBe(422);
    expect((await request(app).get(`/api/public/catalogs/${catalog}/items/import/${newId()}`).set(org.auth)).status).toBe(404);
  });

  it('cancel: the import stops, writes nothing more, keeps its lines pending and its workflow closes cancelled', async () => {
    const catalog = await grouped();
    // Started on a task queue no worker polls yet: the import is certainly running when cancelled.
    const idleQueue = `${TASK_QUEUE}-idle`;
    const idleApp = testApiFor(env, idleQueue);
    const csv = Buffer.from('product_id,product_name\nP1,One\nP2,Two\nP3,Three\n');
    const started = await request(idleApp).post(`/api/public/catalogs/${catalog}/items/import`).set(org.auth).attach('file', csv, 'three.csv');
    expect(started.status).toBe(202);
    const id = started.body.import_id as string;
    const cancel = (who = org.auth, imp = id) => request(idleApp).post(`/api/public/catalogs/${catalog}/items/import/${imp}/cancel`).set(who);
    expect((await cancel(other.auth)).status).toBe(403);
    expect((await cancel(org.auth, newId())).status).toBe(404);
    const res = await cancel();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ import_id: id, status: 'cancelled', created: 0, updated: 0, failed: 0 });
    // Asked again: the same answer (idempotent).
    expect((await cancel()).body.status).toBe('cancelled');
    // A batch that starts after the cancel writes nothing.
    expect(await importBatch(knex, createCatalogCaches(), id, 0)).toMatchObject({ done: true, created: 0, updated: 0, failed: 0 });
    // A worker for the queue picks the workflow up: it records nothing more and closes cancelled.
    const late = await runTestWorker(env, { taskQueue: idleQueue, knex, engine: fakeEngine() });
    try {
      await waitUntil(
        async () => ((await env.client.workflow.getHandle(catalogImportWorkflowId(id)).describe()).status.name === 'CANCELLED' ? true : null),
        'the import workflow cancelled',
      );
    } finally {
      await late.stop();
    }
    expect(await knex('catalog_items').where({ catalog_id: catalog }).count({ n: '*' })).toEqual([{ n: '0' }]);
    const lines = await request(app).get(`/api/public/catalogs/${catalog}/items/import/${id}/lines?format=json`).set(org.auth);
    expect(lines.body.lines.map((l: { status: string }) => l.status)).toEqual(['pending', 'pending', 'pending']);
    expect((await request(app).get(`/api/public/catalogs/${catalog}/items/import/${id}`).set(org.auth)).body.status).toBe('cancelled');
    // A finished import cannot be cancelled.
    const done = await importFile(catalog, csv, 'three.csv');
    await finished(catalog, done.body.import_id);
    const refused = await request(app).post(`/api/public/catalogs/${catalog}/items/import/${done.body.import_id}/cancel`).set(org.auth);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/already completed/);
  });

  it("acts with its starter's current role: a person demoted to editor before it ran stops it, saying why, and nothing is written", async () => {
    const catalog = await grouped();
    const person = await createPerson(knex, org.organizationId, { email: `importer-${newId()}@example.com`, name: 'Importer', role: 'reviewer' });
    const { apiKey } = await createApiKey(knex, org.organizationId, 'importer tool server', person.id);
    const asPerson = { Authorization: `Bearer ${apiKey}`, 'X-Organization-Id': org.organizationId };
    const csv = Buffer.from('product_id,product_name\nP1,One\nP2,Two\n');
    // A reviewer's import runs and writes.
    const ran = await request(app).post(`/api/public/catalogs/${catalog}/items/import`).set(asPerson).attach('file', csv, 'two.csv');
    expect(ran.status).toBe(202);
    expect(await finished(catalog, ran.body.import_id)).toMatchObject({ status: 'completed', created: 2 });
    // Started on a queue no worker polls yet, then the person is demoted before any batch runs.
    const other = await grouped();
    const idleQueue = `${TASK_QUEUE}-demoted`;
    const started = await request(testApiFor(env, idleQueue)).post(`/api/public/catalogs/${other}/items/import`).set(asPerson).attach('file', csv, 'two.csv');
    expect(started.status).toBe(202);
    await knex('people').where({ id: person.id }).update({ role: 'editor' });
    const late = await runTestWorker(env, { taskQueue: idleQueue, knex, engine: fakeEngine() });
    let stopped: Record<string, unknown>;
    try {
      stopped = await finished(other, started.body.import_id);
    } finally {
      await late.stop();
    }
    expect(stopped).toMatchObject({ status: 'failed', created: 0, updated: 0 });
    expect(JSON.stringify(stopped)).toContain('Your role is editor: only a reviewer or above may');
    expect(await knex('catalog_items').where({ catalog_id: other }).count({ n: '*' })).toEqual([{ n: '0' }]);
    // One attempt, not twenty: the failure is not retried.
    const history = await env.client.workflow.getHandle(catalogImportWorkflowId(started.body.import_id)).fetchHistory();
    const failed = (history.events ?? []).find((e) => e.activityTaskFailedEventAttributes);
    expect(failed?.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type).toBe('ImportNotPermitted');
    expect((history.events ?? []).filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes?.attempt)).not.toContain(
      2,
    );
  });

  it('an import that wrote a large share of the catalog starts the search index maintenance itself (churn)', async () => {
    const catalog = await createTestCatalog(org.organizationId);
    const lines = Array.from({ length: 1200 }, (_, i) => `C-${i},Churn ${i},${i % 50}`);
    const res = await importFile(catalog, Buffer.from(['sku,title,price', ...lines].join('\n')), 'churn.csv');
    expect(res.status).toBe(202);
    expect(await finished(catalog, res.body.import_id)).toMatchObject({ status: 'completed', created: 1200, failed: 0 });
    const handle = env.client.workflow.getHandle(catalogImportWorkflowId(res.body.import_id));
    await handle.result(); // the import's status is recorded before the workflow's last step
    const children = (await handle.fetchHistory())
      .events!.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)
      .map((e) => e.startChildWorkflowExecutionInitiatedEventAttributes!.workflowId);
    expect(children).toEqual([CHURN_MAINTENANCE_ID]);
    expect(await env.client.workflow.getHandle(CHURN_MAINTENANCE_ID).result()).toHaveLength(2);
  }, 120_000);
});
