/**
 * A flow run over 100,000 rows (inputs of 100,000 rows run with bounded
 * memory, rows paged between nodes): `input → custom_code → stage` saved from a custom transform,
 * executed over HTTP (`POST /api/public/workflows/{id}/execute`, one JSON body) against a dev
 * server of its own and the production worker entrypoint in its own process
 * (`node --import tsx temporal/worker.ts`, the real Python sandbox). The code is a trivial
 * transform (upper-cases `title`); the stage node stages 100,000 new items for review.
 *
 * Prints ONE JSON line: seconds from execute to completed, rows/s, seconds per node (from
 * flow_run_nodes), the worker's RSS at start and its peak while the run went (VmRSS sampled every
 * 250 ms from /proc), the API process's peak RSS, and the invariants (every node wrote every row
 * once; staged changes = rows).
 *
 *   npx tsx bench/flow-run.ts          env: BENCH_ROWS (100000), BENCH_DATABASE_URL
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
import { saveCodeFlow } from '../test/fixtures/flows';
import { rssOf, startServiceBench } from './fixtures/service-bench';
import { spawnWorker, stopWorker } from '../test/fixtures/worker-cluster';
import { BENCH_DATABASE_URL, createBenchCatalog, loadAvg } from './lib';
import { createCatalogClient } from '@catalog-enrichment/client';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const TASK_QUEUE = `bench-flow-${process.pid}`;
const CODE = 'def transform(rows):\n    return [{**r, "title": r["title"].upper()} for r in rows]\n';
const mb = (bytes: number): number => Math.round(bytes / 1048576);

/** The benchmark in order: server, database, worker, flow, execute, wait, figures. */
async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-flow-'));
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    const { address, namespace, client, knex, organizationId, apiKey } = await startServiceBench(tmp, 'flow', cleanups);
    const scope = { organizationId, principal: { kind: 'api_key' as const, id: 'bench', organizationIds: [organizationId] } };
    const catalogId = await createBenchCatalog({ knex, organizationId }, 'flow bench');
    const flow = await saveCodeFlow(knex, scope, catalogId, CODE, 'bench', 1800);

    const worker = await spawnWorker({ address, namespace }, TASK_QUEUE, { databaseUrl: BENCH_DATABASE_URL });
    cleanups.push(() => stopWorker(worker));
    const workerPid = worker.child.pid!;
    const workerStart = rssOf(workerPid);

    const config = { ...loadConfig(), taskQueue: TASK_QUEUE };
    const api = http.createServer(createApp({ config, knex, jobRunner: new TemporalJobRunner(client, config) }).callback());
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => api.close(resolve)));
    const service = createCatalogClient({ baseUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`, token: apiKey });

    const load = loadAvg();
    let workerPeak = workerStart;
    let apiPeak = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      workerPeak = Math.max(workerPeak, rssOf(workerPid));
      apiPeak = Math.max(apiPeak, process.memoryUsage().rss);
    }, 250);
    cleanups.push(async () => clearInterval(sampler));

    const input = Array.from({ length: ROWS }, (_, i) => ({ sku: `FLOW-${i}`, title: `item ${i}`, price: i % 1000 }));
    // Serialized once before the clock starts, as the figures report its size.
    const body = JSON.stringify({ input });
    const t0 = performance.now();
    const executed = await service.POST('/api/public/workflows/{workflow_id}/execute', {
      params: { path: { workflow_id: flow.id } },
      body: { input },
      bodySerializer: () => body,
    });
    const started = (executed.data ?? {}) as { workflow_run_id?: string };
    if (executed.response.status !== 200) throw new Error(`execute answered ${executed.response.status}: ${JSON.stringify(executed.error).slice(0, 500)}`);
    const executeS = (performance.now() - t0) / 1000;
    let status = 'running';
    while (status === 'running') {
      await new Promise((r) => setTimeout(r, 500));
      const { data } = await service.GET('/api/public/workflows/runs/{workflow_run_id}', {
        params: { path: { workflow_run_id: started.workflow_run_id! }, query: { page_size: 1 } },
      });
      const poll = data as { status: string; error?: string };
      status = poll.status;
      if (status === 'failed') throw new Error(`run failed: ${poll.error}`);
    }
    const seconds = (performance.now() - t0) / 1000;
    const runId = started.workflow_run_id as string;
    const nodes = await knex('flow_run_nodes').where({ run_id: runId }).orderBy('position');
    const perNode = await knex('flow_run_rows')
      .where({ run_id: runId })
      .groupBy('node_id')
      .select('node_id', knex.raw('count(DISTINCT row_index)::int AS rows'));
    const run = await knex('flow_runs').where('id', runId).first();
    const [{ staged }] = await knex('staged_changes').where('activity_id', run.activity_id).select(knex.raw('count(*)::int AS staged'));
    console.log(
      JSON.stringify({
        bench: 'flow-run',
        rows: ROWS,
        body_mb: Math.round(body.length / 104857.6) / 10,
        execute_request_s: Math.round(executeS * 100) / 100,
        seconds: Math.round(seconds * 10) / 10,
        rows_per_s: Math.round(ROWS / seconds),
        node_seconds: Object.fromEntries(
          nodes
            .filter((n) => n.node_type !== 'input')
            .map((n) => [n.node_id, Math.round((new Date(n.completed_at).getTime() - new Date(n.started_at).getTime()) / 100) / 10]),
        ),
        worker_rss_mb: { start: mb(workerStart), peak: mb(workerPeak) },
        api_rss_peak_mb: mb(apiPeak),
        invariants: { status, per_node: Object.fromEntries(perNode.map((r) => [r.node_id, r.rows])), staged },
        load_avg: { start: load, end: loadAvg() },
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
