/**
 * Enrichment activities: thin adapters over src/services/enrichment/rows/rows.ts, built by
 * {@link createActivities}. Every activity is idempotent on (job_id, row_index) and moves only
 * ids and counters through Temporal (docs/workflows.md "Rules of the craft").
 */
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import type { EnrichmentEngine } from '../src/enrichment/types';
import { RetryLaterError } from '../src/enrichment/research/types';
import { EnrichmentJob } from '../src/models/enrichment-job';
import type { EnrichmentStorage } from '../src/services/enrichment/rows/artifacts';
import { createEnrichmentCaches, EnrichmentCaches } from '../src/services/enrichment/enrichment-caches';
import { finalizeJob, jobProgress, pendingRowIndexes, rowStatus } from '../src/services/enrichment/rows/progress';
import { enrichRow, RowDeps } from '../src/services/enrichment/rows/rows';
import type { RenderSettings } from '../src/services/enrichment/rows/rendering';
import {
  loadWebhookMessage,
  recordWebhookAttempt,
  sendWebhookOnce,
  WEBHOOK_ATTEMPT_TIMEOUT_MS,
  webhookDelivered,
  webhookUrlProblem,
  WEBHOOK_ADDRESS_REFUSED,
} from '../src/services/enrichment/webhooks';
import type { EnrichmentCounters, WebhookDeliveryResult } from '../src/contracts/workflows';
import { creditsCharged, engineDuration, itemsFinished, jobsFinished, webhookAttempts } from '../src/lib/metrics';
import { logger } from '../src/lib/logger';
import { whileHeartbeating } from './heartbeat';

/** What the activities need: the database and the engine (built once per worker), webhook settings, storage and caches. */
export interface ActivityDeps {
  knex: Knex;
  engine: EnrichmentEngine;
  /** Base of `results_url` in webhooks (config `publicUrl`); default http://127.0.0.1:8080. */
  publicUrl?: string;
  /** Allow loopback http webhook URLs (config `allowHttpWebhooks`); default false. */
  allowHttpWebhooks?: boolean;
  /** Timeout of one webhook attempt (ms); default 30 000 (docs/api-enrichment.md "Webhooks"). Tests shorten it. */
  webhookTimeoutMs?: number;
  /**
   * Where artifacts and hosted media are stored and linked (the API that serves them must use
   * the same blob store): `enrichmentStorage(config)` of the service's configuration.
   */
  storage: EnrichmentStorage;
  /** This worker's enrichment caches; default: fresh ones for these activities. */
  caches?: EnrichmentCaches;
  /**
   * Attempts of a row activity during which a page's 429/503 + Retry-After reschedules the row
   * through Temporal's retry (config `fetch.retryAttempts`, FETCH_RETRY_ATTEMPTS); default 4.
   */
  fetchRetryAttempts?: number;
  /** Rendering settings of the rows (src/services/enrichment/rows/rendering.ts); default off. */
  render?: RenderSettings;
}

/**
 * What happened to one row: `succeeded` / `failed` (item-level error) once its result is
 * written, by this attempt or an earlier one; `skipped` when the job stopped running and the
 * row stays pending (a cancelled job takes no new results); `render` when pages of the row must be
 * rendered first (the row stays pending; the workflow runs the render activity, then the row again
 * with `no_render`).
 */
export type RowOutcome = 'succeeded' | 'failed' | 'skipped' | 'render';

/** Job status plus counters, as read from PostgreSQL; `has_webhook` when the job asked for a webhook (set by finalizeJob). */
export type JobCounters = EnrichmentCounters & { status: string; has_webhook?: boolean };

/** Options of `processRows`: `no_render` writes the rows without asking for renderings (after the render activity ran). */
export interface ProcessRowsOptions {
  no_render?: boolean;
}

/** The activity functions registered on the worker; the workflow proxies them by these names. */
export interface EnrichmentActivities {
  /** Status and counters of a job from PostgreSQL. @throws Error when the job does not exist */
  loadJobCounters(jobId: string): Promise<JobCounters>;
  /** Up to `limit` pending row indexes after `afterRowIndex` (exclusive), ascending. */
  pendingRowIndexes(jobId: string, afterRowIndex: number, limit: number): Promise<number[]>;
  /** Enriches one row and writes its result once; heartbeats while the engine works. */
  processRow(jobId: string, rowIndex: number): Promise<RowOutcome>;
  /**
   * Enriches a batch of rows one after the other (one activity round trip for several rows, so
   * Temporal's per-activity cost is shared); heartbeats after each row and on a timer.
   * @returns one outcome per row index, in order
   */
  processRows(jobId: string, rowIndexes: number[], options?: ProcessRowsOptions): Promise<RowOutcome[]>;
  /** Final status, counters and credits (= successful rows, from the rows); idempotent. */
  finalizeJob(jobId: string, outcome: 'completed' | 'failed' | 'cancelled', error?: string): Promise<JobCounters>;
  /**
   * One attempt to POST the job's signed `enrichment.job.completed` webhook (docs/api-enrichment.md "Webhooks");
   * the attempt is recorded in `webhook_deliveries`. Temporal's retry policy supplies retries.
   * @throws ApplicationFailure (retryable) on a non-2xx answer, timeout or transport error;
   *   non-retryable `InvalidWebhookUrl` when the stored URL breaks the URL rules
   */
  deliverWebhook(jobId: string): Promise<WebhookDeliveryResult>;
}

function counters(p: { status: string; total_items: number; completed_items: number; successful: number }): JobCounters {
  return {
    status: p.status,
    total_items: p.total_items,
    completed_items: p.completed_items,
    successful: p.successful,
    failed: p.completed_items - p.successful,
  };
}

/**
 * The `deliverWebhook` activity ({@link EnrichmentActivities.deliverWebhook}): this attempt's
 * POST of the job's message, recorded in `webhook_deliveries`.
 */
async function deliverWebhookAttempt(deps: ActivityDeps, jobId: string, ctx: Context): Promise<WebhookDeliveryResult> {
  const { knex } = deps;
  const attempt = ctx.info.attempt;
  const message = await loadWebhookMessage(knex, jobId, deps.publicUrl ?? 'http://127.0.0.1:8080');
  if (!message) return { delivered: false, attempts: 0, reason: 'no webhook_url, or the job is still running' };
  const problem = webhookUrlProblem(message.url, deps.allowHttpWebhooks ?? false);
  if (problem) {
    await recordWebhookAttempt(knex, jobId, message, attempt, { ok: false, status_code: null, error: problem, duration_ms: 0 });
    webhookAttempts.inc({ result: 'invalid_url' });
    throw ApplicationFailure.nonRetryable(problem, 'InvalidWebhookUrl');
  }
  // A retry after a crash that followed a 2xx answer sends nothing again.
  if (await webhookDelivered(knex, message.id)) return { delivered: true, attempts: attempt - 1 };
  const outcome = await sendWebhookOnce(message, deps.webhookTimeoutMs ?? WEBHOOK_ATTEMPT_TIMEOUT_MS, ctx.cancellationSignal, {
    allowPrivate: deps.allowHttpWebhooks ?? false,
  });
  await recordWebhookAttempt(knex, jobId, message, attempt, outcome);
  webhookAttempts.inc({ result: outcome.ok ? 'delivered' : outcome.error === WEBHOOK_ADDRESS_REFUSED ? 'refused_address' : 'failed' });
  if (!outcome.ok) throw ApplicationFailure.retryable(`webhook attempt ${attempt} failed: ${outcome.error}`, 'WebhookAttemptFailed');
  return { delivered: true, attempts: attempt, status_code: outcome.status_code ?? undefined };
}

/**
 * Builds the activities over real dependencies.
 * @returns an object of async functions to pass as `activities` to `Worker.create`
 */
export function createEnrichmentActivities(deps: ActivityDeps): EnrichmentActivities {
  const { knex } = deps;
  const rowDeps: RowDeps = {
    knex,
    engine: timedEngine(deps.engine),
    storage: deps.storage,
    caches: deps.caches ?? createEnrichmentCaches(),
    render: deps.render,
  };
  const noRender: RowDeps = { ...rowDeps, render: undefined };
  const retryAttempts = deps.fetchRetryAttempts ?? 4;
  /**
   * Runs one row and reports what is now stored for it (see RowOutcome). While attempts are
   * left, a page that asked to be fetched later (429/503 + Retry-After) fails this attempt with
   * an ApplicationFailure whose `nextRetryDelay` is the server's delay: Temporal reschedules the
   * activity, nothing sleeps in it; the last attempt records the page as `server_error`.
   */
  const runRow = async (jobId: string, rowIndex: number, render = true): Promise<RowOutcome> => {
    const attempt = Context.current().info.attempt;
    let out: Awaited<ReturnType<typeof enrichRow>>;
    try {
      out = await enrichRow(render ? rowDeps : noRender, jobId, rowIndex, { deferFetchRetry: attempt < retryAttempts });
    } catch (err) {
      if (!(err instanceof RetryLaterError)) throw err;
      logger.info({ job_id: jobId, row_index: rowIndex, url: err.url, delay_ms: err.delayMs, attempt }, 'row rescheduled: the site asked to retry later');
      throw ApplicationFailure.create({ message: err.message, type: 'FetchRetryLater', nextRetryDelay: Math.max(1, err.delayMs) });
    }
    if (out.render) return 'render';
    if (out.processed) return out.succeeded ? 'succeeded' : 'failed';
    // Nothing written now: an earlier attempt wrote it (retry), or the job stopped running.
    const status = await rowStatus(knex, jobId, rowIndex);
    return status === 'succeeded' || status === 'failed' ? status : 'skipped';
  };
  return {
    async loadJobCounters(jobId) {
      const progress = counters(await jobProgress(knex, jobId));
      // The workflow reads the counters once, when its first run starts.
      logger.info({ job_id: jobId, status: progress.status, total_items: progress.total_items }, 'enrichment job started');
      return progress;
    },
    async pendingRowIndexes(jobId, afterRowIndex, limit) {
      return pendingRowIndexes(knex, jobId, afterRowIndex, limit);
    },
    async processRow(jobId, rowIndex) {
      const ctx = Context.current();
      const started = Date.now();
      // Heartbeats let Temporal notice a dead worker within the heartbeat timeout instead of
      // the whole start-to-close timeout. A row is one unit of work (its write is atomic), so a
      // retry simply starts the row again: there is nothing finer to resume from.
      return whileHeartbeating(
        ctx,
        () => ({ row_index: rowIndex, elapsed_ms: Date.now() - started }),
        () => runRow(jobId, rowIndex, false),
      );
    },
    async processRows(jobId, rowIndexes, options = {}) {
      const ctx = Context.current();
      // Resume point: rows before `done` were written by an earlier attempt (its last heartbeat);
      // they are only re-read (runRow finds them written), never enriched again.
      const details = ctx.info.heartbeatDetails as { done?: number } | undefined;
      let done = details?.done ?? 0;
      const outcomes: RowOutcome[] = [];
      return whileHeartbeating(
        ctx,
        () => ({ done }),
        async () => {
          done = 0;
          for (const rowIndex of rowIndexes) {
            // Cancellation arrives with a heartbeat: stop between rows (the row being written is atomic).
            if (ctx.cancellationSignal.aborted) throw new CancelledFailure('batch cancelled');
            outcomes.push(await runRow(jobId, rowIndex, !options.no_render));
            done += 1;
            ctx.heartbeat({ done });
          }
          return outcomes;
        },
      );
    },
    async finalizeJob(jobId, outcome, error) {
      const final = counters(await finalizeJob(knex, jobId, outcome, error));
      recordFinishedJob(jobId, final, error);
      const job = await EnrichmentJob.query(knex)
        .findById(jobId)
        .select(knex.raw("config->>'webhook_url' as webhook_url"))
        .castTo<{ webhook_url: string | null } | undefined>();
      // Only set when true, so histories of jobs without a webhook keep their recorded shape.
      return job?.webhook_url ? { ...final, has_webhook: true } : final;
    },
    async deliverWebhook(jobId) {
      const ctx = Context.current();
      // Heartbeats while the receiver takes its time, so a killed worker's attempt is retried
      // after the heartbeat timeout rather than the whole start-to-close timeout (./heartbeat.ts).
      return whileHeartbeating(
        ctx,
        () => ({ attempt: ctx.info.attempt }),
        () => deliverWebhookAttempt(deps, jobId, ctx),
      );
    },
  };
}

/** Logs a finished job with its ids and counts, and counts it, its items and credits in the metrics. */
function recordFinishedJob(jobId: string, final: JobCounters, error: string | undefined): void {
  logger.info(
    { job_id: jobId, status: final.status, total_items: final.total_items, successful: final.successful, failed: final.failed, error },
    'enrichment job finished',
  );
  jobsFinished.inc({ status: final.status });
  itemsFinished.inc({ outcome: 'succeeded' }, final.successful);
  itemsFinished.inc({ outcome: 'failed' }, final.failed);
  // Credits are 1 per successful item (docs/api-enrichment.md "Enrichment jobs"; finalizeJob derives them from the rows).
  creditsCharged.inc(final.successful);
}

/** The engine with each call's duration observed in `enrichment_engine_duration_seconds`. */
function timedEngine(engine: EnrichmentEngine): EnrichmentEngine {
  const time = async <T>(method: string, call: () => Promise<T>): Promise<T> => {
    const end = engineDuration.startTimer({ method });
    try {
      return await call();
    } finally {
      end();
    }
  };
  return {
    research: (input) => time('research', () => engine.research(input)),
    extract: (input, evidence) => time('extract', () => engine.extract(input, evidence)),
    enrich: (input) => time('enrich', () => engine.enrich(input)),
    fetcher: engine.fetcher,
  };
}
