/**
 * The Temporal worker (`npm run worker`): config → database (created and migrated when missing)
 * → Temporal connection (waits until it answers) → search attributes → enrichment engine (index
 * built once; `ENRICH_ENGINE=echo` swaps in the benchmarking {@link echoEngine}) → Worker on
 * `config.taskQueue`, the queue the API starts enrichment jobs and search count index builds
 * on, until SIGINT/SIGTERM. {@link createWorker} builds the same Worker in-process for tests
 * over any connection.
 */
import { Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { WorkerOptions } from '@temporalio/worker';
import type { Knex } from 'knex';
import { ActivityDeps, createActivities, EnrichmentActivities } from '../activities';
import { createSearchIndexActivities } from '../activities/search-index';
import { loadConfig } from '../src/config';
import { enrichmentStorage } from '../src/services/enrichment/artifacts';
import { createKnex, ensureDatabase, migrateLatest } from '../src/db';
import type { EngineUsage, EnrichmentEngine, EnrichmentResult } from '../src/enrichment/types';
import { logger } from '../src/lib/logger';
import { ensureSearchAttributes } from './search-attributes';

/** What {@link createWorker} needs. */
export interface WorkerDeps {
  /** Worker-side connection (e.g. `NativeConnection.connect`, or a TestWorkflowEnvironment's). */
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /**
   * Real adapters need `knex` + `engine`; tests may pass fake `activities` instead. With `knex`
   * the worker also runs the search count index activity (activities/search-index.ts).
   */
  knex?: Knex;
  engine?: EnrichmentEngine;
  activities?: EnrichmentActivities;
  /** Webhook settings of the real activities (activities/index.ts ActivityDeps). */
  publicUrl?: string;
  allowHttpWebhooks?: boolean;
  webhookTimeoutMs?: number;
  /** Artifact and media storage and caches of the real activities (activities/index.ts ActivityDeps). */
  storage?: ActivityDeps['storage'];
  caches?: ActivityDeps['caches'];
  /** Activity slots of this worker; default 32. */
  maxConcurrentActivities?: number;
  /** A pre-built workflow bundle (tests build it once per file); default: bundle `workflows/`. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Time in-flight activities get to finish on shutdown before they are cancelled; default 5 s. */
  shutdownGraceTime?: WorkerOptions['shutdownGraceTime'];
}

/**
 * Creates (does not run) a Worker for every workflow type of `workflows/` with the enrichment
 * activities and, when `deps.knex` is given, the search count index activity.
 * @throws Error when neither `activities` nor `knex` + `engine` are given; the SDK's error when
 *   the workflow bundle does not build or the namespace is unknown
 */
export async function createWorker(deps: WorkerDeps): Promise<Worker> {
  let activities = deps.activities;
  if (!activities) {
    if (!deps.knex || !deps.engine) throw new Error('createWorker needs activities, or knex and engine');
    activities = createActivities({
      knex: deps.knex, engine: deps.engine,
      publicUrl: deps.publicUrl, allowHttpWebhooks: deps.allowHttpWebhooks, webhookTimeoutMs: deps.webhookTimeoutMs,
      storage: deps.storage, caches: deps.caches,
    });
  }
  const searchIndex = deps.knex ? createSearchIndexActivities({ knex: deps.knex }) : {};
  return Worker.create({
    connection: deps.connection,
    namespace: deps.namespace,
    taskQueue: deps.taskQueue,
    ...(deps.workflowBundle ? { workflowBundle: deps.workflowBundle } : { workflowsPath: require.resolve('../workflows') }),
    activities: { ...activities, ...searchIndex },
    maxConcurrentActivityTaskExecutions: deps.maxConcurrentActivities ?? 32,
    shutdownGraceTime: deps.shutdownGraceTime ?? '5 seconds',
  });
}

/**
 * The benchmarking engine of `ENRICH_ENGINE=echo` (src/config.ts): no search, no fetch; each
 * item comes back with `enriched: true` (sourced from its own `name`) and empty evidence, so a
 * job measures Temporal, the worker and PostgreSQL alone. Not for production use.
 * @param delayMs optional wait per item (ms), to model a slow engine; default 0
 */
export function echoEngine(delayMs = 0): EnrichmentEngine {
  const usage = (): EngineUsage => ({ search_calls: 0, pages_fetched: 0, llm_calls: 0, llm_prompt_tokens: 0, llm_completion_tokens: 0 });
  const echo = (item: Record<string, unknown>): EnrichmentResult => ({
    original_data: item,
    after_data: { ...item, enriched: true, sources: { enriched: ['INPUT:name'] }, source_explanations: { enriched: 'echo engine (benchmarking)' } },
    all_sources: [],
    review_info: { reasoning: 'echo', confidence: 'high', flags: [], field_issues: [], field_confidence: {}, field_methods: {} },
  });
  return {
    async research() {
      return { evidence: { queries: [], search_results: [], documents: [] }, usage: usage() };
    },
    async extract(input) {
      return { result: echo(input.item), usage: usage() };
    },
    async enrich(input) {
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      return { result: echo(input.item), evidence: { queries: [], search_results: [], documents: [] }, usage: usage() };
    },
  };
}

/** Retries `connect` every second until it succeeds or `timeoutMs` passes. */
async function waitFor<T>(what: string, connect: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await connect();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      if (attempt === 1 || attempt % 10 === 0) logger.info({ err: (err as Error).message }, `waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

async function main(): Promise<void> {
  const config = loadConfig();
  // The SDK logs the workflow bundle's webpack report and every state change at INFO; our own
  // pino lines say what matters, so the SDK speaks up only for warnings unless debugging.
  Runtime.install({ logger: new DefaultLogger(['debug', 'trace'].includes(config.logLevel) ? 'DEBUG' : 'WARN') });
  await ensureDatabase(config.databaseUrl);
  const knex = createKnex(config.databaseUrl);
  await migrateLatest(knex);
  const address = config.temporalAddress;
  const clientConnection = await waitFor(`Temporal at ${address}`, () => Connection.connect({ address }), 120_000);
  const added = await ensureSearchAttributes(clientConnection, config.temporalNamespace);
  if (added.length) logger.info({ added }, 'registered search attributes');
  await clientConnection.close();
  const connection = await NativeConnection.connect({ address });

  const started = Date.now();
  let engine: EnrichmentEngine;
  if (config.enrichEngine === 'echo') {
    engine = echoEngine();
    logger.warn('ENRICH_ENGINE=echo: benchmarking engine, items are echoed and not researched');
  } else {
    // Loaded here, not at the top: tests import createWorker and bring their own engine.
    const { createEngineFromConfig } = await import('../src/enrichment');
    engine = createEngineFromConfig(config);
    logger.info({ ms: Date.now() - started }, 'enrichment engine ready (index built)');
  }

  const worker = await createWorker({
    connection, namespace: config.temporalNamespace, taskQueue: config.taskQueue, knex, engine,
    publicUrl: config.publicUrl, allowHttpWebhooks: config.allowHttpWebhooks, storage: enrichmentStorage(config),
    maxConcurrentActivities: Math.max(16, config.enrichConcurrency * 4),
  });
  // The SDK's Runtime shuts every worker down on SIGINT/SIGTERM/SIGQUIT/SIGUSR2 (its default
  // shutdownSignals); run() then resolves and the finally block closes our resources.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => logger.info({ signal }, 'worker stopping: finishing in-flight tasks'));
  }
  logger.info({ address, namespace: config.temporalNamespace, task_queue: config.taskQueue }, 'worker running');
  try {
    await worker.run();
  } finally {
    await connection.close();
    await knex.destroy();
  }
  logger.info('worker stopped');
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err) => {
      logger.fatal({ err }, 'worker failed');
      process.exit(1);
    },
  );
}
