/**
 * The console's schema and taxonomy page in Chromium: one field added and another
 * removed in ONE batch give exactly one new schema version, and the page shows the diff between
 * the two versions; the taxonomy saved from the page shows as a tree with inherited attributes.
 */
import { shotAndCheck } from './chromium';
import { useBrowserSession } from './dashboard-server';
import request from 'supertest';
import { createTestOrg, testKnex } from '../helpers/db';
import { testApp } from '../helpers/app';

describe('console schema page in Chromium', () => {
  let org: Awaited<ReturnType<typeof createTestOrg>>;
  /** The catalog, made through the API (so its schema has its field info, as every real one). */
  const fx = { catalogId: '' };

  const ui = useBrowserSession({
    async setUp() {
      org = await createTestOrg('schema page org');
      const app = testApp().callback();
      const created = await request(app)
        .post('/api/public/catalogs')
        .set(org.auth)
        .send({
          name: 'Schema page catalog',
          unique_id_field: 'sku',
          schema_definition: {
            type: 'object',
            properties: { sku: { type: 'string' }, title: { type: 'string' }, brand: { type: 'string' }, color: { type: 'string' }, price: { type: 'number' } },
            required: ['sku'],
          },
        });
      expect(created.status).toBe(200);
      fx.catalogId = created.body.id;
      return app;
    },
  });

  const versions = async () => (await testKnex()('catalog_schemas').where({ catalog_id: fx.catalogId }).pluck('version')).sort();

  test('add one field and remove another in one batch: one new version, and its diff', async () => {
    const { page, base } = ui;
    const url = `${base}/dashboard/catalogs/${fx.catalogId}/schema`;
    await page.goto(url);
    await page.type('#credential', org.apiKey);
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(await page.$eval('#current-version', (e) => e.textContent)).toBe('1.0.0');
    expect(await page.$$eval('table.schema-fields tbody tr', (els) => els.map((e) => e.getAttribute('data-field')))).toEqual([
      'sku',
      'title',
      'brand',
      'color',
      'price',
    ]);
    await shotAndCheck(page, 'console-schema.png');
    const before = await versions();

    await page.fill('#new-0-name', 'weight');
    await page.selectOption('#new-0-type', 'number');
    await page.fill('#new-0-unit', 'kg');
    await page.check('tr[data-field="color"] input[name="remove"]');
    await page.fill('#batch-reason', 'Weight in, color out');
    await Promise.all([page.waitForNavigation(), page.click('#save-fields')]);

    const after = await versions();
    expect(after).toHaveLength(before.length + 1);
    const current = await page.$eval('#current-version', (e) => e.textContent ?? '');
    expect(after).toContain(current);
    expect(current).not.toBe('1.0.0');
    const schema = await testKnex()('catalog_schemas').where({ catalog_id: fx.catalogId, version: current }).first();
    expect(Object.keys(schema.schema_definition.properties)).toEqual(expect.arrayContaining(['weight']));
    expect(schema.schema_definition.properties.color).toBeUndefined();
    expect(schema.change_reason).toContain('Weight in, color out');
    expect(await page.$eval('#schema-notice', (e) => e.textContent)).toContain(current);
    expect(await page.$eval('tr[data-field="weight"] input[name="unit.weight"]', (e) => e.getAttribute('value'))).toBe('kg');

    // The version diff: from 1.0.0 to the new version.
    expect(await page.$eval('#version-diff h3', (e) => e.textContent)).toBe(`From 1.0.0 to ${current}`);
    expect(await page.$$eval('#version-diff li', (els) => els.map((e) => `${e.getAttribute('data-diff')}:${e.getAttribute('data-field') ?? ''}`))).toEqual([
      'added:weight',
      'removed:color',
    ]);
    await shotAndCheck(page, 'console-schema-diff.png');
  }, 60_000);

  test('a taxonomy saved from the page shows as a tree with inherited attributes; bad JSON is a 422', async () => {
    const { page, base } = ui;
    await page.goto(`${base}/dashboard/catalogs/${fx.catalogId}/schema`);
    await page.fill('#taxonomy-json', '{ not json');
    const refused = await Promise.all([page.waitForNavigation(), page.click('#taxonomy form button[type=submit]')]);
    expect(refused[0]?.status()).toBe(422);
    const taxonomy = {
      name: 'Electronics',
      hierarchy_levels: ['Department', 'Category'],
      nodes: {
        peripherals: { name: 'Peripherals', parent: null, attributes: [{ name: 'connection', type: 'string' }] },
        keyboards: { name: 'Keyboards', parent: 'peripherals', attributes: [{ name: 'layout', type: 'string' }] },
      },
    };
    await page.fill('#taxonomy-json', JSON.stringify(taxonomy));
    await Promise.all([page.waitForNavigation(), page.click('#taxonomy form button[type=submit]')]);
    expect(await page.$eval('li[data-node-id="keyboards"]', (e) => e.textContent)).toMatch(/Inherited:\s*connection from Peripherals/);
    await shotAndCheck(page, 'console-taxonomy.png');
  }, 60_000);
});
