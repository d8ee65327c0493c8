/**
 * A text-only job through the whole service ("a job of 1,000 items with 1,000
 * catalog examples takes ≤ 60 s on 2 cores"): HTTP → PostgreSQL → a Temporal dev server of its
 * own → the production worker entrypoint in its own process (`node --import tsx
 * temporal/worker.ts`). A catalog is made through the API from the WDC-PAVE offers of
 * `../shared/data/wdc-pave` (title, description and the offer's values of its 51 attributes, each
 * an output field), `BENCH_EXAMPLES` (default 1,000) of them bulk-upserted; then one
 * `POST /api/public/enrich` (`async_mode`, `web_search: false`, `catalog_id`) of `BENCH_ITEMS`
 * (default 1,000) offers, polled every 250 ms until it completes; then the same job again, whose
 * model the worker has cached.
 *
 * Prints one JSON line: seconds from the request to `completed` (`job_s`), of which
 * `training_text_model` was the job's `current_step` (`training_s`, as the polls saw it), the
 * second job's seconds, items per second, the worker's CPU seconds (all threads, from /proc) and
 * peak RSS, and the 1-minute load average at start and end.
 *
 *   npx tsx bench/text-job-api.ts        env: BENCH_EXAMPLES, BENCH_ITEMS, BENCH_DATABASE_URL
 */
import './env';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { TemporalJobRunner } from '../temporal/client';
import { rssOf, startServiceBench } from './fixtures/service-bench';
import { spawnWorker, stopWorker } from '../test/fixtures/worker-cluster';
import { attributesOf, readWdcOffers, valuesOf } from './fixtures/wdc-pave';
import { BENCH_DATABASE_URL, loadAvg } from './lib';
import { createCatalogClient } from '@catalog-enrichment/client';

const EXAMPLES = Number(process.env.BENCH_EXAMPLES ?? 1000);
const ITEMS = Number(process.env.BENCH_ITEMS ?? 1000);
const TASK_QUEUE = `bench-text-job-${process.pid}`;

/** User + system CPU seconds of a process and its threads (/proc/<pid>/stat), 0 when it is gone. */
function cpuSecondsOf(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** The benchmark in order: server, database, worker, API, catalog, two jobs, figures. */
async function main(): Promise<void> {
  const offers = readWdcOffers();
  const attributes = attributesOf(offers);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-text-job-'));
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    const { address, namespace, client, knex, apiKey } = await startServiceBench(tmp, 'text-job', cleanups);

    const worker = await spawnWorker({ address, namespace }, TASK_QUEUE, { databaseUrl: BENCH_DATABASE_URL });
    cleanups.push(() => stopWorker(worker));
    const workerPid = worker.child.pid!;

    const config = { ...loadConfig(), taskQueue: TASK_QUEUE };
    const api = http.createServer(createApp({ config, knex, jobRunner: new TemporalJobRunner(client, config) }).callback());
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => api.close(resolve)));
    const service = createCatalogClient({ baseUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`, token: apiKey });
    /** The answer of a typed-client call read as `T`; throws naming the status unless 200. */
    const answer = async <T>(call: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<T> => {
      const { data, error, response } = await call;
      if (response.status !== 200) throw new Error(`${new URL(response.url).pathname} answered ${response.status}: ${JSON.stringify(error).slice(0, 500)}`);
      return data as T;
    };

    const properties = Object.fromEntries(['sku', 'title', 'description', ...attributes].map((name) => [name, { type: 'string' }]));
    const catalog = await answer<{ id: string }>(
      service.POST('/api/public/catalogs', {
        body: { name: 'WDC-PAVE offers', unique_id_field: 'sku', schema_definition: { type: 'object', properties, required: ['sku'] } },
      }),
    );
    const catalogItems = offers.slice(0, EXAMPLES).map((o, i) => ({
      sku: `CAT-${i}`,
      title: o.input_title,
      ...(o.input_description ? { description: o.input_description } : {}),
      ...valuesOf(o),
    }));
    for (let i = 0; i < catalogItems.length; i += 500)
      await answer(
        service.POST('/api/public/catalogs/{catalog_id}/items/bulk', {
          params: { path: { catalog_id: catalog.id } },
          body: { items: catalogItems.slice(i, i + 500) },
        }),
      );

    const outputSchema = attributes.map((name) => ({ name, type: 'string' as const, description: name }));
    const items = Array.from({ length: ITEMS }, (_, i) => offers[i % offers.length]!).map((o, i) => ({
      sku: `NEW-${i}`,
      title: o.input_title,
      ...(o.input_description ? { description: o.input_description } : {}),
    }));
    const load = loadAvg();
    let peakRss = Math.round(rssOf(workerPid) / 1048576);
    const jobCpu: number[] = [];
    const job = async (): Promise<{ seconds: number; training: number; succeeded: number; examples: number }> => {
      const cpu0 = cpuSecondsOf(workerPid);
      const t0 = performance.now();
      const started = await answer<{ job_id: string }>(
        service.POST('/api/public/enrich', { body: { catalog_id: catalog.id, web_search: false, async_mode: true, output_schema: outputSchema, items } }),
      );
      let training = 0;
      let succeeded = 0;
      let last = performance.now();
      for (;;) {
        await new Promise((r) => setTimeout(r, 250));
        const poll = await answer<{ status: string; current_step: string | null; successful: number }>(
          service.GET('/api/public/enrich/{job_id}', { params: { path: { job_id: started.job_id }, query: { page_size: 1 } } }),
        );
        const now = performance.now();
        if (poll.current_step === 'training_text_model') training += now - last;
        last = now;
        peakRss = Math.max(peakRss, Math.round(rssOf(workerPid) / 1048576));
        if (poll.status === 'failed' || poll.status === 'cancelled') throw new Error(`job ${poll.status}`);
        if (poll.status === 'completed') {
          succeeded = poll.successful;
          break;
        }
      }
      const seconds = (performance.now() - t0) / 1000;
      const stored = await knex('enrichment_job_examples').where({ job_id: started.job_id }).first('examples');
      jobCpu.push(cpuSecondsOf(workerPid) - cpu0);
      return { seconds, training: training / 1000, succeeded, examples: stored?.examples.length ?? 0 };
    };
    const first = await job();
    const second = await job();
    const r = (x: number): number => Number(x.toFixed(1));
    console.log(
      JSON.stringify({
        bench: 'text-job-api',
        catalog_items: EXAMPLES,
        example_texts: first.examples,
        fields: attributes.length,
        items: ITEMS,
        job_s: r(first.seconds),
        training_s: r(first.training),
        items_per_s: r(ITEMS / first.seconds),
        succeeded: first.succeeded,
        worker_cpu_s: r(jobCpu[0]!),
        second_job_s: r(second.seconds),
        second_job_training_s: r(second.training),
        worker_rss_peak_mb: peakRss,
        target_s: 60,
        load_avg: { start: load, end: loadAvg() },
        cpus: os.cpus().length,
      }),
    );
  } finally {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
