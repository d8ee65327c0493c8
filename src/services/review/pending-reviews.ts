import type { Knex } from 'knex';

/**
 * Staged changes waiting for a reviewer (`pending`) per catalog (the home page),
 * over the catalog's activities that still take reviews (not cancelled or failed; drafts are
 * not pending, docs/api-review.md "Drafts").
 * @param catalogIds catalogs the caller already checked belong to its organization
 * @returns catalog id → pending changes (catalogs without any absent)
 */
export async function pendingReviewCounts(knex: Knex, catalogIds: string[]): Promise<Record<string, number>> {
  if (!catalogIds.length) return {};
  const rows: Array<{ catalog_id: string; n: string }> = await knex('staged_changes as s')
    .join('review_activities as a', 'a.id', 's.activity_id')
    .whereIn('a.catalog_id', catalogIds)
    .whereIn('a.status', ['created', 'pending_review', 'completed'])
    .where('s.status', 'pending')
    .groupBy('a.catalog_id')
    .select('a.catalog_id', knex.raw('count(*) AS n'));
  return Object.fromEntries(rows.map((r) => [r.catalog_id, Number(r.n)]));
}
