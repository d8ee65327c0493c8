/**
 * A job's taxonomy, loaded once per worker (a taxonomy of 5,595 nodes inline in a
 * request or as the catalog's must cost no more than ~20 ms per item). The job config stores the
 * taxonomy the job uses (request.ts: the request's, else the catalog's); rows read the config
 * without it (src/services/enrichment/rows/rows.ts) and take the taxonomy from here, so every row of a
 * job gets the same object and the engine's compiled taxonomy and classifier index (cached by
 * that object's identity, src/enrichment/taxonomy) are built once per job, not once per row.
 */
import type { Knex } from 'knex';
import type { TaxonomyInput } from '../../../enrichment/types';
import { cachedLoad, type BoundedCache } from '../../../lib/bounded-cache';

/** Loaded taxonomies by job id (EnrichmentCaches.jobTaxonomies, 8 jobs kept). */
export type JobTaxonomyCache = BoundedCache<Promise<TaxonomyInput | undefined>>;

/**
 * The taxonomy of job `jobId` (`config.taxonomy`; undefined when it has none), loaded once: the
 * promise is kept in `cache` by job id (a failed load is forgotten). A job's config never changes after it is created.
 */
export function jobTaxonomy(knex: Knex, cache: JobTaxonomyCache, jobId: string): Promise<TaxonomyInput | undefined> {
  return cachedLoad(cache, jobId, () =>
    knex('enrichment_jobs')
      .where({ id: jobId })
      .first(knex.raw("config -> 'taxonomy' AS taxonomy"))
      .then((row: { taxonomy: TaxonomyInput | null } | undefined) => row?.taxonomy ?? undefined),
  );
}
