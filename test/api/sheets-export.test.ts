/**
 * `GET /api/public/catalogs/{id}/items/export?format=csv|xlsx` (issue 20): the whole catalog,
 * products before their variants, arrays and objects as JSON; read back with the spreadsheet
 * reader and the schema-typed cell conversion, every item's data comes back exactly.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { newId } from '../../src/lib/ids';
import { normalizeHeaders, sniffTable, tableRows } from '../../src/services/inference/table-file';
import { rowToItem } from '../../src/services/inference/sheet-items';
import { testApp } from '../helpers/app';
import { createTestCatalog, SHEET_SCHEMA } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { bufferBody } from '../helpers/wire';

const schema = SHEET_SCHEMA;

const app = testApp().callback();
let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;
let catalog: string;
let dir: string;
const items: Array<{ entity_type: 'product' | 'variant'; data: Record<string, unknown>; parent?: string }> = [];

beforeAll(async () => {
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
});

afterAll(async () => {
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

describe('GET …/items/export', () => {
  it.each(['csv', 'xlsx'] as const)('streams %s with products before their variants; read back, every item is identical', async (format) => {
    const res = await request(app).get(`/api/public/catalogs/${catalog}/items/export?format=${format}`).set(org.auth).buffer(true).parse(bufferBody);
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toMatch(new RegExp(`\\.${format}"$`));
    const back = await readBack(res.body as Buffer, `export.${format}`);
    expect(back).toHaveLength(items.length);
    // Products first, each followed by its variants (the import relies on it).
    expect(back.map((d) => (d.sku ? 'v' : 'p')).join('')).toBe('pvvpvvpvv');
    const key = (d: Record<string, unknown>) => String(d.sku ?? `product ${String(d.product_id)}`);
    const byKey = new Map(items.map((i) => [key(i.data), i.data]));
    for (const d of back) expect(d).toEqual(byKey.get(key(d)));
  });

  it('CSV has no BOM unless asked (bom=true) and one column per schema property', async () => {
    const res = await request(app).get(`/api/public/catalogs/${catalog}/items/export`).set(org.auth);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/csv/);
    expect(res.text.startsWith('\uFEFF')).toBe(false);
    expect(res.text.split('\n')[0].split(',').sort()).toEqual(Object.keys(schema.properties).sort());
    const withBom = await request(app).get(`/api/public/catalogs/${catalog}/items/export?bom=true`).set(org.auth);
    expect(withBom.text.startsWith('\uFEFF')).toBe(true);
    expect(withBom.text.slice(1)).toBe(res.text);
    expect((await request(app).get(`/api/public/catalogs/${catalog}/items/export?bom=maybe`).set(org.auth)).status).toBe(422);
  });

  it('is scoped to the organization and validates the format', async () => {
    expect((await request(app).get(`/api/public/catalogs/${catalog}/items/export`).set(other.auth)).status).toBe(403);
    expect((await request(app).get(`/api/public/catalogs/${newId()}/items/export`).set(org.auth)).status).toBe(404);
    expect((await request(app).get(`/api/public/catalogs/${catalog}/items/export?format=xls`).set(org.auth)).status).toBe(422);
  });
});
