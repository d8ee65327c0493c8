/**
 * The signals and queries of the workflows: the part of a workflow's interface that needs
 * `@temporalio/workflow`. Everything else the API, the activities and the bundle share (ids, job
 * kinds, argument and progress shapes) is in src/contracts/workflows.ts.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { EnrichmentProgress, ReviewApplyProgress, CatalogImportProgress, FlowRunProgress, SnapshotRestoreProgress } from '../src/contracts/workflows';
import type { FeedRunProgress } from '../src/contracts/feed-workflows';

/** Live progress of an enrichment job (docs/workflows.md "Rules of the craft"; the API reads PostgreSQL). */
export const progressQuery = defineQuery<EnrichmentProgress>('progress');

/**
 * Signal to an open searchIndexBuildWorkflow: a restore left the catalog's word index behind
 * (src/services/catalog/search/search-words.ts), catch it up now rather than after the cool-down. Sent by the
 * API when its start of the workflow found one already open (temporal/client.ts).
 */
export const searchWordsPendingSignal = defineSignal('searchWordsPending');

/** Live progress of an apply (the API reads `review_activities.apply_progress`). */
export const applyProgressQuery = defineQuery<ReviewApplyProgress>('progress');

/** `progress` query of catalogImportWorkflow. */
export const importProgressQuery = defineQuery<CatalogImportProgress>('progress');

/** Live progress of a flow run. */
export const flowRunProgressQuery = defineQuery<FlowRunProgress>('progress');

/** Live progress of a restore (the API and the page read `snapshot_restores`). */
export const restoreProgressQuery = defineQuery<SnapshotRestoreProgress>('progress');

/** Signal to the open grid index workflow of a catalog: look at its `catalog_field_indexes` rows again. */
export const gridIndexRequestedSignal = defineSignal('gridIndexRequested');

/** Live progress of a feed run (the API reads `feed_runs`). */
export const feedRunProgressQuery = defineQuery<FeedRunProgress>('progress');
