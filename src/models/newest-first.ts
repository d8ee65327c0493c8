import type { Model, QueryBuilder } from 'objection';

/**
 * One page of a model query, newest first (`created_at` then `id`, both descending, so pages
 * never overlap on ties), with the exact total of the query; both read concurrently. The list
 * order of catalogs, snapshots, jobs and templates (docs/api-enrichment.md "Enrichment jobs" list routes).
 * @param query the filtered query (not executed; cloned for the page and the count)
 */
export async function newestFirstPage<M extends Model>(
  query: QueryBuilder<M, M[]>,
  page: { limit: number; offset: number },
): Promise<{ rows: M[]; total: number }> {
  const [rows, total] = await Promise.all([
    query
      .clone()
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(page.limit)
      .offset(page.offset),
    query.clone().resultSize(),
  ]);
  return { rows, total };
}
