/**
 * The tool server's snapshot pull (`execution_catalog_snapshot_pull`) of a 100,000-item
 * catalog, as the tool runs it (src/mcp/pull.ts: raw-items, page size 5000, 8 pages in flight,
 * verified against `total`, Parquet (the tool's default format) + JSONL + CSV + schema + taxonomy +
 * manifest written) against the real app on loopback. Three pulls; prints one JSON line. Target: ≤ 10 s.
 */
import './env';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApiClient } from '../packages/tool-server/src/api-client';
import { pullSnapshot } from '../packages/tool-server/src/pull';
import { createBenchCatalog, loadAvg, median, runBench, seedItems, since } from './lib';

const N = Number(process.env.BENCH_ITEMS ?? 100000);

runBench(async (b) => {
  const catalog = await createBenchCatalog(b, 'mcp pull');
  await seedItems(b, catalog, N);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-mcp-pull-'));
  const api = new ApiClient({ baseUrl: `${b.baseUrl}/api`, token: b.auth.Authorization.slice('Bearer '.length), organizationId: null, retryBaseMs: 400 });
  const loadStart = loadAvg();
  const runs: number[] = [];
  const phases: Array<{ fetch: number; write: number }> = [];
  let out: Awaited<ReturnType<typeof pullSnapshot>> | null = null;
  for (let run = 0; run < 3; run++) {
    const t0 = performance.now();
    out = await pullSnapshot(
      api,
      { catalog_id: catalog, output_dir: dir, format: 'parquet', sample_size: null, page_size: 5000, max_concurrency: 8, prefer_raw: true, use_cache: false },
      dir,
      25_000,
    );
    runs.push(since(t0));
    phases.push(out.timings_ms);
  }
  const mb = (f: string) => Math.round(fs.statSync(f).size / 1e5) / 10;
  const result = {
    bench: 'mcp_snapshot_pull',
    items: N,
    page_size: 5000,
    concurrency: 8,
    runs_ms: runs.map(Math.round),
    median_ms: Math.round(median(runs)),
    phases_ms: phases,
    rows: out!.rows,
    requests: out!.requests,
    jsonl_mb: mb(out!.jsonl_path),
    csv_mb: mb(out!.csv_path),
    parquet_mb: mb(out!.snapshot_path),
    verified: out!.rows === N && out!.total === N,
    target_ms: 10000,
    pass: out!.rows === N && median(runs) <= 10000,
    load_start: loadStart,
    load_end: loadAvg(),
  };
  fs.rmSync(dir, { recursive: true, force: true });
  return result;
});
