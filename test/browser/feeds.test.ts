/**
 * The console's feed pages in Chromium (docs/console.md "Feeds", "GTIN flags") against real
 * PostgreSQL and a Temporal dev server with a worker running the feed workflow: the feed catalog
 * of the feed tests (a product with two variants, a product whose GTIN has a wrong check digit, a
 * plain product). A feed is created through the "new feed" form (first refused with the service's
 * 422, shown beside the field with the input kept; then saved with the proposed mapping and its
 * reasons), run with "Run now"; the run page follows the run to `completed` with its counts, its
 * issues filter to `invalid_gtin`, and its file downloads with the three exportable rows. The
 * edit form refuses a bad cron (422, input kept) and saves a changed mapping row (no longer a
 * proposal). The grid flags the bad GTIN (badge with the reason) and not the good ones; the item
 * page warns beside it. axe-core finds no serious or critical violation on any page; the
 * screenshots are docs/screenshots/feeds.png, feed-run.png and feed-run-running.png (a run started
 * on a task queue no worker polls, cancelled from its page: its live workflow gets the cancel).
 */
import request from 'supertest';
import { createPerson } from '../../src/services/access/people';
import { createTestCatalog } from '../helpers/catalogs';
import { createTestOrg, testKnex } from '../helpers/db';
import { FEED_SCHEMA, seedFeedCatalog } from '../helpers/feed-catalog';
import { fakeEngine, testApiFor } from '../helpers/temporal';
import { shotAndCheck } from './chromium';
import { useBrowserSession } from './dashboard-server';

const TASK_QUEUE = 'test-browser-feeds';

describe('feed pages in Chromium', () => {
  let org: Awaited<ReturnType<typeof createTestOrg>>;
  let catalogId: string;
  let items: Record<string, string>;
  let feedUrl: string;
  let app: ReturnType<typeof testApiFor>;

  const ui = useBrowserSession({
    worker: { taskQueue: TASK_QUEUE, engine: fakeEngine() },
    async setUp({ env }) {
      org = await createTestOrg('feed pages org');
      catalogId = await createTestCatalog(org.organizationId, { product_id_field: 'product_id', product_enabled: true, schema_definition: FEED_SCHEMA });
      items = await seedFeedCatalog(testKnex(), catalogId);
      // Two items per page: the run writes several pages, as a large catalog's does.
      app = testApiFor(env, TASK_QUEUE, { feedTuning: { page_items: 2 } });
      return app;
    },
    timeoutMs: 300_000,
  });

  // Every test below runs signed in.
  beforeAll(() => ui.signIn(org.apiKey));

  const text = async (selector: string) => (await ui.page.innerText(selector)).replace(/\s+/g, ' ').trim();
  const feeds = () => `${ui.base}/dashboard/catalogs/${catalogId}/feeds`;
  const submit = (selector: string) => Promise.all([ui.page.waitForNavigation(), ui.page.click(selector)]);

  test('a feed is created through the form: a 422 is shown in the form with the input kept, then the proposal is saved', async () => {
    const { page, base } = ui;
    await page.goto(`${base}/dashboard/catalogs/${catalogId}`);
    await submit('.catalog-links a[href$="/feeds"]');
    expect(await text('#no-feeds')).toBe('No feeds yet.');
    await shotAndCheck(page, 'feeds-empty.png');
    await submit('#new-feed-link');
    await shotAndCheck(page, 'feed-new.png');
    // Meta's format for Google: the service's format check answers, beside the format.
    await page.selectOption('#feed-channel', 'google_merchant_center');
    await page.selectOption('#feed-format', 'csv');
    await page.fill('#feed-target_country', 'DE');
    await page.fill('#feed-language', 'de');
    await page.fill('#feed-currency', 'EUR');
    const [refused] = await Promise.all([page.waitForNavigation(), page.click('#feed-submit')]);
    expect(refused?.status()).toBe(422);
    expect(await text('#feed-format-error')).toBe('Channel google_merchant_center offers the formats tsv, xml, not csv');
    expect(await page.getAttribute('#feed-format', 'aria-invalid')).toBe('true');
    expect(await text('#feed-errors')).toContain('format: Channel google_merchant_center offers the formats tsv, xml, not csv');
    const kept = ['#feed-channel', '#feed-format', '#feed-target_country', '#feed-language', '#feed-currency'].map((s) => page.inputValue(s));
    expect(await Promise.all(kept)).toEqual(['google_merchant_center', 'csv', 'DE', 'de', 'EUR']);
    await shotAndCheck(page, 'feed-new-refused.png');
    await page.selectOption('#feed-format', 'tsv');
    await submit('#feed-submit');
    expect(new URL(page.url()).pathname).toMatch(/\/feeds\/[0-9a-f-]{36}$/);
    feedUrl = new URL(page.url()).pathname;
    expect(await text('#feed-notice')).toBe('Saved.');
    expect(await text('#feed-settings')).toContain('DE · de · EUR');
    expect(await text('#feed-mapping tr[data-attribute="gtin"]')).toBe('gtin gtin the field "gtin" has the attribute\'s name');
    // Listed in the channel's attribute order.
    expect((await page.$$eval('#feed-mapping tbody tr', (rows) => rows.map((r) => r.getAttribute('data-attribute')))).slice(0, 3)).toEqual([
      'id',
      'title',
      'description',
    ]);
    expect(await page.inputValue('#public-url')).toMatch(/\/feeds\/public\/[A-Za-z0-9_-]{43}$/);
    expect(await text('#no-runs')).toBe('No runs yet.');
    await shotAndCheck(page, 'feed-new-saved.png');
  });

  test('"Run now" follows the run to completed with its counts; its issues filter by code; its file downloads', async () => {
    const { page, base } = ui;
    await page.goto(`${base}${feedUrl}`);
    await submit('#run-now');
    expect(new URL(page.url()).pathname).toMatch(/\/runs\/[0-9a-f-]{36}$/);
    // The page reloads itself while the run runs, until the run has completed.
    await page.waitForSelector('.title-row .badge.status-completed', { timeout: 120_000 });
    expect(await text('#run-progress')).toBe('4 of 4 items read');
    const count = (name: string) => text(`#run-counts dd[data-count="${name}"]`);
    expect([await count('items'), await count('exported'), await count('excluded'), await count('warnings')]).toEqual(['4', '3', '1', '0']);
    expect(await text('#issue-count')).toMatch(/^\d+ issues? · page 1 of 1$/);
    await page.selectOption('#issue-code', 'invalid_gtin');
    await submit('#issue-filters button[type=submit]');
    expect(new URL(page.url()).searchParams.get('code')).toBe('invalid_gtin');
    expect(await page.$$eval('#feed-issues tbody tr', (rows) => rows.map((r) => r.getAttribute('data-code')))).toEqual(['invalid_gtin']);
    expect(await text('#feed-issues tbody tr')).toBe('P2 gtin error invalid_gtin The GTIN has a wrong check digit 4006381333932');
    expect(await text('#issue-count')).toBe('1 issue · page 1 of 1');
    await shotAndCheck(page, 'feed-run.png');
    const file = await page.request.get(`${base}${await page.getAttribute('#run-file', 'href')}`);
    expect(file.status()).toBe(200);
    expect(file.headers()['content-type']).toContain('text/tab-separated-values');
    const [head, ...lines] = (await file.text()).trimEnd().split('\n');
    const cols = head.split('\t');
    const rows = lines.map((l) => Object.fromEntries(l.split('\t').map((v, i) => [cols[i], v])));
    expect(rows.map((r) => r.id).sort()).toEqual(['P3', 'V1', 'V2']);
    expect(rows.find((r) => r.id === 'V1')).toMatchObject({ gtin: '4006381333931', item_group_id: 'P1', title: 'Trail shirt', price: '19.50 EUR' });
    // The list shows the run; the feed page lists it with its counts and file.
    await page.goto(feeds());
    expect(await text('#feeds tbody tr')).toContain('google_merchant_center tsv DE · de · EUR');
    expect(await page.$eval('#feeds tbody tr .badge', (e) => e.textContent)).toBe('completed');
    await shotAndCheck(page, 'feeds.png');
    await page.goto(`${base}${feedUrl}`);
    expect(await page.$$eval('#feed-runs tbody tr', (rows) => rows.length)).toBe(1);
    expect(await text('#feed-runs tbody tr td:nth-child(5)')).toBe('3');
    await shotAndCheck(page, 'feed-page.png');
  }, 180_000);

  test('the edit form refuses a bad cron with the input kept, and saves a changed mapping row', async () => {
    const { page, base } = ui;
    await page.goto(`${base}${feedUrl}`);
    await submit('#edit-feed-link');
    expect(await text('#mapping-editor tr[data-attribute="condition"] td:last-child')).toBe('no condition field: the items are taken to be new');
    await shotAndCheck(page, 'feed-edit.png');
    await page.fill('#feed-schedule', 'every day at 3');
    const [refused] = await Promise.all([page.waitForNavigation(), page.click('#feed-submit')]);
    expect(refused?.status()).toBe(422);
    expect(await page.inputValue('#feed-schedule')).toBe('every day at 3');
    expect(await page.$('#feed-schedule-error')).not.toBeNull();
    // The twelve proposed rows and the three spare ones, as before.
    expect(await page.$$eval('#mapping-editor tbody tr', (rows) => rows.length)).toBe(15);
    await shotAndCheck(page, 'feed-edit-refused.png');
    await page.fill('#feed-schedule', '');
    const condition = '#mapping-editor tr[data-attribute="condition"]';
    await page.fill(`${condition} input[name$=".source"]`, 'refurbished');
    await submit('#feed-submit');
    expect(await text('#feed-notice')).toBe('Saved.');
    expect(await text('#feed-mapping tr[data-attribute="condition"]')).toBe('condition fixed value refurbished');
    expect(await page.$('#feed-mapping th:nth-child(3)')).toBeNull(); // no longer a proposal: no reasons column
    const saved = await testKnex()('feeds').where({ catalog_id: catalogId }).first('mapping_suggested', 'schedule');
    expect(saved).toEqual({ mapping_suggested: false, schedule: null });
  });

  test('the grid flags the GTIN with a wrong check digit, and the item page warns beside it; good GTINs are not flagged', async () => {
    const { page, base } = ui;
    await page.goto(`${base}/dashboard/catalogs/${catalogId}/items?cols=sku,gtin`);
    const cell = (sku: string) => `#item-grid tr[data-item-id="${items[sku]}"] td[data-field="gtin"]`;
    expect(await page.getAttribute(`${cell('P2')} .gtin-flag`, 'title')).toBe('The GTIN has a wrong check digit');
    expect(await text(cell('P2'))).toMatch(/^4006381333932 ⚠ invalid GTIN ?: The GTIN has a wrong check digit$/);
    expect(await page.$(`${cell('P3')} .gtin-flag`)).toBeNull();
    expect(await text(cell('P3'))).toBe('9780201379624');
    await shotAndCheck(page, 'feed-grid-gtin.png');
    await page.goto(`${base}/dashboard/catalogs/${catalogId}/items/${items.P2}`);
    expect(await text('tr[data-field="gtin"] #gtin-warning')).toBe('⚠ The GTIN has a wrong check digit (invalid_gtin): channel feeds leave this item out.');
    await shotAndCheck(page, 'feed-item-gtin.png');
    await page.goto(`${base}/dashboard/catalogs/${catalogId}/items/${items.V1}`);
    expect(await text('tr[data-field="gtin"] td.value')).toBe('4006381333931');
    expect(await page.$('#gtin-warning')).toBeNull();
  });

  test('a running run is cancelled from its page: the run is marked cancelled and its live workflow is asked to cancel', async () => {
    const { page, base, env } = ui;
    const feedId = feedUrl.split('/').pop()!;
    // The run is started through the API on a task queue no worker polls: its workflow is live and
    // waits, so the run stays running until the console cancels it (no timing involved).
    const idle = testApiFor(env, `${TASK_QUEUE}-unpolled`, { feedTuning: { page_items: 2 } });
    const started = await request(idle).post(`/api/public/feeds/${feedId}/runs`).set(org.auth).send({});
    expect(started.status).toBe(202);
    const runId = started.body.run_id as string;
    const workflow = env.client.workflow.getHandle(`feed-run-${runId}`);
    expect((await workflow.describe()).status.name).toBe('RUNNING');
    await page.goto(`${base}${feedUrl}/runs/${runId}`);
    expect(await text('#run-progress')).toBe('Not begun yet: waiting for a worker · this page follows the run');
    await shotAndCheck(page, 'feed-run-running.png');
    await submit('#cancel-run');
    await page.waitForSelector('.title-row .badge.status-cancelled');
    expect(await page.$('#cancel-run')).toBeNull();
    expect((await testKnex()('feed_runs').where({ id: runId }).first('status')).status).toBe('cancelled');
    const history = await workflow.fetchHistory();
    expect(history.events?.some((e) => e.workflowExecutionCancelRequestedEventAttributes)).toBe(true);
    await workflow.terminate('test over: no worker polls this queue');
  });

  test("an editor reads the feed pages without their forms; an editor's feed form is refused (403), as the API refuses it", async () => {
    const email = `feeds.editor.${Date.now()}@example.org`;
    await createPerson(testKnex(), org.organizationId, { email, name: 'Feed editor', role: 'editor', password: 'correct horse battery' });
    const login = await request(app).post('/dashboard/login/password').type('form').send({ email, password: 'correct horse battery', next: '/dashboard' });
    expect(login.status).toBe(303);
    const cookie = ([] as string[])
      .concat(login.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('catalog_dashboard_session='))!
      .split(';')[0];
    const list = await request(app).get(`/dashboard/catalogs/${catalogId}/feeds`).set('Cookie', cookie);
    expect(list.status).toBe(200);
    expect(list.text).toContain('data-feed-id=');
    expect(list.text).not.toContain('id="new-feed-link"');
    const feed = await request(app).get(feedUrl).set('Cookie', cookie);
    expect(feed.status).toBe(200);
    expect(feed.text).not.toContain('id="run-now"');
    const csrf = /<meta name="csrf-token" content="([^"]+)"/.exec(feed.text)![1];
    const runs = async () =>
      Number(
        (
          await testKnex()('feed_runs')
            .where({ feed_id: feedUrl.split('/').pop() })
            .count({ n: '*' })
        )[0].n,
      );
    const before = await runs();
    const refused = await request(app).post(`${feedUrl}/runs`).set('Cookie', cookie).type('form').send({ csrf_token: csrf });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Your role is editor');
    expect(await runs()).toBe(before);
  });
});
