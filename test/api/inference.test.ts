/**
 * `POST /api/public/infer-schema` (multipart) and `POST /api/public/infer-enrichment`
 * (interface-spec.md, Enrichment; issue 20): the response shapes, the suggested schema is
 * accepted by `POST /public/catalogs` and the enrichment fields by the enrich request's
 * `output_schema` validation, a legacy .xls read, form validation → 422, uploads removed afterwards.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { noJobs } from '../helpers/app';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { SHARED_DATA } from '../helpers/data';
import { xlsBuffer } from '../helpers/xls';

let dataDir: string;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
let org: Awaited<ReturnType<typeof createTestOrg>>;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'inference-api-'));
  app = createApp({ config: { ...loadConfig(), dataDir }, knex: testKnex(), jobRunner: noJobs }).callback();
  org = await createTestOrg('inference');
});

afterAll(async () => {
  await closeTestKnex();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const uploadsLeft = (): string[] => (fs.existsSync(path.join(dataDir, 'uploads')) ? fs.readdirSync(path.join(dataDir, 'uploads')) : []);

describe('POST /public/infer-schema', () => {
  it('infers from a real CSV; the schema creates a catalog and the fields pass as output_schema', async () => {
    const res = await request(app)
      .post('/api/public/infer-schema')
      .set(org.auth)
      .attach('file', path.join(SHARED_DATA, 'spreadsheets', 'magento-gear-bags.csv'))
      .field('generate_taxonomy', 'true')
      .field('max_sample_rows', '5')
      .field('prompt', 'Luma store bags');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ file_name: 'magento-gear-bags.csv', total_rows: 14, sample_rows_used: 5 });
    expect(res.body.suggested_schema.properties.sku).toMatchObject({ type: 'string', 'x-field-category': 'input' });
    expect(res.body.suggested_schema['x-unique-id-field']).toBe('sku');
    expect(res.body.explanation.file).toMatchObject({ format: 'csv', encoding: 'utf8', delimiter: ',' });
    expect(res.body.suggested_taxonomy.hierarchy_levels.length).toBeGreaterThan(1);
    expect(uploadsLeft()).toEqual([]);

    const catalog = await request(app)
      .post('/api/public/catalogs')
      .set(org.auth)
      .send({ name: 'Bags from CSV', unique_id_field: 'sku', schema_definition: res.body.suggested_schema });
    expect(catalog.status).toBe(200);
    const taxonomy = await request(app)
      .put(`/api/public/catalogs/${catalog.body.catalog_id ?? catalog.body.id}/taxonomy`)
      .set(org.auth)
      .send(res.body.suggested_taxonomy);
    expect(taxonomy.status).toBe(200);

    // web_enrichment_fields are output_schema fields: a dry-run enrich request validates them (no job runs: noJobs refuses starts after validation).
    const enrich = await request(app)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ items: [{ name: 'x' }], output_schema: res.body.web_enrichment_fields, web_search: false, async_mode: true });
    expect(enrich.status).not.toBe(422);
  });

  it('without generate_taxonomy there is no suggested_taxonomy; the form is validated', async () => {
    const csv = Buffer.from('sku;name;price\nA-1;Chair;12,50\nA-2;Table;99,00\n');
    const res = await request(app).post('/api/public/infer-schema').set(org.auth).attach('file', csv, 'chairs.csv');
    expect(res.status).toBe(200);
    expect(res.body.suggested_taxonomy).toBeUndefined();
    expect(res.body.sample_rows_used).toBe(2);
    expect(res.body.suggested_schema.properties.price.type).toBe('number');

    const bad = await request(app)
      .post('/api/public/infer-schema')
      .set(org.auth)
      .attach('file', csv, 'chairs.csv')
      .field('max_sample_rows', '0')
      .field('colour', 'x');
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual(expect.arrayContaining(['body.colour']));
    const none = await request(app).post('/api/public/infer-schema').set(org.auth).field('prompt', 'x');
    expect(none.status).toBe(422);
    expect(uploadsLeft()).toEqual([]);
  });

  it('reads a legacy Excel 97-2003 .xls (spec: "CSV .csv or Excel .xlsx/.xls"); a broken one is 422', async () => {
    const xls = xlsBuffer([
      ['sku', 'name', 'price', 'in_stock'],
      ['A-1', 'Chair', 12.5, true],
      ['A-2', 'Table', 99, false],
      ['A-3', 'Lamp', 7.25, true],
    ]);
    expect(xls.subarray(0, 4)).toEqual(Buffer.from([0xd0, 0xcf, 0x11, 0xe0]));
    const res = await request(app).post('/api/public/infer-schema').set(org.auth).attach('file', xls, 'old.xls');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ file_name: 'old.xls', total_rows: 3 });
    expect(res.body.explanation.file).toMatchObject({ format: 'xls' });
    expect(res.body.suggested_schema.properties).toMatchObject({ sku: { type: 'string' }, price: { type: 'number' }, in_stock: { type: 'boolean' } });
    const broken = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(1024)]);
    const bad = await request(app).post('/api/public/infer-schema').set(org.auth).attach('file', broken, 'broken.xls');
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'file']);
    expect(uploadsLeft()).toEqual([]);
  });

  it('needs authentication', async () => {
    const res = await request(app).post('/api/public/infer-schema').attach('file', Buffer.from('a,b\n1,2\n'), 'x.csv');
    expect(res.status).toBe(401);
  });
});

describe('POST /public/infer-enrichment', () => {
  it('returns schema, taxonomy and enrichment fields for items', async () => {
    const items = [
      { sku: 'T-1', title: 'Cotton t-shirt, green', category: 'Clothing > Tops', price: 25 },
      { sku: 'T-2', title: 'Slim jeans, blue', category: 'Clothing > Pants', price: 95.5 },
      { sku: 'T-3', title: 'Wool beanie', category: 'Accessories > Hats', price: 17.99 },
    ];
    const res = await request(app).post('/api/public/infer-enrichment').set(org.auth).send({ prompt: 'apparel', items });
    expect(res.status).toBe(200);
    expect(res.body.suggested_schema.properties.price.type).toBe('number');
    expect(res.body.suggested_taxonomy.hierarchy_levels).toEqual(['Category', 'Subcategory']);
    expect(Object.values(res.body.suggested_taxonomy.nodes).map((n) => (n as { name: string }).name)).toEqual(
      expect.arrayContaining(['Clothing', 'Tops', 'Pants', 'Accessories', 'Hats']),
    );
    expect(res.body.web_enrichment_fields.map((f: { name: string }) => f.name)).toEqual(expect.arrayContaining(['brand', 'gtin', 'material']));
  });

  it('validates the body', async () => {
    const res = await request(app).post('/api/public/infer-enrichment').set(org.auth).send({ items: [] });
    expect(res.status).toBe(422);
  });
});
