/**
 * The review dashboard in a real browser: Debian's chromium driven by playwright-core
 * (no browser download; `CHROMIUM_PATH` or /usr/bin/chromium). Skipped, with a message saying
 * so, only when no Chromium is installed (test/setup/prepare.ts installs it where it can).
 * Screenshots go to `DASHBOARD_SCREENSHOTS` (e.g. docs/screenshots) when that is set.
 */
import { shotAndCheck } from './chromium';
import { useBrowserSession } from './dashboard-server';
import { createTestOrg, testKnex } from '../helpers/db';
import { testApp } from '../helpers/app';
import { fakeEngine, testApiFor } from '../helpers/temporal';
import { createReviewFixture, XSS_PROBE, type ReviewFixture } from './fixture';

describe('review dashboard in Chromium', () => {
  let org: Awaited<ReturnType<typeof createTestOrg>>;
  let fx: ReviewFixture;
  let other: ReviewFixture;

  const ui = useBrowserSession({
    async setUp() {
      org = await createTestOrg('dashboard org');
      fx = await createReviewFixture(org.organizationId, { xssProbe: true });
      const otherOrg = await createTestOrg('other org');
      other = await createReviewFixture(otherOrg.organizationId);
      return testApp().callback();
    },
  });

  const activityUrl = (f: ReviewFixture) => `${ui.base}/dashboard/catalogs/${f.catalogId}/activities/${f.activityId}`;
  const shot = (name: string) => shotAndCheck(ui.page, name);
  const rowStatuses = () => ui.page.$$eval('tbody.change', (els) => els.map((e) => e.getAttribute('data-status')));

  test('not signed in: the activity page redirects to the sign-in page; a wrong key is refused', async () => {
    const { page } = ui;
    await page.goto(activityUrl(fx));
    expect(new URL(page.url()).pathname).toBe('/dashboard/login');
    await shot('review-login.png');
    await page.type('#credential', 'ck_not_a_real_key');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(await page.$eval('.alert', (e) => e.textContent)).toContain('not valid');
  });

  test('sign in with the API key, then the activity page shows summary, diffs, badges and safe links', async () => {
    const { page, browser } = ui;
    await page.goto(activityUrl(fx));
    await page.type('#credential', org.apiKey);
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(page.url()).toBe(activityUrl(fx));
    const cookies = await browser.cookies();
    const session = cookies.find((c) => c.name === 'catalog_dashboard_session');
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe('Lax');
    expect(await page.$eval('h1', (e) => e.textContent)).toBe('Enrich brand and color');
    expect(await rowStatuses()).toEqual(['pending', 'pending', 'pending', 'pending']);
    // The title of KB-100 changed: only the added words are highlighted.
    const title = await page.$eval(`tbody[data-change-id="${fx.changes['KB-100']}"] tr[data-field="title"] td.after ins`, (e) => e.textContent);
    expect(title?.trim()).toBe('K2 (wireless)');
    expect(await page.$$eval('tbody.change tr[data-field="brand"] .badge.method', (els) => els.map((e) => e.textContent))).toEqual([
      'jsonld',
      'jsonld',
      'jsonld',
      'jsonld',
    ]);
    // Source links: the https one is a link, the javascript: one is dropped.
    const hrefs = await page.$$eval('td.sources a', (els) => els.map((e) => e.getAttribute('href') ?? ''));
    expect(hrefs.length).toBeGreaterThan(0);
    expect(hrefs.every((h) => h.startsWith('https://'))).toBe(true);
    // The XSS probe is shown as text and never became an element.
    const probe = await page.$eval(`tbody[data-change-id="${fx.changes['HD-300']}"] tr[data-field="color"] td.after`, (e) => ({
      text: e.textContent,
      imgs: e.querySelectorAll('img').length,
    }));
    expect(probe).toEqual({ text: XSS_PROBE, imgs: 0 });
    expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.$eval('.counts a.count.status-pending .n', (e) => e.textContent)).toBe('4');
    // Per-field completion arrives from the summary endpoint after the page is shown.
    await page.waitForSelector('#field-completion tr[data-field="brand"]');
    expect(await page.$eval('#field-completion tr[data-field="brand"] td:nth-child(3)', (e) => e.textContent)).toBe('4 / 4 (100%)');
    expect(await page.$eval('#field-completion tr[data-field="title"] td:nth-child(4)', (e) => e.textContent)).toBe('1');
  });

  test('filters: by text and by status narrow the table', async () => {
    const { page } = ui;
    await page.goto(activityUrl(fx));
    await page.type('input[name=q]', 'Logitech');
    await Promise.all([page.waitForNavigation(), page.click('form.filters button[type=submit]')]);
    expect(new URL(page.url()).searchParams.get('q')).toBe('Logitech');
    expect(await page.$$eval('tbody.change', (els) => els.map((e) => e.getAttribute('data-change-id')))).toEqual([fx.changes['MS-200']]);
    await page.goto(activityUrl(fx));
    await page.selectOption('select[name=status]', 'approved');
    await Promise.all([page.waitForNavigation(), page.click('form.filters button[type=submit]')]);
    expect(new URL(page.url()).searchParams.get('status')).toBe('approved');
    expect(await page.$$('tbody.change')).toHaveLength(0);
  });

  test("another organization's activity is a 403 page", async () => {
    const { page } = ui;
    const res = await page.goto(activityUrl(other));
    expect(res?.status()).toBe(403);
    expect(await page.$eval('h1', (e) => e.textContent)).toContain('403');
  });

  test('cookie-authenticated API writes need the CSRF token; reads do not', async () => {
    const { page, base } = ui;
    await page.goto(`${base}/dashboard/catalogs/${fx.catalogId}`);
    const token = await page.$eval('meta[name="csrf-token"]', (e) => e.getAttribute('content') ?? '');
    const result = await page.evaluate(
      async ([activityId, token]) => {
        const post = (headers: Record<string, string>) =>
          fetch('/api/public/catalogs', { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: '{}' }).then((r) => r.status);
        return {
          read: (await fetch(`/api/activities/${activityId}`)).status,
          noToken: await post({}),
          wrongToken: await post({ 'X-CSRF-Token': 'x'.repeat(token.length) }),
          withToken: await post({ 'X-CSRF-Token': token }),
        };
      },
      [fx.activityId, token] as const,
    );
    // With the token the request reaches validation (422: the empty body is not a catalog).
    expect(result).toEqual({ read: 200, noToken: 403, wrongToken: 403, withToken: 422 });
  });

  test('the catalog page lists the activity and links to it', async () => {
    const { page } = ui;
    await page.goto(activityUrl(fx));
    await Promise.all([page.waitForNavigation(), page.click(`main a[href="/dashboard/catalogs/${fx.catalogId}"]`)]);
    const links = await page.$$eval('table.activities a', (els) => els.map((e) => e.getAttribute('href')));
    expect(links).toEqual([`/dashboard/catalogs/${fx.catalogId}/activities/${fx.activityId}`]);
    await shot('review-catalog.png');
  });

  test('vendor drafts stay out of the console until the toggle shows them, each marked as a draft without review buttons; the bulk buttons never count them', async () => {
    const { page, base } = ui;
    const drafted = await createReviewFixture(org.organizationId);
    await testKnex()('staged_changes').whereIn('id', [drafted.changes['HD-300'], drafted.changes['CB-400']]).update({ status: 'draft' });
    await testKnex()('staged_changes').where({ id: drafted.changes['MS-200'] }).update({ status: 'rejected' });
    await page.goto(activityUrl(drafted));
    expect(await rowStatuses()).toEqual(['pending', 'rejected']);
    expect(await page.$eval('#drafts-note', (e) => e.textContent?.replace(/\s+/g, ' ').trim())).toBe('2 vendor draft(s) hidden until submitted. Show drafts');
    expect(await page.$$('.counts a.count.status-draft')).toHaveLength(0);
    const toggle = 'form.filters input[type=checkbox][name=drafts]';
    expect([await page.isChecked(toggle), await page.$eval(toggle, (e) => e.closest('label')?.textContent?.trim())]).toEqual([false, 'Include drafts']);
    const bulk = () => page.$$eval('#bulk-actions button', (els) => els.map((e) => [e.textContent?.trim(), e.getAttribute('data-confirm')]));
    const undecidedOnly = [
      ['Approve 1 undecided', expect.stringMatching(/^Approve 1 undecided change\(s\) matching the filter\?/)],
      ['Reject 1 undecided', expect.stringMatching(/^Reject 1 undecided change\(s\)/)],
    ];
    expect(await bulk()).toEqual(undecidedOnly);
    // The toggle: the filter form's checkbox (a GET parameter, drafts=1).
    await page.check(toggle);
    await Promise.all([page.waitForNavigation(), page.click('form.filters button[type=submit]')]);
    expect(new URL(page.url()).searchParams.get('drafts')).toBe('1');
    expect(await page.isChecked(toggle)).toBe(true);
    expect(await rowStatuses()).toEqual(['pending', 'rejected', 'draft', 'draft']);
    // Each draft is marked as one and takes no review button (the API refuses to review a draft).
    const drafts = await page.$$eval('tbody.change[data-status="draft"]', (els) =>
      els.map((e) => [e.querySelector('.draft-label')?.textContent?.trim(), e.querySelectorAll('button[data-review]').length]),
    );
    expect(drafts).toEqual([
      ['draft · not submitted', 0],
      ['draft · not submitted', 0],
    ]);
    expect(await page.$$eval('tbody.change[data-status="pending"] button[data-review]', (els) => els.length)).toBeGreaterThan(0);
    expect(await page.$eval('.counts a.count.status-draft .n', (e) => e.textContent)).toBe('2');
    expect(await bulk()).toEqual(undecidedOnly);
    expect(await page.$eval('#field-completion', (e) => e.getAttribute('data-summary-url'))).toBe(
      `/api/activities/${drafted.activityId}/staged-changes/summary?include_drafts=true`,
    );
    await shotAndCheck(page, 'review-drafts.png');
    // The note's link hides them again.
    await Promise.all([page.waitForNavigation(), page.click('#drafts-note a')]);
    expect(new URL(page.url()).searchParams.get('drafts')).toBeNull();
    expect(await rowStatuses()).toEqual(['pending', 'rejected']);

    // An activity whose changes are all drafts is not on the catalog page until the toggle shows it, marked.
    await testKnex()('staged_changes').where({ activity_id: drafted.activityId }).update({ status: 'draft' });
    await page.goto(`${base}/dashboard/catalogs/${drafted.catalogId}`);
    expect(await page.$$('table.activities a')).toHaveLength(0);
    await page.check('#drafts-toggle input[name=drafts]');
    await Promise.all([page.waitForNavigation(), page.click('#drafts-toggle button[type=submit]')]);
    expect(new URL(page.url()).searchParams.get('drafts')).toBe('1');
    expect(await page.$$eval('table.activities a', (els) => els.map((e) => e.getAttribute('href')))).toEqual([
      `/dashboard/catalogs/${drafted.catalogId}/activities/${drafted.activityId}?drafts=1`,
    ]);
    expect(await page.$eval('table.activities tr[data-activity-id] .draft-label', (e) => e.textContent?.trim())).toBe('4 draft(s) · not submitted');
    await shotAndCheck(page, 'review-catalog-drafts.png');
  });

  test('sign out ends the session', async () => {
    const { page } = ui;
    await page.goto(activityUrl(fx));
    await Promise.all([page.waitForNavigation(), page.click('form.signout button')]);
    expect(new URL(page.url()).pathname).toBe('/dashboard/login');
    expect(await testKnex()('dashboard_sessions').where({ organization_id: org.organizationId }).count({ n: '*' })).toEqual([{ n: '0' }]);
    await page.goto(activityUrl(fx));
    expect(new URL(page.url()).pathname).toBe('/dashboard/login');
  });
});

describe('review loop in Chromium: review, apply, catalog changed', () => {
  const TASK_QUEUE = 'test-browser-review';
  let org: Awaited<ReturnType<typeof createTestOrg>>;
  let fx: ReviewFixture;

  const ui = useBrowserSession({
    worker: { taskQueue: TASK_QUEUE, engine: fakeEngine() },
    async setUp({ env }) {
      org = await createTestOrg('dashboard apply org');
      fx = await createReviewFixture(org.organizationId);
      return testApiFor(env, TASK_QUEUE);
    },
    timeoutMs: 180_000,
  });

  const changeRow = (sku: string) => `tbody[data-change-id="${fx.changes[sku]}"]`;
  const itemData = async (sku: string) => (await testKnex()('catalog_items').where({ id: fx.items[sku] }).first('data')).data as Record<string, unknown>;

  test('sign in, filter, approve one field, reject one change, apply: the catalog has the approved value only', async () => {
    const { page, base } = ui;
    const url = `${base}/dashboard/catalogs/${fx.catalogId}/activities/${fx.activityId}`;
    await page.goto(url);
    await page.type('#credential', org.apiKey);
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(page.url()).toBe(url);

    // Filter: low confidence → only the cable.
    await page.selectOption('select[name=confidence]', 'low');
    await Promise.all([page.waitForNavigation(), page.click('form.filters button[type=submit]')]);
    expect(await page.$$eval('tbody.change', (els) => els.map((e) => e.getAttribute('data-change-id')))).toEqual([fx.changes['CB-400']]);
    await page.goto(url);

    // Approve only the brand of the keyboard: partially accepted, brand accepted.
    await Promise.all([page.waitForNavigation(), page.click(`${changeRow('KB-100')} tr[data-field="brand"] button.approve`)]);
    expect(await page.$eval(changeRow('KB-100'), (e) => e.getAttribute('data-status'))).toBe('partially_accepted');
    expect(await page.$eval(`${changeRow('KB-100')} tr[data-field="brand"] .field-name .badge`, (e) => e.textContent)).toBe('accepted');

    // Reject the whole mouse change.
    await Promise.all([page.waitForNavigation(), page.click(`${changeRow('MS-200')} .change-head button.reject`)]);
    expect(await page.$eval(changeRow('MS-200'), (e) => e.getAttribute('data-status'))).toBe('rejected');
    // The README's picture: a reviewed page (one partially accepted, one rejected, two pending).
    await page.waitForSelector('#field-completion table');
    await shotAndCheck(page, 'review-activity.png');

    // Apply: progress, then the result with the pre-apply snapshot, after the page reloads.
    await page.click('#apply-button');
    await page.waitForSelector('#apply-result strong', { timeout: 60_000 });
    expect(await page.$eval('#apply-result', (e) => e.textContent)).toMatch(/Applied 1\b.*pre-apply snapshot/s);
    expect(await page.$eval('h1 + .badge', (e) => e.textContent)).toBe('completed');
    expect(await page.$eval(`${changeRow('KB-100')} .change-head`, (e) => e.textContent)).toContain('applied');
    expect(await page.$$(`${changeRow('KB-100')} button`)).toHaveLength(0); // applied: no more review
    await shotAndCheck(page, 'review-applied.png');

    // The catalog changed: the keyboard got its brand (only), nothing else did.
    const keyboard = await itemData('KB-100');
    expect(keyboard).toMatchObject({ sku: 'KB-100', brand: 'Keychron', title: 'Mechanical keyboard' });
    expect(keyboard.color).toBeUndefined();
    expect(await itemData('MS-200')).toEqual({ sku: 'MS-200', title: 'Wireless mouse', brand: 'Logi', price: 25 });
    expect(await itemData('HD-300')).toEqual({ sku: 'HD-300', title: 'Studio headphones', price: 149 });
    // … and the API the dashboard's session reads shows it too.
    const api = await page.evaluate(async (u) => (await fetch(u)).json(), `/api/public/catalogs/${fx.catalogId}/items/${fx.items['KB-100']}`);
    expect(JSON.stringify(api)).toContain('Keychron');
  });

  test('"approve all" says how many undecided changes it touches and leaves the decisions; a further apply writes them; a restore is shown', async () => {
    const { page, base, dialogs } = ui;
    const url = `${base}/dashboard/catalogs/${fx.catalogId}/activities/${fx.activityId}`;
    await page.goto(url);
    // Two changes are still undecided (HD-300, CB-400); the rejected mouse and the applied keyboard are not counted.
    const approveAll = '#bulk-actions button.approve';
    expect(await page.$eval(approveAll, (e) => e.textContent?.trim())).toBe('Approve 2 undecided');
    await shotAndCheck(page, 'review-bulk-count.png');
    dialogs.length = 0;
    await Promise.all([page.waitForNavigation(), page.click(approveAll)]);
    expect(dialogs).toEqual([expect.stringMatching(/^Approve 2 undecided change\(s\) matching the filter\?/)]);
    expect(await page.$eval(changeRow('MS-200'), (e) => e.getAttribute('data-status'))).toBe('rejected');
    expect(await page.$eval(changeRow('KB-100'), (e) => e.getAttribute('data-status'))).toBe('partially_accepted');
    expect(await page.$eval(changeRow('HD-300'), (e) => e.getAttribute('data-status'))).toBe('approved');
    expect(await page.$eval(approveAll, (e) => [e.textContent?.trim(), e.hasAttribute('disabled')])).toEqual(['Approve 0 undecided', true]);

    // A further apply of the completed activity writes the two, nothing else.
    expect(await page.$eval('#apply-button', (e) => e.textContent?.trim())).toBe('Apply the newly approved changes');
    await page.click('#apply-button');
    await page.waitForSelector('#apply-result:has-text("Applied 2")', { timeout: 60_000 });
    expect(await itemData('HD-300')).toMatchObject({ brand: 'Beyerdynamic', color: 'Black' });
    expect(await itemData('MS-200')).toEqual({ sku: 'MS-200', title: 'Wireless mouse', brand: 'Logi', price: 25 });
    expect((await itemData('KB-100')).color).toBeUndefined();
    const snapshots: Array<{ id: string }> = await testKnex()('catalog_snapshots')
      .where({ catalog_id: fx.catalogId, snapshot_type: 'pre_apply' })
      .orderBy('created_at')
      .select('id');
    expect(snapshots).toHaveLength(2);

    // Restoring the last apply's pre-apply snapshot (through the API, with the page's session) is shown on the page.
    const token = await page.$eval('meta[name="csrf-token"]', (e) => e.getAttribute('content') ?? '');
    const restored = await page.evaluate(
      async ([u, t]) => (await fetch(u, { method: 'POST', headers: { 'X-CSRF-Token': t, 'Content-Type': 'application/json' }, body: '{}' })).status,
      [`/api/public/catalogs/${fx.catalogId}/snapshots/${snapshots[1].id}/restore`, token] as const,
    );
    expect(restored).toBe(200);
    await page.goto(url);
    expect(await page.$eval('#apply-restores', (e) => e.textContent)).toContain(snapshots[1].id);
    expect((await itemData('HD-300')).brand).toBeUndefined();
    await shotAndCheck(page, 'review-restored.png');
  });
});
