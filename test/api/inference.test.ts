// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
/**
 * `POST /api/public/infer-schema` (multipart) and `POST /api/public/infer-enrichment`
 * (docs/api-enrichment.md "Enrichment jobs"): the response shapes, the suggested schema is
 * accepted by `POST /public/catalogs` and the enrichment fields by the enrich request's
 * `output_schema` validation, a legacy .xls read, form validation → 422, uploads removed afterwards.
 * Called through the typed client (packages/client; the forms as FormData through its
 * bodySerializer); forms its types refuse (an unknown field, no file) go through supertest.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import request from 'supertest';
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { noJobs } from '../helpers/app';
import { closeServer, formData, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { SHARED_DATA } from '../helpers/data';
import { xlsBuffer } from '../helpers/xls';
import type { ValidationErrorBody } from '../helpers/wire';

/** `POST /api/public/infer-schema`: the multipart form. */
type InferForm = paths['/api/public/infer-schema']['post']['requestBody']['content']['multipart/form-data'];

let dataDir: string;
let server: Server;
let org: Awaited<ReturnType<typeof createTestOrg>>;
/** The typed client with `org`'s credential. */
let api: CatalogClient;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'inference-api-'));
  server = await listenTestApp(createApp({ config: { ...loadConfig(), dataDir }, knex: testKnex(), jobRunner: noJobs }));
  org = await createTestOrg('inference');
  api = typedClient(server, org.auth);
});

afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** `POST /api/public/infer-schema` with `form` as multipart/form-data (openapi-fetch's bodySerializer), as `client`. */
const inferSchema = (form: InferForm, client: CatalogClient = api) =>
  client.POST('/api/public/infer-schema', { body: form, bodySerializer: () => formData(form) });
/** A file part named `name` holding `content`. */
const fileOf = (content: Buffer, name: string): File => new File([content], name);

const uploadsLeft = (): string[] => (fs.existsSync(path.join(dataDir, 'uploads')) ? fs.readdirSync(path.join(dataDir, 'uploads')) : []);

describe('POST /public/infer-schema', () => {
  it('infers from a real CSV; the schema creates a catalog and the fields pass as output_schema', async () => {
    const csvFile = 'magento-gear-bags.csv';
    const res = await inferSchema({
      file: fileOf(fs.readFileSync(path.join(SHARED_DATA, 'spreadsheets', csvFile)), csvFile),
      generate_taxonomy: true,
      max_sample_rows: 5,
      prompt: 'Luma store bags',
    });
    expect(res.response.status).toBe(200);
    const body = res.data!;
    expect(body).toMatchObject({ file_name: 'magento-gear-bags.csv', total_rows: 14, sample_rows_used: 5 });
    const suggested = body.suggested_schema as { properties: Record<string, unknown>; 'x-unique-id-field'?: string };
    expect(suggested.properties.sku).toMatchObject({ type: 'string', 'x-field-category': 'input' });
    expect(suggested['x-unique-id-field']).toBe('sku');
    expect(body.explanation.file).toMatchObject({ format: 'csv', encoding: 'utf8', delimiter: ',' });
    expect(body.suggested_taxonomy!.hierarchy_levels.length).toBeGreaterThan(1);
    expect(uploadsLeft()).toEqual([]);

    const catalog = await api.POST('/api/public/catalogs', {
      body: { name: 'Bags from CSV', unique_id_field: 'sku', schema_definition: body.suggested_schema },
    });
    expect(catalog.response.status).toBe(200);
    const taxonomy = await api.PUT('/api/public/catalogs/{catalog_id}/taxonomy', {
      params: { path: { catalog_id: catalog.data!.id } },
      body: body.suggested_taxonomy!,
    });
    expect(taxonomy.response.status).toBe(200);

    // web_enrichment_fields are output_schema fields: a dry-run enrich request validates them (no job runs: noJobs refuses starts after validation).
    const enrich = await api.POST('/api/public/enrich', {
      body: { items: [{ name: 'x' }], output_schema: body.web_enrichment_fields, web_search: false, async_mode: true },
    });
    expect(enrich.response.status).not.toBe(422);
  });

  it('without generate_taxonomy there is no suggested_taxonomy; the form is validated', async () => {
    const csv = Buffer.from('sku;name;price\nA-1;Chair;12,50\nA-2;Table;99,00\n');
    const res = await inferSchema({ file: fileOf(csv, 'chairs.csv') });
    expect(res.response.status).toBe(200);
    expect(res.data!.suggested_taxonomy).toBeUndefined();
    expect(res.data!.sample_rows_used).toBe(2);
    expect((res.data!.suggested_schema as { properties: Record<string, { type: string }> }).properties.price.type).toBe('number');

    // A field the form does not take and a form without its file: the client's types refuse them, so supertest sends them.
    const bad = await request(server)
      .post('/api/public/infer-schema')
      .set(org.auth)
      .attach('file', csv, 'chairs.csv')
      .field('max_sample_rows', '0')
      .field('colour', 'x');
    expect(bad.status).toBe(422);
    expect((bad.body as ValidationErrorBody).detail.map((d) => d.loc.join('.'))).toEqual(expect.arrayContaining(['body.colour']));
    const none = await request(server).post('/api/public/infer-schema').set(org.auth).field('prompt', 'x');
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
    const res = await inferSchema({ file: fileOf(xls, 'old.xls') });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ file_name: 'old.xls', total_rows: 3 });
    expect(res.data!.explanation.file).toMatchObject({ format: 'xls' });
    expect((res.data!.suggested_schema as { properties: Record<string, unknown> }).properties).toMatchObject({
      sku: { type: 'string' },
      price: { type: 'number' },
      in_stock: { type: 'boolean' },
    });
    const broken = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(1024)]);
    const bad = await inferSchema({ file: fileOf(broken, 'broken.xls') });
    expect(bad.response.status).toBe(422);
    expect((bad.error as ValidationErrorBody).detail[0].loc).toEqual(['body', 'file']);
    expect(uploadsLeft()).toEqual([]);
  });

  it('needs authentication', async () => {
    const res = await inferSchema({ file: fileOf(Buffer.from('a,b\n1,2\n'), 'x.csv') }, typedClient(server));
    expect(res.response.status).toBe(401);
  });
});

describe('POST /public/infer-enrichment', () => {
  it('returns schema, taxonomy and enrichment fields for items', async () => {
    const items = [
      { sku: 'T-1', title: 'Cotton t-shirt, green', category: 'Clothing > Tops', price: 25 },
      { sku: 'T-2', title: 'Slim jeans, blue', category: 'Clothing > Pants', price: 95.5 },
      { sku: 'T-3', title: 'Wool beanie', category: 'Accessories > Hats', price: 17.99 },
    ];
    const res = await api.POST('/api/public/infer-enrichment', { body: { prompt: 'apparel', items } });
    expect(res.response.status).toBe(200);
    const body = res.data!;
    expect((body.suggested_schema as { properties: Record<string, { type: string }> }).properties.price.type).toBe('number');
    expect(body.suggested_taxonomy!.hierarchy_levels).toEqual(['Category', 'Subcategory']);
    expect(Object.values(body.suggested_taxonomy!.nodes).map((n) => n.name)).toEqual(
      expect.arrayContaining(['Clothing', 'Tops', 'Pants', 'Accessories', 'Hats']),
    );
    expect((body.web_enrichment_fields as Array<{ name: string }>).map((f) => f.name)).toEqual(expect.arrayContaining(['brand', 'gtin', 'material']));
  });

  it('validates the body', async () => {
    const res = await api.POST('/api/public/infer-enrichment', { body: { items: [] } });
    expect(res.response.status).toBe(422);
  });
});
