/**
 * The API's side of Temporal: a client factory and {@link TemporalJobRunner}, the JobRunner
 * (src/services/job-runner.ts) that starts, cancels and awaits enrichment workflows and starts
 * search count index builds and applies of review activities.
 */
import { Client, Connection, WorkflowExecutionAlreadyStartedError, WorkflowFailedError, WorkflowNotFoundError, isGrpcServiceError } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import type { SearchAttributePair, Workflow } from '@temporalio/common';
import type { Config } from '../src/config';
import type { JobRunner, StartableFlowRun } from '../src/services/job-runner';
import { temporal } from '@temporalio/proto';
import type {
  activityApplyWorkflow,
  catalogImportWorkflow,
  enrichmentJobWorkflow,
  flowRunWorkflow,
  gridIndexWorkflow,
  researchArchiveIndexWorkflow,
  searchIndexBuildWorkflow,
  snapshotRestoreWorkflow,
} from '../workflows';
import {
  ReviewApplyArgs,
  reviewApplyWorkflowId,
  APPLY_JOB_KIND,
  BULK_STAGE_JOB_KIND,
  bulkStageWorkflowId,
  CATALOG_ID,
  catalogImportWorkflowId,
  IMPORT_JOB_KIND,
  ENRICHMENT_JOB_KIND,
  EnrichmentJobArgs,
  FLOW_RUN_JOB_KIND,
  FlowRunArgs,
  GRID_INDEX_JOB_KIND,
  GridIndexArgs,
  gridIndexWorkflowId,
  JOB_KIND,
  ORGANIZATION_ID,
  RESEARCH_ARCHIVE_JOB_KIND,
  researchArchiveWorkflowId,
  SEARCH_INDEX_JOB_KIND,
  SearchIndexBuildArgs,
  searchIndexWorkflowId,
  SNAPSHOT_RESTORE_JOB_KIND,
  SnapshotRestoreArgs,
  snapshotRestoreWorkflowId,
} from '../src/contracts/workflows';
import { gridIndexRequestedSignal, searchWordsPendingSignal } from '../workflows/definitions';
import type { FeedRunArgs } from '../src/contracts/feed-workflows';
import { type FeedRef, setFeedScheduleOn, startFeedRunWorkflow } from './feed-schedules';

/** Deadline of the readiness ping (ms). */
const PING_TIMEOUT_MS = 3000;

/**
 * A poller counts as a live worker when it polled within this time (ms): an idle worker renews
 * its long poll about every 60 s, while DescribeTaskQueue keeps listing a dead one for minutes.
 */
const LIVE_POLLER_MS = 120_000;

/** gRPC NOT_FOUND / FAILED_PRECONDITION: the workflow is gone or already closed. */
const GRPC_NOT_FOUND = 5;
const GRPC_FAILED_PRECONDITION = 9;

/**
 * Creates a Temporal client for `config.temporalAddress` / `config.temporalNamespace`. The
 * connection is lazy: the process starts even while Temporal is still coming up, the first call
 * dials, and `/readyz` reports Temporal unreachable until it answers.
 */
export async function connectTemporalClient(config: Pick<Config, 'temporalAddress' | 'temporalNamespace'>): Promise<Client> {
  const connection = Connection.lazy({ address: config.temporalAddress });
  return new Client({ connection, namespace: config.temporalNamespace });
}

/**
 * Workflow tuning a starter may override (tests use small pages to exercise continue-as-new,
 * short heartbeat timeouts to notice a killed worker quickly, short webhook backoff).
 */
export type EnrichmentTuning = Pick<EnrichmentJobArgs, 'page_size' | 'pages_per_run' | 'batch_size' | 'row_heartbeat_timeout_s' | 'webhook' | 'concurrency'>;

/** Tuning of search count index builds a starter may override (tests shorten the cool-down). */
export type SearchIndexTuning = Omit<SearchIndexBuildArgs, 'catalog_id'>;

/** Tuning of apply workflows a starter may override (tests shorten heartbeat and retries). */
export type ApplyTuning = Pick<ReviewApplyArgs, 'heartbeat_timeout_s' | 'maximum_attempts' | 'retry_initial_interval_s'>;

/** Tuning of flow runs a starter may override (tests shorten heartbeats and retries). */
export type FlowRunTuning = Omit<FlowRunArgs, 'run_id'>;

/** Tuning of snapshot restores a starter may override (tests shorten heartbeat and retries). */
export type RestoreTuning = Omit<SnapshotRestoreArgs, 'restore_id' | 'catalog_id'>;

/** Tuning of grid index workflows a starter may override (tests shorten the linger). */
export type GridIndexTuning = Omit<GridIndexArgs, 'catalog_id'>;

/** The job fields a start needs (a row of `enrichment_jobs`). */
export interface StartableJob {
  id: string;
  organization_id: string;
  catalog_id: string | null;
  workflow_id: string;
  total_items: number;
}

/** The search attributes every workflow the API starts carries (JobKind; OrganizationId and CatalogId when known). */
interface StartAttributes {
  organizationId: string | null;
  catalogId: string | null;
  jobKind: string;
}

/** Search attributes OrganizationId (when set), CatalogId (when set) and JobKind of a started workflow. */
function searchAttributes(a: StartAttributes): SearchAttributePair[] {
  return [
    ...(a.organizationId ? [{ key: ORGANIZATION_ID, value: a.organizationId }] : []),
    ...(a.catalogId ? [{ key: CATALOG_ID, value: a.catalogId }] : []),
    { key: JOB_KIND, value: a.jobKind },
  ];
}

/** What differs between the API's workflow starts (see {@link TemporalJobRunner}'s `startOnce`). */
interface WorkflowStart<W extends Workflow> {
  workflowId: string;
  args: Parameters<W>;
  reuse: WorkflowIdReusePolicy;
  /** Conflict policy while a run with the id is open; the server's default (FAIL) when absent. */
  conflict?: WorkflowIdConflictPolicy;
  attributes: StartAttributes;
  memo?: Record<string, unknown>;
  summary: string;
  /** Lines of the workflow's static details (shown by the Temporal UI), when any. */
  details?: string[];
}

/**
 * JobRunner over a Temporal client (docs/workflows.md "Rules of the craft").
 */
export class TemporalJobRunner implements JobRunner {
  /**
   * @param client a connected (or lazy) Temporal client
   * @param config task queue and per-job concurrency (`ENRICH_CONCURRENCY`)
   * @param tuning optional page size / pages per run passed to every started enrichment workflow
   * @param searchIndexTuning optional cool-down / heartbeat / retry tuning of every search count
   *   index build
   * @param applyTuning optional heartbeat / retry tuning of every apply workflow
   * @param flowTuning optional heartbeat / retry tuning of every flow run
   * @param restoreTuning optional heartbeat / retry tuning of every snapshot restore
   * @param gridIndexTuning optional linger / heartbeat tuning of every grid index workflow
   * @param feedTuning optional page size / heartbeat tuning of every feed run
   */
  constructor(
    private readonly client: Client,
    private readonly config: Pick<Config, 'taskQueue' | 'enrichConcurrency'>,
    private readonly tuning: EnrichmentTuning = {},
    private readonly searchIndexTuning: SearchIndexTuning = {},
    private readonly applyTuning: ApplyTuning = {},
    private readonly flowTuning: FlowRunTuning = {},
    private readonly restoreTuning: RestoreTuning = {},
    private readonly gridIndexTuning: GridIndexTuning = {},
    private readonly feedTuning: Omit<FeedRunArgs, 'run_id'> = {},
  ) {}

  /** Starts `feed-run-<run_id>` (./feed-schedules.ts); "already started" is success. @throws when Temporal is unreachable */
  startFeedRun(run: { id: string; organization_id: string; catalog_id: string; feed_id: string }): Promise<void> {
    return startFeedRunWorkflow(this.client, this.config.taskQueue, run, this.feedTuning);
  }

  /** Creates, replaces or (cron null) deletes `feed-schedule-<feed_id>` (./feed-schedules.ts). @throws when Temporal is unreachable */
  setFeedSchedule(feed: FeedRef, cron: string | null): Promise<void> {
    return setFeedScheduleOn(this.client, this.config.taskQueue, feed, cron);
  }

  /**
   * Starts `enrichmentJobWorkflow` under `job.workflow_id` with search attributes OrganizationId,
   * CatalogId (when the job writes to a catalog) and JobKind=`enrichment`. A workflow with that
   * id that runs or ran already counts as started (idempotent start, rule 8).
   * @throws the client's error when Temporal is unreachable
   */
  async startEnrichment(job: StartableJob): Promise<void> {
    await this.start(job, WorkflowIdReusePolicy.REJECT_DUPLICATE);
  }

  /**
   * Starts a new run of a failed job's workflow under the same id (operators' `resume`, run by
   * temporal/ops-commands.ts `resumeJob` after the job is set back to running). Allowed only when the
   * previous run closed unsuccessfully (ALLOW_DUPLICATE_FAILED_ONLY); a run that is already open
   * counts as started, so repeating a resume is harmless.
   * @throws WorkflowExecutionAlreadyStartedError never; the client's error when unreachable or
   *   when the last run completed successfully (then there is nothing to resume)
   */
  async resumeEnrichment(job: StartableJob): Promise<void> {
    await this.start(job, WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY);
  }

  private async start(job: StartableJob, reuse: WorkflowIdReusePolicy): Promise<void> {
    // Idempotent start (rule 8): a repeated start of an open or closed job is "already started";
    // only `resumeEnrichment` may open a new run after a failed one.
    await this.startOnce<typeof enrichmentJobWorkflow>('enrichmentJobWorkflow', {
      workflowId: job.workflow_id,
      args: [{ job_id: job.id, concurrency: this.config.enrichConcurrency, ...this.tuning }],
      reuse,
      attributes: { organizationId: job.organization_id, catalogId: job.catalog_id, jobKind: ENRICHMENT_JOB_KIND },
      memo: { job_id: job.id, organization_id: job.organization_id, catalog_id: job.catalog_id, total_items: job.total_items },
      summary: `Enrichment job ${job.id}: ${job.total_items} item${job.total_items === 1 ? '' : 's'}`,
      details: [
        `Organization: ${job.organization_id}`,
        `Catalog: ${job.catalog_id ?? '(none: results stay on the job)'}`,
        `Items: ${job.total_items}`,
        `Results and progress: GET /api/public/enrich/${job.id} (live: query "progress")`,
      ],
    });
  }

  /**
   * Starts workflow `type` on the API's task queue with the search attributes, memo, summary and
   * details of `spec`. A workflow with that id that is open (or, by the reuse policy, ran
   * already) counts as started (idempotent start, rule 8).
   * @returns true when a run was started, false when it was already started
   * @throws the client's error when Temporal is unreachable (or another refusal)
   */
  private async startOnce<W extends Workflow>(type: string, spec: WorkflowStart<W>): Promise<boolean> {
    try {
      // Typed at the call sites (WorkflowStart<W>.args); the client's own generic cannot check a generic W.
      await this.client.workflow.start<Workflow>(type, {
        workflowId: spec.workflowId,
        taskQueue: this.config.taskQueue,
        args: spec.args,
        workflowIdReusePolicy: spec.reuse,
        ...(spec.conflict === undefined ? {} : { workflowIdConflictPolicy: spec.conflict }),
        typedSearchAttributes: searchAttributes(spec.attributes),
        ...(spec.memo ? { memo: spec.memo } : {}),
        staticSummary: spec.summary,
        ...(spec.details ? { staticDetails: spec.details.join('\n') } : {}),
      });
      return true;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
      throw err;
    }
  }

  /**
   * Starts `searchIndexBuildWorkflow` for a catalog under `search-index-<catalog_id>` on the
   * API's task queue, with search attributes OrganizationId, CatalogId and
   * JobKind=`search-index` and a summary. Reuse policy ALLOW_DUPLICATE: a closed build (completed,
   * failed or cancelled) may run again; conflict policy FAIL: while one is open (building, or
   * cooling down so rebuilds stay spaced) the start is "already started", answered as a no-op,
   * or, with `opts.wordsPending` (a restore left the word index behind), by signalling the open
   * workflow (`searchWordsPending`) to catch it up during its cool-down.
   * @returns true when a build was started, false when one was already open
   * @throws the client's error when Temporal is unreachable
   */
  async startSearchIndexBuild(catalog: { id: string; organization_id: string }, opts: { wordsPending?: boolean } = {}): Promise<boolean> {
    const started = await this.startOnce<typeof searchIndexBuildWorkflow>('searchIndexBuildWorkflow', {
      workflowId: searchIndexWorkflowId(catalog.id),
      args: [{ ...this.searchIndexTuning, catalog_id: catalog.id }],
      reuse: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      conflict: WorkflowIdConflictPolicy.FAIL,
      attributes: { organizationId: catalog.organization_id, catalogId: catalog.id, jobKind: SEARCH_INDEX_JOB_KIND },
      summary: `Search count index of catalog ${catalog.id}`,
      details: [
        `Organization: ${catalog.organization_id}`,
        `Catalog: ${catalog.id}`,
        'Builds the index of exact search totals (src/services/catalog/search/search-count-index.ts), then stays open for the rebuild cool-down.',
      ],
    });
    // Open (building or cooling down): a restore's catch-up must not wait for the cool-down.
    // If it closed meanwhile, the signal fails; the next search of the catalog asks again.
    if (!started && opts.wordsPending)
      await this.client.workflow
        .getHandle(searchIndexWorkflowId(catalog.id))
        .signal(searchWordsPendingSignal)
        .catch(() => undefined);
    return started;
  }

  /**
   * Asks for `gridIndexWorkflow` of a catalog under `grid-index-<catalog_id>` with
   * signal-with-start: starts it (search attributes OrganizationId, CatalogId and
   * JobKind=`grid-index`, a summary) or, while it is open, signals `gridIndexRequested` so it
   * reconciles the catalog's `catalog_field_indexes` rows again (idempotent, rule 8).
   * @throws the client's error when Temporal is unreachable
   */
  async startGridIndexes(catalog: { id: string; organization_id: string }): Promise<void> {
    const args: GridIndexArgs = { ...this.gridIndexTuning, catalog_id: catalog.id };
    await this.client.workflow.signalWithStart<typeof gridIndexWorkflow, []>('gridIndexWorkflow', {
      workflowId: gridIndexWorkflowId(catalog.id),
      taskQueue: this.config.taskQueue,
      args: [args],
      signal: gridIndexRequestedSignal,
      signalArgs: [],
      typedSearchAttributes: searchAttributes({ organizationId: catalog.organization_id, catalogId: catalog.id, jobKind: GRID_INDEX_JOB_KIND }),
      staticSummary: `Grid field indexes of catalog ${catalog.id}`,
      staticDetails: [
        `Organization: ${catalog.organization_id}`,
        `Catalog: ${catalog.id}`,
        'Builds and drops the catalog grid field indexes its catalog_field_indexes rows ask for (src/services/catalog/grid/grid-indexes.ts).',
      ].join('\n'),
    });
  }

  /**
   * Starts `activityApplyWorkflow` under `activity-apply-<activity_id>` (docs/api-review.md "Apply") with
   * search attributes OrganizationId, CatalogId and JobKind=`apply`. Reuse policy
   * ALLOW_DUPLICATE (a failed apply may be asked again; a completed one is answered by the API
   * from the stored result before starting), conflict policy FAIL: while an apply of the activity
   * is open, a start is "already started", a success (rule 8). A new apply after one that ended (`replaceClosed`:
   * committed or failed, its workflow at most catching up the word index) uses
   * TERMINATE_EXISTING, so it is not lost as "already started"; the new run catches the index up too.
   * @throws the client's error when Temporal is unreachable
   */
  async startApply(apply: Parameters<JobRunner['startApply']>[0]): Promise<void> {
    const args: ReviewApplyArgs = {
      ...this.applyTuning,
      activity_id: apply.activity_id,
      catalog_id: apply.catalog_id,
      force: apply.force,
      actor: { kind: apply.actor.kind, id: apply.actor.id },
    };
    await this.startOnce<typeof activityApplyWorkflow>('activityApplyWorkflow', {
      workflowId: reviewApplyWorkflowId(apply.activity_id),
      args: [args],
      reuse: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      conflict: apply.replaceClosed ? WorkflowIdConflictPolicy.TERMINATE_EXISTING : WorkflowIdConflictPolicy.FAIL,
      attributes: { organizationId: apply.organization_id, catalogId: apply.catalog_id, jobKind: APPLY_JOB_KIND },
      memo: { activity_id: apply.activity_id, organization_id: apply.organization_id, catalog_id: apply.catalog_id, force: apply.force },
      summary: `Apply of review activity ${apply.activity_id}${apply.force ? ' (force)' : ''}`,
      details: [
        `Organization: ${apply.organization_id}`,
        `Catalog: ${apply.catalog_id}`,
        `Progress and result: GET /api/activities/${apply.activity_id} (live: query "progress")`,
      ],
    });
  }

  /**
   * Starts `bulkStageWorkflow` under `bulk-stage-<activity_id>` (workflows/bulk-stage.ts) with
   * search attributes OrganizationId, CatalogId and JobKind=`bulk-stage`; "already started" is
   * success (rule 8).
   * @throws the client's error when Temporal is unreachable
   */
  async startBulkStage(bulk: { activity_id: string; organization_id: string; catalog_id: string }): Promise<void> {
    await this.startOnce('bulkStageWorkflow', {
      workflowId: bulkStageWorkflowId(bulk.activity_id),
      args: [{ activity_id: bulk.activity_id }],
      reuse: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      attributes: { organizationId: bulk.organization_id, catalogId: bulk.catalog_id, jobKind: BULK_STAGE_JOB_KIND },
      summary: `Staging of console bulk action ${bulk.activity_id}`,
    });
  }

  /**
   * Starts `flowRunWorkflow` under `flow-run-<run_id>` (docs/api-review.md "Flow runs") with search attributes
   * OrganizationId, CatalogId and JobKind=`flow-run` and a summary. A first start uses reuse
   * policy REJECT_DUPLICATE (a repeated start is "already started", a success, rule 8); a rerun
   * (`opts.rerun`, temporal/ops-commands.ts) ALLOW_DUPLICATE_FAILED_ONLY: a new execution after a failed,
   * cancelled or terminated one.
   * @throws the client's error when Temporal is unreachable, or a rerun of a run whose last
   *   execution completed
   */
  async startFlowRun(run: StartableFlowRun, opts: { rerun?: boolean } = {}): Promise<void> {
    const args: FlowRunArgs = { ...this.flowTuning, run_id: run.id };
    await this.startOnce<typeof flowRunWorkflow>('flowRunWorkflow', {
      workflowId: run.workflow_id,
      args: [args],
      reuse: opts.rerun ? WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY : WorkflowIdReusePolicy.REJECT_DUPLICATE,
      attributes: { organizationId: run.organization_id, catalogId: run.catalog_id, jobKind: FLOW_RUN_JOB_KIND },
      memo: { run_id: run.id, flow_id: run.flow_id, organization_id: run.organization_id, catalog_id: run.catalog_id },
      summary: `Flow "${run.flow_name.slice(0, 100)}" run ${run.id}: ${run.input_count} row${run.input_count === 1 ? '' : 's'}, ${run.total_nodes} nodes`,
      details: [
        `Organization: ${run.organization_id}`,
        `Flow: ${run.flow_id}`,
        `Catalog: ${run.catalog_id ?? '(none)'}`,
        `Progress and results: GET /api/public/workflows/runs/${run.id} (live: query "progress")`,
      ],
    });
  }

  /**
   * Requests cancellation of a workflow (and of its latest continued-as-new run). A workflow
   * that is unknown or already closed is not an error.
   */
  async cancel(workflowId: string): Promise<void> {
    try {
      await this.client.workflow.getHandle(workflowId).cancel();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return;
      if (isGrpcServiceError(err) && (err.code === GRPC_NOT_FOUND || err.code === GRPC_FAILED_PRECONDITION)) return;
      throw err;
    }
  }

  /**
   * Resolves when the workflow chain has closed, whatever the outcome (completed, failed or
   * cancelled): the job's state is read from PostgreSQL afterwards.
   * @throws the client's error when Temporal is unreachable
   */
  async waitForClose(workflowId: string): Promise<void> {
    try {
      await this.client.workflow.getHandle(workflowId).result();
    } catch (err) {
      if (err instanceof WorkflowFailedError || err instanceof WorkflowNotFoundError) return;
      throw err;
    }
  }

  /**
   * Starts `snapshotRestoreWorkflow` under `snapshot-restore-<restore_id>` with search
   * attributes OrganizationId, CatalogId and JobKind=`snapshot-restore`. Reuse policy
   * REJECT_DUPLICATE: a restore runs once; a repeated start (a retried request that joined the
   * open restore) is "already started", a success (rule 8).
   * @throws the client's error when Temporal is unreachable
   */
  async startSnapshotRestore(restore: Parameters<NonNullable<JobRunner['startSnapshotRestore']>>[0]): Promise<void> {
    await this.startOnce<typeof snapshotRestoreWorkflow>('snapshotRestoreWorkflow', {
      workflowId: snapshotRestoreWorkflowId(restore.id),
      args: [{ ...this.restoreTuning, restore_id: restore.id, catalog_id: restore.catalog_id }],
      reuse: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      attributes: { organizationId: restore.organization_id, catalogId: restore.catalog_id, jobKind: SNAPSHOT_RESTORE_JOB_KIND },
      memo: { restore_id: restore.id, snapshot_id: restore.snapshot_id, organization_id: restore.organization_id, catalog_id: restore.catalog_id },
      summary: `Restore of snapshot ${restore.snapshot_id}`,
      details: [
        `Organization: ${restore.organization_id}`,
        `Catalog: ${restore.catalog_id}`,
        `Progress: /dashboard/catalogs/${restore.catalog_id}/snapshots/restores/${restore.id} (live: query "progress")`,
      ],
    });
  }

  /** Starts a staged spreadsheet import's workflow (JobRunner.startImport); "already started" is success. */
  async startImport(imp: Parameters<NonNullable<JobRunner['startImport']>>[0]): Promise<void> {
    await this.startOnce<typeof catalogImportWorkflow>('catalogImportWorkflow', {
      workflowId: catalogImportWorkflowId(imp.id),
      args: [{ import_id: imp.id, catalog_id: imp.catalog_id }],
      reuse: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      attributes: { organizationId: imp.organization_id, catalogId: imp.catalog_id, jobKind: IMPORT_JOB_KIND },
      memo: { import_id: imp.id, organization_id: imp.organization_id, catalog_id: imp.catalog_id, total_lines: imp.total_lines },
      summary: `Spreadsheet import ${imp.id} (${imp.total_lines} lines)`,
      details: [
        `Organization: ${imp.organization_id}`,
        `Catalog: ${imp.catalog_id}`,
        `Status and per-line report: GET /api/public/catalogs/${imp.catalog_id}/items/import/${imp.id} (live: query "progress")`,
      ],
    });
  }

  /**
   * Starts the indexing of a research archive (JobRunner.startResearchArchiveIndex); "already
   * started" (running) is success. A closed run may be started again: a configured archive whose
   * indexing failed is retried under the same id (the archive row's status admits one retry at a time).
   * @throws the client's error when Temporal is unreachable
   */
  async startResearchArchiveIndex(archive: { id: string; organization_id: string | null; name: string }): Promise<void> {
    await this.startOnce<typeof researchArchiveIndexWorkflow>('researchArchiveIndexWorkflow', {
      workflowId: researchArchiveWorkflowId(archive.id),
      args: [{ archive_id: archive.id }],
      reuse: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      attributes: { organizationId: archive.organization_id, catalogId: null, jobKind: RESEARCH_ARCHIVE_JOB_KIND },
      summary: `Research archive ${archive.name}`,
      details: [
        `Organization: ${archive.organization_id ?? 'every organization (RESEARCH_ARCHIVES)'}`,
        `Status and progress: GET /api/public/research-archives/${archive.id}`,
      ],
    });
  }

  /**
   * Live pollers of the task queue (JobRunner.taskQueuePollers): DescribeTaskQueue for workflow and
   * activity tasks, counting pollers seen within the last 2 minutes, within 3 s.
   * @throws the client's error when Temporal is unreachable
   */
  async taskQueuePollers(): Promise<{ task_queue: string; workflow: number; activity: number }> {
    const { connection, options } = this.client;
    const { TaskQueueType, TaskQueueKind } = temporal.api.enums.v1;
    const live = async (taskQueueType: temporal.api.enums.v1.TaskQueueType): Promise<number> => {
      const res = await connection.withDeadline(Date.now() + PING_TIMEOUT_MS, () =>
        connection.workflowService.describeTaskQueue({
          namespace: options.namespace,
          taskQueue: { name: this.config.taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
          taskQueueType,
        }),
      );
      const since = Date.now() - LIVE_POLLER_MS;
      return (res.pollers ?? []).filter((p) => {
        const t = p.lastAccessTime;
        return !t?.seconds || Number(t.seconds) * 1000 >= since;
      }).length;
    };
    const [workflow, activity] = await Promise.all([live(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW), live(TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY)]);
    return { task_queue: this.config.taskQueue, workflow, activity };
  }

  /** A cheap round trip to the frontend (GetSystemInfo) within 3 s. @throws when unreachable */
  async ping(): Promise<void> {
    const connection = this.client.connection;
    await connection.withDeadline(Date.now() + PING_TIMEOUT_MS, () => connection.workflowService.getSystemInfo({}));
  }
}
