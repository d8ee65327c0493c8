/**
 * `GET /api/public/catalogs/{id}/items/export?format=csv|xlsx`: the whole catalog,
 * products before their variants, arrays and objects as JSON; read back with the spreadsheet
 * reader and the schema-typed cell conversion, every item's data comes back exactly. Called
 * through the typed client (packages/client; the file read as bytes); query values its types
 * refuse (a bom that is not a boolean, a format outside the enum) go through supertest.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import request from 'supertest';
import type { CatalogClient } from '@catalog-enrichment/client';
import { newId } from '../../src/lib/ids';
import { normalizeHeaders, sniffTable, tableRows } from '../../src/services/sheets/table-file';
import { rowToItem } from '../../src/services/sheets/items-from-rows';
import { createTestCatalog, SHEET_SCHEMA } from '../helpers/catalogs';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';

const schema = SHEET_SCHEMA;

let server: Server;
/** The typed client with `org`'s credential. */
let api: CatalogClient;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;
let catalog: string;
let dir: string;
const items: Array<{ entity_type: 'product' | 'variant'; data: Record<string, unknown>; parent?: string }> = [];

beforeAll(async () => {
  server = await listenTestApp();
  org = await createTestOrg('sheets export');
  other = await createTestOrg('sheets export other');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheets-export-'));
  catalog = await createTestCatalog(org.organizationId, { product_id_field: 'product_id', product_enabled: true, schema_definition: schema });
  const knex = testKnex();
  const rows: Array<Record<string, unknown>> = [];
  for (let p = 0; p < 3; p++) {
    const pid = newId();
    const product = { product_id: `P${p}`, product_name: `Shirt, "model" ${p}\nsecond line` };
    rows.push({ id: pid, catalog_id: catalog, entity_type: 'product', data: JSON.stringify(product) });
    items.push({ entity_type: 'product', data: product });
    for (let v = 0; v < 2; v++) {
      const data = {
        sku: `S-${p}-${v}`,
        product_id: `P${p}`,
        title: `Größe ${v} – ünïcödé`,
        price: 19.99 + p,
        stock: v * 7,
        active: v === 0,
        tags: ['a', `t${p}`],
        dims: { w: 1.5, unit: 'cm' },
      };
      rows.push({ id: newId(), catalog_id: catalog, entity_type: 'variant', parent_id: pid, business_key: data.sku, data: JSON.stringify(data) });
      items.push({ entity_type: 'variant', data });
    }
  }
  await knex('catalog_items').insert(rows);
  api = typedClient(server, org.auth);
});

afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function readBack(body: Buffer, name: string): Promise<Array<Record<string, unknown>>> {
  const file = path.join(dir, name);
  fs.writeFileSync(file, body);
  const dialect = await sniffTable(file, name);
  const out: Array<Record<string, unknown>> = [];
  let headers: string[] | null = null;
  for await (const row of tableRows(file, dialect)) {
    if (!headers) headers = normalizeHeaders(row);
    else out.push(rowToItem(headers, row, schema.properties));
  }
  return out;
}

/** `GET …/items/export` of `catalogId` with `query`, as `client`, the file read as bytes (openapi-fetch's `parseAs`). */
const exportItems = (query: { format?: 'csv' | 'xlsx'; bom?: boolean } = {}, client: CatalogClient = api, catalogId = catalog) =>
  client.GET('/api/public/catalogs/{catalog_id}/items/export', { params: { path: { catalog_id: catalogId }, query }, parseAs: 'arrayBuffer' });

/** The text of a CSV export as the bytes say it: UTF-8, a byte order mark kept (fetch's `text()` would drop it). */
const textOf = (data: ArrayBuffer | undefined): string => Buffer.from(data!).toString('utf8');

describe('GET …/items/export', () => {
  it.each(['csv', 'xlsx'] as const)('streams %s with products before their variants; read back, every item is identical', async (format) => {
    const res = await exportItems({ format });
    expect(res.response.status).toBe(200);
    expect(res.response.headers.get('content-disposition')).toMatch(new RegExp(`\\.${format}"$`));
    const back = await readBack(Buffer.from(res.data!), `export.${format}`);
    expect(back).toHaveLength(items.length);
    // Products first, each followed by its variants (the import relies on it).
    expect(back.map((d) => (d.sku ? 'v' : 'p')).join('')).toBe('pvvpvvpvv');
    const key = (d: Record<string, unknown>) => String(d.sku ?? `product ${String(d.product_id)}`);
    const byKey = new Map(items.map((i) => [key(i.data), i.data]));
    for (const d of back) expect(d).toEqual(byKey.get(key(d)));
  });

  it('CSV has no BOM unless asked (bom=true) and one column per schema property', async () => {
    const res = await exportItems();
    expect(res.response.status).toBe(200);
    expect(res.response.headers.get('content-type')).toMatch(/text\/csv/);
    const text = textOf(res.data);
    expect(text.startsWith('\uFEFF')).toBe(false);
    expect(text.split('\n')[0].split(',').sort()).toEqual(Object.keys(schema.properties).sort());
    const withBom = textOf((await exportItems({ bom: true })).data);
    expect(withBom.startsWith('\uFEFF')).toBe(true);
    expect(withBom.slice(1)).toBe(text);
    // A bom that is not a boolean: the client's types refuse it, so supertest sends the query.
    expect((await request(server).get(`/api/public/catalogs/${catalog}/items/export?bom=maybe`).set(org.auth)).status).toBe(422);
  });

  it('is scoped to the organization and validates the format', async () => {
    expect((await exportItems({}, typedClient(server, other.auth))).response.status).toBe(403);
    expect((await exportItems({}, api, newId())).response.status).toBe(404);
    // A format outside the enum: the client's types refuse it, so supertest sends the query.
    expect((await request(server).get(`/api/public/catalogs/${catalog}/items/export?format=xls`).set(org.auth)).status).toBe(422);
  });
});
