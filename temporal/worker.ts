/**
 * The Temporal worker (`npm run worker`; `node dist/temporal/worker.js` from the build):
 * {@link runWorker} with the research engine (src/enrichment, index built once). runWorker is
 * config → database (created and migrated when missing) → Temporal connection (waits until it
 * answers) → search attributes → engine → Worker on `config.taskQueue`, the queue the API starts
 * enrichment jobs and search count index builds on, until SIGINT/SIGTERM; benchmarks run it with
 * their own engine (bench/fixtures/echo-worker.ts). {@link createWorker} builds the same Worker
 * in-process for tests over any connection.
 */
import http from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { WorkerOptions } from '@temporalio/worker';
import type { Knex } from 'knex';
import { createActivityGroups, type ActivityGroupDeps } from '../activities';
import { loadConfig, type Config } from '../src/config';
import { enrichmentStorage } from '../src/services/enrichment/rows/artifacts';
import { createBlobStore } from '../src/lib/blob-stores';
import { createKnex, ensureDatabase, migrateLatest } from '../src/db';
import type { EnrichmentEngine } from '../src/enrichment/types';
import { logger } from '../src/lib/logger';
import { ensureSearchAttributes } from './search-attributes';
import { workflowCode } from './workflow-bundle';
import { timedActivities } from '../activities/timing';
import { metrics } from '../src/lib/metrics';
import { ensureMaintenanceSchedule } from './maintenance-schedule';
import { createRenderActivities } from '../activities/render';
import type { HostPoliteness } from '../src/enrichment/providers/fetch-state';
import { createRenderer, type Renderer } from '../src/enrichment/providers/renderer';
import { capabilityReport, capabilitySummary, renderingCapability } from '../src/services/capabilities';
import type { RenderSettings } from '../src/services/enrichment/rows/rendering';
import { RENDER_QUEUE_SUFFIX } from '../src/contracts/workflows';
import { registerConfiguredArchives } from '../src/services/research-archives/archives';
import { archiveIndexFetcher, archiveIndexSearch } from '../src/services/research-archives/search';
import { configuredSources, describeSources } from '../src/services/research-archives/sources';
import { createHostPoliteness } from '../src/services/fetching/host-limiter';
import { createFetchState } from '../src/services/fetching/live-fetcher';
import { TemporalJobRunner } from './client';

/** What {@link createWorker} needs: the connection and worker options, and what the activities need (activities/index.ts). */
export interface WorkerDeps extends ActivityGroupDeps {
  /** Worker-side connection (e.g. `NativeConnection.connect`, or a TestWorkflowEnvironment's). */
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** Activity slots of this worker; default 32. */
  maxConcurrentActivities?: number;
  /**
   * A pre-built workflow bundle (tests build it once per file); default: the build's prebuilt
   * bundle when running from `dist/`, else bundle `workflows/` (temporal/workflow-bundle.ts).
   */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Time in-flight activities get to finish on shutdown before they are cancelled; default 5 s. */
  shutdownGraceTime?: WorkerOptions['shutdownGraceTime'];
}

/**
 * Creates (does not run) a Worker for every workflow type of `workflows/` with every activity
 * group (activities/index.ts createActivityGroups), each timed.
 * @throws Error when neither `activities` nor `knex` + `engine` are given; the SDK's error when
 *   the workflow bundle does not build or the namespace is unknown
 */
export async function createWorker(deps: WorkerDeps): Promise<Worker> {
  return Worker.create({
    connection: deps.connection,
    namespace: deps.namespace,
    taskQueue: deps.taskQueue,
    ...(deps.workflowBundle ? { workflowBundle: deps.workflowBundle } : workflowCode()),
    activities: timedActivities(createActivityGroups(deps)),
    maxConcurrentActivityTaskExecutions: deps.maxConcurrentActivities ?? 32,
    shutdownGraceTime: deps.shutdownGraceTime ?? '5 seconds',
  });
}

/** What {@link createRenderWorker} needs. */
export interface RenderWorkerDeps {
  connection: NativeConnection;
  namespace: string;
  /** The enrichment task queue; the render worker polls it with RENDER_QUEUE_SUFFIX appended. */
  taskQueue: string;
  knex: Knex;
  renderer: Renderer;
  politeness: HostPoliteness;
  /** Pages rendered at once by this worker (RENDER_CONCURRENCY), at least 1. */
  concurrency: number;
}

/**
 * Creates (does not run) the render worker: an activity-only Worker on
 * `<taskQueue>-render` with the render activity (activities/render.ts), whose activity slots
 * (`maxConcurrentActivityTaskExecutions`) are RENDER_CONCURRENCY, so at most that many pages
 * render at once in this process however many rows the enrichment worker runs.
 * @throws the SDK's error when the namespace is unknown
 */
export async function createRenderWorker(deps: RenderWorkerDeps): Promise<Worker> {
  return Worker.create({
    connection: deps.connection,
    namespace: deps.namespace,
    taskQueue: `${deps.taskQueue}${RENDER_QUEUE_SUFFIX}`,
    activities: timedActivities({ ...createRenderActivities({ knex: deps.knex, renderer: deps.renderer, politeness: deps.politeness }) }),
    maxConcurrentActivityTaskExecutions: Math.max(1, deps.concurrency),
    shutdownGraceTime: '5 seconds',
  });
}

/**
 * Rendering for a worker of `config`: on when the `rendering` capability is
 * (src/services/capabilities.ts: pages fetched live, from a live search provider or the pages
 * items name, RENDER_CONCURRENCY > 0 and Chromium at CHROMIUM_PATH); otherwise the settings carry
 * its reason (rows then carry a notice).
 */
function renderSetup(config: Config): { settings: RenderSettings; renderer: Renderer | null } {
  const maxAgeS = config.fetch.maxAgeS;
  const rendering = renderingCapability(config);
  if (rendering.state === 'off') return { settings: { enabled: false, unavailable: rendering.reason, maxAgeS }, renderer: null };
  const renderer = createRenderer({
    chromiumPath: config.render.chromiumPath,
    pagesPerBrowser: config.render.pagesPerBrowser,
    userAgent: config.fetch.userAgent,
    allowPrivate: config.fetch.allowPrivate,
  });
  return { settings: { enabled: true, maxAgeS }, renderer };
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

/** Builds the engine a worker runs, once, after the database and Temporal answer (over the worker's database, `knex`). */
export type EngineFactory = (config: Config, knex: Knex) => EnrichmentEngine | Promise<EnrichmentEngine>;

/**
 * Runs a worker process until SIGINT/SIGTERM: creates and migrates the database when needed,
 * waits up to 2 minutes for Temporal, registers the search attributes, builds the engine with
 * `makeEngine`, then serves `config.taskQueue`. Resolves once the worker has stopped and its
 * connections are closed.
 * @throws Error when the database or Temporal cannot be reached, or the worker fails
 */
export async function runWorker(config: Config, makeEngine: EngineFactory): Promise<void> {
  // The SDK logs the workflow bundle's webpack report and every state change at INFO; our own
  // pino lines say what matters, so the SDK speaks up only for warnings unless debugging.
  Runtime.install({
    logger: new DefaultLogger(['debug', 'trace'].includes(config.logLevel) ? 'DEBUG' : 'WARN'),
    ...(config.temporalMetricsAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress: config.temporalMetricsAddress } } } } : {}),
  });
  const metricsServer = config.workerMetricsPort !== null ? await serveWorkerMetrics(config.workerMetricsPort) : null;
  await ensureDatabase(config.databaseUrl);
  const knex = createKnex(config.databaseUrl);
  await migrateLatest(knex);
  const address = config.temporalAddress;
  const clientConnection = await waitFor(`Temporal at ${address}`, () => Connection.connect({ address }), 120_000);
  const added = await ensureSearchAttributes(clientConnection, config.temporalNamespace);
  if (added.length) logger.info({ added }, 'registered search attributes');
  const client = new Client({ connection: clientConnection, namespace: config.temporalNamespace });
  if (await ensureMaintenanceSchedule(client, config.taskQueue)) {
    logger.info('created the hourly search index maintenance schedule');
  }
  const jobRunner = new TemporalJobRunner(client, config);
  // A file that cannot be registered is logged, never a reason for the worker not to start.
  await registerConfiguredArchives({ knex, jobRunner, blobs: createBlobStore(config.blobStore) }, config.researchArchives).then(
    (added) => added.length && logger.info({ archives: added.map((a) => a.name) }, 'indexing the WARC/WACZ files of RESEARCH_ARCHIVES'),
    (err) => logger.error({ err }, 'could not register the WARC/WACZ files of RESEARCH_ARCHIVES'),
  );
  await clientConnection.close();
  const connection = await NativeConnection.connect({ address });

  const engine = await makeEngine(config, knex);
  const render = renderSetup(config);
  const capabilities = capabilityReport(config);
  logger.info({ capabilities }, `worker capabilities: ${capabilitySummary(capabilities)}`);
  if (!render.renderer && (config.search.provider !== 'archive' || config.fetch.itemUrls))
    logger.warn({ reason: render.settings.unavailable }, 'pages are not rendered');
  const worker = await createWorker({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    config,
    knex,
    engine,
    publicUrl: config.publicUrl,
    allowHttpWebhooks: config.allowHttpWebhooks,
    storage: enrichmentStorage(config),
    fetchRetryAttempts: config.fetch.retryAttempts,
    render: render.settings,
    maxConcurrentActivities: Math.max(16, config.enrichConcurrency * 4),
  });
  // The SDK's Runtime shuts every worker down on SIGINT/SIGTERM/SIGQUIT/SIGUSR2 (its default
  // shutdownSignals); run() then resolves and the finally block closes our resources.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => logger.info({ signal }, 'worker stopping: finishing in-flight tasks'));
  }
  logger.info({ address, namespace: config.temporalNamespace, task_queue: config.taskQueue }, 'worker running');
  const renderWorker = render.renderer
    ? await createRenderWorker({
        connection,
        namespace: config.temporalNamespace,
        taskQueue: config.taskQueue,
        knex,
        renderer: render.renderer,
        politeness: createHostPoliteness(knex, {
          perHost: config.fetch.perHostConcurrency,
          intervalMs: config.fetch.hostIntervalMs,
          leaseMs: 60_000,
          maxWaitMs: 10 * 60_000,
        }),
        concurrency: config.render.concurrency,
      })
    : null;
  try {
    await Promise.all([worker.run(), renderWorker?.run()]);
  } finally {
    await render.renderer?.close();
    await connection.close();
    await knex.destroy();
    metricsServer?.close();
  }
  logger.info('worker stopped');
}

/**
 * Serves the worker process's Prometheus registry (src/lib/metrics.ts) at `GET /metrics` on
 * `port` (all interfaces, as a container's metrics port is scraped from outside; 0 = any free port).
 */
export async function serveWorkerMetrics(port: number): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    metrics.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': metrics.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(port, resolve));
  logger.info({ port }, 'worker metrics at /metrics');
  return server;
}

/**
 * The research engine (src/enrichment) of `config`, researching the web archives indexed in the
 * worker's database too (src/services/research-archives/search.ts); logs how long it took to
 * build and which research sources are active.
 */
async function researchEngine(config: Config, knex: Knex): Promise<EnrichmentEngine> {
  const started = Date.now();
  // Loaded here, not at the top: tests import createWorker and bring their own engine.
  const { createEngineFromConfig } = await import('../src/enrichment');
  const engine = createEngineFromConfig(config, {
    fetchState: createFetchState(knex, config.fetch),
    archiveIndex: { search: archiveIndexSearch(knex), fetcher: archiveIndexFetcher(knex, createBlobStore(config.blobStore)) },
  });
  logger.info({ ms: Date.now() - started, research_sources: describeSources(configuredSources(config)) }, 'enrichment engine ready');
  return engine;
}

if (require.main === module) {
  runWorker(loadConfig(), researchEngine).then(
    () => process.exit(0),
    (err) => {
      logger.fatal({ err }, 'worker failed');
      process.exit(1);
    },
  );
}
