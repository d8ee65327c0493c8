/**
 * The console's home page in a real browser: per catalog the item count,
 * completeness (share of the items with every required field filled, as the completeness page counts) and pending reviews;
 * the last operations (an enrichment job, an import, an apply, a restore, an export) with status and error
 * counts; the credits used this month. Every number is checked against the data the test made
 * (and the item counts against the API), and every number links where the URL conventions say.
 * Completeness is filled in by the page script after the page is shown.
 * axe-core finds no serious or critical violation.
 */
import request from 'supertest';
import { newId } from '../../src/lib/ids';
import { testApp } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { createTestOrg, testKnex } from '../helpers/db';
import { shotAndCheck } from './chromium';
import { useBrowserSession } from './dashboard-server';

/** Catalog A's items: 3 required fields each; only the first has all three (1 of 4 complete: 25 %). */
const ITEMS_A = [
  { sku: 'A-1', title: 'Desk lamp', brand: 'Lumi' },
  { sku: 'A-2', title: 'Floor lamp' },
  { sku: 'A-3', title: 'Wall lamp', brand: '  ' },
  { sku: 'A-4', title: null, brand: [] },
];

describe('home page in Chromium', () => {
  const app = testApp().callback();
  let org: Awaited<ReturnType<typeof createTestOrg>>;
  let catalogA: string;
  let catalogB: string;
  const ids: Record<string, string> = {};

  const ui = useBrowserSession({
    async setUp() {
      const knex = testKnex();
      org = await createTestOrg('home page org');
      catalogA = await createTestCatalog(org.organizationId, {
        schema_definition: {
          type: 'object',
          properties: { sku: { type: 'string' }, title: { type: 'string' }, brand: { type: 'string' } },
          required: ['sku', 'title', 'brand'],
        },
      });
      catalogB = await createTestCatalog(org.organizationId);
      await knex('catalogs').where({ id: catalogA }).update({ name: 'Lamps <b>&</b> lights' });
      for (const data of ITEMS_A)
        await knex('catalog_items').insert({ id: newId(), catalog_id: catalogA, business_key: data.sku, data: JSON.stringify(data), current_version: 1 });
      await knex('catalog_items').insert({ id: newId(), catalog_id: catalogB, business_key: 'B-1', data: JSON.stringify({ sku: 'B-1' }), current_version: 1 });
      await knex('catalogs').where({ id: catalogA }).update({ item_count: ITEMS_A.length });
      await knex('catalogs').where({ id: catalogB }).update({ item_count: 1 });

      // Reviews: 2 pending changes in an open activity count; a cancelled activity's pending one and an approved one do not.
      const activity = async (status: string, extra: Record<string, unknown> = {}) => {
        const id = (extra.id as string | undefined) ?? newId();
        await knex('review_activities').insert({ id, organization_id: org.organizationId, catalog_id: catalogA, type: 'custom_transform', status, ...extra });
        return id;
      };
      const change = async (activityId: string, status: string, row: number) =>
        knex('staged_changes').insert({
          id: newId(),
          activity_id: activityId,
          organization_id: org.organizationId,
          catalog_id: catalogA,
          after_data: JSON.stringify({ sku: `N-${row}` }),
          is_new_item: true,
          row_index: row,
          status,
        });
      const open = await activity('pending_review');
      await change(open, 'pending', 0);
      await change(open, 'pending', 1);
      await change(open, 'approved', 2);
      await change(await activity('cancelled'), 'pending', 0);

      // Operations: an enrichment job this month (7 credits, 1 failed item), one last month (5 credits, not this month's),
      // an import with 2 failed lines, an apply with 1 failed change, a restore, an export.
      const job = async (credits: number, completedAt: Date) => {
        // A job's id is its review activity's (docs/api-enrichment.md "Enrichment jobs").
        const id = await activity('pending_review', { type: 'enrichment', created_at: completedAt });
        await knex('enrichment_jobs').insert({
          id,
          organization_id: org.organizationId,
          catalog_id: catalogA,
          status: 'completed',
          config: JSON.stringify({}),
          total_rows: credits + 1,
          total_items: credits + 1,
          completed_items: credits + 1,
          successful: credits,
          credits_used: credits,
          workflow_id: `enrichment-${id}`,
          created_at: completedAt,
          updated_at: completedAt,
          completed_at: completedAt,
        });
        return id;
      };
      const now = new Date();
      ids.job = await job(7, now);
      ids.oldJob = await job(5, new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) - 86_400_000));
      ids.import = newId();
      await knex('catalog_imports').insert({
        id: ids.import,
        organization_id: org.organizationId,
        catalog_id: catalogB,
        status: 'completed',
        file_name: 'more.csv',
        mapping: JSON.stringify({}),
        total_lines: 5,
        created: 3,
        failed: 2,
        actor_kind: 'api_key',
        actor_id: 'test',
        completed_at: now,
      });
      ids.apply = await activity('completed', {
        apply_progress: JSON.stringify({ phase: 'completed' }),
        apply_result: JSON.stringify({ applied: 1, failed: 1, skipped_conflicts: 0, errors: [{ row_index: 2, reason: 'item gone' }] }),
      });
      const snapshot = async (type: string, restored: string | null) => {
        const id = newId();
        await knex('catalog_snapshots').insert({
          id,
          catalog_id: catalogA,
          snapshot_type: type,
          item_count: 4,
          schema_version: '1.0.0',
          created_by: 'test',
          restored_snapshot_id: restored,
        });
        return id;
      };
      const restored = await snapshot('manual', null);
      await snapshot('safety', restored);
      // A restore as its workflow records it (snapshot_restores).
      ids.restore = newId();
      await knex('snapshot_restores').insert({
        id: ids.restore,
        organization_id: org.organizationId,
        catalog_id: catalogA,
        snapshot_id: restored,
        status: 'completed',
        requested_by_kind: 'api_key',
        requested_by_id: 'test',
        finished_at: now,
      });
      // An export through the API records itself as it ends.
      const csv = await request(app).get(`/api/public/catalogs/${catalogA}/items/export?format=csv`).set(org.auth);
      expect(csv.status).toBe(200);
      for (let i = 0; i < 100; i++) {
        const e = await knex('catalog_exports').where({ catalog_id: catalogA }).first();
        if (e && e.status !== 'running') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const exported = await knex('catalog_exports').where({ catalog_id: catalogA }).first();
      expect(exported).toMatchObject({ organization_id: org.organizationId, format: 'csv', status: 'completed', rows: ITEMS_A.length, filtered: false });
      ids.export = exported.id;

      return app;
    },
    timeoutMs: 120_000,
  });

  const cell = (catalogId: string, selector: string) => ui.page.$eval(`tr[data-catalog-id="${catalogId}"] ${selector}`, (e) => (e.textContent ?? '').trim());
  const href = (selector: string) => ui.page.getAttribute(selector, 'href');

  test('per catalog: items (as the API counts them), completeness and pending reviews, each a link', async () => {
    const { page } = ui;
    await ui.signIn(org.apiKey);
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    // The catalog name is printed as text.
    expect(await cell(catalogA, 'td:first-child a')).toBe('Lamps <b>&</b> lights');
    for (const [id, n] of [
      [catalogA, ITEMS_A.length],
      [catalogB, 1],
    ] as const) {
      const api = await request(app).get(`/api/public/catalogs/${id}/items`).set(org.auth);
      expect(api.body.items).toHaveLength(n);
      expect(await cell(id, 'a.items')).toBe(String(n));
      expect(await href(`tr[data-catalog-id="${id}"] a.items`)).toBe(`/dashboard/catalogs/${id}/items`);
      expect(await href(`tr[data-catalog-id="${id}"] a.completeness`)).toBe(`/dashboard/catalogs/${id}/completeness`);
    }
    // Completeness arrives from the page script after the page is shown.
    await page.waitForSelector(`tr[data-catalog-id="${catalogB}"] a.completeness[data-share]`);
    expect(await cell(catalogA, 'a.completeness')).toBe('25%');
    expect(await page.getAttribute(`tr[data-catalog-id="${catalogA}"] a.completeness`, 'title')).toBe(
      '1 of 4 items have every required field (schema: sku, title, brand; taxonomy nodes may require more)',
    );
    // The same figure as the catalog's completeness page (one definition of completeness).
    const report = await request(app).get(`/api/public/catalogs/${catalogA}/completeness`).set(org.auth);
    expect(report.body).toMatchObject({ total: 4, complete: 1 });
    // Catalog B's schema (the test default) requires only sku, which its one item has.
    expect(await cell(catalogB, 'a.completeness')).toBe('100%');
    expect(await cell(catalogA, 'a.pending')).toBe('2');
    expect(await cell(catalogB, 'a.pending')).toBe('0');
    expect(await href(`tr[data-catalog-id="${catalogA}"] a.pending`)).toBe(`/dashboard/catalogs/${catalogA}`);
    await shotAndCheck(page, 'home.png');
  });

  test('credits this month and the last operations with status and error counts', async () => {
    const { page } = ui;
    expect(await page.$eval('#credits-month .n', (e) => e.textContent)).toBe('7');
    expect(await href('#credits-month')).toBe('/dashboard/jobs?kind=enrichment');
    const rows = await page.$$eval('table.operations tbody tr', (els) =>
      els.map((e) => ({
        kind: e.getAttribute('data-kind'),
        id: e.getAttribute('data-id'),
        status: e.getAttribute('data-status'),
        errors: (e.querySelector('td.num')?.textContent ?? '').trim(),
        link: e.querySelector('td:first-child a')?.getAttribute('href') ?? null,
      })),
    );
    const byId = Object.fromEntries(rows.map((r) => [`${r.kind}:${r.id}`, r]));
    expect(rows).toHaveLength(6);
    expect(byId[`enrichment:${ids.job}`]).toEqual({
      kind: 'enrichment',
      id: ids.job,
      status: 'completed',
      errors: '1',
      link: `/dashboard/catalogs/${catalogA}/activities/${ids.job}`,
    });
    expect(byId[`enrichment:${ids.oldJob}`].status).toBe('completed');
    expect(byId[`import:${ids.import}`]).toMatchObject({
      status: 'completed',
      errors: '2',
      link: `/dashboard/catalogs/${catalogB}/import?import_id=${ids.import}`,
    });
    expect(byId[`apply:${ids.apply}`]).toMatchObject({ status: 'completed', errors: '1', link: `/dashboard/catalogs/${catalogA}/activities/${ids.apply}` });
    expect(byId[`restore:${ids.restore}`]).toMatchObject({
      status: 'completed',
      errors: '0',
      link: `/dashboard/catalogs/${catalogA}/snapshots/restores/${ids.restore}`,
    });
    expect(byId[`export:${ids.export}`]).toMatchObject({ status: 'completed', errors: '0', link: `/dashboard/catalogs/${catalogA}/items` });
    // Newest first: last month's job is the last row.
    expect(rows.at(-1)?.id).toBe(ids.oldJob);
    expect(await page.$eval('#ops-heading a', (e) => e.textContent)).toBe('all 6');
  });

  test('the apply error row downloads from the jobs page; another organization sees none of this', async () => {
    const csv = await ui.page.evaluate(async (u) => (await fetch(u)).text(), `/dashboard/jobs/apply/${ids.apply}/errors.csv`);
    expect(csv).toBe('row_index,message\n2,item gone\n');
    const other = await createTestOrg('home page other org');
    const login = await request(app).post('/dashboard/login').type('form').send({ credential: other.apiKey });
    const cookie = ([] as string[])
      .concat(login.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('catalog_dashboard_session='))!
      .split(';')[0]!;
    const html = (await request(app).get('/dashboard').set('Cookie', cookie)).text;
    // Its session reads no completeness of this organization's catalogs.
    const completeness = await request(app).get(`/dashboard/completeness.json?catalog_id=${catalogA}`).set('Cookie', cookie);
    expect(completeness.body).toEqual({ catalogs: [] });
    expect(html).not.toContain(catalogA);
    expect(html).toContain('No catalogs in this organization.');
    expect(html).toContain('No jobs, imports, applies, restores or exports yet.');
  });
});
