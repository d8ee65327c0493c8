/**
 * `execution_catalog_snapshot_pull` (docs/tool-server-design.md "Pull"): every row of a catalog through
 * `raw-items` (the public `/items` as fallback), flattened to snapshot rows and written as JSON
 * Lines and CSV with the schema, the taxonomy and a manifest (counts and hashes) beside them.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ApiClient, ApiError } from './api-client';
import { FetchPage, Page, PaginationStats, parseTotal, pullParallel, verifyPull } from './paginate';
import { writeCsv, writeJsonl, writeParquet, columnsOf } from './table';
import { canonicalJson, pythonJson, Row, sha256Hex, SYSTEM_COLUMNS } from './values';

/** A raw row (docs/api-reference.md "Raw items") or an `/items` entry (docs/api-reference.md "Items") as the pull reads it. */
export interface PulledItem {
  id?: unknown;
  entity_type?: unknown;
  parent_id?: unknown;
  current_version?: unknown;
  data?: Record<string, unknown>;
  metadata?: { version?: unknown };
}

/** Inputs of the pull (docs/tool-server-design.md "Pull"). */
export interface PullInput {
  catalog_id: string;
  /** Directory for the files, inside the workspace (default `./snapshots`). */
  output_dir: string;
  /** The format `snapshot_path` names: `jsonl` (default), `csv` (both always written) or `parquet` (written too then). */
  format: 'jsonl' | 'csv' | 'parquet';
  /** Rows of a sample pull (one page from offset 0); null = every row. */
  sample_size: number | null;
  /** Rows per request (default 1000; raw-items allows up to 5000). */
  page_size: number;
  /** Pages in flight at once (default `CATALOG_MCP_PULL_MAX_CONCURRENCY`). */
  max_concurrency: number;
  /** Try raw-items first (default true); false pulls `/items` only. */
  prefer_raw: boolean;
  /** The later release's cache: reuse the files when the manifest's cache key matches (default false here, see the tool description). */
  use_cache: boolean;
  organization_id?: string | null;
}

/** What the pull returns (docs/tool-server-design.md "Pull" and the later release's fields, plus the other files written). */
export interface PullOutput {
  catalog_id: string;
  snapshot_path: string;
  jsonl_path: string;
  csv_path: string;
  schema_path: string;
  taxonomy_path: string;
  manifest_path: string;
  rows: number;
  columns: number;
  total: number | null;
  endpoint: 'raw-items' | 'items';
  requests: number;
  refills: number;
  sequential_fallback: string | null;
  source_hash: string;
  base_snapshot_id: null;
  cache_hit: boolean;
  /** Time spent fetching rows and writing files (ms). */
  timings_ms: { fetch: number; write: number };
}

/** Attempts per page (retries on 5xx/408/429 and network errors). */
const PAGE_ATTEMPTS = 4;

/**
 * A snapshot row (docs/tool-server-design.md "Pull"): the system columns (`""` when missing), then every
 * data key; dict/list values JSON-encoded with Python's separators when `flatten` (CSV), kept as
 * values otherwise (JSON Lines keeps types). A data key named like a system column overwrites it.
 */
export function flattenItem(item: PulledItem, flatten: boolean): Row {
  const str = (v: unknown) => (v === undefined || v === null ? '' : v);
  const row: Row = {
    __catalog_item_id: str(item.id),
    __entity_type: str(item.entity_type),
    __parent_id: str(item.parent_id),
    __current_version: str(item.current_version ?? item.metadata?.version),
  };
  for (const [k, v] of Object.entries(item.data ?? {})) row[k] = flatten && v !== null && typeof v === 'object' ? pythonJson(v) : v;
  return row;
}

/**
 * sha256 hex of the canonical JSON of the flattened rows (docs/tool-server-design.md "Pull": sorted keys,
 * separators `,`/`:`), computed from the typed rows: a dict or list cell enters as the JSON string
 * the flattening makes of it (Python separators), so the hash is the one of the CSV's rows. Hashed
 * row by row; the sorted key order is reused while consecutive rows have the same keys.
 */
export function rowsHash(rows: readonly Row[]): string {
  const h = createHash('sha256');
  h.update('[');
  let keys: string[] = [];
  let sorted: string[] = [];
  let prefixes: string[] = [];
  let batch = '';
  rows.forEach((r, i) => {
    const k = Object.keys(r);
    if (k.length !== keys.length || k.some((x, j) => x !== keys[j])) {
      keys = k;
      sorted = [...k].sort();
      prefixes = sorted.map((key, j) => `${j ? ',' : ''}${JSON.stringify(key)}:`);
    }
    let out = i ? ',{' : '{';
    for (let j = 0; j < sorted.length; j++) {
      const v = r[sorted[j]];
      out += prefixes[j] + (typeof v === 'string' ? JSON.stringify(v) : v !== null && typeof v === 'object' ? JSON.stringify(pythonJson(v)) : canonicalJson(v));
    }
    batch += out + '}';
    if (batch.length > 1 << 20) {
      h.update(batch);
      batch = '';
    }
  });
  h.update(batch);
  h.update(']');
  return h.digest('hex');
}

/** The page fetcher of one endpoint, recording the last `total` it saw. */
function pageFetcher(
  api: ApiClient,
  input: PullInput,
  endpoint: 'raw-items' | 'items',
  timeoutMs: number,
  seen: { total: number | null },
): FetchPage<PulledItem> {
  return async (offset, limit) => {
    const body = await api.call<{ items?: PulledItem[]; total?: unknown }>(
      'GET',
      endpoint === 'raw-items' ? '/api/public/catalogs/{catalog_id}/raw-items' : '/api/public/catalogs/{catalog_id}/items',
      { path: { catalog_id: input.catalog_id }, query: { offset, limit }, organizationId: input.organization_id, attempts: PAGE_ATTEMPTS, timeoutMs },
    );
    const page: Page<PulledItem> = { items: Array.isArray(body?.items) ? body.items : [], total: parseTotal(body?.total) };
    if (page.total !== null) seen.total = page.total;
    return page;
  };
}

/** Page sizes to try (docs/tool-server-design.md "Pull"): `[size, 400 if size>400, 200 if size>200]`, de-duplicated. */
export function pageSizes(size: number): number[] {
  return [...new Set([size, ...(size > 400 ? [400] : []), ...(size > 200 ? [200] : [])])];
}

/** Rows of the catalog: raw-items then `/items`, each with the page sizes of {@link pageSizes}, verified against `total`. */
async function pullRows(
  api: ApiClient,
  input: PullInput,
  timeoutMs: number,
): Promise<{ items: PulledItem[]; endpoint: 'raw-items' | 'items'; total: number | null; stats: PaginationStats }> {
  const endpoints: Array<'raw-items' | 'items'> = input.prefer_raw ? ['raw-items', 'items'] : ['items'];
  let lastError: unknown = null;
  for (const endpoint of endpoints) {
    const sizes = input.sample_size !== null ? [input.sample_size] : pageSizes(endpoint === 'items' ? Math.min(input.page_size, 1000) : input.page_size);
    for (const size of sizes) {
      const stats: PaginationStats = { requests: 0, refills: 0, sequential: null };
      const seen = { total: null as number | null };
      const fetchPage = pageFetcher(api, input, endpoint, timeoutMs, seen);
      try {
        if (input.sample_size !== null) {
          stats.requests++;
          const page = await fetchPage(0, size);
          return { items: page.items.slice(0, input.sample_size), endpoint, total: page.total, stats };
        }
        const items = await pullParallel(fetchPage, size, input.max_concurrency, stats);
        verifyPull(items, seen.total);
        return { items, endpoint, total: seen.total, stats };
      } catch (err) {
        lastError = err;
        // An authorization failure or an unknown catalog will not change with another size or endpoint.
        if (err instanceof ApiError && (err.status === 401 || err.status === 403 || err.status === 404) && endpoint === 'items') throw err;
      }
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

/**
 * Pulls a catalog snapshot and writes `catalog_<id>.jsonl`, `catalog_<id>.csv`,
 * `catalog_<id>_schema.json`, `catalog_<id>_taxonomy.json` and `catalog_<id>_manifest.json` into
 * `outDir` (an absolute path already through the workspace guard).
 * @returns the paths, counts and hashes (see {@link PullOutput})
 * @throws ApiError when the schema or every endpoint fails; IncompletePullError when the rows never match `total`
 */
export async function pullSnapshot(api: ApiClient, input: PullInput, outDir: string, timeoutMs: number): Promise<PullOutput> {
  fs.mkdirSync(outDir, { recursive: true });
  const stem = path.join(outDir, `catalog_${input.catalog_id}`);
  const paths = {
    jsonl: `${stem}.jsonl`,
    csv: `${stem}.csv`,
    parquet: `${stem}.parquet`,
    schema: `${stem}_schema.json`,
    taxonomy: `${stem}_taxonomy.json`,
    manifest: `${stem}_manifest.json`,
  };
  const cacheKey = { catalog_id: input.catalog_id, format: input.format, sample_size: input.sample_size, prefer_raw: input.prefer_raw };
  if (input.use_cache) {
    const cached = readCache(paths, cacheKey);
    if (cached) return cached;
  }
  const org = { organizationId: input.organization_id, attempts: PAGE_ATTEMPTS };
  const schema = await api.call<Record<string, unknown>>('GET', '/api/public/catalogs/{catalog_id}/schema', { path: { catalog_id: input.catalog_id }, ...org });
  fs.writeFileSync(paths.schema, JSON.stringify(schema, null, 2));
  const taxonomy = await api.call<unknown>('GET', '/api/public/catalogs/{catalog_id}/taxonomy', { path: { catalog_id: input.catalog_id }, ...org });
  fs.writeFileSync(paths.taxonomy, JSON.stringify(taxonomy ?? null, null, 2));

  const t0 = performance.now();
  const { items, endpoint, total, stats } = await pullRows(api, input, timeoutMs);
  const t1 = performance.now();
  // One row object per item: JSON Lines keep the typed values, the CSV writer and the hash encode dict/list cells as the flattening does.
  const typed = items.map((it) => flattenItem(it, false));
  items.length = 0;
  // Columns: the system columns, the schema's properties in its order, then any other data key.
  const props = (schema.schema_definition as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  const columns = columnsOf(typed, [...SYSTEM_COLUMNS, ...Object.keys(props).filter((k) => !(SYSTEM_COLUMNS as readonly string[]).includes(k))]);
  writeJsonl(paths.jsonl, typed, columns);
  writeCsv(paths.csv, typed, columns);
  if (input.format === 'parquet') writeParquet(paths.parquet, typed, columns);

  const hashes = { rows_hash: rowsHash(typed), schema_hash: sha256Hex(canonicalJson(schema)) };
  const sourceHash = sha256Hex(canonicalJson(hashes));
  const snapshotPath = paths[input.format];
  const manifest = {
    version: 1,
    cache_key: cacheKey,
    catalog_id: input.catalog_id,
    ...snapshotFiles(paths, snapshotPath),
    format: input.format,
    rows: typed.length,
    columns: columns.length,
    total,
    endpoint,
    ...hashes,
    source_hash: sourceHash,
    schema_version: typeof schema.version === 'string' ? schema.version : null,
    base_snapshot_id: null,
    created_at: new Date().toISOString(),
  };
  fs.writeFileSync(paths.manifest, JSON.stringify(manifest, null, 2));
  return {
    catalog_id: input.catalog_id,
    ...snapshotFiles(paths, snapshotPath),
    manifest_path: paths.manifest,
    rows: typed.length,
    columns: columns.length,
    total,
    endpoint,
    requests: stats.requests,
    refills: stats.refills,
    sequential_fallback: stats.sequential,
    source_hash: sourceHash,
    base_snapshot_id: null,
    cache_hit: false,
    timings_ms: { fetch: Math.round(t1 - t0), write: Math.round(performance.now() - t1) },
  };
}

/** The files of a pull, as the manifest and the tool's output name them. */
function snapshotFiles(
  paths: SnapshotPaths,
  snapshotPath: string,
): Pick<PullOutput, 'snapshot_path' | 'jsonl_path' | 'csv_path' | 'schema_path' | 'taxonomy_path'> {
  return { snapshot_path: snapshotPath, jsonl_path: paths.jsonl, csv_path: paths.csv, schema_path: paths.schema, taxonomy_path: paths.taxonomy };
}

/** Where a pull writes its files (`catalog_<id>.*` in the output folder). */
type SnapshotPaths = Record<'jsonl' | 'csv' | 'parquet' | 'schema' | 'taxonomy' | 'manifest', string>;

/** The later release's cache (docs/tool-server-design.md "Pull"): the manifest, snapshot and schema exist and the cache key and paths match. */
function readCache(paths: SnapshotPaths, cacheKey: Record<string, unknown>): PullOutput | null {
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(fs.readFileSync(paths.manifest, 'utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
  const snapshot = String(m.snapshot_path ?? '');
  if (canonicalJson(m.cache_key) !== canonicalJson(cacheKey)) return null;
  if (m.schema_path !== paths.schema || ![paths.jsonl, paths.csv, paths.parquet].includes(snapshot)) return null;
  if (![snapshot, paths.schema].every((p) => fs.existsSync(p))) return null;
  return {
    catalog_id: String(m.catalog_id),
    ...snapshotFiles(paths, snapshot),
    manifest_path: paths.manifest,
    rows: Number(m.rows),
    columns: Number(m.columns),
    total: m.total === null || m.total === undefined ? null : Number(m.total),
    endpoint: m.endpoint === 'items' ? 'items' : 'raw-items',
    requests: 0,
    refills: 0,
    sequential_fallback: null,
    source_hash: String(m.source_hash),
    base_snapshot_id: null,
    cache_hit: true,
    timings_ms: { fetch: 0, write: 0 },
  };
}
