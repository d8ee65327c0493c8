/**
 * `GET …/items/export?format=csv|xlsx` of a 100,000-item catalog (20 fields): three
 * streamed downloads per format, rows/s by median and best, bytes, the API process's RSS growth
 * (the export is in-process here, so the bench's own RSS is the API's) and the 1-minute load
 * average at start (the machine is shared). Target: ≥ 20,000 rows/s, bounded memory.
 */
import { type Bench, createBenchCatalog, loadAvg, seedItems, since, runBench } from './lib';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 100000);

/**
 * The benchmark of this file's header on a running {@link Bench}, with `N` items; returns its figures
 * (the JSON line's fields).
 */
export async function measureSheetsExport(b: Bench, N: number = ITEMS): Promise<Record<string, unknown>> {
  const catalog = await createBenchCatalog(b, 'sheets export');
  await seedItems(b, catalog, N);
  const loadStart = loadAvg();
  const out: Record<string, unknown> = { bench: 'sheets_export', items: N, load_start: loadStart };
  for (const format of ['csv', 'xlsx'] as const) {
    const runs: number[] = [];
    let bytes = 0;
    let lines = 0;
    const rss0 = process.memoryUsage().rss;
    let rssPeak = rss0;
    for (let run = 0; run < 3; run++) {
      const t0 = performance.now();
      const { data: stream, response } = await b.api.GET('/api/public/catalogs/{catalog_id}/items/export', {
        params: { path: { catalog_id: catalog }, query: { format } },
        parseAs: 'stream',
      });
      if (response.status !== 200 || !stream) throw new Error(`export ${format}: ${response.status}`);
      bytes = 0;
      lines = 0;
      for await (const chunk of stream as AsyncIterable<Uint8Array>) {
        bytes += chunk.length;
        if (format === 'csv') for (const c of chunk) if (c === 10) lines++;
        rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      }
      runs.push(since(t0));
    }
    const median = [...runs].sort((x, y) => x - y)[1];
    out[format] = {
      runs_ms: runs.map(Math.round),
      rows_per_s_median: Math.round(N / (median / 1000)),
      rows_per_s_best: Math.round(N / (Math.min(...runs) / 1000)),
      mb: Math.round(bytes / 1e6),
      ...(format === 'csv' ? { lines_with_header: lines } : {}),
      rss_growth_mb: Math.round((rssPeak - rss0) / 1e6),
      pass: N / (median / 1000) >= 20000,
    };
  }
  return { ...out, target_rows_per_s: 20000, load_end: loadAvg() };
}

if (require.main === module) runBench((b) => measureSheetsExport(b));
