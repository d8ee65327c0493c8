/**
 * Scale: one job of 100,000 items submitted as a multipart `items_file` over HTTP, run to
 * completion by a worker in its OWN PROCESS, the way production runs it:
 *
 *   - Temporal: a dev server started here (temporal/dev-server.ts, temp SQLite, headless), or the
 *     one at TEMPORAL_ADDRESS;
 *   - API: the real app (src/app.ts createApp) in this process on an ephemeral port, with a
 *     TemporalJobRunner (so it starts the workflow exactly as `POST /api/public/enrich` does);
 *   - worker: `node --import tsx temporal/worker.ts` (the production entrypoint, `research` =
 *     the real deterministic engine over the offline archive) or, for BENCH_ENGINE=echo,
 *     `bench/fixtures/echo-worker.ts` (the same worker with the benchmarking engine, no
 *     research), with DATABASE_URL = the bench database, TEMPORAL_ADDRESS,
 *     TEMPORAL_TASK_QUEUE and ENRICH_CONCURRENCY;
 *   - items: BENCH_ITEMS objects written to a JSON file on disk as a stream, cycled over the 98
 *     labelled Zyte pages (name + brand, bench/eval/pages.ts pageItem tier A), uploaded as a
 *     streamed multipart body (Node's fetch + FormData over a file-backed Blob from
 *     fs.openAsBlob: never whole in memory) with
 *     `request_json = {async_mode: true, output_schema, speed: 'fast'}`.
 *
 * While the job runs: the worker's VmRSS / VmHWM from /proc/<pid>/status every second, the
 * API process's RSS, and every 5 s the poll (`GET /api/public/enrich/<job_id>`, page_size 1)
 * next to the workflow's `progress` query. Afterwards: every run of the continue-as-new chain
 * and its history length, and from SQL one result per item and credits_used == successful.
 * Prints ONE JSON line.
 *
 *   npx tsx bench/job-100k.ts
 *   env: BENCH_ITEMS (100000), BENCH_ENGINE research|echo (research), BENCH_CONCURRENCY (8),
 *        BENCH_BATCH_SIZE (workflow default), TEMPORAL_ADDRESS (reuse a server), BENCH_DATABASE_URL
 */
import './env';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { createApp } from '../src/app';
import { loadConfig, REPO_ROOT } from '../src/config';
import { pageItem, PAGES_SCHEMA } from './eval/pages';
import { TemporalJobRunner } from '../temporal/client';
import { enrichmentWorkflowId } from '../src/contracts/workflows';
import { progressQuery } from '../workflows/definitions';
import { startServiceBench } from './fixtures/service-bench';
import { BENCH_DATABASE_URL } from './lib';
import { createCatalogClient } from '@catalog-enrichment/client';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 100_000);
const ENGINE = (process.env.BENCH_ENGINE ?? 'research') as 'research' | 'echo';
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const BATCH = process.env.BENCH_BATCH_SIZE ? Number(process.env.BENCH_BATCH_SIZE) : undefined;
const TASK_QUEUE = `bench-100k-${process.pid}`;

const mb = (bytes: number): number => Math.round(bytes / 1048576);

/** VmRSS and VmHWM (peak RSS) of a process, in bytes; null when it is gone. */
function procMemory(pid: number): { rss: number; hwm: number } | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return null;
  }
}

/** The bench's items: the 98 labelled pages as tier-A items (name + brand), in index order. */
function pageItems(): Array<Record<string, unknown>> {
  const dir = path.join(REPO_ROOT, '..', 'shared', 'data', 'zyte-product-extraction');
  const index: Array<Parameters<typeof pageItem>[0]> = JSON.parse(fs.readFileSync(path.join(dir, 'page-index.json'), 'utf8'));
  const labels: Record<string, Record<string, unknown>> = JSON.parse(fs.readFileSync(path.join(dir, 'ground-truth.json'), 'utf8'));
  return index.map((p) => pageItem(p, labels[p.id] ?? {}, 'A'));
}

/** Writes `[item, item, ...]` of `count` items cycled over `pages` to `file` as a stream. */
async function writeItemsFile(file: string, count: number, pages: Array<Record<string, unknown>>): Promise<number> {
  const out = fs.createWriteStream(file);
  out.write('[');
  for (let i = 0; i < count; i++) {
    // Each item gets its own SKU so rows are distinguishable in the results.
    const line = (i ? ',\n' : '\n') + JSON.stringify({ ...pages[i % pages.length], sku: `BENCH-${i}` });
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end('\n]\n');
  await once(out, 'finish');
  return fs.statSync(file).size;
}

/**
 * The benchmark, start to end: database and dev server, worker process, job, sampling, invariants
 * and the printed figures. One function on purpose: it reads as the script of one run, in order.
 */
async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-100k-'));
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    const { address, namespace, client, knex, organizationId, apiKey } = await startServiceBench(tmp, '100k', cleanups);
    const auth = { Authorization: `Bearer ${apiKey}` };

    // Worker: the production entrypoint (or the same worker with the echo engine) in its own process.
    const entrypoint = ENGINE === 'echo' ? 'bench/fixtures/echo-worker.ts' : 'temporal/worker.ts';
    const worker = spawn(process.execPath, ['--import', 'tsx', entrypoint], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        DATABASE_URL: BENCH_DATABASE_URL,
        TEMPORAL_ADDRESS: address,
        TEMPORAL_NAMESPACE: namespace,
        TEMPORAL_TASK_QUEUE: TASK_QUEUE,
        ENRICH_CONCURRENCY: String(CONCURRENCY),
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let workerLog = '';
    const keep = (c: Buffer): void => {
      workerLog = (workerLog + c.toString()).slice(-20_000);
    };
    worker.stdout!.on('data', keep);
    worker.stderr!.on('data', keep);
    const workerExit = new Promise<number | string | null>((resolve) => worker.once('exit', (code, signal) => resolve(code ?? signal)));
    let workerGone = false;
    void workerExit.then(() => (workerGone = true));
    cleanups.push(async () => {
      if (!workerGone) worker.kill('SIGTERM');
      const killer = setTimeout(() => worker.kill('SIGKILL'), 15_000);
      await workerExit;
      clearTimeout(killer);
    });
    const readyBy = Date.now() + 120_000;
    while (!workerLog.includes('worker running')) {
      if (workerGone || Date.now() > readyBy) throw new Error(`worker not ready:\n${workerLog.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const workerRssAtStart = procMemory(worker.pid!)!.rss;

    // API in this process: the real app, starting workflows on the worker's task queue.
    const config = { ...loadConfig(), taskQueue: TASK_QUEUE, enrichConcurrency: CONCURRENCY };
    const runner = new TemporalJobRunner(client, config, BATCH ? { batch_size: BATCH } : {});
    const server = http.createServer(createApp({ config, knex, jobRunner: runner }).callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
    const service = createCatalogClient({ baseUrl: base, token: apiKey });

    // Memory sampling: worker from /proc, API = this process (it also runs the sampler and poller).
    let workerPeak = workerRssAtStart;
    let apiPeak = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      const m = procMemory(worker.pid!);
      if (m) workerPeak = Math.max(workerPeak, m.rss);
      apiPeak = Math.max(apiPeak, process.memoryUsage().rss);
    }, 1000);
    cleanups.push(async () => clearInterval(sampler));

    // Items file on disk, then the streamed multipart upload.
    const file = path.join(tmp, 'items.json');
    const tw = performance.now();
    const fileBytes = await writeItemsFile(file, ITEMS, pageItems());
    const writeS = (performance.now() - tw) / 1000;
    const form = new FormData();
    form.set('request_json', JSON.stringify({ async_mode: true, output_schema: PAGES_SCHEMA, speed: 'fast' }));
    form.set('items_file', await fs.openAsBlob(file, { type: 'application/json' }), 'items.json');
    const tu = performance.now();
    // The multipart upload is not in the OpenAPI document (it describes the JSON body): plain fetch.
    const res = await fetch(`${base}/public/enrich`, { method: 'POST', headers: auth, body: form });
    const created = (await res.json()) as { job_id?: string };
    const uploadS = (performance.now() - tu) / 1000;
    if (res.status !== 200 && res.status !== 201 && res.status !== 202)
      throw new Error(`POST /public/enrich answered ${res.status}: ${JSON.stringify(created).slice(0, 500)}`);
    const jobId = created.job_id as string;
    const workflowId = enrichmentWorkflowId(jobId);
    const t0 = performance.now();

    // Poll (API, PostgreSQL counters) and query (workflow) side by side until the job is done.
    const samples: Array<{ poll: number; query: number | null }> = [];
    let status = 'running';
    let last = { poll: 0, at: performance.now() };
    let stalledS = 0;
    for (let tick = 1; status === 'running'; tick++) {
      // Status every second (so `seconds` is exact to 1 s); poll vs query sample every 5 s.
      await new Promise((r) => setTimeout(r, 1000));
      if (workerGone) throw new Error(`worker exited during the job:\n${workerLog.slice(-3000)}`);
      const { data } = await service.GET('/api/public/enrich/{job_id}', { params: { path: { job_id: jobId }, query: { page: 1, page_size: 1 } } });
      const poll = data as { status: string; completed_items: number };
      status = poll.status;
      if (tick % 5 !== 0) continue;
      const q = await client.workflow
        .getHandle(workflowId)
        .query(progressQuery)
        .catch(() => null);
      samples.push({ poll: poll.completed_items ?? 0, query: q?.completed_items ?? null });
      if (process.env.BENCH_VERBOSE)
        console.error(
          JSON.stringify({
            s: Math.round((performance.now() - t0) / 1000),
            poll: poll.completed_items,
            query: q?.completed_items,
            worker_rss_mb: mb(procMemory(worker.pid!)?.rss ?? 0),
          }),
        );
      if (poll.completed_items > last.poll) last = { poll: poll.completed_items, at: performance.now() };
      stalledS = (performance.now() - last.at) / 1000;
      if (stalledS > 600) throw new Error(`no progress for 10 minutes at ${last.poll} items:\n${workerLog.slice(-3000)}`);
    }
    await client.workflow
      .getHandle(workflowId)
      .result()
      .catch(() => undefined);
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    const workerMem = procMemory(worker.pid!);

    // The continue-as-new chain, newest run first.
    let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId;
    let runs = 0;
    let maxEvents = 0;
    let maxHistoryBytes = 0;
    while (runId) {
      const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
      runs += 1;
      maxEvents = Math.max(maxEvents, history.events?.length ?? 0);
      maxHistoryBytes = Math.max(maxHistoryBytes, JSON.stringify(history).length);
      runId = history.events![0].workflowExecutionStartedEventAttributes!.continuedExecutionRunId || undefined;
    }

    // Invariants from SQL.
    const job = await knex('enrichment_jobs').where({ id: jobId }).first();
    const [rows] = await knex('enrichment_rows')
      .where({ job_id: jobId })
      .select(
        knex.raw('count(*)::int as rows'),
        knex.raw('count(distinct row_index)::int as distinct_rows'),
        knex.raw("count(*) filter (where status = 'pending')::int as pending"),
        knex.raw("count(*) filter (where status = 'succeeded')::int as succeeded"),
        knex.raw('count(result)::int as with_result'),
        knex.raw('coalesce(sum(pg_column_size(evidence)), 0)::bigint as evidence_bytes'),
      );
    const [docs] = await knex('enrichment_evidence_documents')
      .where({ organization_id: organizationId })
      .select(knex.raw('count(*)::int as n'), knex.raw('coalesce(sum(pg_column_size(doc)), 0)::bigint as bytes'));
    const r = rows as unknown as Record<string, number>;
    const problems = [
      job.status !== 'completed' && `status ${job.status}`,
      r.rows !== ITEMS && `${r.rows} rows`,
      r.distinct_rows !== ITEMS && `${r.distinct_rows} distinct rows`,
      r.with_result !== ITEMS && `${r.with_result} results`,
      r.pending !== 0 && `${r.pending} pending`,
      job.completed_items !== ITEMS && `completed_items ${job.completed_items}`,
      job.credits_used !== r.succeeded && `credits_used ${job.credits_used} != succeeded ${r.succeeded}`,
      job.successful !== r.succeeded && `successful ${job.successful} != succeeded rows ${r.succeeded}`,
    ].filter(Boolean);

    const live = samples.filter((s) => s.query !== null && s.poll > 0 && s.poll < ITEMS);
    console.log(
      JSON.stringify({
        bench: 'job-100k',
        items: ITEMS,
        engine: ENGINE === 'research' ? 'archive (deterministic, offline)' : 'echo (benchmarking)',
        concurrency: CONCURRENCY,
        batch_size: BATCH ?? 'default',
        items_file_mb: Math.round((fileBytes / 1048576) * 10) / 10,
        items_file_write_seconds: Math.round(writeS * 10) / 10,
        api_upload_seconds: Math.round(uploadS * 10) / 10,
        seconds: Math.round(seconds),
        seconds_incl_upload: Math.round(seconds + uploadS),
        items_per_s: Math.round((ITEMS / seconds) * 10) / 10,
        api_peak_rss_mb: mb(apiPeak),
        worker_rss_at_start_mb: mb(workerRssAtStart),
        worker_peak_rss_mb: mb(workerMem?.hwm ?? workerPeak),
        worker_peak_rss_sampled_mb: mb(workerPeak),
        worker_rss_end_mb: mb(workerMem?.rss ?? 0),
        history_events_max: maxEvents,
        history_event_limit: 51_200,
        history_json_kb_max: Math.round(maxHistoryBytes / 1024),
        runs,
        status: job.status,
        rows: r.rows,
        results: r.with_result,
        succeeded: r.succeeded,
        successful: job.successful,
        credits_used: job.credits_used,
        stored_evidence_mb: Math.round((Number(r.evidence_bytes) / 1048576) * 10) / 10,
        evidence_documents: docs.n,
        evidence_documents_mb: Math.round((Number(docs.bytes) / 1048576) * 10) / 10,
        progress_samples: live.length,
        progress_query_ahead_of_poll_max: live.reduce((m, s) => Math.max(m, (s.query ?? 0) - s.poll), 0),
        progress_poll_ahead_of_query_max: live.reduce((m, s) => Math.max(m, s.poll - (s.query ?? 0)), 0),
        invariants_ok: problems.length === 0,
        ...(problems.length ? { problems } : {}),
      }),
    );
    if (problems.length) process.exitCode = 1;
  } finally {
    for (const c of cleanups.reverse()) await c().catch((err) => console.error('cleanup:', err?.message ?? err));
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
