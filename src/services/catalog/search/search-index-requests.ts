/**
 * Asking Temporal for a catalog's search count index build (src/services/catalog/search/search-count-index.ts),
 * from searches whose count fell back to GIN and from restores, without waiting and at most
 * once per catalog per 30 s from one app.
 */
import { logger } from '../../../lib/logger';
import type { JobRunner } from '../../job-runner';
import type { CatalogCaches } from '../catalog-caches';

/** The part of the JobRunner (src/services/job-runner.ts) that searches use: starting index builds. */
export type SearchIndexBuilds = Pick<JobRunner, 'startSearchIndexBuild'>;

/**
 * Asks for a build of the catalog's search count index, without waiting: starts
 * searchIndexBuildWorkflow (`search-index-<catalog_id>`) through the job runner, which is a
 * no-op while a build of the catalog is open (building, or cooling down after one: at most one
 * build per minute and per 10 × its build time). Called by a search whose count fell back to
 * GIN because the index is missing or stale; the search never waits for the start nor fails
 * with it: if Temporal is unreachable, a warning is logged and counts stay exact through GIN
 * until a later search asks again. At most one request per catalog per 30 s from this app,
 * unless `opts.now` (a restore). `opts.wordsPending`: the catalog's word index is behind a
 * restore, and an open workflow is signalled to catch it up (src/services/catalog/search/search-words.ts).
 * @param jobRunner the API's runner (temporal/client.ts TemporalJobRunner)
 * @param caches the app's catalog caches: `searchIndexRequests` holds the catalogs this app asked
 *   a build for in the last 30 s (CatalogCaches, INDEX_REQUEST_INTERVAL_MS)
 * @param catalog the catalog's id and owning organization (search attributes of the workflow)
 */
export function requestSearchIndexBuild(
  jobRunner: SearchIndexBuilds,
  caches: CatalogCaches,
  catalog: { id: string; organization_id: string },
  opts: { wordsPending?: boolean; now?: boolean } = {},
): void {
  const requested = caches.searchIndexRequests;
  if (!opts.now && requested.has(catalog.id)) return;
  requested.set(catalog.id, true);
  // Through a resolved promise, so even a runner that throws synchronously cannot fail the search.
  Promise.resolve()
    .then(() => jobRunner.startSearchIndexBuild({ id: catalog.id, organization_id: catalog.organization_id }, { wordsPending: opts.wordsPending }))
    .then(
      (started) => logger.info({ catalog_id: catalog.id, started }, started ? 'search count index build started' : 'search count index build already open'),
      (err) => logger.warn({ catalog_id: catalog.id, err }, 'search count index build could not be started (counts use GIN meanwhile)'),
    );
}
