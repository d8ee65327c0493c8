/**
 * The item grid of the catalog console in Chromium: signed in, the catalog page's
 * "Items" link opens the grid of a 3,000-item catalog; a filter added with the filter form, a
 * sort by a column header, a column choice saved as a named view, keyset paging through every
 * page of the filtered and sorted list (each row once, in the order computed from the data),
 * the taxonomy tree's counts and its "unclassified" node, search, and products with "n/m
 * variants complete". axe-core finds no serious or critical violation; the page escapes the
 * catalog's name; saving a view needs the CSRF token; another organization gets a 403.
 */
import request from 'supertest';
import { newId } from '../../src/lib/ids';
import { createApiKey } from '../../src/services/access/api-keys';
import { testApp } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { createTestOrg, testKnex } from '../helpers/db';
import { shotAndCheck } from './chromium';
import { useBrowserSession } from './dashboard-server';
import { createGridFixture, GRID_ITEMS, isEmpty, type GridFixtureItem } from '../helpers/grid-catalog';

describe('item grid in Chromium', () => {
  const app = testApp().callback();
  let org: Awaited<ReturnType<typeof createTestOrg>>;
  let catalogId: string;
  let items: GridFixtureItem[];

  const ui = useBrowserSession({
    async setUp() {
      org = await createTestOrg('item grid org');
      ({ catalogId, items } = await createGridFixture(org.organizationId));
      return app;
    },
    timeoutMs: 120_000,
  });

  const texts = (selector: string) => ui.page.$$eval(selector, (els) => els.map((e) => (e.textContent ?? '').trim()));
  const columnTexts = async (field: string) => {
    const headers = await texts('#item-grid thead th');
    const at = headers.findIndex((h) => h.replace(/[ ▲▼]+$/, '') === field);
    if (at < 0) throw new Error(`no column ${field} in ${headers.join(', ')}`);
    return ui.page.$$eval(`#item-grid tbody tr`, (rows, i) => rows.map((r) => (r.children[i]?.textContent ?? '').trim()), at);
  };
  const gridCount = async () => (await ui.page.textContent('#grid-count'))!.trim();
  const fmt = (n: number) => n.toLocaleString('en-US');
  const acme = () => items.filter((it) => it.data.brand === 'Acme');
  /** Price ascending, missing (or null) prices last, ties by id (the grid's order: items-sql.ts orderSql). */
  const byPrice = (xs: GridFixtureItem[]) =>
    [...xs].sort((a, b) => {
      const pa = (a.data.price ?? undefined) as number | undefined;
      const pb = (b.data.price ?? undefined) as number | undefined;
      if (pa === undefined || pb === undefined) return pa === pb ? (a.id < b.id ? -1 : 1) : pa === undefined ? 1 : -1;
      return pa !== pb ? pa - pb : a.id < b.id ? -1 : 1;
    });

  test('the catalog page links to the grid: newest items first, the exact count, the name escaped', async () => {
    const { page, base } = ui;
    await ui.signIn(org.apiKey);
    await page.goto(`${base}/dashboard/catalogs/${catalogId}`);
    await Promise.all([page.waitForNavigation(), page.click('.catalog-links a:text-is("Items")')]);
    expect(new URL(page.url()).pathname).toBe(`/dashboard/catalogs/${catalogId}/items`);
    expect(await gridCount()).toBe(`${GRID_ITEMS.toLocaleString('en-US')} items`);
    const newest = [...items].reverse().slice(0, 50);
    expect(await columnTexts('sku')).toEqual(newest.map((i) => i.data.sku));
    expect(await page.textContent('.title-row .muted')).toContain('Grid fixture <b>shop</b>');
    expect(await page.$('.title-row b')).toBeNull();
    await shotAndCheck(page, 'item-grid.png');
  });

  test('a filter from the form, then a sort by a column header', async () => {
    const { page } = ui;
    await page.selectOption('#filter-field', 'brand');
    await page.selectOption('#filter-op', 'eq');
    await page.fill('#filter-value', 'Acme');
    await Promise.all([page.waitForNavigation(), page.click('#add-filter button[type=submit]')]);
    expect(new URL(page.url()).searchParams.get('f.brand')).toBe('eq:Acme');
    expect(await gridCount()).toBe(`${fmt(acme().length)} items`);
    expect(new Set(await columnTexts('brand'))).toEqual(new Set(['Acme']));
    await Promise.all([page.waitForNavigation(), page.click('#item-grid thead th a:text-is("price")')]);
    expect(new URL(page.url()).searchParams.get('sort')).toBe('price');
    expect(await page.getAttribute('#item-grid thead th:has(a:text("price"))', 'aria-sort')).toBe('ascending');
    expect(await columnTexts('sku')).toEqual(
      byPrice(acme())
        .slice(0, 50)
        .map((i) => i.data.sku),
    );
    // Again: descending (ties by id descending too: one index serves both directions), missing prices still last.
    await Promise.all([page.waitForNavigation(), page.click('#item-grid thead th a:text("price")')]);
    const desc = [...acme()]
      .filter((i) => i.data.price !== undefined)
      .sort((a, b) => (b.data.price as number) - (a.data.price as number) || (a.id < b.id ? 1 : -1));
    expect(await columnTexts('sku')).toEqual(desc.slice(0, 50).map((i) => i.data.sku));
    await Promise.all([page.waitForNavigation(), page.click('#item-grid thead th a:text("price")')]);
  });

  test('columns chosen and saved as a named view, which brings them back', async () => {
    const { page, base } = ui;
    await page.click('.column-chooser summary');
    for (const box of await page.$$('#columns-form input[name=col]')) if (await box.isChecked()) await box.uncheck();
    // Columns come in the schema's field order.
    for (const f of ['sku', 'brand', 'price', 'category_id']) await page.check(`#columns-form input[name=col][value="${f}"]`);
    await Promise.all([page.waitForNavigation(), page.click('#columns-form button[type=submit]')]);
    expect((await texts('#item-grid thead th')).map((h) => h.replace(/[ ▲▼]+$/, ''))).toEqual([
      'sku',
      'brand',
      'price',
      'category_id',
      'updated',
      'Completeness',
    ]);
    const shownUrl = page.url();
    const shown = await columnTexts('sku');
    await page.fill('#view-name', 'Acme by price');
    await Promise.all([page.waitForNavigation(), page.click('#save-view button[type=submit]')]);
    expect(new URL(page.url()).searchParams.get('view')).toMatch(/^[0-9a-f-]{36}$/);
    await page.goto(`${base}/dashboard/catalogs/${catalogId}/items`);
    expect(await gridCount()).toBe(`${GRID_ITEMS.toLocaleString('en-US')} items`);
    await Promise.all([page.waitForNavigation(), page.click('#saved-views a:text-is("Acme by price")')]);
    expect(await columnTexts('sku')).toEqual(shown);
    expect(await gridCount()).toBe(`${fmt(acme().length)} items`);
    expect((await texts('#item-grid thead th')).slice(0, 4).map((h) => h.replace(/[ ▲▼]+$/, ''))).toEqual(['sku', 'brand', 'price', 'category_id']);
    expect(shownUrl).toContain('sort=price');
    await shotAndCheck(page, 'item-grid-view.png');
  });

  test('keyset paging walks every row of the filtered, sorted list once, in order', async () => {
    const { page } = ui;
    const seen: string[] = [];
    for (let guard = 0; guard < 100; guard++) {
      seen.push(...(await columnTexts('sku')));
      const next = await page.$('#next-page');
      if (!next) break;
      await Promise.all([page.waitForNavigation(), next.click()]);
      expect(new URL(page.url()).searchParams.get('cursor')).toBeTruthy();
    }
    expect(seen).toEqual(byPrice(acme()).map((i) => i.data.sku));
    await page.keyboard.press('Tab'); // the page stays keyboard-usable on a deep page
  });

  test('the taxonomy tree counts nodes (subtrees) and unclassified items; a node narrows the grid', async () => {
    const { page, base } = ui;
    await page.goto(`${base}/dashboard/catalogs/${catalogId}/items?cols=sku,category_id`);
    const count = (f: (c: unknown) => boolean) => items.filter((i) => f(i.data.category_id)).length;
    const tree = await texts('.taxonomy-tree a');
    const apparel = count((c) => c === 'apparel' || c === 'shirts' || c === 'shoes');
    const unclassified = count((c) => c === undefined || c === 'retired-node');
    expect(tree).toEqual([
      'All items',
      `Apparel ${fmt(apparel)}`,
      `Shirts ${fmt(count((c) => c === 'shirts'))}`,
      `Shoes ${fmt(count((c) => c === 'shoes'))}`,
      `Electronics ${fmt(count((c) => c === 'electronics'))}`,
      `Unclassified ${fmt(unclassified)}`,
    ]);
    await Promise.all([page.waitForNavigation(), page.click('.taxonomy-tree a:has-text("Unclassified")')]);
    expect(await gridCount()).toBe(`${fmt(unclassified)} items`);
    await Promise.all([page.waitForNavigation(), page.click('.taxonomy-tree a:has-text("Apparel")')]);
    expect(await gridCount()).toBe(`${fmt(apparel)} items`);
    expect(new Set(await columnTexts('category_id'))).toEqual(new Set(['apparel', 'shirts', 'shoes']));
  });

  test('search, the other operators, and a bad filter says what is wrong', async () => {
    const { page, base } = ui;
    await page.goto(`${base}/dashboard/catalogs/${catalogId}/items`);
    await page.fill('input[name=q]', 'Item 1234');
    await Promise.all([page.waitForNavigation(), page.click('form[role=search] button')]);
    expect(await columnTexts('sku')).toEqual(['SKU-01234']);
    const grid = (qs: string) => request(app).get(`/dashboard/catalogs/${catalogId}/items?${qs}`).set('Cookie', cookie);
    const cookies = await page.context().cookies();
    const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const countOf = async (qs: string) => {
      const res = await grid(qs);
      expect(res.status).toBe(200);
      return /id="grid-count">([\d,]+)/.exec(res.text)![1].replace(/,/g, '');
    };
    const n = (f: (d: Record<string, unknown>) => boolean) => String(items.filter((i) => f(i.data)).length);
    expect(await countOf('f.price=range:10..20')).toBe(n((d) => typeof d.price === 'number' && d.price >= 10 && d.price <= 20));
    expect(await countOf('f.price=empty')).toBe(n((d) => d.price === undefined || d.price === null));
    expect(await countOf('f.title=empty')).toBe(n((d) => isEmpty(d.title)));
    expect(await countOf('f.color=in:red,green')).toBe(n((d) => d.color === 'red' || d.color === 'green'));
    expect(await countOf('f.sku=contains:0012')).toBe(n((d) => String(d.sku).includes('0012')));
    expect(await countOf('not.price=range:10..20')).toBe(n((d) => !(typeof d.price === 'number' && d.price >= 10 && d.price <= 20)));
    expect(await countOf('missing=brand&f.color=eq:blue')).toBe(n((d) => d.brand === undefined && d.color === 'blue'));
    // Cursor paging through explicit JSON nulls (sorted as missing: last) and missing values.
    const northwind = items.filter((i) => i.data.brand === 'Northwind');
    expect(northwind.some((i) => i.data.price === null)).toBe(true);
    let next: string | null = `/dashboard/catalogs/${catalogId}/items?f.brand=eq:Northwind&sort=price&cols=sku`;
    const walked: string[] = [];
    for (let guard = 0; next && guard < 50; guard++) {
      const res: request.Response = await request(app).get(next).set('Cookie', cookie);
      expect(res.status).toBe(200);
      walked.push(...[...res.text.matchAll(/>(SKU-\d{5})</g)].map((m) => m[1]));
      next = /id="next-page" href="([^"]+)"/.exec(res.text)?.[1]?.replace(/&amp;/g, '&') ?? null;
    }
    expect(walked).toEqual(byPrice(northwind).map((i) => i.data.sku));
    const bad = await grid('f.price=range:cheap..dear');
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('Not a number');
    expect((await grid('f.nope=empty')).status).toBe(422);
    expect((await grid('cursor=garbage')).status).toBe(422);
    expect(
      (await request(app).post(`/dashboard/catalogs/${catalogId}/items/views`).set('Cookie', cookie).type('form').send({ name: 'x', columns: 'sku' })).status,
    ).toBe(403);
  });

  test('products show how many of their variants are complete', async () => {
    const { page, base } = ui;
    const knex = testKnex();
    const grouped = await createTestCatalog(org.organizationId, {
      product_enabled: true,
      product_id_field: 'product_id',
      schema_definition: {
        type: 'object',
        properties: { sku: { type: 'string' }, product_id: { type: 'string' }, size: { type: 'string' } },
        required: ['sku', 'size'],
      },
    });
    const productId = newId();
    await knex('catalog_items').insert({
      id: productId,
      catalog_id: grouped,
      entity_type: 'product',
      business_key: 'product_P1',
      data: JSON.stringify({ product_id: 'P1' }),
    });
    const sizes = ['S', 'M', '', 'L', null];
    await knex('catalog_items').insert(
      sizes.map((size, i) => ({
        id: newId(),
        catalog_id: grouped,
        entity_type: 'variant',
        parent_id: productId,
        business_key: `V${i}`,
        data: JSON.stringify({ sku: `V${i}`, product_id: 'P1', size }),
      })),
    );
    await page.goto(`${base}/dashboard/catalogs/${grouped}/items`);
    expect(await texts('#item-grid td.variants')).toEqual(['3/5 variants complete']);
  });

  test("a private view is its owner's; a shared one is offered to the organization's other keys, which cannot delete it", async () => {
    const { page } = ui;
    const ownCookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const csrf = (await page.getAttribute('meta[name=csrf-token]', 'content'))!;
    const save = (name: string, shared: boolean) =>
      request(app)
        .post(`/dashboard/catalogs/${catalogId}/items/views`)
        .set('Cookie', ownCookie)
        .type('form')
        .send({ csrf_token: csrf, name, columns: 'sku,brand', query: 'f.color=eq:red', ...(shared ? { shared: '1' } : {}) });
    expect((await save('Team reds', true)).status).toBe(303);
    expect((await save('My reds', false)).status).toBe(303);
    const second = await createApiKey(testKnex(), org.organizationId, 'second grid user');
    const login = await request(app).post('/dashboard/login').type('form').send({ credential: second.apiKey });
    const cookie = ([] as string[])
      .concat(login.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('catalog_dashboard_session='))!
      .split(';')[0]!;
    const gridPage = await request(app).get(`/dashboard/catalogs/${catalogId}/items`).set('Cookie', cookie);
    expect(gridPage.text).toContain('Team reds');
    expect(gridPage.text).not.toContain('My reds');
    const shared = /href="[^"]*\?view=([0-9a-f-]{36})"[^>]*>Team reds</.exec(gridPage.text)![1];
    const viewPage = await request(app).get(`/dashboard/catalogs/${catalogId}/items?view=${shared}`).set('Cookie', cookie);
    expect(/id="grid-count">([\d,]+)/.exec(viewPage.text)![1]).toBe(fmt(items.filter((i) => i.data.color === 'red').length));
    const secondCsrf = /name="csrf-token" content="([^"]+)"/.exec(gridPage.text)![1];
    const del = await request(app)
      .post(`/dashboard/catalogs/${catalogId}/items/views/${shared}/delete`)
      .set('Cookie', cookie)
      .type('form')
      .send({ csrf_token: secondCsrf });
    expect(del.status).toBe(403);
  });

  test("another organization's session gets a 403 for the grid", async () => {
    const other = await createTestOrg('item grid other org');
    const res = await request(app).post('/dashboard/login').type('form').send({ credential: other.apiKey });
    const cookie = ([] as string[])
      .concat(res.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('catalog_dashboard_session='))!
      .split(';')[0]!;
    const grid = await request(app).get(`/dashboard/catalogs/${catalogId}/items`).set('Cookie', cookie);
    expect(grid.status).toBe(403);
    expect(grid.text).not.toContain('SKU-0');
  });
});
