/**
 * The import page of the console in a real browser, against the real import API,
 * the Temporal import workflow (test worker) and PostgreSQL: a CSV with a bad line is uploaded;
 * its columns come back as infer-schema reads them, mapped by name (SKU → sku) and edited on the
 * page (Product Title → title); the dry run reports the bad line's error and writes nothing; the
 * import runs, its report shows the same line failed, and the items it wrote read back through
 * the API. The `create` mode refuses lines whose item exists, `update` those without one. The import is listed on the jobs
 * page, whose row opens its report here; another organization's import page is a 403. axe-core
 * finds no serious or critical violation.
 */
import http from 'node:http';
import request from 'supertest';
import { newId } from '../../src/lib/ids';
import { createTestCatalog } from '../helpers/catalogs';
import { createTestOrg, testKnex } from '../helpers/db';
import { fakeEngine, testApiFor } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';
import { shotAndCheck } from './chromium';
import { useBrowserSession } from './dashboard-server';

const TASK_QUEUE = 'test-browser-import';
const SCHEMA = {
  type: 'object',
  properties: { sku: { type: 'string' }, title: { type: 'string' }, price: { type: 'number' } },
  required: ['sku', 'title'],
};
/** Line 2 updates A-1, line 3 creates B-2, line 4 has a price that is not a number. */
const CSV = 'SKU,Product Title,price\nA-1,Desk lamp (brass),39.5\nB-2,Floor lamp,120\nC-3,Wall lamp,cheap\n';

describe('import page in Chromium', () => {
  let app: http.RequestListener;
  let org: Awaited<ReturnType<typeof createTestOrg>>;
  let catalogId: string;
  let importId: string;

  const ui = useBrowserSession({
    worker: { taskQueue: TASK_QUEUE, engine: fakeEngine() },
    async setUp({ env }) {
      org = await createTestOrg('import page org');
      catalogId = await createTestCatalog(org.organizationId, { strict_mode: true, schema_definition: SCHEMA });
      await testKnex()('catalog_items').insert({
        id: newId(),
        catalog_id: catalogId,
        business_key: 'A-1',
        data: JSON.stringify({ sku: 'A-1', title: 'Desk lamp', price: 35 }),
        current_version: 1,
      });
      await testKnex()('catalogs').where({ id: catalogId }).update({ item_count: 1 });
      app = testApiFor(env, TASK_QUEUE);
      return app;
    },
    timeoutMs: 180_000,
  });

  const items = async () =>
    (await testKnex()('catalog_items').where({ catalog_id: catalogId }).orderBy('business_key').select('data')).map((r: { data: unknown }) => r.data);
  const reportDone = (dryRun: boolean) => ui.page.waitForSelector(`#report-status[data-status="completed"][data-dry-run="${dryRun}"]`, { timeout: 60_000 });
  const failedLines = () =>
    ui.page.$$eval('#report-lines tr[data-line]', (els) => els.map((e) => ({ line: e.getAttribute('data-line'), text: e.children[1]?.textContent ?? '' })));
  const counts = () => ui.page.$$eval('#report-counts td', (els) => els.map((e) => e.textContent));

  test('upload → mapping proposed and edited → dry run shows the bad line and writes nothing', async () => {
    const { page } = ui;
    await ui.signIn(org.apiKey, `/dashboard/login?next=/dashboard/catalogs/${catalogId}/import`);
    expect(new URL(page.url()).pathname).toBe(`/dashboard/catalogs/${catalogId}/import`);
    await page.setInputFiles('#import-file', { name: 'lamps.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
    await page.click('#import-file-form button[type=submit]');
    await page.waitForSelector('#mapping-section:not([hidden])');
    expect(await page.textContent('#file-message')).toContain('3 column(s), 3 line(s) read from lamps.csv');
    // Proposed: SKU → sku (same name but for case), price → price; Product Title has no field of its name.
    const selected = () =>
      page.$$eval('#mapping-rows select', (els) => els.map((e) => [e.getAttribute('data-column'), (e as unknown as { value: string }).value]));
    expect(await selected()).toEqual([
      ['SKU', 'sku'],
      ['Product Title', 'Product Title'],
      ['price', 'price'],
    ]);
    await page.selectOption('#mapping-rows select[data-column="Product Title"]', 'title');
    await shotAndCheck(page, 'import-mapping.png');
    await page.click('#dry-run-button');
    await reportDone(true);
    expect(await counts()).toEqual(['3', '3', '1', '1', '0', '1']);
    const failed = await failedLines();
    expect(failed).toHaveLength(1);
    expect(failed[0].line).toBe('4');
    expect(failed[0].text).toMatch(/price/);
    expect(await page.textContent('#report-status')).toContain('nothing was written');
    // Nothing was written.
    expect(await items()).toEqual([{ sku: 'A-1', title: 'Desk lamp', price: 35 }]);
    expect(await page.isEnabled('#run-button')).toBe(true);
    await shotAndCheck(page, 'import-dry-run.png');
  });

  test('the import runs; its report shows the bad line; the items read back through the API', async () => {
    const { page } = ui;
    await page.click('#run-button');
    await reportDone(false);
    importId = new URL(page.url()).searchParams.get('import_id')!;
    expect(importId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await counts()).toEqual(['3', '3', '1', '1', '0', '1']);
    expect((await failedLines()).map((l) => l.line)).toEqual(['4']);
    await shotAndCheck(page, 'import-report.png');
    const res = await request(app).get(`/api/public/catalogs/${catalogId}/items`).set(org.auth);
    expect(res.status).toBe(200);
    const byKey = Object.fromEntries((res.body.items as Array<{ data: Record<string, unknown> }>).map((i) => [i.data.sku, i.data]));
    expect(byKey).toEqual({
      'A-1': { sku: 'A-1', title: 'Desk lamp (brass)', price: 39.5 },
      'B-2': { sku: 'B-2', title: 'Floor lamp', price: 120 },
    });
    // The per-line report the page links to (CSV) says the same.
    const csv = await page.evaluate(async (u) => (await fetch(u)).text(), (await page.getAttribute('#report-links a[download]', 'href'))!);
    expect(csv.split('\n')[3]).toMatch(/^4,failed,,.*price/);
  });

  test('mode "create" refuses the line whose item exists (dry run through the API)', async () => {
    const res = await request(app)
      .post(`/api/public/catalogs/${catalogId}/items/import`)
      .set(org.auth)
      .field('mapping', JSON.stringify({ SKU: 'sku', 'Product Title': 'title' }))
      .field('mode', 'create')
      .field('dry_run', 'true')
      .attach('file', Buffer.from('SKU,Product Title\nA-1,Desk lamp\nD-4,Reading lamp\n'), 'more.csv');
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ dry_run: true, mode: 'create' });
    const done = await waitUntil(async () => {
      const r = await request(app).get(`/api/public/catalogs/${catalogId}/items/import/${res.body.import_id}`).set(org.auth);
      return r.body.status === 'running' ? null : r.body;
    }, 'the dry run');
    expect(done).toMatchObject({ status: 'completed', created: 1, failed: 1 });
    const lines = await request(app).get(`/api/public/catalogs/${catalogId}/items/import/${res.body.import_id}/lines`).set(org.auth);
    expect(lines.body.lines.map((l: { line: number; status: string }) => [l.line, l.status])).toEqual([
      [2, 'failed'],
      [3, 'created'],
    ]);
    expect(lines.body.lines[0].errors[0].msg).toMatch(/exists already/);
    expect((await testKnex()('catalog_items').where({ catalog_id: catalogId, business_key: 'D-4' })).length).toBe(0);
  });

  test('mode "update" writes the existing item and refuses the new one', async () => {
    const res = await request(app)
      .post(`/api/public/catalogs/${catalogId}/items/import`)
      .set(org.auth)
      .field('mapping', JSON.stringify({ SKU: 'sku', 'Product Title': 'title' }))
      .field('mode', 'update')
      .attach('file', Buffer.from('SKU,Product Title\nB-2,Floor lamp (oak)\nE-5,Pendant lamp\n'), 'update.csv');
    expect(res.status).toBe(202);
    const done = await waitUntil(async () => {
      const r = await request(app).get(`/api/public/catalogs/${catalogId}/items/import/${res.body.import_id}`).set(org.auth);
      return r.body.status === 'running' ? null : r.body;
    }, 'the import');
    expect(done).toMatchObject({ status: 'completed', dry_run: false, mode: 'update', updated: 1, created: 0, failed: 1 });
    expect(await items()).toEqual([
      { sku: 'A-1', title: 'Desk lamp (brass)', price: 39.5 },
      { sku: 'B-2', title: 'Floor lamp (oak)', price: 120 },
    ]);
  });

  test("the jobs page lists the import and opens its report; another organization's import page is a 403", async () => {
    const { page, base } = ui;
    await page.goto(`${base}/dashboard/jobs?kind=import`);
    const row = `table.operations tr[data-kind="import"][data-id="${importId}"]`;
    expect(await page.getAttribute(row, 'data-status')).toBe('completed');
    await Promise.all([page.waitForNavigation(), page.click(`${row} td:first-child a`)]);
    expect(page.url()).toBe(`${base}/dashboard/catalogs/${catalogId}/import?import_id=${importId}`);
    await reportDone(false);
    expect((await failedLines()).map((l) => l.line)).toEqual(['4']);
    const other = await createTestOrg('import page other org');
    const otherCatalog = await createTestCatalog(other.organizationId);
    const res = await page.goto(`${base}/dashboard/catalogs/${otherCatalog}/import`);
    expect(res?.status()).toBe(403);
  });
});
