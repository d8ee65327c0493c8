import { ServiceUnavailableError } from '../lib/errors';

/**
 * How the API drives durable jobs, without knowing Temporal: the worker side implements it
 * over a Temporal client (temporal/client.ts). Starting is idempotent: the workflow id derives
 * from the job id and "already started" is success (docs/workflows.md "Rules of the craft").
 */
export interface JobRunner {
  /** Starts the enrichment workflow of a stored job (`enrichment-<job_id>`), with search attributes. */
  startEnrichment(job: { id: string; organization_id: string; catalog_id: string | null; workflow_id: string; total_items: number }): Promise<void>;
  /** Requests cancellation of a running workflow; no error when it already finished. */
  cancel(workflowId: string): Promise<void>;
  /** Resolves when the workflow has closed (completed, failed or cancelled). */
  waitForClose(workflowId: string): Promise<void>;
  /**
   * Starts the search count index build of a catalog (workflow `search-index-<catalog_id>`,
   * src/services/catalog/search/search-count-index.ts), with search attributes. A build still open for the
   * catalog (building or cooling down) makes this a no-op, except that with
   * `opts.wordsPending` (a restore left the word index behind, src/services/catalog/search/search-words.ts)
   * the open workflow is signalled to catch it up now.
   * @returns true when a build was started, false when one was already open
   * @throws the client's error when Temporal is unreachable
   */
  startSearchIndexBuild(catalog: { id: string; organization_id: string }, opts?: { wordsPending?: boolean }): Promise<boolean>;
  /**
   * Asks for the grid index workflow of a catalog (workflow `grid-index-<catalog_id>`,
   * src/services/catalog/grid/grid-indexes.ts): starts it, or signals the open one to look at the
   * catalog's `catalog_field_indexes` rows again (signal-with-start), with search attributes
   * OrganizationId, CatalogId and JobKind=grid-index. Optional: runners without it build no grid
   * index (pages then stay slow and say so).
   * @throws the client's error when Temporal is unreachable
   */
  startGridIndexes?(catalog: { id: string; organization_id: string }): Promise<void>;
  /**
   * Starts the apply of a review activity (workflow `activity-apply-<activity_id>`,
   * src/services/review/apply.ts), with search attributes OrganizationId, CatalogId and
   * JobKind=apply. An apply of the activity still open makes this a no-op ("already started"),
   * unless `replaceClosed`: a new apply of an activity whose last apply ended (committed, or
   * recorded its failure; src/services/review/apply.ts), whose workflow may still be catching up
   * the word index, replaces that workflow (the new one catches the index up at its end as well).
   * @throws the client's error when Temporal is unreachable
   */
  startApply(apply: {
    activity_id: string;
    organization_id: string;
    catalog_id: string;
    force: boolean;
    actor: { kind: 'api_key' | 'user' | 'person'; id: string };
    replaceClosed?: boolean;
  }): Promise<void>;
  /**
   * Starts the staging of a console bulk action (workflow `bulk-stage-<activity_id>`,
   * src/services/review/bulk-edit.ts), with search attributes OrganizationId, CatalogId and
   * JobKind=bulk-stage; "already started" is success. Optional: runners without it make the
   * dashboard answer 503.
   * @throws the client's error when Temporal is unreachable
   */
  startBulkStage?(bulk: { activity_id: string; organization_id: string; catalog_id: string }): Promise<void>;
  /**
   * Starts the import workflow of a staged spreadsheet import (`catalog-import-<import_id>`,
   * src/services/sheets/import.ts), with search attributes OrganizationId, CatalogId and
   * JobKind=import. Optional: runners that start no imports leave it out (the route answers 503).
   * @throws the client's error when Temporal is unreachable
   */
  startImport?(imp: { id: string; organization_id: string; catalog_id: string; total_lines: number }): Promise<void>;
  /**
   * Starts the run of a stored flow (workflow `flow-run-<run_id>`, src/services/flows/runs.ts),
   * with search attributes OrganizationId, CatalogId and JobKind=flow-run. `opts.rerun` starts a
   * new execution under the same id after a failed or cancelled one (operators' rerun); without
   * it a run already started is "already started", a success.
   * @throws the client's error when Temporal is unreachable
   */
  startFlowRun(run: StartableFlowRun, opts?: { rerun?: boolean }): Promise<void>;
  /**
   * Starts the indexing of a research archive (workflow `research-archive-<id>`,
   * src/services/research-archives), with search attributes OrganizationId (uploads; none for
   * configured archives) and JobKind=research-archive; "already started" is success. Optional:
   * runners that start none leave it out (the upload answers 503).
   * @throws the client's error when Temporal is unreachable
   */
  startResearchArchiveIndex?(archive: { id: string; organization_id: string | null; name: string }): Promise<void>;
  /**
   * Starts the restore of a snapshot (workflow `snapshot-restore-<id>`,
   * src/services/catalog/snapshots/snapshot-restores.ts), with search attributes OrganizationId, CatalogId
   * and JobKind=snapshot-restore; "already started" is success. Optional: runners that start none
   * leave it out (restores answer 503).
   * @throws the client's error when Temporal is unreachable
   */
  startSnapshotRestore?(restore: { id: string; organization_id: string; catalog_id: string; snapshot_id: string }): Promise<void>;
  /**
   * Starts a feed run (workflow `feed-run-<run_id>`, src/services/feeds/runs.ts), with search
   * attributes OrganizationId, CatalogId and JobKind=feed; "already started" is success.
   * Optional: runners without it make run requests answer 503.
   * @throws the client's error when Temporal is unreachable
   */
  startFeedRun?(run: { id: string; organization_id: string; catalog_id: string; feed_id: string }): Promise<void>;
  /**
   * Creates or replaces the Temporal Schedule `feed-schedule-<feed_id>` that starts a run of the
   * feed on its cron expression (docs/feeds.md, "Schedules"); with `cron` null, deletes it (no
   * error when there is none). Optional: without it, feeds keep their schedule but nothing runs
   * it, and the feed's answer says so in `notices`.
   * @throws the client's error when Temporal is unreachable
   */
  setFeedSchedule?(feed: { id: string; organization_id: string; catalog_id: string }, cron: string | null): Promise<void>;
  /**
   * How many workers poll the task queue, for workflow tasks and for activity tasks (Temporal's
   * DescribeTaskQueue pollers, which list pollers seen in the last few minutes). Optional: a
   * runner without it is not checked (`/readyz`, sync enrich).
   * @throws the client's error when Temporal is unreachable
   */
  taskQueuePollers?(): Promise<{ task_queue: string; workflow: number; activity: number }>;
  /** Throws when the Temporal frontend cannot be reached (used by `/readyz`). */
  ping(): Promise<void>;
}

/** The run fields a start of `flow-run-<run_id>` needs (a row of `flow_runs` and its flow). */
export interface StartableFlowRun {
  id: string;
  organization_id: string;
  catalog_id: string | null;
  flow_id: string;
  flow_name: string;
  workflow_id: string;
  input_count: number;
  total_nodes: number;
}

/**
 * Throws 503 when the runner reports no worker polling the task queue: a
 * synchronous request would otherwise wait for a job nothing takes.
 */
export async function assertWorkerPolling(jobRunner: JobRunner, what: string): Promise<void> {
  if (!jobRunner.taskQueuePollers) return;
  let p = await jobRunner.taskQueuePollers();
  // A worker that just started may not be listed yet: look again for a few seconds.
  for (let i = 0; i < 6 && (p.workflow === 0 || p.activity === 0); i++) {
    await new Promise((r) => setTimeout(r, 500));
    p = await jobRunner.taskQueuePollers();
  }
  if (p.workflow === 0 || p.activity === 0)
    throw new ServiceUnavailableError(
      `No worker polls task queue ${p.task_queue}: ${what}. Start the worker (npm start or npm run worker), or send async_mode: true.`,
    );
}
