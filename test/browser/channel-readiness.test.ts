/**
 * The "Channel readiness" panel of the completeness page in Chromium (docs/console.md "Channel
 * readiness"): a catalog with one good item, one with a bad GTIN check digit and one without an
 * image; without a channel the panel asks for one; choosing Google Merchant Center with the GET
 * form shows the totals, the invalid_gtin and missing image counts (the image count links to the
 * grid filtered to the items without `images`); once the catalog has a feed (created through the
 * API) with a completed run, the panel says its mapping was used and lists the feed with the run's
 * status, counts and a download link that serves the run's file (404 under another catalog and
 * for another organization's session; an unknown channel is a 422 page). The panel's "Fill the gaps
 * for Google Merchant Center" names the attributes it fills with their fields (gtin from `ean`,
 * image_link from `images`); pressing it starts the enrichment job on a real Temporal test server
 * (a worker with the test engine, held until the test has seen the progress page) and lands on
 * the fill-the-gaps progress page, then on the job's review page with the two blocked items.
 * axe-core finds no serious or critical violation; the screenshot is docs/screenshots/channel-readiness.png.
 */
import request from 'supertest';
import { loadConfig } from '../../src/config';
import { createBlobStore } from '../../src/lib/blob-stores';
import { newId } from '../../src/lib/ids';
import { feedFileKey } from '../../src/services/feeds/finish';
import { createTestCatalog } from '../helpers/catalogs';
import { createTestOrg, testKnex } from '../helpers/db';
import { fakeEngine, testApiFor } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';
import { shotAndCheck } from './chromium';
import { useBrowserSession } from './dashboard-server';

const SCHEMA = {
  type: 'object',
  properties: {
    sku: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    brand: { type: 'string' },
    price: { type: 'number' },
    currency: { type: 'string' },
    images: { type: 'array', items: { type: 'string' } },
    url: { type: 'string', format: 'uri' },
    ean: { type: 'string' },
    availability: { type: 'string' },
  },
  required: ['sku'],
};

/** A complete item Google accepts (the EAN's check digit is right). */
const good = (sku: string, extra: Record<string, unknown> = {}) => ({
  sku,
  name: `Chef knife ${sku}`,
  description: 'Forged steel.',
  brand: 'Acme',
  price: 49.9,
  currency: 'EUR',
  images: ['https://shop.example/a.jpg'],
  url: `https://shop.example/${sku}`,
  ean: '4006381333931',
  availability: 'in stock',
  ...extra,
});

/** Released by the test once it has seen the fill-the-gaps progress page. */
let release: () => void = () => undefined;
const held = new Promise<void>((resolve) => {
  release = resolve;
});

describe('channel readiness panel in Chromium', () => {
  const TASK_QUEUE = 'test-browser-channel-readiness';
  let app: ReturnType<typeof testApiFor>;
  let org: Awaited<ReturnType<typeof createTestOrg>>;
  let catalogId: string;

  const ui = useBrowserSession({
    worker: { taskQueue: TASK_QUEUE, engine: fakeEngine({ holdFor: () => held }) },
    async setUp({ env }) {
      app = testApiFor(env, TASK_QUEUE);
      org = await createTestOrg('channel readiness org');
      catalogId = await createTestCatalog(org.organizationId, { schema_definition: SCHEMA });
      const rows = [good('K1'), good('K2', { ean: '4006381333932' }), good('K3', { images: [] })];
      await testKnex()('catalog_items').insert(
        rows.map((data) => ({ id: newId(), catalog_id: catalogId, entity_type: 'product', data: JSON.stringify(data) })),
      );
      await testKnex()('catalogs').where('id', catalogId).update({ item_count: rows.length });
      return app;
    },
    tearDown: () => release(),
    timeoutMs: 120_000,
  });

  const text = async (selector: string) => (await ui.page.innerText(selector)).replace(/\s+/g, ' ').trim();
  const completeness = () => `${ui.base}/dashboard/catalogs/${catalogId}/completeness`;

  test('choosing Google Merchant Center shows the invalid_gtin and missing image counts', async () => {
    const { page } = ui;
    await ui.signIn(org.apiKey);
    await page.goto(completeness());
    expect(await text('#channel-readiness')).toContain('Choose a channel');
    expect(await page.$('#channel-totals')).toBeNull();
    await page.selectOption('#channel-select', 'google_merchant_center');
    await Promise.all([page.waitForNavigation(), page.click('#channel-readiness button[type=submit]')]);
    expect(new URL(page.url()).searchParams.get('channel')).toBe('google_merchant_center');
    expect(await page.inputValue('#channel-select')).toBe('google_merchant_center');
    expect(await text('#channel-totals')).toBe('3 feed rows 1 ready 2 blocked');
    expect(await text('#channel-blocked tr[data-code="invalid_gtin"] td')).toBe('1');
    expect(await text('#channel-blocked tr[data-code="missing_required"] td')).toBe('1');
    expect(await page.$$eval('#channel-blocked tbody tr', (rows) => rows.length)).toBe(2);
    expect(await text('#channel-attributes tr[data-attribute="image_link"]')).toBe('image_link images[0] 1');
    expect(await text('#channel-mapping-source')).toContain('proposed mapping');
    // Fill the gaps: the bad GTIN's field (ean) and the missing image's (images), nothing unfillable.
    expect(await text('#channel-fill h3')).toBe('Fill the gaps for Google Merchant Center');
    expect(await text('#channel-fill p')).toContain('missing gtin (field ean), image_link (field images)');
    expect(await page.$('#channel-not-fillable')).toBeNull();
    expect(await text('#channel-fill-submit')).toBe('Fill the gaps for Google Merchant Center');
    // The missing image count leads to the grid of the items without images.
    await Promise.all([page.waitForNavigation(), page.click('#channel-attributes tr[data-attribute="image_link"] a')]);
    expect(new URL(page.url()).searchParams.get('missing')).toBe('images');
    expect((await page.textContent('#grid-count'))!.trim()).toBe('1 item');
  });

  test("with a feed and a completed run: the feed's mapping is used, the run is listed and its file downloads", async () => {
    const { page } = ui;
    const created = await request(app)
      .post(`/api/public/catalogs/${catalogId}/feeds`)
      .set(org.auth)
      .send({ channel: 'google_merchant_center', format: 'tsv', target_country: 'DE', language: 'de', currency: 'EUR' });
    expect(created.status).toBe(201);
    const feedId = created.body.id as string;
    const run = { id: newId(), feed_id: feedId, delta: false };
    const key = feedFileKey(run, 'tsv');
    await createBlobStore(loadConfig().blobStore).put(key, Buffer.from('id\ttitle\nK1\tChef knife K1\n'));
    await testKnex()('feed_runs').insert({
      ...run,
      organization_id: org.organizationId,
      status: 'completed',
      total: 3,
      items: 3,
      exported: 1,
      excluded: 2,
      warnings: 0,
      file_key: key,
      completed_at: new Date(),
    });
    await page.goto(`${completeness()}?channel=google_merchant_center`);
    expect(await text('#channel-mapping-source')).toContain(`mapping of feed ${feedId}`);
    expect(await text('#channel-blocked tr[data-code="invalid_gtin"] td')).toBe('1');
    const row = `#channel-feeds tr[data-feed-id="${feedId}"]`;
    expect(await text(row)).toBe('google_merchant_center · tsv · DE/de completed latest run 1 2 0 Download the latest google_merchant_center tsv file');
    await page.$eval('#channel-readiness', (e) => e.scrollIntoView());
    await shotAndCheck(page, 'channel-readiness.png');
    const href = (await page.getAttribute(`${row} a[download]`, 'href'))!;
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const file = await request(app).get(href).set('Cookie', cookie);
    expect(file.status).toBe(200);
    expect(file.headers['content-disposition']).toContain('attachment');
    expect(file.text).toBe('id\ttitle\nK1\tChef knife K1\n');
    // The feed under another catalog's path is a 404; an unknown channel a 422 page; another
    // organization's session a 404 (feeds of other organizations are not revealed).
    expect((await request(app).get(href.replace(catalogId, newId())).set('Cookie', cookie)).status).toBe(404);
    const unknown = await request(app).get(`/dashboard/catalogs/${catalogId}/completeness?channel=ebay`).set('Cookie', cookie);
    expect(unknown.status).toBe(422);
    expect(unknown.text).toContain('Unknown channel');
    const other = await createTestOrg('channel readiness other org');
    const res = await request(app).post('/dashboard/login').type('form').send({ credential: other.apiKey });
    const otherCookie = ([] as string[])
      .concat(res.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('catalog_dashboard_session='))!
      .split(';')[0]!;
    expect((await request(app).get(href).set('Cookie', otherCookie)).status).toBe(404);
  });

  test('"Fill the gaps for Google Merchant Center" starts the job, follows it and lands on its review page', async () => {
    const { page } = ui;
    await page.goto(`${completeness()}?channel=google_merchant_center`);
    await Promise.all([page.waitForNavigation(), page.click('#channel-fill-submit')]);
    const jobId = /\/items\/fill-gaps\/([0-9a-f-]{36})$/.exec(new URL(page.url()).pathname)?.[1] as string;
    expect(jobId).toBeDefined();
    expect(await text('h1')).toBe('Enrichment job running');
    expect(await text('#fill-progress')).toMatch(/^0 of 2 items enriched/);
    const job = await testKnex()('enrichment_jobs').where({ id: jobId }).first('catalog_id', 'config');
    expect(job.catalog_id).toBe(catalogId);
    expect((job.config.output_schema as Array<{ name: string }>).map((f) => f.name)).toEqual(['ean', 'images']);
    release();
    // The progress page reloads itself and goes to the review page once the job is done.
    await waitUntil(async () => (new URL(page.url()).pathname.endsWith(`/activities/${jobId}`) ? true : null), 'the review page');
    const staged = await testKnex()('staged_changes').where({ activity_id: jobId }).count<{ count: string }[]>('* as count');
    expect(staged[0].count).toBe('2');
  });
});
