/**
 * The organization page of the dashboard in a real browser: Chromium signs in,
 * opens it from the top navigation, creates an API key (shown once, and it works against the
 * API), revokes it (the API refuses it from then on), shows and rotates the webhook secret (the
 * API serves the new one), and sets the default master catalog (the API reads it back). axe-core
 * finds no serious or critical accessibility violation, the page's CSP stays on. Screenshots go to
 * `DASHBOARD_SCREENSHOTS` (e.g. docs/screenshots) when that is set.
 */
import request from 'supertest';
import { testApp } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { createTestOrg } from '../helpers/db';
import { waitUntil } from '../helpers/wait';
import { shotAndCheck } from './chromium';
import { useBrowserSession } from './dashboard-server';

describe('organization page in Chromium', () => {
  const app = testApp().callback();
  let org: Awaited<ReturnType<typeof createTestOrg>>;
  let masterId: string;

  const ui = useBrowserSession({
    async setUp() {
      org = await createTestOrg('organization page org');
      masterId = await createTestCatalog(org.organizationId);
      // Revoke and rotate ask first; the page accepts every dialog (useBrowserSession).
      return app;
    },
    timeoutMs: 120_000,
  });

  const texts = (selector: string) => ui.page.$$eval(selector, (els) => els.map((e) => (e.textContent ?? '').trim()));
  const attrs = (selector: string, name: string) => ui.page.$$eval(selector, (els, n) => els.map((e) => e.getAttribute(n) ?? ''), name);
  const api = (key: string) => request(app).get('/api/public/api-keys').set('Authorization', `Bearer ${key}`);

  test('signed in, the top navigation leads to the page, which lists the key by prefix only', async () => {
    const { page } = ui;
    await ui.signIn(org.apiKey);
    expect(await attrs('.topbar .sections a', 'href')).toEqual(['/dashboard', '/dashboard/flows', '/dashboard/jobs', '/dashboard/organization']);
    await Promise.all([page.waitForNavigation(), page.click('.topbar .sections a[href="/dashboard/organization"]')]);
    expect(new URL(page.url()).pathname).toBe('/dashboard/organization');
    expect(await texts('table.keys tbody tr td:nth-child(2)')).toEqual([`${org.apiKey.slice(0, 10)}…`]);
    expect(await page.content()).not.toContain(org.apiKey);
    await shotAndCheck(page, 'organization.png');
  });

  test('a created key is shown once and works; revoked, the API refuses it', async () => {
    const { page } = ui;
    await page.fill('#key-name', 'nightly import');
    await page.click('#create-key button[type=submit]');
    const created = await (await page.waitForSelector('#new-key-value')).textContent();
    expect(created).toMatch(/^ck_/);
    expect((await api(created!)).status).toBe(200);
    await page.reload();
    expect(await page.content()).not.toContain(created!);
    const row = `table.keys tbody tr:has(td:text-is("nightly import"))`;
    expect(await texts(`${row} td:nth-child(2)`)).toEqual([`${created!.slice(0, 10)}…`]);
    await Promise.all([page.waitForNavigation(), page.click(`${row} button[data-org-action=revoke-key]`)]);
    expect((await texts(`${row} td:nth-child(4)`))[0]).toMatch(/^revoked/);
    expect(await page.$$(`${row} button`)).toHaveLength(0);
    expect((await api(created!)).status).toBe(401);
    // The signed-in key still works.
    expect((await api(org.apiKey)).status).toBe(200);
  });

  test('the webhook secret is hidden until asked for; rotated, the API serves the new one', async () => {
    const { page } = ui;
    const before = (await request(app).get('/api/public/organization/webhook-secret').set(org.auth)).body.webhook_secret as string;
    expect(await page.textContent('#webhook-secret')).not.toContain(before);
    await page.click('button[data-org-action=show-secret]');
    await waitUntil(async () => (await page.textContent('#webhook-secret')) === before, 'the secret shown');
    await page.click('button[data-org-action=rotate-secret]');
    await waitUntil(async () => (await page.textContent('#webhook-secret')) !== before, 'the rotated secret shown');
    const after = (await request(app).get('/api/public/organization/webhook-secret').set(org.auth)).body.webhook_secret as string;
    expect(after).not.toBe(before);
    expect(await page.textContent('#webhook-secret')).toBe(after);
    expect(await page.textContent('#webhook-message')).toMatch(/Rotated/);
  });

  test('the default master catalog is chosen from the catalogs and read back by the API', async () => {
    const { page } = ui;
    expect(await attrs('#master-catalog option', 'value')).toEqual(['', masterId]);
    await page.selectOption('#master-catalog', masterId);
    await page.click('#default-master button[type=submit]');
    await waitUntil(async () => (await page.textContent('#default-master-message')) === 'Saved.', 'the save confirmed');
    const res = await request(app).get('/api/public/organization/default-master-catalog').set(org.auth);
    expect(res.body.default_master_catalog_id).toBe(masterId);
    await page.reload();
    expect(await page.inputValue('#master-catalog')).toBe(masterId);
    await shotAndCheck(page, 'organization-master.png');
  });

  test("another organization's session sees its own keys only", async () => {
    const other = await createTestOrg('organization page other org');
    const res = await request(app).post('/dashboard/login').type('form').send({ credential: other.apiKey });
    const cookie = ([] as string[])
      .concat(res.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('catalog_dashboard_session='))!
      .split(';')[0]!;
    const pageHtml = (await request(app).get('/dashboard/organization').set('Cookie', cookie)).text;
    expect(pageHtml).toContain(other.apiKey.slice(0, 10));
    expect(pageHtml).not.toContain(org.apiKey.slice(0, 10));
    expect(pageHtml).not.toContain(masterId);
  });
});
