/**
 * Enrichment activities: thin adapters over src/services/enrichment-rows.ts, built by
 * {@link createActivities}. Every activity is idempotent on (job_id, row_index) and moves only
 * ids and counters through Temporal (architecture.md, Temporal rules 2 and 4).
 */
import { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import type { EnrichmentEngine } from '../src/enrichment/types';
import { finalizeJob, jobProgress, pendingRowIndexes, processRow, rowStatus } from '../src/services/enrichment-rows';
import type { EnrichmentCounters } from '../workflows/definitions';

/** What the activities need: the database and the engine (built once per worker). */
export interface ActivityDeps {
  knex: Knex;
  engine: EnrichmentEngine;
}

/**
 * What happened to one row: `succeeded` / `failed` (item-level error) once its result is
 * written, by this attempt or an earlier one; `skipped` when the job stopped running and the
 * row stays pending (a cancelled job takes no new results).
 */
export type RowOutcome = 'succeeded' | 'failed' | 'skipped';

/** Job status plus counters, as read from PostgreSQL. */
export type JobCounters = EnrichmentCounters & { status: string };

/** Heartbeat period of a running row (ms); the workflow's heartbeat timeout is a multiple of it. */
export const ROW_HEARTBEAT_MS = 10_000;

/** The activity functions registered on the worker; the workflow proxies them by these names. */
export interface EnrichmentActivities {
  /** Status and counters of a job from PostgreSQL. @throws Error when the job does not exist */
  loadJobCounters(jobId: string): Promise<JobCounters>;
  /** Up to `limit` pending row indexes after `afterRowIndex` (exclusive), ascending. */
  pendingRowIndexes(jobId: string, afterRowIndex: number, limit: number): Promise<number[]>;
  /** Enriches one row and writes its result once; heartbeats while the engine works. */
  processRow(jobId: string, rowIndex: number): Promise<RowOutcome>;
  /** Final status, counters and credits (= successful rows, from the rows); idempotent. */
  finalizeJob(jobId: string, outcome: 'completed' | 'failed' | 'cancelled', error?: string): Promise<JobCounters>;
}

function counters(p: { status: string; total_items: number; completed_items: number; successful: number }): JobCounters {
  return { status: p.status, total_items: p.total_items, completed_items: p.completed_items, successful: p.successful, failed: p.completed_items - p.successful };
}

/**
 * Builds the activities over real dependencies.
 * @returns an object of async functions to pass as `activities` to `Worker.create`
 */
export function createActivities(deps: ActivityDeps): EnrichmentActivities {
  const { knex, engine } = deps;
  return {
    async loadJobCounters(jobId) {
      return counters(await jobProgress(knex, jobId));
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
      ctx.heartbeat({ row_index: rowIndex, elapsed_ms: 0 });
      const timer = setInterval(() => ctx.heartbeat({ row_index: rowIndex, elapsed_ms: Date.now() - started }), ROW_HEARTBEAT_MS);
      try {
        const out = await processRow(knex, engine, jobId, rowIndex);
        if (out.processed) return out.succeeded ? 'succeeded' : 'failed';
        // Nothing written now: an earlier attempt wrote it (retry), or the job stopped running.
        const status = await rowStatus(knex, jobId, rowIndex);
        return status === 'succeeded' || status === 'failed' ? status : 'skipped';
      } finally {
        clearInterval(timer);
      }
    },
    async finalizeJob(jobId, outcome, error) {
      return counters(await finalizeJob(knex, jobId, outcome, error));
    },
  };
}
