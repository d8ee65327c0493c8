/**
 * Item lists at depth: the page at position `BENCH_DEPTH` (default 100,000) of a
 * `BENCH_ITEMS`-item catalog (default 200,000) reached by `offset` and by `cursor` (the
 * `next_cursor` of the page before it), for the default order, a data-field sort (price) and a
 * broad search, over HTTP; medians of `BENCH_ROUNDS` (default 5). Target: cursor pages stay
 * flat (about the time of the first page) at any depth.
 *
 * Before that, the first page sorted by a data field (docs/large-catalogs.md "Sorting by a data
 * field"): p50/p95 over `BENCH_FIRST_ROUNDS` (default 20) for no filter and for a broad word
 * (`wool`, a quarter of the items), both directions, beside the limit measured in the same run
 * (EXPLAIN ANALYZE of an index range scan of 50 rows, the default order's first page) and the
 * load average; also the no-filter page right after a write of one item (every cached total of
 * the catalog then misses), and what counting the catalog's items takes. Target: ≤ 300 ms p95. The sorted pages are measured `unprepared` (the catalog's
 * sort keys of `price` not built: the plain sort) and `prepared` (after buildSortKeys).
 * Prints one JSON line.
 */
import './env';
import { buildSortKeys } from '../src/services/catalog/items/sort-keys';
import { percentile } from './search-churn-measure';
import { createBenchCatalog, loadAvg, median, runBench, seedItems, since, type Bench } from './lib';

const N = Number(process.env.BENCH_ITEMS ?? 200_000);
const DEPTH = Number(process.env.BENCH_DEPTH ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const FIRST_ROUNDS = Number(process.env.BENCH_FIRST_ROUNDS ?? 20);
const LIMIT = 50;

/** The sorted first pages of the module comment. */
const SORTED_FIRST_PAGES: Record<string, Record<string, string>> = {
  no_filter_price_desc: { sort: 'price:desc' },
  no_filter_price_asc: { sort: 'price:asc' },
  wool_price_desc: { search: 'wool', sort: 'price:desc' },
  wool_price_asc: { search: 'wool', sort: 'price:asc' },
};

/** Execution time (ms) of an index range scan of LIMIT rows of the catalog, from EXPLAIN ANALYZE; p50 of 5. */
async function rangeScanMs(b: Bench, catalogId: string): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < 5; i++) {
    const { rows } = await b.knex.raw(
      `EXPLAIN (ANALYZE, FORMAT JSON) SELECT id, data FROM catalog_items WHERE catalog_id = ? ORDER BY created_at, id LIMIT ${LIMIT}`,
      [catalogId],
    );
    ms.push(Number(rows[0]['QUERY PLAN'][0]['Execution Time']));
  }
  return Number(median(ms).toFixed(2));
}

runBench(async (b) => {
  const loadStart = loadAvg();
  const catalogId = await createBenchCatalog(b, 'list depth');
  await seedItems(b, catalogId, N);
  const get = async (q: Record<string, string | number>): Promise<{ ms: number; body: { items: Array<{ id: string }>; next_cursor: string | null } }> => {
    const t = performance.now();
    const { data, error, response } = await b.api.GET('/api/public/catalogs/{catalog_id}/items', { params: { path: { catalog_id: catalogId }, query: q } });
    if (!response.ok || !data) throw new Error(`${response.status} ${JSON.stringify(error)}`);
    const body = data as { items: Array<{ id: string }>; next_cursor: string | null };
    return { ms: since(t), body };
  };
  const sortedFirstPages = async () => {
    const figures: Record<string, unknown> = {};
    for (const [name, q] of Object.entries(SORTED_FIRST_PAGES)) {
      await get({ ...q, limit: LIMIT }); // warm-up (search count cache, buffers)
      const ms: number[] = [];
      for (let r = 0; r < FIRST_ROUNDS; r++) ms.push((await get({ ...q, limit: LIMIT })).ms);
      figures[name] = { p50_ms: percentile(ms, 50), p95_ms: percentile(ms, 95) };
    }
    // Right after a write (one item's title changed: every cached total of the catalog misses).
    const afterWrite: number[] = [];
    for (let r = 0; r < FIRST_ROUNDS; r++) {
      await b.knex.raw(
        `UPDATE catalog_items SET data = data || jsonb_build_object('title', 'written ' || ?::text) WHERE catalog_id = ? AND business_key = 'SKU-7'`,
        [String(r), catalogId],
      );
      afterWrite.push((await get({ sort: 'price:desc', limit: LIMIT })).ms);
    }
    figures.no_filter_price_desc_after_write = { p50_ms: percentile(afterWrite, 50), p95_ms: percentile(afterWrite, 95) };
    // What counting the catalog's items costs (the list's total before the completeness counters served it).
    const t0 = performance.now();
    await b.knex.raw('SELECT count(*) FROM catalog_items WHERE catalog_id = ?', [catalogId]);
    const countMs = Math.round(since(t0));
    return { ...figures, range_scan_50_rows_ms: await rangeScanMs(b, catalogId), count_items_ms: countMs, load: loadAvg() };
  };
  const unprepared = await sortedFirstPages();
  // The build the field index workflow runs after the first sorted list recorded `price`.
  const t = performance.now();
  const built = await buildSortKeys(b.knex, catalogId);
  const buildMs = Math.round(since(t));
  const out: Record<string, unknown> = { sorted_first_page: { unprepared, sort_keys_build_ms: buildMs, built, prepared: await sortedFirstPages() } };
  const lists: Record<string, Record<string, string>> = { default: {}, sorted_by_price: { sort: 'price:desc' }, broad_search: { search: 'everyday' } };
  for (const [name, base] of Object.entries(lists)) {
    // The cursor of the page just before the depth, from one page of LIMIT rows ending there.
    const before = await get({ ...base, limit: LIMIT, offset: DEPTH - LIMIT });
    const cursor = before.body.next_cursor;
    if (!cursor) throw new Error(`${name}: no next_cursor at ${DEPTH - LIMIT}`);
    const offsetMs: number[] = [];
    const cursorMs: number[] = [];
    const firstMs: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const byOffset = await get({ ...base, limit: LIMIT, offset: DEPTH });
      const byCursor = await get({ ...base, limit: LIMIT, cursor });
      if (!byCursor.body.items.length) throw new Error(`${name}: empty cursor page`);
      if (JSON.stringify(byOffset.body.items.map((i) => i.id)) !== JSON.stringify(byCursor.body.items.map((i) => i.id)))
        throw new Error(`${name}: cursor page differs`);
      offsetMs.push(byOffset.ms);
      cursorMs.push(byCursor.ms);
      firstMs.push((await get({ ...base, limit: LIMIT })).ms);
    }
    out[name] = { first_page_ms: Math.round(median(firstMs)), offset_ms: Math.round(median(offsetMs)), cursor_ms: Math.round(median(cursorMs)) };
  }
  return { bench: 'list_depth', items: N, depth: DEPTH, limit: LIMIT, ...out, load_start: loadStart };
});
