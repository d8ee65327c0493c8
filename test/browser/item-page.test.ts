/**
 * The console's item page in Chromium: an inline edit is refused when the schema
 * refuses the value, else staged as a review activity with one change, approved and applied
 * (the durable apply on a real Temporal test server), then read back through the API; the
 * item's history shows the applied change, and "restore" stages the old value as a new change.
 * Another organization's item page is a 403.
 */
import { shotAndCheck } from './chromium';
import { useBrowserSession } from './dashboard-server';
import { createReviewFixture, type ReviewFixture } from './fixture';
import { createTestOrg, testKnex } from '../helpers/db';
import { fakeEngine, testApiFor } from '../helpers/temporal';

describe('console item page in Chromium', () => {
  const TASK_QUEUE = 'test-browser-item-page';
  let org: Awaited<ReturnType<typeof createTestOrg>>;
  let fx: ReviewFixture;
  let other: ReviewFixture;

  const ui = useBrowserSession({
    worker: { taskQueue: TASK_QUEUE, engine: fakeEngine() },
    async setUp({ env }) {
      org = await createTestOrg('item page org');
      fx = await createReviewFixture(org.organizationId);
      other = await createReviewFixture((await createTestOrg('item page other org')).organizationId);
      return testApiFor(env, TASK_QUEUE);
    },
    timeoutMs: 180_000,
  });

  const itemUrl = (f: ReviewFixture, sku: string) => `${ui.base}/dashboard/catalogs/${f.catalogId}/items/${f.items[sku]}`;
  const apiItem = async (sku: string) =>
    (await ui.page.evaluate(async (u) => (await fetch(u)).json(), `/api/public/catalogs/${fx.catalogId}/items/${fx.items[sku]}`)) as {
      data: Record<string, unknown>;
    };

  test('edit staged, approved and applied, read back through the API; history shows it; restore stages the old value', async () => {
    const { page } = ui;
    await page.goto(itemUrl(fx, 'KB-100'));
    await page.type('#credential', org.apiKey);
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(page.url()).toBe(itemUrl(fx, 'KB-100'));
    expect(await page.$eval('h1', (e) => e.textContent)).toBe('Mechanical keyboard');
    expect(await page.$eval('tr[data-field="price"] td.value', (e) => e.textContent?.trim())).toBe('89');
    await shotAndCheck(page, 'console-item.png');

    // A value the schema refuses (price is a number) is not staged: 422 naming the field.
    await page.click('tr[data-field="price"] details.edit summary');
    await page.fill('#edit-price', 'cheap');
    const refused = await Promise.all([page.waitForNavigation(), page.click('tr[data-field="price"] button[type=submit]')]);
    expect(refused[0]?.status()).toBe(422);
    expect(await page.$eval('#item-notice', (e) => e.textContent)).toMatch(/price/);
    expect(await testKnex()('review_activities').where({ catalog_id: fx.catalogId }).count({ n: '*' })).toEqual([{ n: '1' }]);

    // A good value: staged as one change of a new activity.
    await page.goto(itemUrl(fx, 'KB-100'));
    await page.click('tr[data-field="price"] details.edit summary');
    await page.fill('#edit-price', '79.5');
    await Promise.all([page.waitForNavigation(), page.click('tr[data-field="price"] button[type=submit]')]);
    const activityId = new URL(page.url()).searchParams.get('staged') ?? '';
    expect(activityId).toMatch(/^[0-9a-f-]{36}$/);
    const staged = await testKnex()('staged_changes').where({ activity_id: activityId });
    expect(staged).toHaveLength(1);
    expect(staged[0]).toMatchObject({ catalog_item_id: fx.items['KB-100'], status: 'pending' });
    expect(staged[0].after_data.price).toBe(79.5);
    expect((await apiItem('KB-100')).data.price).toBe(89); // not applied yet

    // Review and apply on the activity's review page.
    await Promise.all([page.waitForNavigation(), page.click('#item-notice a')]);
    await Promise.all([page.waitForNavigation(), page.click('.change-head button.approve')]);
    await page.click('#apply-button');
    await page.waitForSelector('#apply-result strong', { timeout: 60_000 });
    expect(await page.$eval('#apply-result', (e) => e.textContent)).toMatch(/Applied 1\b/);
    expect((await apiItem('KB-100')).data).toMatchObject({ sku: 'KB-100', price: 79.5, title: 'Mechanical keyboard' });

    // The item page: the new value, its provenance, and the change in the history.
    await page.goto(itemUrl(fx, 'KB-100'));
    expect(await page.$eval('tr[data-field="price"] td.value', (e) => e.textContent?.trim())).toBe('79.5');
    const provenance = await page.$eval('tr[data-field="price"] td.provenance', (e) => e.textContent ?? '');
    expect(provenance).toContain('manual');
    expect(provenance).toContain('Edit of price');
    const entry = `li.history-entry[data-change-id="${staged[0].id}"]`;
    expect(await page.$eval(`${entry} tr[data-field="price"] td.before`, (e) => e.textContent?.trim())).toBe('89');
    expect(await page.$eval(`${entry} tr[data-field="price"] td.after`, (e) => e.textContent?.trim())).toBe('79.5');
    // The apply's pre-apply snapshot holds the old version too.
    expect(await page.$$('li.history-entry[data-snapshot-id]')).toHaveLength(1);
    await shotAndCheck(page, 'console-item-history.png');

    // Restore: the old value staged as a new change (the item itself unchanged until applied).
    await Promise.all([page.waitForNavigation(), page.click(`${entry} form button`)]);
    const restoreActivity = new URL(page.url()).searchParams.get('staged') ?? '';
    expect(restoreActivity).toMatch(/^[0-9a-f-]{36}$/);
    expect(restoreActivity).not.toBe(activityId);
    const restore = await testKnex()('staged_changes').where({ activity_id: restoreActivity });
    expect(restore).toHaveLength(1);
    expect(restore[0].before_data.price).toBe(79.5);
    expect(restore[0].after_data.price).toBe(89);
    expect(restore[0].review_info.restored_from).toEqual({ kind: 'change', id: staged[0].id });
    expect((await apiItem('KB-100')).data.price).toBe(79.5);
  }, 120_000);

  test("another organization's item page is a 403; a POST without the CSRF token is refused", async () => {
    const { page } = ui;
    const res = await page.goto(itemUrl(other, 'KB-100'));
    expect(res?.status()).toBe(403);
    await page.goto(itemUrl(fx, 'MS-200'));
    const status = await page.evaluate(
      async (u) => (await fetch(u, { method: 'POST', body: new URLSearchParams({ field: 'price', value: '1' }) })).status,
      `${itemUrl(fx, 'MS-200')}/edits`,
    );
    expect(status).toBe(403);
  });
});
