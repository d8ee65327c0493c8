/**
 * The dependency object of the HTTP app: everything routes and services need that is created
 * once per process (database, job runner, configuration, limits). Routes import this type from
 * here, never from app.ts, so app.ts → routes is the only direction (docs/architecture.md "Map of folders").
 */
import type { Knex } from 'knex';
import type { Config } from './config';
import type { UploadLimits } from './middleware/upload';
import type { ServiceCaches } from './services/service-caches';
import type { JobRunner } from './services/job-runner';

/** Everything the HTTP app needs; tests pass their own (real) instances. */
export interface AppDeps {
  config: Config;
  knex: Knex;
  jobRunner: JobRunner;
  /** Multipart enrich upload limits (src/middleware/upload.ts); default DEFAULT_UPLOAD_LIMITS. */
  uploadLimits?: UploadLimits;
  /** Restores of snapshots with at least this many items defer the word index (src/services/catalog/search/search-words.ts; default SEARCH_WORDS_DEFER_MIN_ITEMS). */
  searchWordsDeferMinItems?: number;
  /** The services' caches (src/services/service-caches.ts); createApp makes fresh ones when absent. */
  caches?: ServiceCaches;
}

/** AppDeps after createApp filled in what was left out: what route factories receive. */
export type ResolvedAppDeps = AppDeps & { caches: ServiceCaches };
