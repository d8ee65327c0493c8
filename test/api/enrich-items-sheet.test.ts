/**
 * `items_file` as CSV or XLSX ("Enrichment: `items_file` accepts CSV and XLSX as well
 * as JSON"): rows become items (header = field names, cells as text, JSON cells parsed, empty
 * cells left out), streamed into the job's rows; a legacy .xls is read too. No job runs here: a
 * JobRunner that records starts stands in for Temporal (as in enrich-requests.test.ts). Called
 * through the typed client (packages/client; the form as FormData through its bodySerializer).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import type { Server } from 'node:http';
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { acceptingJobs } from '../helpers/app';
import { closeServer, formData, listenTestApp, typedClient } from '../helpers/client';
import { xlsBuffer } from '../helpers/xls';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';

/** `POST /api/public/enrich`: the request body's media types. */
type EnrichContent = NonNullable<paths['/api/public/enrich']['post']['requestBody']>['content'];
/** A field of `output_schema`. */
type OutputField = NonNullable<EnrichContent['application/json']['output_schema']>[number];

let dataDir: string;
let server: Server;
let org: Awaited<ReturnType<typeof createTestOrg>>;
/** The typed client with `org`'s credential. */
let api: CatalogClient;
const field: OutputField = { name: 'brand', type: 'string', description: 'Brand' };

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-sheet-'));
  server = await listenTestApp(createApp({ config: { ...loadConfig(), dataDir }, knex: testKnex(), jobRunner: acceptingJobs }));
  org = await createTestOrg('enrich sheet');
  api = typedClient(server, org.auth);
});

afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const rowsOf = (jobId: string) => testKnex()('enrichment_rows').where({ job_id: jobId }).orderBy('row_index');
/** `POST /api/public/enrich` as multipart/form-data with `file` as the items_file named `name`. */
const send = (file: Buffer, name: string) => {
  const form: EnrichContent['multipart/form-data'] = {
    request_json: JSON.stringify({ output_schema: [field], async_mode: true, web_search: false }),
    items_file: new File([file], name),
  };
  return api.POST('/api/public/enrich', { body: form, bodySerializer: () => formData(form) });
};

describe('items_file as a spreadsheet', () => {
  it('reads a semicolon CSV in Windows-1252 with quoted cells and JSON cells', async () => {
    const csv = iconv.encode('sku;name;tags;note\r\nA-1;"Crème, brûlée";["x","y"];\r\nA-2;Größe 2;;"line1\nline2"\r\n', 'windows1252');
    const res = await send(csv, 'items.csv');
    expect(res.response.status).toBe(200);
    expect(res.data!.total_rows).toBe(2);
    const rows = await rowsOf(res.data!.job_id);
    expect(rows.map((r) => r.input)).toEqual([
      { sku: 'A-1', name: 'Crème, brûlée', tags: ['x', 'y'] },
      { sku: 'A-2', name: 'Größe 2', note: 'line1\nline2' },
    ]);
  });

  it('reads the first sheet of an XLSX file', async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('items');
    ws.addRow(['sku', 'name', 'price']);
    ws.addRow(['B-1', 'Chair', 12.5]);
    ws.addRow(['B-2', 'Table', 99]);
    const res = await send(Buffer.from(await wb.xlsx.writeBuffer()), 'items.xlsx');
    expect(res.response.status).toBe(200);
    expect((await rowsOf(res.data!.job_id)).map((r) => r.input)).toEqual([
      { sku: 'B-1', name: 'Chair', price: '12.5' },
      { sku: 'B-2', name: 'Table', price: '99' },
    ]);
  });

  it('reads a legacy .xls, refuses a broken one with 422 and still takes JSON files as before', async () => {
    const xls = xlsBuffer([
      ['sku', 'name', 'price'],
      ['X-1', 'Crème brûlée', 12.5],
      ['X-2', 'Table', 99],
    ]);
    const res = await send(xls, 'items.xls');
    expect(res.response.status).toBe(200);
    expect((await rowsOf(res.data!.job_id)).map((r) => r.input)).toEqual([
      { sku: 'X-1', name: 'Crème brûlée', price: '12.5' },
      { sku: 'X-2', name: 'Table', price: '99' },
    ]);
    const broken = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(600)]);
    expect((await send(broken, 'items.xls')).response.status).toBe(422);
    const json = await send(Buffer.from(JSON.stringify([{ sku: 'C-1' }])), 'items.json');
    expect(json.response.status).toBe(200);
    expect(fs.readdirSync(path.join(dataDir, 'uploads'))).toEqual([]);
  });
});
