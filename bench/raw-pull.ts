/**
 * Full pull of a 100,000-item catalog through `GET …/raw-items` as the tool server does it:
 * limit 5000, 8 parallel offset pages, `total` from the first page; verifies every id exactly
 * once. Three pulls, reported by median and best. Prints one JSON line with the 1-minute
 * load average at start and end (the machine is shared). Target: ≥ 20,000 rows/s.
 */
import { type Bench, createBenchCatalog, loadAvg, seedItems, since, runBench } from './lib';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 100000);
const LIMIT = 5000;
const PARALLEL = 8;

/**
 * The benchmark of this file's header on a running {@link Bench}, with `N` items; returns its figures
 * (the JSON line's fields).
 */
export async function measureRawPull(b: Bench, N: number = ITEMS): Promise<Record<string, unknown>> {
  const catalog = await createBenchCatalog(b, 'raw pull');
  await seedItems(b, catalog, N);
  const page = async (offset: number) => {
    const { data, response } = await b.api.GET('/api/public/catalogs/{catalog_id}/raw-items', {
      params: { path: { catalog_id: catalog }, query: { limit: LIMIT, offset } },
    });
    if (response.status !== 200 || !data) throw new Error(`raw-items ${response.status}`);
    return data as { items: Array<{ id: string }>; total: number };
  };
  const loadStart = loadAvg();
  const runs: number[] = [];
  let verified = true;
  let bytes = 0;
  for (let run = 0; run < 3; run++) {
    const t0 = performance.now();
    const first = await page(0);
    const offsets = Array.from({ length: Math.ceil(first.total / LIMIT) - 1 }, (_, k) => (k + 1) * LIMIT);
    const pages = [first];
    let next = 0;
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        while (next < offsets.length) pages.push(await page(offsets[next++]));
      }),
    );
    runs.push(since(t0));
    const ids = pages.flatMap((p) => p.items.map((i) => i.id));
    verified &&= first.total === N && ids.length === N && new Set(ids).size === N;
    if (run === 0) bytes = pages.reduce((s, p) => s + JSON.stringify(p).length, 0);
  }
  const best = Math.min(...runs);
  const median = [...runs].sort((x, y) => x - y)[1];
  return {
    bench: 'raw_items_full_pull',
    items: N,
    limit: LIMIT,
    parallel: PARALLEL,
    runs_ms: runs.map(Math.round),
    rows_per_s_median: Math.round(N / (median / 1000)),
    rows_per_s_best: Math.round(N / (best / 1000)),
    mb: Math.round(bytes / 1e6),
    every_id_exactly_once: verified,
    target_rows_per_s: 20000,
    pass: verified && N / (median / 1000) >= 20000,
    load_start: loadStart,
  };
}

if (require.main === module) runBench((b) => measureRawPull(b));
