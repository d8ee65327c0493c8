/**
 * The target catalog's categorised items as examples for `predict_taxonomy` ("with
 * the catalog's own categorised items as examples"; `npm run eval -- taxonomy` measures the
 * mechanism): items with a `category_id` and a title-like text, whose nearest-neighbour votes
 * join the classifier's term scoring (src/enrichment/taxonomy/examples.ts).
 *
 * Read once per job and worker (cached by job id) from the items created before the job was, so
 * every row of a job, on any worker, learns from the same items whatever the job itself applies.
 */
import type { Knex } from 'knex';
import type { CategoryExample } from '../../../enrichment/types';
import { cachedLoad, type BoundedCache } from '../../../lib/bounded-cache';

/** Loaded examples by job id (EnrichmentCaches.jobCategoryExamples, 8 jobs kept). */
export type JobCategoryExamplesCache = BoundedCache<Promise<CategoryExample[]>>;

/** Categorised items read at most (newest first): bounds the memory and the training time. */
export const CATEGORY_EXAMPLE_ITEMS = 5000;
/** Item fields read as the example's text, in this order (the classifier's title fields). */
const TEXT_KEYS = ['name', 'title', 'product_name', 'product_title'];

/**
 * The categorised items of job `jobId`'s catalog ([] when the job has no catalog or does not
 * predict categories): at most {@link CATEGORY_EXAMPLE_ITEMS} items created before the job, newest
 * first, with a non-blank `category_id` and a title-like field ({@link TEXT_KEYS}, joined). The
 * promise is kept in `cache` (a failed load is forgotten).
 */
export function jobCategoryExamples(knex: Knex, cache: JobCategoryExamplesCache, jobId: string): Promise<CategoryExample[]> {
  return cachedLoad(cache, jobId, () => loadExamples(knex, jobId));
}

async function loadExamples(knex: Knex, jobId: string): Promise<CategoryExample[]> {
  const job = (await knex('enrichment_jobs')
    .where({ id: jobId })
    .first('created_at', knex.raw("config -> 'catalog_target' ->> 'catalog_id' AS catalog_id"), knex.raw("config ->> 'predict_taxonomy' AS predict"))) as
    { created_at: Date; catalog_id: string | null; predict: string | null } | undefined;
  if (!job?.catalog_id || job.predict !== 'true') return [];
  const text = `concat_ws(' ', ${TEXT_KEYS.map(() => 'data ->> ?').join(', ')})`;
  const { rows } = (await knex.raw(
    `SELECT data ->> 'category_id' AS category_id, ${text} AS text FROM catalog_items
     WHERE catalog_id = ? AND created_at <= ? AND btrim(coalesce(data ->> 'category_id', '')) <> ''
     ORDER BY created_at DESC, id DESC LIMIT ?`,
    [...TEXT_KEYS, job.catalog_id, job.created_at, CATEGORY_EXAMPLE_ITEMS],
  )) as { rows: Array<{ category_id: string; text: string }> };
  return rows.filter((r) => r.text.trim()).map((r) => ({ text: r.text, category_id: r.category_id }));
}
