/**
 * What the API, the activities and the workflow bundle agree on about each durable workflow:
 * workflow ids, `JobKind` search attributes, argument, counter, progress and result
 * shapes, tuning defaults and non-retryable failure types. A lower module all three import, so
 * services and activities never import the workflow bundle, and the bundle takes only values that
 * are pure: this file imports no value but `@temporalio/common` (ESLint keeps it so). The signals
 * and queries themselves are defined by the workflows (workflows/definitions.ts).
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { ApplyResult } from '../models/review-activity';

/** `OrganizationId` (Keyword) search attribute: the owning organization's id (docs/workflows.md "Temporal: workflows, ids, search attributes"). */
export const ORGANIZATION_ID = defineSearchAttributeKey('OrganizationId', SearchAttributeType.KEYWORD);

/** `CatalogId` (Keyword) search attribute: the catalog a job writes to, when any. */
export const CATALOG_ID = defineSearchAttributeKey('CatalogId', SearchAttributeType.KEYWORD);

/** `JobKind` (Keyword) search attribute: {@link ENRICHMENT_JOB_KIND}, {@link WEBHOOK_JOB_KIND}, {@link SEARCH_INDEX_JOB_KIND}, {@link APPLY_JOB_KIND}, {@link SNAPSHOT_RESTORE_JOB_KIND} and the others below. */
export const JOB_KIND = defineSearchAttributeKey('JobKind', SearchAttributeType.KEYWORD);

/** `JobKind` search-attribute value of enrichment jobs (docs/workflows.md "Temporal: workflows, ids, search attributes"). */
export const ENRICHMENT_JOB_KIND = 'enrichment';

/** `JobKind` of a job's webhook delivery (a child of the job; same organization and catalog). */
export const WEBHOOK_JOB_KIND = 'webhook-delivery';

/** `JobKind` of a catalog's search count index build ({@link searchIndexWorkflowId}). */
export const SEARCH_INDEX_JOB_KIND = 'search-index';

/** Workflow id of an enrichment job: `enrichment-<job_id>` (docs/workflows.md "Temporal: workflows, ids, search attributes"; docs/workflows.md "Rules of the craft", Temporal rule 8). */
export function enrichmentWorkflowId(jobId: string): string {
  return `enrichment-${jobId}`;
}

/** Counters of one job, carried across continue-as-new (integers, items of the job). */
export interface EnrichmentCounters {
  /** Items the job processes (`max_rows` applied). */
  total_items: number;
  /** Items with a result (succeeded or failed). */
  completed_items: number;
  /** Items enriched without an item-level error (1 credit each). */
  successful: number;
  /** Items whose result carries an item-level `error`. */
  failed: number;
}

/**
 * Arguments of {@link enrichmentJobWorkflow}. Only ids and counters: items and results live in
 * PostgreSQL (docs/workflows.md "Rules of the craft").
 */
export interface EnrichmentJobArgs {
  job_id: string;
  /** Row index after which the next page starts (exclusive); absent on the first run = -1. */
  cursor?: number;
  /** Counters so far; absent on the first run (then read from PostgreSQL). */
  counters?: EnrichmentCounters;
  /** Rows processed at once (sliding window); default {@link DEFAULT_CONCURRENCY}. */
  concurrency?: number;
  /** Row indexes fetched per page; default {@link DEFAULT_PAGE_SIZE}. */
  page_size?: number;
  /** Pages per run before continue-as-new; default {@link DEFAULT_PAGES_PER_RUN}. */
  pages_per_run?: number;
  /**
   * Rows per `processRows` activity; default {@link DEFAULT_BATCH_SIZE}. `concurrency` batches
   * run at once, each row after row, so `concurrency` rows are processed at once either way.
   */
  batch_size?: number;
  /**
   * Heartbeat timeout of row activities (s); default 30 (they heartbeat on a 10 s timer). A dead
   * worker's rows are retried after this long; tests shorten it.
   */
  row_heartbeat_timeout_s?: number;
  /** Retry tuning handed to {@link WebhookDeliveryArgs} (tests shorten the backoff). */
  webhook?: WebhookRetryTuning;
}

/**
 * Suffix of the render task queue: the render activity (activities/render.ts) of an enrichment job
 * on task queue Q runs on `Q + RENDER_QUEUE_SUFFIX`, served by render workers whose activity
 * slots are RENDER_CONCURRENCY.
 */
export const RENDER_QUEUE_SUFFIX = '-render';

/** Default rows per processRows activity (measured: bench/orchestration-overhead.ts). */
export const DEFAULT_BATCH_SIZE = 10;

/** Workflow id of a job's webhook delivery: `<parent id>/webhook` (docs/workflows.md "Temporal: workflows, ids, search attributes"). */
export function webhookWorkflowId(parentWorkflowId: string): string {
  return `${parentWorkflowId}/webhook`;
}

/** Retry tuning of webhook delivery; every field has a production default. */
export interface WebhookRetryTuning {
  /** First retry delay (s); default 10, doubling up to `maximum_interval_s`. */
  initial_interval_s?: number;
  /** Longest delay between attempts (s); default 600. */
  maximum_interval_s?: number;
  /** Attempts in all; default 10 (about 40 minutes of backoff). */
  maximum_attempts?: number;
  /** Hard bound of the whole delivery (s); default 3600. */
  schedule_to_close_s?: number;
}

/** Arguments of webhookDeliveryWorkflow: the job id and optional retry tuning. */
export interface WebhookDeliveryArgs extends WebhookRetryTuning {
  job_id: string;
}

/** What a delivery ended with (the activity's and the child workflow's result). */
export interface WebhookDeliveryResult {
  delivered: boolean;
  /** Attempts made (the Temporal attempt number of the last one). */
  attempts: number;
  status_code?: number;
  /** Why nothing was delivered. */
  reason?: string;
}

/** Default sliding-window size when the starter passes none (config `ENRICH_CONCURRENCY` default). */
export const DEFAULT_CONCURRENCY = 8;

/** Default page of row indexes fetched at once. */
export const DEFAULT_PAGE_SIZE = 100;

/**
 * Default pages per run. 10 pages x 100 rows keeps one run near 4,000 history events (about 3
 * per row plus workflow tasks), far below Temporal's 51,200-event limit (Temporal rule 3).
 */
export const DEFAULT_PAGES_PER_RUN = 10;

/** Phase of the workflow as seen by the progress query. */
export type EnrichmentPhase = 'running' | 'finalizing' | 'completed' | 'cancelled' | 'failed';

/** Answer of {@link progressQuery}: counters plus the cursor and phase of this run. */
export interface EnrichmentProgress extends EnrichmentCounters {
  /** Highest row index handed to a processRow activity so far (-1 before the first). */
  cursor: number;
  status: EnrichmentPhase;
}

/**
 * Workflow id of a catalog's search count index build: `search-index-<catalog_id>`
 * (docs/workflows.md "Temporal: workflows, ids, search attributes": `<kind>-<id>` like `enrichment-<job_id>`; `/` is kept for children).
 * One id per catalog, so at most one build of a catalog is open at a time (Temporal rule 8).
 */
export function searchIndexWorkflowId(catalogId: string): string {
  return `search-index-${catalogId}`;
}

/** Arguments of searchIndexBuildWorkflow: the catalog's id plus optional tuning (tests shorten it). */
export interface SearchIndexBuildArgs {
  catalog_id: string;
  /**
   * Least time between the starts of two builds of the catalog (s); default
   * {@link SEARCH_INDEX_MIN_INTERVAL_S}. The workflow stays open until then (also at least 10 ×
   * the build's own time), so a start in between finds it running and is a no-op.
   */
  min_interval_s?: number;
  /** Heartbeat timeout of the build activity (s); default 60. */
  heartbeat_timeout_s?: number;
  /** First retry delay of a failed or deferred build (s); default 10, doubling up to 5 min. */
  retry_initial_interval_s?: number;
}

/** Default {@link SearchIndexBuildArgs.min_interval_s}: one build of a catalog per minute at most. */
export const SEARCH_INDEX_MIN_INTERVAL_S = 60;

/** Figures of one build of a catalog's search count index (src/services/catalog/search/search-count-index.ts). */
export interface SearchIndexBuild {
  catalog_id: string;
  items: number;
  /** Frequent words + prefixes with postings. */
  tokens: number;
  min_df: number;
  build_ms: number;
}

/** What searchIndexBuildWorkflow ended with. */
export interface SearchIndexBuildResult {
  /**
   * The build's figures, or null when nothing was built: another build held the catalog's
   * lock, or the catalog is gone. `words_caught_up`: rows of the word index caught up first
   * after a restore (src/services/catalog/search/search-words.ts; absent in histories from before it existed).
   */
  built: (SearchIndexBuild & { words_caught_up?: number }) | null;
  /** Time the workflow stayed open after the build so that rebuilds stay spaced (ms). */
  cooldown_ms: number;
  /** Word-index catch-ups run during the cool-down on {@link searchWordsPendingSignal} (absent in older histories). */
  words_catch_ups?: number;
}

/** `JobKind` of the apply of a review activity ({@link reviewApplyWorkflowId}; docs/api-review.md "Apply"). */
export const APPLY_JOB_KIND = 'apply';

/**
 * Workflow id of the apply of a review activity: `activity-apply-<activity_id>` (docs/api-review.md "Apply"). One id per activity, so at most one apply of an activity is open at a time (Temporal rule 8).
 */
export function reviewApplyWorkflowId(activityId: string): string {
  return `activity-apply-${activityId}`;
}

/** Arguments of activityApplyWorkflow: ids and flags only (Temporal rule 2), plus test tuning. */
export interface ReviewApplyArgs {
  activity_id: string;
  /** The activity's catalog (its word index is caught up after a large apply). */
  catalog_id: string;
  /** Apply changes whose item changed since (no `conflict`). */
  force: boolean;
  /** Who asked (author of the pre-apply snapshot and of a new schema version). */
  actor: { kind: 'api_key' | 'user' | 'person'; id: string };
  /** Heartbeat timeout of the apply activity (s); default 60. Tests shorten it. */
  heartbeat_timeout_s?: number;
  /** Attempts of the apply activity; default 10. */
  maximum_attempts?: number;
  /** First retry delay (s); default 1, doubling up to a minute. */
  retry_initial_interval_s?: number;
}

/** Result of an apply (`review_activities.apply_result`; src/services/review/apply.ts). */
export type ReviewApplyResult = ApplyResult;

/** What activityApplyWorkflow ended with: completed with the result, or failed with the error. */
export type ReviewApplyOutcome = { status: 'completed'; result: ReviewApplyResult } | { status: 'failed'; error: string };

/** Answer of {@link applyProgressQuery}. */
export interface ReviewApplyProgress {
  phase: 'queued' | 'applying' | 'completed' | 'failed';
  result?: ReviewApplyResult;
  error?: string;
}

/** Id of the Temporal schedule, and of each workflow it starts, that maintains the search indexes. */
export const SEARCH_MAINTENANCE_ID = 'search-index-maintenance';

/** `JobKind` of a search index maintenance run (workflows/search-index-maintenance.ts). */
export const SEARCH_MAINTENANCE_JOB_KIND = 'search-maintenance';

/** Failure type of an apply whose activity is not applicable (not pending_review, no catalog): not retried. */
export const APPLY_NOT_APPLICABLE = 'ApplyNotApplicable';

/** `JobKind` of a spreadsheet import into a catalog ({@link catalogImportWorkflowId}). */
export const IMPORT_JOB_KIND = 'import';

/** Workflow id of a spreadsheet import: `catalog-import-<import_id>` (docs/workflows.md "Temporal: workflows, ids, search attributes"). */
export function catalogImportWorkflowId(importId: string): string {
  return `catalog-import-${importId}`;
}

/** Arguments of catalogImportWorkflow: ids and a cursor only; lines live in PostgreSQL. */
export interface CatalogImportArgs {
  import_id: string;
  /** The catalog imported into (absent in runs started before it was passed): a large import then maintains the search indexes (workflows/churn-maintenance.ts). */
  catalog_id?: string;
  /** Last line written (exclusive start of the next batch); absent on the first run = 1 (the header). */
  cursor?: number;
  /** Counters so far (carried across continue-as-new). */
  counters?: CatalogImportCounters;
  /** Batches per run before continue-as-new; default 100. */
  batches_per_run?: number;
  /** Batches written at once (disjoint line ranges); default {@link DEFAULT_IMPORT_CONCURRENCY}. */
  concurrency?: number;
}

/**
 * Lines per import batch (one activity, one transaction; src/services/sheets/import.ts). 2,500:
 * 5,206 rows/s for 100,000 rows where 1,000 gave 4,557 (bench/sheets-import.ts, load ~1.2).
 */
export const IMPORT_BATCH_LINES = 2500;

/** Failure type of an import batch whose starter may no longer write (a person disabled or demoted since the start): not retried. */
export const IMPORT_NOT_PERMITTED = 'ImportNotPermitted';

/** Import batches written at once by default (measured: bench/sheets-import.ts). */
export const DEFAULT_IMPORT_CONCURRENCY = 4;

/** Lines written so far by outcome. */
export interface CatalogImportCounters {
  created: number;
  updated: number;
  failed: number;
}

/** Answer of {@link importProgressQuery}. */
export interface CatalogImportProgress {
  phase: 'importing' | 'completed' | 'failed' | 'cancelled';
  cursor: number;
  counters: CatalogImportCounters;
  error?: string;
}

/** `JobKind` of a run of a stored flow ({@link flowRunWorkflowId}; docs/api-review.md "Flow runs"). */
export const FLOW_RUN_JOB_KIND = 'flow-run';

/**
 * Workflow id of a run of a stored flow: `flow-run-<run_id>` (docs/api-review.md "Flow runs"). A rerun of a
 * failed run (`npm run ops -- rerun`) is a new execution under the same id.
 */
export function flowRunWorkflowId(runId: string): string {
  return `flow-run-${runId}`;
}

/** Failure type of a node that failed for a reason a retry cannot mend (the code raised, a sandbox limit): not retried. */
export const FLOW_NODE_FAILED = 'FlowNodeFailed';

/** Arguments of flowRunWorkflow: the run's id (nodes and rows live in PostgreSQL, Temporal rule 2) plus test tuning. */
export interface FlowRunArgs {
  run_id: string;
  /** Heartbeat timeout of node activities (s); default 60. A killed worker's node is retried after it; tests shorten it. */
  heartbeat_timeout_s?: number;
  /** Attempts of a node activity; default 10. */
  maximum_attempts?: number;
  /** First retry delay (s); default 1, doubling up to a minute. */
  retry_initial_interval_s?: number;
  /** Tuning handed to the enrichment job of an `enrich` node (tests shorten heartbeats). */
  enrichment?: Pick<EnrichmentJobArgs, 'row_heartbeat_timeout_s' | 'page_size' | 'concurrency'>;
}

/** One node of a run as the workflow sees it (ids and types only). */
export interface FlowRunPlanNode {
  id: string;
  type: string;
  /** Finished in an earlier execution (a rerun or a resumed run skips it). */
  completed: boolean;
}

/** What the workflow reads about its run when it starts. */
export interface FlowRunPlan {
  organization_id: string;
  catalog_id: string | null;
  nodes: FlowRunPlanNode[];
}

/** What an `enrich` node's job is: its id, and whether it already finished (a rerun does not start it again). */
export interface EnrichNodeJob {
  job_id: string;
  finished: boolean;
  organization_id: string;
  total_items: number;
}

/** Answer of {@link flowRunProgressQuery}: where the run is, live (the API reads `flow_runs`). */
export interface FlowRunProgress {
  status: 'running' | 'completed' | 'failed' | 'cancelled';
  /** Node being executed, or the failed node. */
  current_node: string | null;
  nodes_done: number;
  total_nodes: number;
  error?: string;
}

/** `JobKind` of the indexing of a research archive ({@link researchArchiveWorkflowId}). */
export const RESEARCH_ARCHIVE_JOB_KIND = 'research-archive';

/** Workflow id of a research archive's indexing: `research-archive-<archive_id>`. */
export function researchArchiveWorkflowId(archiveId: string): string {
  return `research-archive-${archiveId}`;
}

/** Arguments of researchArchiveIndexWorkflow: the archive id only; pages live in PostgreSQL. */
export interface ResearchArchiveIndexArgs {
  archive_id: string;
}

/** Failure type of an archive whose content cannot be read (not WARC/WACZ, hashes differ): not retried. */
export const ARCHIVE_CONTENT_INVALID = 'ArchiveContentInvalid';

/** `JobKind` of a snapshot restore ({@link snapshotRestoreWorkflowId}). */
export const SNAPSHOT_RESTORE_JOB_KIND = 'snapshot-restore';

/**
 * Workflow id of a snapshot restore: `snapshot-restore-<restore_id>` (docs/workflows.md "Temporal: workflows, ids, search attributes"). The
 * restore row (`snapshot_restores`) is unique per open restore of a snapshot, so a retried
 * request joins the open restore and its workflow (Temporal rule 8).
 */
export function snapshotRestoreWorkflowId(restoreId: string): string {
  return `snapshot-restore-${restoreId}`;
}

/** Arguments of snapshotRestoreWorkflow: ids only (Temporal rule 2), plus test tuning. */
export interface SnapshotRestoreArgs {
  restore_id: string;
  /** The restored catalog (its word index is caught up after a large restore). */
  catalog_id: string;
  /** Heartbeat timeout of the restore activity (s); default 60. Tests shorten it. */
  heartbeat_timeout_s?: number;
  /** Attempts of the restore activity; default 10. */
  maximum_attempts?: number;
  /** First retry delay (s); default 1, doubling up to a minute. */
  retry_initial_interval_s?: number;
}

/** What the restore activity returns: the restore answer (without `message`) and whether the word index was left behind. */
export interface SnapshotRestoreResult {
  snapshot_id: string;
  safety_snapshot_id: string;
  items_restored: number;
  schema_version: string;
  words_pending?: boolean;
}

/** What snapshotRestoreWorkflow ended with. */
export type SnapshotRestoreOutcome = { status: 'completed'; result: SnapshotRestoreResult } | { status: 'failed'; error: string };

/** Answer of {@link restoreProgressQuery}. */
export interface SnapshotRestoreProgress {
  phase: 'queued' | 'restoring' | 'completed' | 'failed';
  result?: SnapshotRestoreResult;
  error?: string;
}

/** Failure type of a restore that cannot run (catalog, snapshot or its schema version gone): not retried. */
export const RESTORE_NOT_APPLICABLE = 'RestoreNotApplicable';

/** Workflow id of the staging of a console bulk action (workflows/bulk-stage.ts). */
export function bulkStageWorkflowId(activityId: string): string {
  return `bulk-stage-${activityId}`;
}

/** `JobKind` of bulk-action staging workflows. */
export const BULK_STAGE_JOB_KIND = 'bulk-stage';

/** Error type of a bulk action that cannot be staged (its filter or field no longer valid): not retried. */
export const BULK_STAGE_NOT_STAGEABLE = 'BulkStageNotStageable';

/** `JobKind` of a catalog's grid index workflow ({@link gridIndexWorkflowId}). */
export const GRID_INDEX_JOB_KIND = 'grid-index';

/**
 * Workflow id of a catalog's grid index workflow: `grid-index-<catalog_id>`
 * (src/services/catalog/grid/grid-indexes.ts). One per catalog: builds and drops of one catalog's
 * field indexes run one after the other.
 */
export function gridIndexWorkflowId(catalogId: string): string {
  return `grid-index-${catalogId}`;
}

/** Arguments of gridIndexWorkflow: the catalog, plus optional tuning (tests shorten it). */
export interface GridIndexArgs {
  catalog_id: string;
  /** How long the workflow stays open after a pass for another request (s); default 30. */
  linger_s?: number;
  /** Heartbeat timeout of the reconcile activity (s); default 30. */
  heartbeat_timeout_s?: number;
}

/** Result of gridIndexWorkflow: what its passes built, failed and dropped (index names). */
export interface GridIndexResult {
  passes: number;
  built: string[];
  failed: string[];
  dropped: string[];
}

/**
 * Workflow id of the search index maintenance pass a large rewrite of a catalog starts
 * (a restore, import or apply; workflows/churn-maintenance.ts): one id for every catalog, as a
 * pass maintains the whole table's indexes; a rewrite while one runs is covered by it.
 */
export const CHURN_MAINTENANCE_ID = 'search-index-maintenance-after-churn';
