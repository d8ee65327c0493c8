/**
 * Scale: one 100,000-item enrichment job through Temporal to completion (in-process worker,
 * real PostgreSQL writes), created through the real service (rows inserted in chunks). While it
 * runs, progress is sampled both ways (the poll's PostgreSQL counters and the workflow's
 * `progress` query) and the worker's RSS; afterwards every run's history length is read.
 * Prints one JSON line: items, seconds, items_per_s, worker_peak_rss_mb, history_events_max,
 * runs, plus the progress samples' agreement.
 *
 *   npx tsx bench/job-100k.ts
 *   env: BENCH_ITEMS (100000), BENCH_CONCURRENCY (8), BENCH_BATCH_SIZE (workflow default),
 *        BENCH_ENGINE echo|archive (echo), BENCH_ENGINE_DELAY_MS (0)
 */
import { progressQuery, DEFAULT_BATCH_SIZE } from '../workflows/definitions';
import { BenchEngineKind, benchEngine, startJobBench } from './job-common';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 100_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const BATCH = Number(process.env.BENCH_BATCH_SIZE ?? DEFAULT_BATCH_SIZE);
const ENGINE = (process.env.BENCH_ENGINE ?? 'echo') as BenchEngineKind;

async function main(): Promise<void> {
  const b = await startJobBench(benchEngine(ENGINE));
  try {
    const tc = performance.now();
    const jobId = await b.createJob(ITEMS);
    const createS = (performance.now() - tc) / 1000;
    const workflowId = `enrichment-${jobId}`;
    let peakRss = process.memoryUsage().rss;
    const samples: Array<{ poll: number; query: number | null }> = [];
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 250);
    const poller = setInterval(async () => {
      const row = await b.knex('enrichment_jobs').where({ id: jobId }).first('completed_items');
      const q = await b.env.client.workflow.getHandle(workflowId).query(progressQuery).catch(() => null);
      samples.push({ poll: row?.completed_items ?? 0, query: q?.completed_items ?? null });
    }, 5000);
    const t0 = performance.now();
    await b.runJob(jobId, { concurrency: CONCURRENCY, batch_size: BATCH });
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    clearInterval(poller);

    const job = await b.knex('enrichment_jobs').where({ id: jobId }).first();
    if (job.status !== 'completed' || job.completed_items !== ITEMS) throw new Error(`job ended ${job.status} with ${job.completed_items} of ${ITEMS}`);
    // Walk the chain of runs back from the latest.
    let runId: string | undefined = (await b.env.client.workflow.getHandle(workflowId).describe()).runId;
    let runs = 0;
    let maxEvents = 0;
    while (runId) {
      const history = await b.env.client.workflow.getHandle(workflowId, runId).fetchHistory();
      runs += 1;
      maxEvents = Math.max(maxEvents, history.events?.length ?? 0);
      runId = history.events![0].workflowExecutionStartedEventAttributes!.continuedExecutionRunId || undefined;
    }
    const live = samples.filter((s) => s.query !== null && s.poll > 0 && s.poll < ITEMS);
    console.log(JSON.stringify({
      bench: 'job-100k', engine: ENGINE, items: ITEMS, concurrency: CONCURRENCY, batch_size: BATCH,
      create_seconds: Math.round(createS * 10) / 10, seconds: Math.round(seconds * 10) / 10, items_per_s: Math.round(ITEMS / seconds),
      worker_peak_rss_mb: Math.round(peakRss / 1048576), history_events_max: maxEvents, history_event_limit: 51200, runs,
      credits_used: job.credits_used, progress_samples: live.length,
      progress_query_vs_poll_max_gap: live.reduce((m, s) => Math.max(m, Math.abs((s.query ?? 0) - s.poll)), 0),
    }));
  } finally {
    await b.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
