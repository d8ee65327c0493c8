/**
 * The tool server's snapshot pull (docs/tool-server-design.md "Pull": bounded concurrency, retries on
 * 5xx/408/429 and network errors, verification against `total`, short pages filled by re-pulling)
 * against a loopback stub of the raw-items API that misbehaves on purpose: failing requests, a cap
 * on `limit`, no `total`, short pages, an ignored `offset`, a missing raw-items route.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadTable } from '../src/table';
import { computeDiff } from '../src/diff';
import { ApiClient } from '../src/api-client';
import { IncompletePullError } from '../src/paginate';
import { pullSnapshot, PullInput, rowsHash } from '../src/pull';

/** How the stub misbehaves. */
interface Behaviour {
  cap?: number;
  noTotal?: boolean;
  ignoreOffset?: boolean;
  noRaw?: boolean;
  /** Status to answer (once per listed offset) before answering normally; 0 = drop the connection. */
  failOnce?: Record<number, number>;
  /** Rows to leave out of the first answer at these offsets. */
  shortOnce?: Record<number, number>;
  /** A schema field that no item has a value for. */
  emptyField?: string;
}

const N = 1003;
const ITEMS = Array.from({ length: N }, (_, i) => ({
  id: `id-${String(i).padStart(5, '0')}`,
  entity_type: 'product',
  parent_id: null,
  current_version: 1,
  data: { sku: `S${i}`, price: i, tags: ['a', 'b'] },
}));

let server: http.Server;
let base: string;
let behaviour: Behaviour = {};
let requests: Array<{ path: string; offset: number; limit: number }> = [];
let dir: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const limit = Number(url.searchParams.get('limit') ?? 1000);
    const json = (status: number, body: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname.endsWith('/schema'))
      return json(200, {
        version: '1.0.0',
        schema_definition: {
          properties: {
            sku: { type: 'string' },
            price: { type: 'number' },
            tags: { type: 'array' },
            ...(behaviour.emptyField ? { [behaviour.emptyField]: { type: 'string' } } : {}),
          },
        },
      });
    if (url.pathname.endsWith('/taxonomy')) return json(200, null);
    const raw = url.pathname.endsWith('/raw-items');
    if (!raw && !url.pathname.endsWith('/items')) return json(404, { detail: 'Not found' });
    requests.push({ path: raw ? 'raw-items' : 'items', offset, limit });
    if (raw && behaviour.noRaw) return json(404, { detail: 'Not found' });
    const fail = behaviour.failOnce?.[offset];
    if (fail !== undefined) {
      delete behaviour.failOnce![offset];
      if (fail === 0) return req.socket.destroy();
      return json(fail, { detail: `stub failure ${fail}` });
    }
    const take = Math.min(limit, behaviour.cap ?? limit);
    const start = behaviour.ignoreOffset ? 0 : offset;
    let page = ITEMS.slice(start, start + take);
    const short = behaviour.shortOnce?.[offset];
    if (short !== undefined) {
      delete behaviour.shortOnce![offset];
      page = page.slice(0, page.length - short);
    }
    const items = raw ? page : page.map((it) => ({ id: it.id, data: it.data, metadata: { version: 1 } }));
    return json(200, behaviour.noTotal ? { items } : { items, total: N });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  requests = [];
  behaviour = {};
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-pull-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const api = () => new ApiClient({ baseUrl: base, token: 'ck_test', organizationId: null, retryBaseMs: 1 });
const input = (more: Partial<PullInput> = {}): PullInput => ({
  catalog_id: 'c1',
  output_dir: dir,
  format: 'jsonl',
  sample_size: null,
  page_size: 400,
  max_concurrency: 8,
  prefer_raw: true,
  use_cache: false,
  ...more,
});

/** Ids of the JSONL snapshot. */
function idsOf(file: string): string[] {
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).__catalog_item_id);
}

test('normal: three requests (0, 400, 800), every row once, files and manifest written', async () => {
  const out = await pullSnapshot(api(), input(), dir, 5000);
  expect(requests.map((r) => r.offset).sort((a, b) => a - b)).toEqual([0, 400, 800]);
  expect(out).toMatchObject({ rows: N, total: N, endpoint: 'raw-items', columns: 7, cache_hit: false, sequential_fallback: null });
  expect(new Set(idsOf(out.jsonl_path)).size).toBe(N);
  const csv = fs.readFileSync(out.csv_path, 'utf8').split('\n');
  expect(csv[0]).toBe('__catalog_item_id,__entity_type,__parent_id,__current_version,sku,price,tags');
  expect(csv[1]).toBe('id-00000,product,,1,S0,0,"[""a"", ""b""]"');
  const manifest = JSON.parse(fs.readFileSync(out.manifest_path, 'utf8'));
  expect(manifest).toMatchObject({ version: 1, rows: N, columns: 7, source_hash: out.source_hash, base_snapshot_id: null });
  const flat = ITEMS.map((it) => ({
    __catalog_item_id: it.id,
    __entity_type: 'product',
    __parent_id: '',
    __current_version: 1,
    sku: it.data.sku,
    price: it.data.price,
    tags: '["a", "b"]',
  }));
  expect(manifest.rows_hash).toBe(rowsHash(flat));
});

test('a schema field no item has a value for is a column of the snapshot; a diff against it adds no column', async () => {
  behaviour.emptyField = 'brand';
  const out = await pullSnapshot(api(), input(), dir, 5000);
  expect((await loadTable(out.jsonl_path)).columns).toContain('brand');
  expect(fs.readFileSync(out.csv_path, 'utf8').split('\n')[0]).toContain(',brand');
  // The transform fills brand on one row: a modified row, not an added column.
  const after = path.join(dir, 'after.jsonl');
  const rows = fs
    .readFileSync(out.jsonl_path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  rows[0].brand = 'Acme';
  fs.writeFileSync(after, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const diff = await computeDiff({
    before_path: out.jsonl_path,
    after_path: after,
    key_field: '__catalog_item_id',
    deterministic_key_fields: [],
    allow_row_index_fallback: true,
  });
  expect(diff.diff_summary).toMatchObject({ columns_added: [], columns_removed: [], rows_modified: 1 });
});

test('a schema field no item has a value for is a column of the Parquet and CSV snapshots too; diffs against them add no column', async () => {
  behaviour.emptyField = 'brand';
  const out = await pullSnapshot(api(), input({ format: 'parquet' }), dir, 5000);
  for (const before of [out.snapshot_path, out.csv_path]) {
    expect((await loadTable(before)).columns).toContain('brand');
    // The transform keeps every column (the JSON Lines rows carry brand: null) and fills brand on one row.
    const after = path.join(dir, `after-${path.extname(before).slice(1)}.jsonl`);
    const rows = fs
      .readFileSync(out.jsonl_path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    rows[0].brand = 'Acme';
    fs.writeFileSync(after, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const diff = await computeDiff({
      before_path: before,
      after_path: after,
      key_field: '__catalog_item_id',
      deterministic_key_fields: [],
      allow_row_index_fallback: true,
    });
    expect(diff.diff_summary).toMatchObject({ columns_added: [], columns_removed: [], rows_modified: 1 });
  }
});

test('format parquet: the snapshot is also written as Parquet, the same rows as the JSON Lines', async () => {
  const out = await pullSnapshot(api(), input({ format: 'parquet' }), dir, 5000);
  expect(out.snapshot_path).toMatch(/catalog_.+\.parquet$/);
  const parquet = await loadTable(out.snapshot_path);
  const jsonl = await loadTable(out.jsonl_path);
  expect(parquet.columns).toEqual(['__catalog_item_id', '__entity_type', '__parent_id', '__current_version', 'sku', 'price', 'tags']);
  expect(parquet.rows).toHaveLength(N);
  expect(parquet.rows[1]).toEqual({ ...jsonl.rows[1], tags: '["a", "b"]' });
});

test('retries 503, 429, 408 and a dropped connection, then returns every row', async () => {
  behaviour.failOnce = { 400: 503, 800: 429, 0: 408 };
  const out = await pullSnapshot(api(), input(), dir, 5000);
  expect(out.rows).toBe(N);
  expect(new Set(idsOf(out.jsonl_path)).size).toBe(N);
  behaviour.failOnce = { 400: 0 };
  const again = await pullSnapshot(api(), input(), dir, 5000);
  expect(again.rows).toBe(N);
});

test('a server cap on limit is respected: pages of 300, all rows', async () => {
  behaviour.cap = 300;
  const out = await pullSnapshot(api(), input(), dir, 5000);
  expect(out.rows).toBe(N);
  expect(requests.map((r) => r.offset).sort((a, b) => a - b)).toEqual([0, 300, 600, 900]);
});

test('a short page is filled by re-pulling the rows it missed', async () => {
  behaviour.shortOnce = { 400: 150 };
  const out = await pullSnapshot(api(), input(), dir, 5000);
  expect(out).toMatchObject({ rows: N, refills: 1, sequential_fallback: null });
  expect(requests).toContainEqual({ path: 'raw-items', offset: 650, limit: 150 });
  expect(new Set(idsOf(out.jsonl_path)).size).toBe(N);
});

test('no total: sequential pagination completes', async () => {
  behaviour.noTotal = true;
  const out = await pullSnapshot(api(), input(), dir, 5000);
  expect(out).toMatchObject({ rows: N, sequential_fallback: 'no total' });
});

test('an ignored offset is an error, never a silent short snapshot', async () => {
  behaviour.ignoreOffset = true;
  await expect(pullSnapshot(api(), input({ prefer_raw: false }), dir, 5000)).rejects.toThrow(IncompletePullError);
});

test('raw-items missing: falls back to /items after trying its page sizes', async () => {
  behaviour.noRaw = true;
  const out = await pullSnapshot(api(), input({ page_size: 1000 }), dir, 5000);
  expect(out).toMatchObject({ rows: N, endpoint: 'items' });
  expect(requests.filter((r) => r.path === 'raw-items').map((r) => r.limit)).toEqual([1000, 400, 200]);
  expect(fs.readFileSync(out.csv_path, 'utf8').split('\n')[1]).toMatch(/^id-00000,,,1,S0,/);
});

test('sample mode pulls one page; the cache answers a repeated call without any request', async () => {
  const out = await pullSnapshot(api(), input({ sample_size: 10, use_cache: true }), dir, 5000);
  expect(out.rows).toBe(10);
  const n = requests.length;
  const cached = await pullSnapshot(api(), input({ sample_size: 10, use_cache: true }), dir, 5000);
  expect(cached).toMatchObject({ cache_hit: true, rows: 10, source_hash: out.source_hash });
  expect(requests.length).toBe(n);
});
