/**
 * Bulk actions of the catalog console in Chromium, against real PostgreSQL and a
 * Temporal test server with a worker: from the item grid filtered to "missing brand", a bulk
 * "set brand" is staged by its workflow into a review activity that previews every change; one
 * change is rejected, the rest approved and applied by the durable apply; restoring the apply's
 * `pre_apply` snapshot (the existing restore) undoes it. A "move to a taxonomy node" from the
 * tree's "Unclassified" node is previewed by the node's path, applied, and counted by the tree.
 * A reviewer's rejection elsewhere is never changed by a bulk action.
 */
import { shotAndCheck } from './chromium';
import { useBrowserSession } from './dashboard-server';
import { createTestOrg, testKnex } from '../helpers/db';
import { fakeEngine, testApiFor } from '../helpers/temporal';
import { createReviewFixture, type ReviewFixture } from './fixture';
import { newId } from '../../src/lib/ids';
import { TemporalJobRunner } from '../../temporal/client';
import { bulkStageWorkflowId } from '../../src/contracts/workflows';

describe('bulk actions in Chromium', () => {
  const TASK_QUEUE = 'test-browser-bulk';
  let org: Awaited<ReturnType<typeof createTestOrg>>;
  let fx: ReviewFixture;

  const ui = useBrowserSession({
    worker: { taskQueue: TASK_QUEUE, engine: fakeEngine() },
    async setUp({ env }) {
      org = await createTestOrg('bulk actions org');
      fx = await createReviewFixture(org.organizationId);
      return testApiFor(env, TASK_QUEUE);
    },
    timeoutMs: 180_000,
  });

  const knex = () => testKnex();
  const itemData = async (sku: string) => (await knex()('catalog_items').where({ id: fx.items[sku] }).first('data')).data as Record<string, unknown>;
  const activityPage = (id: string) => `${ui.base}/dashboard/catalogs/${fx.catalogId}/activities/${id}`;

  /** Waits until the bulk action's staging workflow moved its activity to pending_review. */
  async function waitStaged(activityId: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const a = await knex()('review_activities').where({ id: activityId }).first('status');
      if (a.status === 'pending_review') return;
      if (Date.now() > deadline) throw new Error(`bulk action ${activityId} still ${a.status}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Clicks the review page's Apply and waits for the durable apply's result. @returns the result's text */
  async function applyOnPage(): Promise<string | null> {
    const { page } = ui;
    await page.click('#apply-button');
    await page.waitForSelector('#apply-result strong', { timeout: 60_000 });
    return page.$eval('#apply-result', (e) => e.textContent);
  }

  /**
   * Submits the bulk form of the page; the staging page follows the workflow and lands in the
   * review page. @returns the new activity's id (from the review page URL)
   */
  async function submitBulk(): Promise<string> {
    const { page } = ui;
    await Promise.all([page.waitForNavigation(), page.click('#bulk-submit')]);
    await page.waitForURL(/\/activities\/[0-9a-f-]{36}$/, { timeout: 60_000 });
    const m = /\/activities\/([0-9a-f-]{36})$/.exec(new URL(page.url()).pathname);
    expect(m).not.toBeNull();
    return (m as RegExpExecArray)[1];
  }

  test('set a value on the grid filtered to "missing brand": previewed, one rejected, the rest applied, then undone by the pre_apply snapshot', async () => {
    // The fixture's own activity: the reviewer rejects the headphones' change (an explicit decision).
    const { page, base } = ui;
    await knex()('staged_changes').where({ id: fx.changes['HD-300'] }).update({ status: 'rejected' });
    const rejectedBefore = await knex()('staged_changes').where({ id: fx.changes['HD-300'] }).first();

    const gridUrl = `${base}/dashboard/catalogs/${fx.catalogId}/items?missing=brand`;
    await page.goto(gridUrl);
    await page.type('#credential', org.apiKey);
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(page.url()).toBe(gridUrl);
    // "Export CSV" exports the grid's filter and columns through the catalog export.
    const exportHref = await page.$eval('#export-link', (e) => e.getAttribute('href') ?? '');
    const csv = await page.evaluate(async (u) => (await fetch(u)).text(), exportHref);
    const lines = csv.trim().split('\n');
    expect(lines[0]).toBe('sku,brand,color,price,title'); // the grid's default columns
    expect(
      lines
        .slice(1)
        .map((l) => l.split(',')[0])
        .sort(),
    ).toEqual(['CB-400', 'HD-300', 'KB-100']);
    const chosen = await page.evaluate(
      async (u) => (await fetch(u)).text(),
      `/dashboard/catalogs/${fx.catalogId}/items/export?missing=brand&f.price=range:50..&cols=sku,price`,
    );
    expect(chosen.trim().split('\n').sort()).toEqual(['HD-300,149', 'KB-100,89', 'sku,price'].sort());
    // The grid's "Bulk actions" carries its filter; the page counts exactly the grid's items.
    await Promise.all([page.waitForNavigation(), page.click('#bulk-link')]);
    expect(new URL(page.url()).searchParams.get('missing')).toBe('brand');
    expect(await page.$eval('#bulk-count', (e) => e.textContent)).toBe('3'); // KB-100, HD-300, CB-400 (the mouse has a brand)
    await page.selectOption('#bulk-action', 'set');
    await page.selectOption('#bulk-field', 'brand');
    await page.fill('#bulk-value', 'Acme <b>&</b>');
    await shotAndCheck(page, 'bulk-action.png');
    const activityId = await submitBulk();
    await waitStaged(activityId);
    await page.goto(activityPage(activityId));
    // The preview: one change per matching item, each setting the brand, the value printed as text.
    const changes: Array<{ id: string; catalog_item_id: string; after_data: Record<string, unknown>; status: string }> = await knex()('staged_changes')
      .where({ activity_id: activityId })
      .select('id', 'catalog_item_id', 'after_data', 'status');
    expect(changes.map((c) => c.catalog_item_id).sort()).toEqual([fx.items['KB-100'], fx.items['HD-300'], fx.items['CB-400']].sort());
    expect(changes.every((c) => c.after_data.brand === 'Acme <b>&</b>' && c.status === 'pending')).toBe(true);
    expect(await page.$$eval('tbody.change', (els) => els.length)).toBe(3);
    expect(await page.$$eval('tbody.change td.after b', (els) => els.length)).toBe(0);
    expect(await page.$eval('h1', (e) => e.textContent)).toContain('set brand');
    await shotAndCheck(page, 'bulk-action-review.png');

    // The bulk action never touched the reviewer's rejection in the other activity.
    const rejectedAfter = await knex()('staged_changes').where({ id: fx.changes['HD-300'] }).first();
    expect(rejectedAfter).toEqual(rejectedBefore);

    // Reject the cable's change, approve the rest ("approve all" leaves the rejection), apply.
    const cable = changes.find((c) => c.catalog_item_id === fx.items['CB-400']) as { id: string };
    await Promise.all([page.waitForNavigation(), page.click(`tbody[data-change-id="${cable.id}"] .change-head button.reject`)]);
    await Promise.all([page.waitForNavigation(), page.click('#bulk-actions button.approve')]);
    expect(await page.$eval(`tbody[data-change-id="${cable.id}"]`, (e) => e.getAttribute('data-status'))).toBe('rejected');
    expect(await applyOnPage()).toMatch(/Applied 2\b/);
    expect((await itemData('KB-100')).brand).toBe('Acme <b>&</b>');
    expect((await itemData('HD-300')).brand).toBe('Acme <b>&</b>');
    expect((await itemData('CB-400')).brand).toBeUndefined();
    expect((await itemData('MS-200')).brand).toBe('Logi');

    // Undo: restore the apply's pre_apply snapshot through the existing restore.
    const snap = await knex()('review_activities').where({ id: activityId }).first('apply_result');
    const snapshotId = snap.apply_result.pre_apply_snapshot_id as string;
    expect(snapshotId).toBeTruthy();
    const token = await page.$eval('meta[name="csrf-token"]', (e) => e.getAttribute('content') ?? '');
    const restored = await page.evaluate(
      async ([u, t]) => (await fetch(u, { method: 'POST', headers: { 'X-CSRF-Token': t, 'Content-Type': 'application/json' }, body: '{}' })).status,
      [`/api/public/catalogs/${fx.catalogId}/snapshots/${snapshotId}/restore`, token] as const,
    );
    expect(restored).toBe(200);
    expect((await itemData('KB-100')).brand).toBeUndefined();
    expect((await itemData('HD-300')).brand).toBeUndefined();
    expect((await itemData('MS-200')).brand).toBe('Logi');
  }, 120_000);

  test('a second bulk action on the same items adds its own changes and never changes a rejected one', async () => {
    const { page, base } = ui;
    const before = await knex()('staged_changes').where({ catalog_id: fx.catalogId, status: 'rejected' }).orderBy('id');
    expect(before.length).toBe(2); // the fixture's headphones and the bulk action's cable
    await page.goto(`${base}/dashboard/catalogs/${fx.catalogId}/items/bulk?missing=brand`);
    await page.selectOption('#bulk-action', 'clear');
    await page.selectOption('#bulk-field', 'title');
    const activityId = await submitBulk();
    await waitStaged(activityId);
    const after = await knex()('staged_changes').where({ catalog_id: fx.catalogId, status: 'rejected' }).orderBy('id');
    expect(after).toEqual(before);
    const staged = await knex()('staged_changes').where({ activity_id: activityId }).select('after_data', 'status');
    expect(staged).toHaveLength(3);
    expect(staged.every((c: { after_data: Record<string, unknown>; status: string }) => !('title' in c.after_data) && c.status === 'pending')).toBe(true);
  }, 120_000);

  test('a selection: the rows checked in the grid, within its filter, are the only ones staged', async () => {
    const { page, base } = ui;
    await page.goto(`${base}/dashboard/catalogs/${fx.catalogId}/items?missing=color`);
    const rows = await page.$$eval('#item-grid tbody tr[data-item-id]', (els) => els.map((e) => e.getAttribute('data-item-id') ?? ''));
    expect(rows).toHaveLength(4);
    const picked = rows.slice(0, 2);
    for (const id of picked) await page.check(`#item-grid tr[data-item-id="${id}"] input[name=ids]`);
    await shotAndCheck(page, 'bulk-grid-selection.png');
    await Promise.all([page.waitForNavigation(), page.click('#bulk-selected')]);
    expect(await page.$eval('#bulk-count', (e) => e.textContent)).toBe('2');
    expect(await page.$eval('#bulk-scope', (e) => e.textContent)).toContain('the selected items matching');
    await page.selectOption('#bulk-action', 'set');
    await page.selectOption('#bulk-field', 'color');
    await page.fill('#bulk-value', 'Red');
    const activityId = await submitBulk();
    await waitStaged(activityId);
    const staged: string[] = await knex()('staged_changes').where({ activity_id: activityId }).pluck('catalog_item_id');
    expect(staged.sort()).toEqual([...picked].sort());
    // A forged id is a 422.
    expect((await page.goto(`${base}/dashboard/catalogs/${fx.catalogId}/items/bulk?ids=nope`))?.status()).toBe(422);
  }, 120_000);

  test('move to a taxonomy node from the "Unclassified" node: previewed as the node\'s path, applied, counted by the tree', async () => {
    // The catalog gets a taxonomy through the API, as the signed-in page's own request.
    const { page, base } = ui;
    const token = await page.$eval('meta[name="csrf-token"]', (e) => e.getAttribute('content') ?? '');
    const taxonomy = { name: 'shop', nodes: { accessories: { name: 'Accessories', parent: null }, cables: { name: 'Cables', parent: 'accessories' } } };
    const put = await page.evaluate(
      async ([u, t, b]) => (await fetch(u, { method: 'PUT', headers: { 'X-CSRF-Token': t, 'Content-Type': 'application/json' }, body: b })).status,
      [`/api/public/catalogs/${fx.catalogId}/taxonomy`, token, JSON.stringify(taxonomy)] as const,
    );
    expect(put).toBe(200);
    const gridUrl = `${base}/dashboard/catalogs/${fx.catalogId}/items?category=unclassified&f.price=range:..30`;
    await page.goto(gridUrl);
    const rows = await page.$$eval('#item-grid tbody tr[data-item-id]', (els) => els.map((e) => e.getAttribute('data-item-id') ?? ''));
    expect(rows.sort()).toEqual([fx.items['MS-200'], fx.items['CB-400']].sort());
    await Promise.all([page.waitForNavigation(), page.click('#bulk-link')]);
    expect(await page.$eval('#bulk-count', (e) => e.textContent)).toBe('2');
    await page.selectOption('#bulk-action', 'move');
    await page.selectOption('#bulk-node', 'cables');
    const activityId = await submitBulk();
    await waitStaged(activityId);
    const staged: Array<{ catalog_item_id: string; after_data: Record<string, unknown>; status: string }> = await knex()('staged_changes')
      .where({ activity_id: activityId })
      .select('catalog_item_id', 'after_data', 'status');
    expect(staged.map((c) => c.catalog_item_id).sort()).toEqual(rows);
    expect(staged.every((c) => c.after_data.category_id === 'cables' && c.status === 'pending')).toBe(true);
    // The preview names the node by its path, and says what the action is.
    await page.goto(activityPage(activityId));
    expect(await page.$eval('h1', (e) => e.textContent)).toMatch(/move/i);
    expect(await page.$eval('main', (e) => e.textContent)).toContain('Accessories > Cables');
    await Promise.all([page.waitForNavigation(), page.click('#bulk-actions button.approve')]);
    expect(await applyOnPage()).toMatch(/Applied 2\b/);
    expect((await itemData('MS-200')).category_id).toBe('cables');
    expect((await itemData('CB-400')).category_id).toBe('cables');
    expect((await itemData('KB-100')).category_id).toBeUndefined();
    // The grid's tree counts the moved items under the node and its parent; two are left unclassified.
    await page.goto(`${base}/dashboard/catalogs/${fx.catalogId}/items`);
    const tree = await page.$$eval('.taxonomy-tree a', (els) => els.map((e) => (e.textContent ?? '').replace(/\s+/g, ' ').trim()));
    expect(tree).toEqual(['All items', 'Accessories 2', 'Cables 2', 'Unclassified 2']);
  }, 120_000);

  test('while its workflow stages, the bulk action shows its staging progress (reloaded by the page script)', async () => {
    // An activity as createBulkAction leaves it before its workflow has staged anything.
    const { page, base } = ui;
    const id = newId();
    await knex()('review_activities').insert({
      id,
      organization_id: org.organizationId,
      catalog_id: fx.catalogId,
      type: 'custom_transform',
      status: 'created',
      description: 'Bulk action: set color to "Blue" on 3 items',
      input_data: JSON.stringify({ bulk_action: { action: 'set', query: 'missing=color', field: 'color', value: 'Blue', matching: 3 } }),
    });
    await page.goto(`${base}/dashboard/catalogs/${fx.catalogId}/items/bulk/${id}`);
    expect(await page.$eval('#bulk-staging', (e) => e.textContent)).toBe('Staging the changes: 0 of 3.');
    expect(await page.$eval('meta[name="dashboard-refresh-seconds"]', (e) => e.getAttribute('content'))).toBe('1');
    await shotAndCheck(page, 'bulk-action-staging.png');
    // Once staged (pending_review), the same URL is the review page: the page's own reload gets
    // there (a goto of ours would race that reload, which aborts one of the two navigations).
    await knex()('review_activities').where({ id }).update({ status: 'pending_review' });
    await page.waitForURL(activityPage(id), { timeout: 15_000 });
    expect(page.url()).toBe(activityPage(id));
  });

  test('a bulk action that cannot be staged (its filter names a field the schema no longer has) fails at once, saying why', async () => {
    const { page, base, env } = ui;
    const id = newId();
    await knex()('review_activities').insert({
      id,
      organization_id: org.organizationId,
      catalog_id: fx.catalogId,
      type: 'custom_transform',
      status: 'created',
      description: 'Bulk action: clear gone on 1 item',
      input_data: JSON.stringify({ bulk_action: { action: 'clear', query: 'missing=gone', field: 'gone', value: null, matching: 1 } }),
    });
    const runner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 1 });
    await runner.startBulkStage({ activity_id: id, organization_id: org.organizationId, catalog_id: fx.catalogId });
    await env.client.workflow.getHandle(bulkStageWorkflowId(id)).result();
    const a = await knex()('review_activities').where({ id }).first('status', 'last_message');
    expect(a.status).toBe('failed');
    expect(a.last_message).toMatch(/^Staging failed: .*gone/);
    expect(await knex()('staged_changes').where({ activity_id: id }).count({ n: '*' })).toEqual([{ n: '0' }]);
    const shown = await page.goto(`${base}/dashboard/catalogs/${fx.catalogId}/items/bulk/${id}`);
    expect(page.url()).toBe(activityPage(id));
    expect(shown?.status()).toBe(200);
    expect(await page.$eval('main', (e) => e.textContent)).toContain('Staging failed');
  }, 60_000);

  test('bad input: an unknown field is a 422, another organization’s catalog a 403', async () => {
    const { page, base } = ui;
    const token = await page.$eval('meta[name="csrf-token"]', (e) => e.getAttribute('content') ?? '');
    const post = (catalogId: string, body: Record<string, string>) =>
      page.evaluate(
        async ([u, b]) =>
          (await fetch(u, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(b).toString() }))
            .status,
        [`/dashboard/catalogs/${catalogId}/items/bulk`, { csrf_token: token, ...body }] as const,
      );
    expect(await post(fx.catalogId, { action: 'set', field: 'nope', value: 'x', query: '' })).toBe(422);
    const other = await createTestOrg('bulk other org');
    const otherFx = await createReviewFixture(other.organizationId);
    expect(await post(otherFx.catalogId, { action: 'set', field: 'brand', value: 'x', query: '' })).toBe(403);
    expect((await page.goto(`${base}/dashboard/catalogs/${fx.catalogId}/items/bulk?f.price=range:abc`))?.status()).toBe(422);
  });
});
