/**
 * Apply of a review activity with 100,000 approved updates (≤ 10 s including the pre-apply snapshot). Seeds a 100,000-item catalog (20-field schema, strict
 * mode) and one activity whose 100,000 approved staged changes each change two fields (`price`
 * and `title`, so the search columns change too), then runs the apply activity's work
 * (src/services/review/apply.ts `runApply`: the `pre_apply` snapshot, then the one transaction)
 * directly, without Temporal: the workflow adds a start and one activity round trip.
 *
 * Baseline in the same run: a raw SQL `UPDATE … FROM` of the same rows on an identical second
 * catalog, merging the same after-data and bumping `current_version` (the row triggers that keep
 * the search columns right fire for it too), reported as `ratio` = apply / raw. Verifies every
 * item was updated exactly once and every change marked applied. Prints one JSON line with the
 * 1-minute load average at start and end (the machine is shared).
 */
import { createCatalogCaches } from '../src/services/catalog/catalog-caches';
import { runApply } from '../src/services/review/apply';
import { createBenchCatalog, loadAvg, runBench, seedItems, since } from './lib';
import type { Bench } from './lib';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 100000);

/** Inserts a pending_review activity on the catalog with one approved change per item (set-based). */
async function seedActivity(b: Bench, catalogId: string): Promise<string> {
  const { rows } = await b.knex.raw(
    `INSERT INTO review_activities (id, organization_id, catalog_id, type, status, description)
     VALUES (gen_random_uuid(), ?, ?, 'custom_transform', 'pending_review', 'bench') RETURNING id`,
    [b.organizationId, catalogId],
  );
  const activityId = rows[0].id as string;
  await b.knex.raw(
    `INSERT INTO staged_changes (id, activity_id, organization_id, catalog_id, catalog_item_id, before_data, after_data, row_index, status, base_version)
     SELECT gen_random_uuid(), ?, ?, ?, ci.id,
       jsonb_build_object('price', ci.data->'price', 'title', ci.data->'title'),
       jsonb_build_object('price', (ci.data->>'price')::numeric + 1, 'title', (ci.data->>'title') || ' Reworked'),
       (row_number() OVER (ORDER BY ci.created_at))::int - 1, 'approved', ci.current_version
     FROM catalog_items ci WHERE ci.catalog_id = ?`,
    [activityId, b.organizationId, catalogId, catalogId],
  );
  await b.knex.raw('ANALYZE staged_changes');
  return activityId;
}

/**
 * The benchmark of this file's header on a running {@link Bench}, with `N` items; returns its figures
 * (the JSON line's fields).
 */
export async function measureReviewApply(b: Bench, N: number = ITEMS): Promise<Record<string, unknown>> {
  const loadStart = loadAvg();
  const applied = await createBenchCatalog(b, 'review apply');
  const raw = await createBenchCatalog(b, 'review apply baseline');
  await seedItems(b, applied, N);
  await seedItems(b, raw, N);
  const activityId = await seedActivity(b, applied);
  const rawActivityId = await seedActivity(b, raw);
  await b.knex.raw('VACUUM ANALYZE catalog_items');
  await b.knex.raw('VACUUM ANALYZE staged_changes');

  // Baseline first (so the apply does not profit from a warmer cache than it).
  let t = performance.now();
  await b.knex.raw(
    `UPDATE catalog_items ci SET data = ci.data || s.after_data, current_version = ci.current_version + 1, updated_at = now()
     FROM staged_changes s WHERE s.activity_id = ? AND s.catalog_item_id = ci.id AND ci.catalog_id = ?`,
    [rawActivityId, raw],
  );
  const rawMs = since(t);

  t = performance.now();
  const result = await runApply(
    { knex: b.knex, caches: createCatalogCaches() },
    { activity_id: activityId, force: false, actor: { kind: 'api_key', id: 'bench' } },
    'bench-run',
  );
  const applyMs = since(t);

  const { rows: check } = await b.knex.raw(
    `SELECT count(*) FILTER (WHERE current_version = 2 AND data->>'title' LIKE '% Reworked' AND search_text LIKE '%reworked%')::int AS updated,
       (SELECT count(*)::int FROM staged_changes WHERE activity_id = ? AND applied_at IS NOT NULL) AS marked,
       (SELECT item_count FROM catalog_snapshots WHERE id = ?) AS snapshot_items
     FROM catalog_items WHERE catalog_id = ?`,
    [activityId, result.pre_apply_snapshot_id, applied],
  );
  const ok = result.applied === N && check[0].updated === N && check[0].marked === N && check[0].snapshot_items === N;
  return {
    bench: 'review-apply',
    changes: N,
    apply_ms: Math.round(applyMs),
    raw_update_from_ms: Math.round(rawMs),
    ratio: Number((applyMs / rawMs).toFixed(2)),
    target_ms: 10000,
    within_target: applyMs <= 10000,
    result,
    ok,
    load_start: loadStart,
  };
}

if (require.main === module) runBench((b) => measureReviewApply(b));
