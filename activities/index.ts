/**
 * The one place that wires every activity group the worker registers: the
 * enrichment activities (./enrichment.ts) and, with a database, the search count index, grid
 * index, review apply (./apply.ts), snapshot restore, bulk action, search maintenance, flow-run,
 * import, research archive and feed-run activities. temporal/worker.ts registers the result, timed.
 */
import type { Knex } from 'knex';
import type { Config } from '../src/config';
import type { EnrichmentEngine } from '../src/enrichment/types';
import { createCatalogCaches } from '../src/services/catalog/catalog-caches';
import type { MaintenanceOptions } from '../src/services/catalog/search/index-maintenance';
import { enrichmentStorage } from '../src/services/enrichment/rows/artifacts';
import type { ResearchSettings } from '../src/services/enrichment/jobs/jobs';
import type { PythonSessionFactory } from '../src/services/flows/nodes/custom-code';
import { pythonSandbox } from '../src/services/flows/python';
import { createApplyActivities } from './apply';
import { createBulkActionActivities } from './bulk-actions';
import { type ActivityDeps, createEnrichmentActivities, type EnrichmentActivities } from './enrichment';
import { createFeedActivities } from './feeds';
import { createFlowActivities } from './flows';
import { createGridIndexActivities } from './grid-index';
import { createImportActivities } from './imports';
import { createResearchArchiveActivities } from './research-archives';
import { createSearchIndexActivities } from './search-index';
import { createSearchMaintenanceActivities } from './search-maintenance';
import { createSnapshotRestoreActivities } from './snapshot-restore';

/** What the activity groups need. */
export interface ActivityGroupDeps {
  /**
   * Real adapters need `knex` + `engine`; tests may pass fake `activities` instead. With `knex`
   * the worker also runs the search count index activity (activities/search-index.ts) and the
   * review apply and snapshot restore activities (activities/apply.ts, activities/snapshot-restore.ts).
   */
  knex?: Knex;
  engine?: EnrichmentEngine;
  activities?: EnrichmentActivities;
  /**
   * The service's configuration (src/config.ts): what `storage`, `python` and `research` default
   * to when not given.
   */
  config: Config;
  /** Webhook settings of the real activities (activities/enrichment.ts ActivityDeps). */
  publicUrl?: string;
  allowHttpWebhooks?: boolean;
  webhookTimeoutMs?: number;
  /** Artifact and media storage and caches of the real activities (activities/enrichment.ts ActivityDeps). */
  storage?: ActivityDeps['storage'];
  caches?: ActivityDeps['caches'];
  /** Row attempts that reschedule on Retry-After (activities/enrichment.ts ActivityDeps). */
  fetchRetryAttempts?: number;
  /** Rendering settings of the rows (activities/enrichment.ts ActivityDeps); default off. */
  render?: ActivityDeps['render'];
  /** Updates from which an apply defers the word index (activities/apply.ts); default as restores (50,000). Tests lower it. */
  applyDeferWordsMinItems?: number;
  /** Snapshot items from which a restore defers the word index (activities/snapshot-restore.ts); default 50,000 (src/services/catalog/search/search-words.ts). Tests lower it. */
  restoreDeferWordsMinItems?: number;
  /** Thresholds of search index maintenance (activities/search-maintenance.ts); tests lower them. */
  searchMaintenance?: MaintenanceOptions;
  /**
   * Starts the Python interpreter of a flow's custom_code node (activities/flows.ts); default:
   * the bubblewrap sandbox of the environment's configuration (src/sandbox).
   */
  python?: PythonSessionFactory;
  /**
   * The research settings an enrich node's job is checked against (activities/flows.ts);
   * default: the environment's configuration.
   */
  research?: ResearchSettings;
}

/**
 * Builds every activity group over `deps`.
 * @returns every activity function by its registered name (the Temporal activity type)
 * @throws Error when neither `activities` nor `knex` + `engine` are given
 */
export function createActivityGroups(deps: ActivityGroupDeps): object {
  const storage = deps.storage ?? enrichmentStorage(deps.config);
  let activities = deps.activities;
  if (!activities) {
    if (!deps.knex || !deps.engine) throw new Error('the activities need activities, or knex and engine');
    activities = createEnrichmentActivities({
      knex: deps.knex,
      engine: deps.engine,
      publicUrl: deps.publicUrl,
      allowHttpWebhooks: deps.allowHttpWebhooks,
      webhookTimeoutMs: deps.webhookTimeoutMs,
      storage,
      caches: deps.caches,
      fetchRetryAttempts: deps.fetchRetryAttempts,
      render: deps.render,
    });
  }
  const searchIndex = deps.knex ? createSearchIndexActivities({ knex: deps.knex }) : {};
  const gridIndex = deps.knex ? createGridIndexActivities({ knex: deps.knex }) : {};
  const apply = deps.knex ? createApplyActivities({ knex: deps.knex, searchWordsDeferMinItems: deps.applyDeferWordsMinItems }) : {};
  const restores = deps.knex ? createSnapshotRestoreActivities({ knex: deps.knex, searchWordsDeferMinItems: deps.restoreDeferWordsMinItems }) : {};
  const bulk = deps.knex ? createBulkActionActivities({ knex: deps.knex }) : {};
  const maintenance = deps.knex ? createSearchMaintenanceActivities(deps.knex, deps.searchMaintenance) : {};
  const imports = deps.knex ? createImportActivities({ knex: deps.knex }) : {};
  const researchArchives = deps.knex ? createResearchArchiveActivities({ knex: deps.knex, blobs: storage.blobs }) : {};
  const feeds = deps.knex ? createFeedActivities({ knex: deps.knex, blobs: storage.blobs }) : {};
  const flows = deps.knex
    ? createFlowActivities({
        knex: deps.knex,
        caches: { catalog: createCatalogCaches() },
        publicUrl: deps.publicUrl ?? 'http://127.0.0.1:8080',
        python: deps.python ?? pythonSandbox(deps.config),
        research: deps.research ?? deps.config,
      })
    : {};
  return {
    ...activities,
    ...searchIndex,
    ...gridIndex,
    ...apply,
    ...restores,
    ...bulk,
    ...maintenance,
    ...flows,
    ...imports,
    ...researchArchives,
    ...feeds,
  };
}
