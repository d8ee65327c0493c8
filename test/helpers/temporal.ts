/**
 * Temporal helpers for workflow, replay and e2e tests: a real local dev server (the cached
 * Temporal CLI binary, with the service's search attributes), the workflow bundle built once,
 * a small fake engine, and enrichment jobs created through the real service.
 */
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime } from '@temporalio/worker';
import type { Worker, WorkflowBundle } from '@temporalio/worker';
import type { Knex } from 'knex';
import { createApp } from '../../src/app';
import { Config, loadConfig } from '../../src/config';
import type { EnrichInput, EnrichmentEngine, EnrichmentResult, EngineUsage, Evidence } from '../../src/enrichment/types';
import { createEnrichmentJob } from '../../src/services/enrichment/jobs/jobs';
import type { JobRunner } from '../../src/services/job-runner';
import { SEARCH_ATTRIBUTES } from '../../temporal/search-attributes';
import { ApplyTuning, EnrichmentTuning, FlowRunTuning, TemporalJobRunner } from '../../temporal/client';
import type { FeedRunArgs } from '../../src/contracts/feed-workflows';
import { createWorker, WorkerDeps } from '../../temporal/worker';
import { enrichmentWorkflowId } from '../../src/contracts/workflows';
import { testKnex } from './db';

let runtimeInstalled = false;

/**
 * Installs the SDK Runtime with its log kept to errors (cancelled activities that complete anyway
 * log harmless warnings). Call before anything else Temporal in a test file; idempotent.
 */
export function quietTemporalRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });
  } catch {
    // Already installed by an earlier test file in this process: keep that one.
  }
}

/** Attempts to start the dev server: the SDK gives it 5 s to answer, which a loaded 2-core machine can miss. */
export const DEV_SERVER_START_ATTEMPTS = 3;

/**
 * Runs `start` until it succeeds, again when it failed because the SDK's fixed 5 s startup
 * deadline cut it short ("did not start within"), up to `attempts` times in all; any other error,
 * or the last attempt's, is thrown at once.
 */
export async function retryDevServerStart<T>(start: () => Promise<T>, attempts = DEV_SERVER_START_ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if (attempt >= attempts || !/did not start within/.test(String((err as Error)?.message ?? err))) throw err;
    }
  }
}

/**
 * Starts a local Temporal dev server from the cached CLI binary (test/setup/prepare.ts builds
 * it), with OrganizationId / CatalogId / JobKind registered; a start cut short by the SDK's
 * startup deadline is tried again ({@link retryDevServerStart}).
 */
export async function startTestTemporal(): Promise<TestWorkflowEnvironment> {
  quietTemporalRuntime();
  const binary = path.join(loadConfig().temporalCliCache, 'temporal');
  return retryDevServerStart(() =>
    TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'existing-path', path: binary }, searchAttributes: SEARCH_ATTRIBUTES },
    }),
  );
}

let bundle: Promise<WorkflowBundle> | null = null;

/** The workflow bundle of `workflows/`, built once per test file (bundling takes seconds). */
export function workflowBundle(): Promise<WorkflowBundle> {
  bundle ??= bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: new DefaultLogger('WARN') });
  return bundle;
}

/** Options of {@link fakeEngine}. */
export interface FakeEngineOptions {
  /** Time one item takes (ms); default 0. */
  delayMs?: number;
  /** Items for which the engine returns an item-level `error` result. */
  errorFor?: (item: Record<string, unknown>) => boolean;
  /**
   * Holds an item until the promise it returns settles (undefined: no hold). Tests use it to
   * observe a job while it certainly runs, whatever the machine's speed.
   */
  holdFor?: (item: Record<string, unknown>) => Promise<void> | undefined;
}

const NO_USAGE: EngineUsage = { search_calls: 0, pages_fetched: 0, llm_calls: 0, llm_prompt_tokens: 0, llm_completion_tokens: 0 };

/**
 * A fake engine: after `delayMs` echoes each item with `enriched: true` (one search call of
 * usage), or returns an item-level error for items matched by `errorFor`.
 */
export function fakeEngine(options: FakeEngineOptions = {}): EnrichmentEngine & { calls: number } {
  const evidence: Evidence = { queries: [], search_results: [], documents: [] };
  const engine = {
    calls: 0,
    async research(_input: EnrichInput) {
      return { evidence, usage: NO_USAGE };
    },
    async extract(input: EnrichInput) {
      const item = input.item;
      const result: EnrichmentResult = options.errorFor?.(item)
        ? {
            original_data: item,
            after_data: { ...item, sources: {}, source_explanations: {} },
            all_sources: [],
            error: 'no source found',
            review_info: { reasoning: 'no source', confidence: 'low', flags: ['error'], field_issues: [], field_confidence: {}, field_methods: {} },
          }
        : {
            original_data: item,
            after_data: { ...item, enriched: true, sources: { enriched: ['INPUT:name'] }, source_explanations: { enriched: 'echo' } },
            all_sources: [],
            review_info: { reasoning: 'echo', confidence: 'high', flags: [], field_issues: [], field_confidence: {}, field_methods: {} },
          };
      return { result, usage: { ...NO_USAGE, search_calls: 1 } };
    },
    async enrich(input: EnrichInput) {
      engine.calls += 1;
      await options.holdFor?.(input.item);
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      const { result, usage } = await engine.extract(input);
      return { result, evidence, usage };
    },
  };
  return engine;
}

/**
 * Creates an async enrichment job of `count` items (`{name: "item <i>"}`) for an organization
 * through the real service (src/services/enrichment/jobs/jobs.ts), started by `jobRunner`.
 * @returns the job id and its workflow id
 */
export async function createTestJob(knex: Knex, jobRunner: JobRunner, organizationId: string, count: number): Promise<{ jobId: string; workflowId: string }> {
  const scope = { organizationId, principal: { kind: 'api_key' as const, id: 'test', organizationIds: [organizationId] } };
  const items = Array.from({ length: count }, (_, i) => ({ name: `item ${i}` }));
  const job = await createEnrichmentJob({ knex, jobRunner }, scope, {
    items,
    async_mode: true,
    output_schema: [{ name: 'enriched', type: 'boolean', description: 'whether the item was enriched' }],
  });
  const jobId = job.job.id;
  return { jobId, workflowId: enrichmentWorkflowId(jobId) };
}

/** A worker running in the background on a test server; `stop()` shuts it down and waits for it. */
export interface RunningTestWorker {
  worker: Worker;
  stop: () => Promise<void>;
}

/**
 * Creates a worker on `env` (its connection and namespace, the shared workflow bundle) and runs
 * it in the background. `deps` are the rest of createWorker's deps (task queue, knex + engine or
 * activities, webhook settings).
 */
export async function runTestWorker(
  env: TestWorkflowEnvironment,
  deps: Omit<WorkerDeps, 'connection' | 'namespace' | 'workflowBundle' | 'config'> & { config?: WorkerDeps['config'] },
): Promise<RunningTestWorker> {
  const worker = await createWorker({
    ...deps,
    config: deps.config ?? loadConfig(),
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    workflowBundle: await workflowBundle(),
  });
  const running = worker.run();
  return {
    worker,
    stop: async () => {
      worker.shutdown();
      await running;
    },
  };
}

/**
 * The HTTP app (Koa callback, for supertest) on the test database, starting jobs on `env`'s
 * task queue `taskQueue` with the given per-job concurrency and workflow tuning (enrichment jobs,
 * applies, flow runs, feed runs: `feedTuning.page_items` items per page).
 */
export function testApiFor(
  env: TestWorkflowEnvironment,
  taskQueue: string,
  options: {
    config?: Config;
    concurrency?: number;
    tuning?: EnrichmentTuning;
    applyTuning?: ApplyTuning;
    flowTuning?: FlowRunTuning;
    feedTuning?: Omit<FeedRunArgs, 'run_id'>;
  } = {},
): ReturnType<ReturnType<typeof createApp>['callback']> {
  const jobRunner = new TemporalJobRunner(
    env.client,
    { taskQueue, enrichConcurrency: options.concurrency ?? 2 },
    options.tuning ?? {},
    {},
    options.applyTuning ?? {},
    options.flowTuning ?? {},
    {},
    {},
    options.feedTuning ?? {},
  );
  return createApp({ config: options.config ?? loadConfig(), knex: testKnex(), jobRunner }).callback();
}

/**
 * The result a worker writes for `item` in tests that write rows themselves: brand `Acme`, high
 * confidence, or an item-level `error` when `failed`.
 */
export function echoResult(item: Record<string, unknown>, failed = false): EnrichmentResult {
  return {
    original_data: item,
    after_data: { ...item, brand: 'Acme', sources: {}, source_explanations: {} },
    all_sources: [],
    ...(failed ? { error: 'no source found' } : {}),
    review_info: { reasoning: '', confidence: 'high', flags: [], field_issues: [], field_confidence: {}, field_methods: {} },
  } as EnrichmentResult;
}
