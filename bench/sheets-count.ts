/**
 * Exact `total_rows` of a large CSV with bounded memory ("a 500 MB CSV is counted in a
 * stream with the service's RSS growing by ≤ 200 MB"): writes a CSV of `BENCH_MB` (default 500)
 * megabytes (12 columns, quoted text with commas and line breaks, decimal numbers, URLs), runs
 * the inference of `POST /public/infer-schema` on it in this process, and reports the row count
 * (checked against the rows written), the time, MB/s and the peak RSS growth (sampled every
 * 50 ms). The file is removed afterwards.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inferSchemaFromFile } from '../src/services/sheets/infer';
import { googleTaxonomyCache } from '../src/services/sheets/taxonomy';
import { loadAvg } from './lib';

const MB = Number(process.env.BENCH_MB ?? 500);

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheets-count-'));
  const file = path.join(dir, 'big.csv');
  const out = fs.createWriteStream(file);
  out.write('sku,title,description,brand,price,weight (kg),stock,active,url,category,tags,note\n');
  let rows = 0;
  let bytes = 0;
  while (bytes < MB * 1e6) {
    const line = `SKU-${rows},"Chair ${rows % 997}, oak","A sturdy chair, model ${rows}.\nSecond line ""quoted""",Acme,${(rows % 1000) / 10 + 1},${(rows % 50) / 10},${rows % 500},${rows % 2 ? 'true' : 'false'},https://shop.example.com/p/${rows},Furniture > Chairs,"oak|chair",\n`;
    bytes += Buffer.byteLength(line);
    rows++;
    if (!out.write(line)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(r));
  if (global.gc) global.gc();
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const load = loadAvg();
  const t0 = performance.now();
  const r = await inferSchemaFromFile({ path: file, name: 'big.csv' }, { maxSampleRows: 20, google: googleTaxonomyCache(null), generateTaxonomy: true });
  const ms = performance.now() - t0;
  clearInterval(timer);
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(
    JSON.stringify({
      bench: 'sheets_count',
      mb: Math.round(bytes / 1e6),
      rows_written: rows,
      total_rows: r.total_rows,
      exact: r.total_rows === rows,
      s: Number((ms / 1000).toFixed(1)),
      mb_per_s: Math.round(bytes / 1e6 / (ms / 1000)),
      rss_growth_mb: Math.round((peak - rss0) / 1e6),
      target_rss_growth_mb: 200,
      pass: r.total_rows === rows && peak - rss0 <= 200e6,
      load_start: load,
      load_end: loadAvg(),
    }),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
