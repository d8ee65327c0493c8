/**
 * The completeness and readiness page of the catalog console in Chromium: the
 * grid links to it; its totals, its by-field and by-node counts equal what the fixture's data
 * says (schema `required` plus the node's required attributes); a readiness profile
 * ("Marketplace A": required fields and a rule) is created with the form and its ready, missing
 * and failing counts are checked against the data; a "missing X" number lands on the grid
 * filtered to exactly those items. Creating a profile needs the CSRF token; axe-core finds no
 * serious or critical violation.
 */
import request from 'supertest';
import { testApp } from '../helpers/app';
import { createTestOrg } from '../helpers/db';
import { shotAndCheck } from './chromium';
import { useBrowserSession } from './dashboard-server';
import { createGridFixture, fixtureComplete, isEmpty, type GridFixtureItem } from '../helpers/grid-catalog';

describe('completeness page in Chromium', () => {
  const app = testApp().callback();
  let org: Awaited<ReturnType<typeof createTestOrg>>;
  let catalogId: string;
  let items: GridFixtureItem[];

  const ui = useBrowserSession({
    async setUp() {
      org = await createTestOrg('completeness org');
      ({ catalogId, items } = await createGridFixture(org.organizationId));
      return app;
    },
    timeoutMs: 120_000,
  });

  const fmt = (n: number) => n.toLocaleString('en-US');
  const count = (f: (d: Record<string, unknown>) => boolean) => items.filter((i) => f(i.data)).length;
  const text = async (selector: string) => (await ui.page.innerText(selector)).replace(/\s+/g, ' ').trim();
  const gridCount = async () => (await ui.page.textContent('#grid-count'))!.trim();
  const inSubtree = (node: string) => (d: Record<string, unknown>) =>
    node === 'apparel' ? ['apparel', 'shirts', 'shoes'].includes(d.category_id as string) : d.category_id === node;

  test('the grid links to the page; totals, by field and by node match the data', async () => {
    const { page, base } = ui;
    await ui.signIn(org.apiKey);
    await page.goto(`${base}/dashboard/catalogs/${catalogId}/items`);
    await Promise.all([page.waitForNavigation(), page.click('.title-row a:text-is("Completeness")')]);
    expect(new URL(page.url()).pathname).toBe(`/dashboard/catalogs/${catalogId}/completeness`);
    const complete = count(fixtureComplete);
    expect(await text('#completeness-totals')).toBe(`${fmt(items.length)} items ${fmt(complete)} complete ${fmt(items.length - complete)} incomplete`);
    for (const field of ['title', 'brand', 'price', 'size']) {
      const empty = count((d) => isEmpty(d[field]));
      expect(await text(`#by-field tr[data-field="${field}"] td.missing`)).toBe(fmt(empty));
      expect(await text(`#by-field tr[data-field="${field}"] td.filled`)).toBe(fmt(items.length - empty));
    }
    for (const node of ['apparel', 'shirts', 'shoes', 'electronics']) {
      const sub = items.filter((i) => inSubtree(node)(i.data));
      const cells = await page.$$eval(`#by-node tr[data-node="${node}"] td.num`, (els) => els.map((e) => (e.textContent ?? '').trim()));
      const done = sub.filter((i) => fixtureComplete(i.data)).length;
      expect(cells).toEqual([fmt(sub.length), fmt(done), fmt(sub.length - done)]);
    }
    const shirtsMissingSize = count((d) => d.category_id === 'shirts' && isEmpty(d.size));
    expect(await text('#by-node tr[data-node="shirts"] .missing-list')).toContain(`size ${fmt(shirtsMissingSize)}`);
    await shotAndCheck(page, 'completeness.png');
  });

  test('a readiness profile is created; its counts match the data', async () => {
    const { page } = ui;
    await page.fill('#profile-name', 'Marketplace A');
    await page.fill('#profile-description', 'Brand and price, priced 10 to 100');
    await page.check('#new-profile input[name=required_fields][value=brand]');
    await page.check('#new-profile input[name=required_fields][value=price]');
    await page.fill('#profile-rules', 'price range 10..100');
    await Promise.all([page.waitForNavigation(), page.click('#new-profile button[type=submit]')]);
    const inRange = (d: Record<string, unknown>) => typeof d.price === 'number' && d.price >= 10 && d.price <= 100;
    const ready = count((d) => !isEmpty(d.brand) && !isEmpty(d.price) && inRange(d));
    const profile = '#profiles .profile:has(h3:text-is("Marketplace A"))';
    expect(await text(`${profile} .profile-counts`)).toBe(
      `${fmt(ready)} ready · ${fmt(items.length - ready)} not ready (${Math.round((ready / items.length) * 100)}% ready)`,
    );
    expect(await text(`${profile} li[data-required=brand]`)).toBe(`brand required: ${fmt(count((d) => isEmpty(d.brand)))} missing`);
    expect(await text(`${profile} li[data-rule="0"]`)).toBe(`rule price range 10..100: ${fmt(count((d) => !inRange(d)))} failing`);
    // The profile's numbers lead to the grid of exactly those items.
    await Promise.all([page.waitForNavigation(), page.click(`${profile} .not-ready a`)]);
    expect(await gridCount()).toBe(`${fmt(items.length - ready)} items`);
    await page.goBack();
    await Promise.all([page.waitForNavigation(), page.click(`${profile} li[data-rule="0"] a`)]);
    expect(await gridCount()).toBe(`${fmt(count((d) => !inRange(d)))} items`);
    await page.goBack();
    await shotAndCheck(page, 'completeness-profile.png');
  });

  test('"missing brand" lands on the grid filtered to the items without a brand', async () => {
    const { page } = ui;
    await Promise.all([page.waitForNavigation(), page.click('#by-field tr[data-field=brand] td.missing a')]);
    const url = new URL(page.url());
    expect(url.pathname).toBe(`/dashboard/catalogs/${catalogId}/items`);
    expect(url.searchParams.get('missing')).toBe('brand');
    expect(await gridCount()).toBe(`${fmt(count((d) => isEmpty(d.brand)))} items`);
    expect(await text('#active-filters')).toContain('brand missing');
    // Every row lists brand among its missing fields only when brand is required: here it is not, so the rows just lack it.
    const missing = count((d) => isEmpty(d.brand));
    expect(await page.$$eval('#item-grid tbody tr', (rows) => rows.length)).toBe(Math.min(50, missing));
    await page.goBack();
    await Promise.all([page.waitForNavigation(), page.click('#by-node tr[data-node=shirts] .missing-field:has-text("size") a')]);
    expect(await gridCount()).toBe(`${fmt(count((d) => d.category_id === 'shirts' && isEmpty(d.size)))} items`);
    expect(await page.$$eval('#item-grid td.completeness .missing', (els) => els.every((e) => (e.textContent ?? '').includes('size')))).toBe(true);
  });

  test('creating a profile without the CSRF token is refused; a bad rule is a 422', async () => {
    const { page } = ui;
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const url = `/dashboard/catalogs/${catalogId}/completeness/profiles`;
    expect((await request(app).post(url).set('Cookie', cookie).type('form').send({ name: 'No token', required_fields: 'brand' })).status).toBe(403);
    const csrf = await page.getAttribute('meta[name=csrf-token]', 'content');
    const bad = await request(app).post(url).set('Cookie', cookie).type('form').send({ csrf_token: csrf, name: 'Bad', rules: 'price range cheap..dear' });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('Not a number');
    const other = await createTestOrg('completeness other org');
    const res = await request(app).post('/dashboard/login').type('form').send({ credential: other.apiKey });
    const otherCookie = ([] as string[])
      .concat(res.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('catalog_dashboard_session='))!
      .split(';')[0]!;
    expect((await request(app).get(`/dashboard/catalogs/${catalogId}/completeness`).set('Cookie', otherCookie)).status).toBe(403);
  });
});
