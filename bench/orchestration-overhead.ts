/**
 * Orchestration overhead: items/s of one job run through Temporal (enrichmentJobWorkflow, real
 * worker, real PostgreSQL writes) against the same engine and the same row service
 * (src/services/enrichment/rows/rows.ts enrichRow: read, enrich, idempotent write) called in a plain
 * loop with the same concurrency. Prints one JSON line with both rates and their ratio
 * (target ≥ 0.8).
 *
 *   npx tsx bench/orchestration-overhead.ts
 *   env: BENCH_ITEMS (10000), BENCH_CONCURRENCY (8), BENCH_BATCH_SIZE (workflow default),
 *        BENCH_ENGINE archive|echo (archive), BENCH_ENGINE_DELAY_MS (echo only, 0)
 */
import { loadConfig } from '../src/config';
import { enrichmentStorage } from '../src/services/enrichment/rows/artifacts';
import { createEnrichmentCaches } from '../src/services/enrichment/enrichment-caches';
import { enrichRow } from '../src/services/enrichment/rows/rows';
import { DEFAULT_BATCH_SIZE } from '../src/contracts/workflows';
import { BenchEngineKind, benchEngine, startJobBench } from './job-common';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const BATCH = Number(process.env.BENCH_BATCH_SIZE ?? DEFAULT_BATCH_SIZE);
const ENGINE = (process.env.BENCH_ENGINE ?? 'archive') as BenchEngineKind;

async function main(): Promise<void> {
  const be = benchEngine(ENGINE);
  const b = await startJobBench(be);
  try {
    // Warm-up (engine index, workflow bundle, JIT) outside the measurements.
    await b.runJob(await b.createJob(50), { concurrency: CONCURRENCY, batch_size: BATCH });

    const loopJob = await b.createJob(ITEMS);
    const rowDeps = { knex: b.knex, engine: be.engine, storage: enrichmentStorage(loadConfig()), caches: createEnrichmentCaches() };
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < ITEMS) await enrichRow(rowDeps, loopJob, next++);
      }),
    );
    const loopS = (performance.now() - t0) / 1000;

    const temporalJob = await b.createJob(ITEMS);
    const t1 = performance.now();
    await b.runJob(temporalJob, { concurrency: CONCURRENCY, batch_size: BATCH });
    const temporalS = (performance.now() - t1) / 1000;
    const done = await b.knex('enrichment_jobs').whereIn('id', [loopJob, temporalJob]).select('id', 'completed_items', 'status');
    for (const j of done) if (j.completed_items !== ITEMS) throw new Error(`job ${j.id} completed ${j.completed_items} of ${ITEMS} items`);

    const loopRate = ITEMS / loopS;
    const temporalRate = ITEMS / temporalS;
    console.log(
      JSON.stringify({
        bench: 'orchestration-overhead',
        engine: ENGINE,
        items: ITEMS,
        concurrency: CONCURRENCY,
        batch_size: BATCH,
        plain_loop_items_per_s: Math.round(loopRate * 10) / 10,
        temporal_items_per_s: Math.round(temporalRate * 10) / 10,
        ratio: Math.round((temporalRate / loopRate) * 1000) / 1000,
        target: 0.8,
      }),
    );
  } finally {
    await b.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
