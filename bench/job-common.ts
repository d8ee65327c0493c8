/**
 * Shared set-up of the in-process job benchmark (bench/orchestration-overhead.ts): the
 * benchmark database (bench/lib.ts BENCH_DATABASE_URL, migrated), a local Temporal dev server
 * (the cached CLI, in-memory), an in-process worker with the chosen engine, jobs created through
 * the real service (src/services/enrichment/jobs/jobs.ts, rows inserted in chunks), and the engines:
 *
 * - `archive` (default of the overhead benchmark): the deterministic engine over the offline
 *   archive with real product items (the 98 labelled Zyte pages, repeated);
 * - `echo`: the benchmarking engine (bench/fixtures/echo-engine.ts) after `BENCH_ENGINE_DELAY_MS`
 *   (default 0), for orchestration-bound runs.
 */
import './env';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { Worker } from '@temporalio/worker';
import type { Knex } from 'knex';
import { loadConfig } from '../src/config';
import { createKnex, ensureDatabase, migrateLatest } from '../src/db';
import { createEngineFromConfig } from '../src/enrichment';
import type { EnrichmentEngine, OutputField } from '../src/enrichment/types';
import { PAGES_SCHEMA } from './eval/pages';
import { createOrganizationWithKey } from '../src/services/access/auth';
import { createEnrichmentJob } from '../src/services/enrichment/jobs/jobs';
import { EnrichmentTuning, TemporalJobRunner } from '../temporal/client';
import { SEARCH_ATTRIBUTES } from '../temporal/search-attributes';
import { createWorker } from '../temporal/worker';
import { echoEngine } from './fixtures/echo-engine';
import { archiveItems } from '../test/fixtures/worker-cluster';
import { BENCH_DATABASE_URL } from './lib';
import { acceptingJobs } from '../test/fixtures/job-runners';

/** Which engine a benchmark runs (env BENCH_ENGINE). */
export type BenchEngineKind = 'archive' | 'echo';

/** An engine plus the items and output schema that suit it. */
export interface BenchEngine {
  kind: BenchEngineKind;
  engine: EnrichmentEngine;
  item(i: number): Record<string, unknown>;
  outputSchema: OutputField[];
  /** Request options stored on the job (e.g. `speed`). */
  options: Record<string, unknown>;
}

/** Builds the engine named by `kind`. */
export function benchEngine(kind: BenchEngineKind, delayMs = Number(process.env.BENCH_ENGINE_DELAY_MS ?? 0)): BenchEngine {
  if (kind === 'archive') {
    const items = archiveItems();
    return { kind, engine: createEngineFromConfig(loadConfig()), item: (i) => items[i % items.length], outputSchema: PAGES_SCHEMA, options: { speed: 'fast' } };
  }
  return {
    kind,
    engine: echoEngine(delayMs),
    item: (i) => ({ name: `item ${i}`, sku: `SKU-${i}` }),
    outputSchema: [{ name: 'enriched', type: 'boolean', description: 'whether the item was enriched' }],
    options: {},
  };
}

/** A running job benchmark environment. */
export interface JobBench {
  knex: Knex;
  env: TestWorkflowEnvironment;
  worker: Worker;
  organizationId: string;
  taskQueue: string;
  /** Creates a job of `count` items without starting it. @returns the job id */
  createJob(count: number): Promise<string>;
  /** Starts a created job's workflow with `tuning`; resolves when it has closed. */
  runJob(jobId: string, tuning: EnrichmentTuning): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the benchmark database, a dev server and an in-process worker over `engine`.
 * @param maxConcurrentActivities activity slots of the worker
 */
export async function startJobBench(be: BenchEngine, maxConcurrentActivities = 32): Promise<JobBench> {
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });
  await ensureDatabase(BENCH_DATABASE_URL);
  const knex = createKnex(BENCH_DATABASE_URL, { min: 0, max: 20 });
  await migrateLatest(knex);
  const { organizationId } = await createOrganizationWithKey(knex, `job bench ${new Date().toISOString()}`);
  const binary = path.join(loadConfig().temporalCliCache, 'temporal');
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: binary }, searchAttributes: SEARCH_ATTRIBUTES },
  });
  const taskQueue = 'bench-jobs';
  const worker = await createWorker({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    config: loadConfig(),
    knex,
    engine: be.engine,
    maxConcurrentActivities,
  });
  const running = worker.run();
  const scope = { organizationId, principal: { kind: 'api_key' as const, id: 'bench', organizationIds: [organizationId] } };
  return {
    knex,
    env,
    worker,
    organizationId,
    taskQueue,
    async createJob(count) {
      const items = Array.from({ length: count }, (_, i) => be.item(i));
      const job = await createEnrichmentJob({ knex, jobRunner: acceptingJobs }, scope, {
        items,
        async_mode: true,
        output_schema: be.outputSchema,
        ...be.options,
      });
      return job.job.id;
    },
    async runJob(jobId, tuning) {
      const job = await knex('enrichment_jobs').where({ id: jobId }).first();
      const runner = new TemporalJobRunner(env.client, { taskQueue, enrichConcurrency: tuning.concurrency ?? 8 }, tuning);
      await runner.startEnrichment(job);
      await runner.waitForClose(job.workflow_id);
    },
    async close() {
      worker.shutdown();
      await running;
      await env.teardown();
      await knex('organizations').where('id', organizationId).delete();
      await knex.destroy();
    },
  };
}
