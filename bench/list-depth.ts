/**
 * Item lists at depth: the page at position `BENCH_DEPTH` (default 100,000) of a
 * `BENCH_ITEMS`-item catalog (default 200,000) reached by `offset` and by `cursor` (the
 * `next_cursor` of the page before it), for the default order, a data-field sort (price) and a
 * broad search, over HTTP; medians of `BENCH_ROUNDS` (default 5). Target: cursor pages stay
 * flat (about the time of the first page) at any depth. Prints one JSON line.
 */
import './env';
import { createBenchCatalog, loadAvg, median, runBench, seedItems, since } from './lib';

const N = Number(process.env.BENCH_ITEMS ?? 200_000);
const DEPTH = Number(process.env.BENCH_DEPTH ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LIMIT = 50;

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
  const out: Record<string, unknown> = {};
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
