/**
 * Measurements of bench/search-churn.ts: API searches by kind (warm: the search count cache holds
 * the total; cold: emptied before each request), the deep offset page, the first page sorted by a
 * data field, the completeness report, and the physical limit of a search (the GIN index scan
 * of one rare word alone, from EXPLAIN ANALYZE, in the same run).
 */
import type { CatalogClient } from '@catalog-enrichment/client';
import { clearSearchTotals } from '../src/services/catalog/search/items-search-totals';
import { filterSql } from '../src/services/catalog/items/items-sql';
import { loadAvg, since, type Bench } from './lib';

/** Search terms by kind (values of the bench data set, bench/lib.ts benchItem). */
export const SEARCH_KINDS: Record<string, string[]> = {
  identifier: ['sku-123456', 'SKU-98765', '4000000777777', 'mpn4242'],
  url: ['https://img.example.com/55555.', 'img.example.com/424242.jpg'],
  phrase: ['model 996', 'Acme Red Shirt 8', 'contoso green trousers 1234'],
  broad: ['olive boot', 'wool', 'sneaker'],
};

/** p-th percentile (nearest rank) of some numbers, 0.1 ms. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return Number(s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))].toFixed(1));
}

const stats = (v: number[]) => ({ p50_ms: percentile(v, 50), p95_ms: percentile(v, 95) });

/** One set of figures (one point of the churn sequence). */
export interface SearchFigures {
  warm: Record<string, { p50_ms: number; p95_ms: number }>;
  cold: Record<string, { p50_ms: number; p95_ms: number }>;
  /** Every total equals a direct SQL count. */
  exact_totals: boolean;
  offset_100k_ms: number;
  /** The offset page's answer carries `next_cursor` (the client can page by cursor instead). */
  offset_100k_next_cursor: boolean;
  sorted_by_price_first_page_ms: number;
  completeness_ms: number;
  /** GIN index scan of one rare word (Bitmap Index Scan node, EXPLAIN ANALYZE), p50 of 5. */
  gin_lookup_ms: number;
  /** EXPLAIN (ANALYZE, BUFFERS) of the count of an identifier and of a broad word: plan, time, buffers. */
  plans: Record<string, PlanSummary>;
  /** How the cold totals were counted (search count index postings, its rare-part GIN look-up, or a GIN bitmap count). */
  cold_count_paths: { index: number; rare: number; gin: number };
  /** Rows of the search count index's delta not folded yet (writes since the build or the last fold). */
  delta_rows: number;
  load: number;
}

/**
 * Measures every kind of search (warm over `rounds` rounds, cold over `coldRounds`), the deep and
 * sorted pages, the completeness report and the raw GIN look-up, on catalog `catalogId` through
 * `api` (its organization's key).
 */
export async function measureSearches(b: Bench, api: CatalogClient, catalogId: string, rounds: number, coldRounds: number): Promise<SearchFigures> {
  const run = async (term: string | undefined, extra: { offset?: number; sort?: string } = {}) => {
    const t = performance.now();
    const { data, response } = await api.GET('/api/public/catalogs/{catalog_id}/items', {
      params: { path: { catalog_id: catalogId }, query: { limit: 50, ...(term ? { search: term } : {}), ...extra } },
    });
    if (response.status !== 200 || !data) throw new Error(`list ${response.status}`);
    return { ms: since(t), total: (data as { total: number }).total, cursor: Boolean((data as { next_cursor?: string }).next_cursor) };
  };
  const cold: Record<string, number[]> = {};
  const warm: Record<string, number[]> = {};
  const totals: Record<string, number> = {};
  const { rows: pendingRows } = await b.knex.raw(
    'SELECT (c.search_logged - i.logged)::int AS n FROM catalogs c JOIN catalog_search_index i ON i.catalog_id = c.id WHERE c.id = ?',
    [catalogId],
  );
  const paths = { ...b.caches.catalog.searchCountStats };
  // Cold first: right after the write nothing is cached (the write made every cached total miss).
  for (let r = 0; r < coldRounds; r++) {
    for (const [kind, terms] of Object.entries(SEARCH_KINDS)) {
      for (const term of terms) {
        clearSearchTotals(b.caches.catalog);
        (cold[kind] ??= []).push((await run(term)).ms);
      }
    }
  }
  const stat = b.caches.catalog.searchCountStats;
  const coldPaths = { index: stat.index - paths.index, rare: stat.rare - paths.rare, gin: stat.gin - paths.gin };
  for (const term of Object.values(SEARCH_KINDS).flat()) await run(term);
  for (let r = 0; r < rounds; r++) {
    for (const [kind, terms] of Object.entries(SEARCH_KINDS)) {
      for (const term of terms) {
        const x = await run(term);
        (warm[kind] ??= []).push(x.ms);
        totals[term] = x.total;
      }
    }
  }
  let exact = true;
  for (const [term, total] of Object.entries(totals)) {
    const where = filterSql(catalogId, { search: term, top_level: false });
    const n = (await b.knex.raw(`SELECT count(*)::int AS n FROM catalog_items WHERE ${where.sql}`, where.bindings)).rows[0].n;
    exact &&= n === total;
  }
  const deep = await run('everyday', { offset: 100_000 }); // every item matches
  const sorted = await run('wool', { sort: 'price:desc' });
  const t = performance.now();
  const report = await api.GET('/api/public/catalogs/{catalog_id}/completeness', { params: { path: { catalog_id: catalogId } } });
  if (report.response.status !== 200) throw new Error(`completeness ${report.response.status}`);
  const completenessMs = since(t);
  const gin: number[] = [];
  for (let i = 0; i < 5; i++) gin.push(await ginLookupMs(b, catalogId, String(123450 + i)));
  const plans: Record<string, PlanSummary> = {};
  for (const term of ['sku-123456', 'wool']) plans[term] = await explainCount(b, catalogId, term);
  return {
    warm: Object.fromEntries(Object.entries(warm).map(([k, v]) => [k, stats(v)])),
    cold: Object.fromEntries(Object.entries(cold).map(([k, v]) => [k, stats(v)])),
    exact_totals: exact,
    offset_100k_ms: Math.round(deep.ms),
    offset_100k_next_cursor: deep.cursor,
    sorted_by_price_first_page_ms: Math.round(sorted.ms),
    completeness_ms: Math.round(completenessMs),
    gin_lookup_ms: percentile(gin, 50),
    plans,
    cold_count_paths: coldPaths,
    delta_rows: pendingRows[0]?.n ?? 0,
    load: loadAvg(),
  };
}

/** The Bitmap Index Scan time (ms) of the word index for one word of the catalog, from EXPLAIN ANALYZE. */
async function ginLookupMs(b: Bench, catalogId: string, word: string): Promise<number> {
  const { rows } = await b.knex.raw(
    `EXPLAIN (ANALYZE, FORMAT JSON) SELECT id FROM catalog_items WHERE catalog_id = ? AND search_tsv @@ catalog_item_search_query(?)`,
    [catalogId, word],
  );
  const find = (node: Record<string, unknown>): number | null => {
    if (node['Node Type'] === 'Bitmap Index Scan') return Number(node['Actual Total Time']);
    for (const c of (node.Plans as Array<Record<string, unknown>>) ?? []) {
      const x = find(c);
      if (x !== null) return x;
    }
    return null;
  };
  return find(rows[0]['QUERY PLAN'][0].Plan) ?? Number.NaN;
}

/** The shape of a plan and what it read. */
export interface PlanSummary {
  ms: number;
  /** Node types, depth-first ("Aggregate > Bitmap Heap Scan > Bitmap Index Scan"). */
  nodes: string;
  shared_hit: number;
  shared_read: number;
  /** Rows estimated vs found by the scan under the aggregate. */
  estimated_rows: number;
  actual_rows: number;
  /** Heap blocks a bitmap heap scan visited (exact + lossy), 0 without one. */
  heap_blocks: number;
}

/** EXPLAIN (ANALYZE, BUFFERS) of the search's count (the statement a cold total runs without the count index). */
export async function explainCount(b: Bench, catalogId: string, term: string): Promise<PlanSummary> {
  const where = filterSql(catalogId, { search: term, top_level: false });
  const { rows } = await b.knex.raw(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT count(*) FROM catalog_items WHERE ${where.sql}`, where.bindings);
  const top = rows[0]['QUERY PLAN'][0];
  const names: string[] = [];
  let heap = 0;
  const walk = (n: Record<string, unknown>) => {
    names.push(String(n['Node Type']));
    if (n['Node Type'] === 'Bitmap Heap Scan') heap += Number(n['Exact Heap Blocks'] ?? 0) + Number(n['Lossy Heap Blocks'] ?? 0);
    for (const c of (n.Plans as Array<Record<string, unknown>>) ?? []) walk(c);
  };
  walk(top.Plan);
  const scan = (top.Plan.Plans?.[0] ?? top.Plan) as Record<string, number>;
  return {
    ms: Number(Number(top['Execution Time']).toFixed(1)),
    nodes: names.join(' > '),
    shared_hit: Number(top.Plan['Shared Hit Blocks']),
    shared_read: Number(top.Plan['Shared Read Blocks']),
    estimated_rows: Number(scan['Plan Rows']),
    actual_rows: Number(scan['Actual Rows']),
    heap_blocks: heap,
  };
}
