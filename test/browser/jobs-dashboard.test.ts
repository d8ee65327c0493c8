/**
 * The jobs page of the console in a real browser: a real enrichment job, started
 * through the API and run through Temporal by a test worker (a fake engine that holds items so
 * the job certainly runs while the page shows it), is listed with its progress, ETA and a link
 * to its review page; Cancel (confirmed, the dialog saying what cancel keeps) cancels it through
 * the API; the filters narrow the list; a failed item's error downloads as CSV; another
 * organization's operations are not listed; a running import is cancelled from its row (the
 * dialog says what cancel keeps), a running apply says why it has no Cancel. axe-core finds no serious or critical violation.
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

const TASK_QUEUE = 'test-browser-jobs';

describe('jobs page in Chromium', () => {
  let app: http.RequestListener;
  let org: Awaited<ReturnType<typeof createTestOrg>>;
  let catalogId: string;
  let jobId: string;
  let failedJobId: string;
  /** Items after the first wait here until released (the job runs while the page is looked at). */
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));

  const engine = fakeEngine({
    holdFor: (item) => (item.name === 'held 0' || !String(item.name).startsWith('held') ? undefined : gate),
    errorFor: (item) => item.name === 'broken',
  });

  const ui = useBrowserSession({
    worker: { taskQueue: TASK_QUEUE, engine },
    async setUp({ env }) {
      org = await createTestOrg('jobs page org');
      catalogId = await createTestCatalog(org.organizationId);
      app = testApiFor(env, TASK_QUEUE, { concurrency: 1 });
      return app;
    },
    tearDown: () => release(),
    timeoutMs: 180_000,
  });

  const enrich = async (names: string[]) => {
    const res = await request(app)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({
        catalog_id: catalogId,
        async_mode: true,
        items: names.map((name, i) => ({ sku: `S-${name}-${i}`, name })),
        output_schema: [{ name: 'enriched', type: 'boolean', description: 'whether the item was enriched' }],
      });
    expect(res.status).toBe(200);
    return res.body.job_id as string;
  };
  const row = (id: string) => `table.operations tr[data-kind="enrichment"][data-id="${id}"]`;

  test('a job with a failed item finishes; its error downloads as CSV from its row', async () => {
    const { page } = ui;
    failedJobId = await enrich(['fine', 'broken']);
    await waitUntil(
      async () => (await testKnex()('enrichment_jobs').where({ id: failedJobId }).first('status')).status === 'completed',
      'the job done',
      60_000,
    );
    await ui.signIn(org.apiKey, '/dashboard/login?next=/dashboard/jobs');
    expect(new URL(page.url()).pathname).toBe('/dashboard/jobs');
    expect(await page.getAttribute(row(failedJobId), 'data-status')).toBe('completed');
    expect((await page.textContent(`${row(failedJobId)} td.num`))?.trim()).toBe('1');
    const href = await page.getAttribute(`${row(failedJobId)} a[download]`, 'href');
    expect(href).toBe(`/dashboard/jobs/enrichment/${failedJobId}/errors.csv`);
    const csv = await page.evaluate(async (u) => (await fetch(u)).text(), href!);
    expect(csv).toBe('row_index,message\n1,no source found\n');
  });

  test('a running job shows its progress and links to its review page; Cancel cancels it', async () => {
    const { page, base, dialogs } = ui;
    jobId = await enrich(['held 0', 'held 1', 'held 2', 'held 3']);
    await waitUntil(
      async () => (await testKnex()('enrichment_jobs').where({ id: jobId }).first('completed_items')).completed_items >= 1,
      'one item done',
      60_000,
    );
    await page.goto(`${base}/dashboard/jobs`);
    expect(await page.getAttribute(row(jobId), 'data-status')).toBe('running');
    expect((await page.textContent(`${row(jobId)} .progress-text`))?.trim()).toBe('1 / 4 (25%)');
    expect(await page.getAttribute(`${row(jobId)} progress`, 'value')).toBe('1');
    expect(await page.getAttribute(`${row(jobId)} td:first-child a`, 'href')).toBe(`/dashboard/catalogs/${catalogId}/activities/${jobId}`);
    // ETA from the rate so far: a duration.
    expect((await page.textContent(`${row(jobId)} td:nth-child(6)`))?.trim()).toMatch(/^\d+ (s|min \d+ s|h \d+ min)$/);
    // The finished job has no Cancel; the running one has.
    expect(await page.$$(`${row(failedJobId)} button[data-cancel-url]`)).toHaveLength(0);
    await shotAndCheck(page, 'jobs.png');
    await page.click(`${row(jobId)} button[data-cancel-url]`);
    await waitUntil(async () => (await testKnex()('enrichment_jobs').where({ id: jobId }).first('status')).status === 'cancelled', 'the job cancelled', 30_000);
    expect(dialogs.at(-1)).toMatch(/results already produced stay/);
    await page.waitForSelector(`${row(jobId)}[data-status="cancelled"]`, { timeout: 30_000 });
    expect(await page.$$(`${row(jobId)} button[data-cancel-url]`)).toHaveLength(0);
    // The API says so too (a cancelled job polls as failed: docs/api-enrichment.md "Enrichment jobs", states).
    const api = await request(app).get(`/api/public/enrich/${jobId}`).set(org.auth);
    expect(api.body.status).toBe('failed');
    release();
  });

  test('filters by kind and status; another organization sees none of these', async () => {
    const { page, base } = ui;
    await page.goto(`${base}/dashboard/jobs`);
    await page.selectOption('select[name=status]', 'cancelled');
    await Promise.all([page.waitForNavigation(), page.click('form.filters button[type=submit]')]);
    expect(new URL(page.url()).searchParams.get('status')).toBe('cancelled');
    expect(await page.$$eval('table.operations tbody tr', (els) => els.map((e) => e.getAttribute('data-id')))).toEqual([jobId]);
    await page.goto(`${base}/dashboard/jobs?kind=import`);
    expect(await page.textContent('#jobs')).toContain('No operations match.');
    const other = await createTestOrg('jobs page other org');
    const login = await request(app).post('/dashboard/login').type('form').send({ credential: other.apiKey });
    const cookie = ([] as string[])
      .concat(login.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('catalog_dashboard_session='))!
      .split(';')[0]!;
    const html = (await request(app).get('/dashboard/jobs').set('Cookie', cookie)).text;
    expect(html).not.toContain(jobId);
    expect(html).toContain('No operations match.');
    const csv = await request(app).get(`/dashboard/jobs/enrichment/${failedJobId}/errors.csv`).set('Cookie', cookie);
    expect(csv.status).toBe(404);
  });

  test('a running import is cancelled from its row; a running apply says why it cannot be', async () => {
    const { page, base, dialogs } = ui;
    const knex = testKnex();
    const importId = newId();
    await knex('catalog_imports').insert({
      id: importId,
      organization_id: org.organizationId,
      catalog_id: catalogId,
      status: 'running',
      file_name: 'supplier.csv',
      mapping: JSON.stringify({}),
      total_lines: 10,
      actor_kind: 'api_key',
      actor_id: 'test',
    });
    const applyId = newId();
    await knex('review_activities').insert({
      id: applyId,
      organization_id: org.organizationId,
      catalog_id: catalogId,
      type: 'custom_transform',
      status: 'applying',
      description: 'an apply in progress',
      apply_progress: JSON.stringify({ phase: 'applying' }),
    });
    await page.goto(`${base}/dashboard/jobs`);
    const importRow = `table.operations tr[data-kind="import"][data-id="${importId}"]`;
    const applyRow = `table.operations tr[data-kind="apply"][data-id="${applyId}"]`;
    expect(await page.getAttribute(importRow, 'data-status')).toBe('running');
    expect(await page.$$(`${applyRow} button[data-cancel-url]`)).toHaveLength(0);
    expect(await page.textContent(`${applyRow} .not-cancellable`)).toMatch(/one transaction: it cannot be cancelled.*pre_apply snapshot undoes it/);
    await shotAndCheck(page, 'jobs-cancel.png');
    await page.click(`${importRow} button[data-cancel-url]`);
    await waitUntil(async () => (await knex('catalog_imports').where({ id: importId }).first('status')).status === 'cancelled', 'the import cancelled', 30_000);
    expect(dialogs.at(-1)).toMatch(/lines already written stay written/);
    await page.waitForSelector(`${importRow}[data-status="cancelled"]`, { timeout: 30_000 });
    await knex('review_activities')
      .where({ id: applyId })
      .update({ apply_progress: JSON.stringify({ phase: 'completed' }), status: 'completed' });
  });
});
