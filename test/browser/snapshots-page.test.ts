/**
 * The console's snapshots page in Chromium: a snapshot taken from the page,
 * compared with now after an item changed (counts and the sample diff), then restored after the
 * confirmation page: the restore runs as a workflow, its progress page reloads until
 * it is done, then the snapshots page names the safety snapshot the restore took first, and the
 * item is back as it was.
 */
import { shotAndCheck } from './chromium';
import { useBrowserSession } from './dashboard-server';
import { createReviewFixture, type ReviewFixture } from './fixture';
import { createTestOrg, testKnex } from '../helpers/db';
import { testApp } from '../helpers/app';
import { startRestores, type RestoreTemporal } from '../helpers/restores';

describe('console snapshots page in Chromium', () => {
  let org: Awaited<ReturnType<typeof createTestOrg>>;
  let fx: ReviewFixture;
  let restores: RestoreTemporal;

  const ui = useBrowserSession({
    async setUp() {
      org = await createTestOrg('snapshots page org');
      fx = await createReviewFixture(org.organizationId);
      // Restores run as the workflow snapshot-restore-<id>: a real dev server and worker.
      restores = await startRestores('test-snapshots-page');
      return testApp(restores.jobRunner).callback();
    },
    tearDown: () => restores?.stop(),
  });

  const itemData = async (sku: string) => (await testKnex()('catalog_items').where({ id: fx.items[sku] }).first('data')).data as Record<string, unknown>;

  test('take a snapshot, change an item, compare with now, restore: the safety snapshot is named', async () => {
    const { page, base } = ui;
    const url = `${base}/dashboard/catalogs/${fx.catalogId}/snapshots`;
    await page.goto(`${base}/dashboard/catalogs/${fx.catalogId}`);
    await page.type('#credential', org.apiKey);
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    // The catalog page links to the snapshots page.
    await Promise.all([page.waitForNavigation(), page.click('.catalog-links a[href$="/snapshots"]')]);
    expect(page.url()).toBe(url);

    await page.fill('#snapshot-reason', 'Before the price change');
    await Promise.all([page.waitForNavigation(), page.click('form.filters button[type=submit]')]);
    const snapshotId = new URL(page.url()).searchParams.get('created') ?? '';
    const stored = await testKnex()('catalog_snapshots').where({ id: snapshotId }).first();
    expect(stored).toMatchObject({ catalog_id: fx.catalogId, snapshot_type: 'manual', reason: 'Before the price change', item_count: 4 });
    expect(await page.$eval(`tr[data-snapshot-id="${snapshotId}"]`, (e) => e.textContent)).toContain('Before the price change');

    // A change through the API (the page's session and CSRF token).
    const status = await page.evaluate(
      async ([u, token]) =>
        (await fetch(u, { method: 'PUT', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': token }, body: JSON.stringify({ price: 55 }) })).status,
      [`/api/public/catalogs/${fx.catalogId}/items/${fx.items['MS-200']}`, await page.$eval('meta[name="csrf-token"]', (e) => e.getAttribute('content') ?? '')],
    );
    expect(status).toBe(200);
    expect((await itemData('MS-200')).price).toBe(55);

    await Promise.all([page.waitForNavigation(), page.click(`tr[data-snapshot-id="${snapshotId}"] a[href*="compare="]`)]);
    const count = (kind: string) => page.$eval(`#comparison .count[data-kind="${kind}"] .n`, (e) => e.textContent);
    expect([await count('changed'), await count('added'), await count('removed'), await count('unchanged')]).toEqual(['1', '0', '0', '3']);
    const sample = `#comparison tr[data-item-id="${fx.items['MS-200']}"][data-field="price"]`;
    expect(await page.$eval(`${sample} td.before`, (e) => e.textContent?.trim())).toBe('25');
    expect(await page.$eval(`${sample} td.after`, (e) => e.textContent?.trim())).toBe('55');
    await shotAndCheck(page, 'console-snapshots-compare.png');

    // Restore: a confirmation page, then the page names the safety snapshot.
    await Promise.all([page.waitForNavigation(), page.click(`tr[data-snapshot-id="${snapshotId}"] a[href$="/restore"]`)]);
    await shotAndCheck(page, 'console-snapshot-restore.png');
    // The restore runs as a workflow: the page that follows it reloads until it is done. Holding
    // the catalog's row lock keeps the restore waiting, so the progress page is seen for certain.
    const holder = await testKnex().transaction();
    try {
      await holder.raw('SELECT id FROM catalogs WHERE id = ? FOR UPDATE', [fx.catalogId]);
      await Promise.all([page.waitForNavigation(), page.click('#confirm-restore')]);
      expect(page.url()).toMatch(new RegExp(`/dashboard/catalogs/${fx.catalogId}/snapshots/restores/[0-9a-f-]{36}$`));
      expect(await page.getAttribute('meta[name="dashboard-refresh-seconds"]', 'content')).toBe('1');
      const restoreId = page.url().split('/').pop() ?? '';
      await page.waitForSelector('#restore-status[data-status="restoring"]', { timeout: 20_000 });
      expect((await testKnex()('snapshot_restores').where({ id: restoreId }).first()).status).toBe('restoring');
      // Hold the page still for the screenshot and the axe check (its reload timer cleared).
      await page.evaluate(() => {
        const last = Number(setTimeout(() => undefined, 0));
        for (let id = last; id > 0; id--) clearTimeout(id as unknown as Parameters<typeof clearTimeout>[0]);
      });
      await shotAndCheck(page, 'console-snapshot-restoring.png');
    } finally {
      await holder.rollback();
    }
    // Done: a reload (the page's own timer from here on) lands on the snapshots page, which names the safety snapshot.
    await Promise.all([page.waitForURL(/\/snapshots\?restored=/, { timeout: 20_000 }), page.reload()]);
    const safety = await testKnex()('catalog_snapshots').where({ catalog_id: fx.catalogId, snapshot_type: 'safety' });
    expect(safety).toHaveLength(1);
    expect(safety[0].restored_snapshot_id).toBe(snapshotId);
    expect(await page.$eval('#safety-snapshot', (e) => e.textContent)).toBe(safety[0].id);
    expect(await page.$eval('#snapshot-notice', (e) => e.textContent)).toContain(snapshotId);
    expect(await itemData('MS-200')).toEqual({ sku: 'MS-200', title: 'Wireless mouse', brand: 'Logi', price: 25 });
    expect(await page.$eval(`tr[data-snapshot-id="${safety[0].id}"]`, (e) => e.getAttribute('data-type'))).toBe('safety');
    await shotAndCheck(page, 'console-snapshots.png');
  }, 60_000);

  test('a restore without the CSRF token is refused and restores nothing', async () => {
    const [snap] = await testKnex()('catalog_snapshots').where({ catalog_id: fx.catalogId, snapshot_type: 'manual' });
    const before = await testKnex()('catalog_snapshots').where({ catalog_id: fx.catalogId }).count({ n: '*' });
    const status = await ui.page.evaluate(
      async (u) => (await fetch(u, { method: 'POST' })).status,
      `/dashboard/catalogs/${fx.catalogId}/snapshots/${snap.id}/restore`,
    );
    expect(status).toBe(403);
    expect(await testKnex()('catalog_snapshots').where({ catalog_id: fx.catalogId }).count({ n: '*' })).toEqual(before);
  });
});
