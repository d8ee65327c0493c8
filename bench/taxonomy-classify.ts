/**
 * Category prediction into the Google product taxonomy (5,595 nodes) at the speed of a job
 * ("usable inline in a request and as a catalog's taxonomy, ≤ 20 ms per item").
 * Items are real product titles (the odd records of ../shared/data/oa-mine and ae-110k, the
 * taxonomy eval's scored split), `web_search: false`, `predict_taxonomy: true`.
 *
 * 1. Engine: `engine.enrich` per item with the taxonomy inline, the way a worker runs a row;
 *    the first item (compiling and indexing the taxonomy) is reported on its own, then the
 *    median and p95 ms per item over the rest.
 * 2. Job: `BENCH_ITEMS` items (default 300) as one job with the taxonomy inline in its request,
 *    through the real service, a local Temporal dev server and an in-process worker, on the
 *    benchmark database (`BENCH_DATABASE_URL`): wall-clock ms per item from start to close
 *    (orchestration included), and the same job without the taxonomy; their difference is what
 *    the taxonomy adds per item.
 *
 * Prints one JSON line; `pass` when the engine's median and the taxonomy's added ms per item are
 * both ≤ 20 ms. The machine is shared:
 * the 1-minute load average at start is printed with the figures.
 */
import './env';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEngine } from '../src/enrichment';
import type { EnrichmentEngine } from '../src/enrichment/types';
import { readGoogleTaxonomy } from '../src/services/sheets/taxonomy';
import { SHARED_DATA } from '../test/helpers/data';
import { startJobBench, type BenchEngine } from './job-common';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 300);
const TARGET_MS = 20;

/** Product titles of the taxonomy eval's scored split (odd records of each file). */
function titles(): string[] {
  return ['oa-mine', 'ae-110k'].flatMap((d) =>
    readFileSync(path.join(SHARED_DATA, d, 'train.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .filter((_, i) => i % 2 === 1)
      .map((l) => (JSON.parse(l) as { input: string }).input),
  );
}

/** An engine that never searches or fetches (`web_search: false` rows need neither). */
function offlineEngine(): EnrichmentEngine {
  const refuse = async (): Promise<never> => {
    throw new Error('web_search: false rows never search or fetch');
  };
  return createEngine({ search: { search: refuse }, fetcher: { fetch: refuse } });
}

const percentile = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

async function main(): Promise<void> {
  const load = os.loadavg()[0];
  const taxonomy = readGoogleTaxonomy(path.join(SHARED_DATA, 'taxonomy', 'google', 'taxonomy-with-ids.en-US.txt'));
  const all = titles();
  const items = Array.from({ length: ITEMS }, (_, i) => ({ sku: `T-${i}`, name: all[i % all.length] }));
  const outputSchema = [{ name: 'brand', type: 'string' as const, description: 'Brand' }];
  const options = { web_search: false, predict_taxonomy: true, taxonomy };

  const engine = offlineEngine();
  const times: number[] = [];
  let classified = 0;
  for (const item of items) {
    const t = performance.now();
    const { result } = await engine.enrich({ item, output_schema: outputSchema, options: { speed: 'fast', ...options } });
    times.push(performance.now() - t);
    if (result.category_id) classified++;
  }
  const [first, ...rest] = times;

  /** Runs one job of ITEMS items with `jobOptions`; returns its wall-clock ms and rows with a category. */
  const runJob = async (jobOptions: Record<string, unknown>): Promise<{ ms: number; categorised: number }> => {
    const jb = await startJobBench({ kind: 'echo', engine, item: (i) => items[i % items.length], outputSchema, options: jobOptions } as BenchEngine);
    try {
      const jobId = await jb.createJob(ITEMS);
      const t = performance.now();
      await jb.runJob(jobId, { concurrency: 8 });
      const ms = performance.now() - t;
      const [{ count }] = await jb
        .knex('enrichment_rows')
        .where({ job_id: jobId })
        .whereRaw("jsonb_exists(result, 'category_id')")
        .count<{ count: string }[]>('* as count');
      return { ms, categorised: Number(count) };
    } finally {
      await jb.close();
    }
  };
  const withTaxonomy = await runJob(options);
  if (withTaxonomy.categorised !== classified) throw new Error(`the job classified ${withTaxonomy.categorised} of ${ITEMS} rows, the engine ${classified}`);
  // The same job without the taxonomy: what the job costs anyway (orchestration, writes).
  const without = await runJob({ web_search: false });
  const engineMedian = percentile(rest, 0.5);
  const jobMs = withTaxonomy.ms;
  const jobPerItem = jobMs / ITEMS;
  const addedPerItem = (withTaxonomy.ms - without.ms) / ITEMS;
  console.log(
    JSON.stringify({
      bench: 'taxonomy_classify',
      nodes: Object.keys(taxonomy.nodes).length,
      items: ITEMS,
      classified,
      engine_first_item_ms: Math.round(first),
      engine_ms_per_item_median: Number(engineMedian.toFixed(2)),
      engine_ms_per_item_p95: Number(percentile(rest, 0.95).toFixed(2)),
      job_ms_total: Math.round(jobMs),
      job_ms_per_item: Number(jobPerItem.toFixed(2)),
      job_without_taxonomy_ms_per_item: Number((without.ms / ITEMS).toFixed(2)),
      taxonomy_added_ms_per_item: Number(addedPerItem.toFixed(2)),
      target_ms_per_item: TARGET_MS,
      pass: engineMedian <= TARGET_MS && addedPerItem <= TARGET_MS,
      load_start: Number(load.toFixed(2)),
    }),
  );
}

main().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
