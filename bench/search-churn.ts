/**
 * Search right after churn in the same table (docs/large-catalogs.md, "Search right after churn";
 * docs/benchmarks.md, search-churn): a `BENCH_ITEMS`-item catalog (default 200,000; kept between
 * runs in the organization "bench search churn", like bench/search-list.ts) is measured, then
 * rewritten three ways, `BENCH_CHURN_ITEMS` items each (default 10 % of the catalog):
 *
 * - restore: a snapshot, the items changed, the snapshot restored (the restore activity's
 *   service) and the word index caught up (what the restore workflow does next), with one round
 *   of every search in between (`before_catch_up`);
 * - import: the items upserted with new titles through `POST …/items/bulk`, 1,000 per request
 *   (the item write path an import uses);
 * - apply: a review activity with one approved change per item applied (`runApply`), then the
 *   word index caught up as the apply workflow does next (an apply of 50,000 items or more leaves
 *   it behind); one round of every search in between (`before_catch_up`), when the apply is
 *   reported done and searches read the catalog's rows.
 *
 * Before the first measurement the first page sorted by `price` is asked for and the field's sort
 * keys built, as the catalog's field index workflow would after that request.
 *
 * After each write, every kind of search (identifiers with punctuation, URLs, phrases, broad
 * words; warm and cold p50/p95 over `BENCH_ROUNDS` / `BENCH_COLD_ROUNDS` rounds), the offset
 * 100,000 page, the first page sorted by a data field and the completeness report are measured
 * `right_after` the write, then `settled`: after `settleAfterLargeWrite`
 * (src/services/catalog/search/post-write-maintenance.ts), the step the restore, import and apply
 * workflows run at their end. Beside each set: the physical limit (the word index's scan of one
 * rare word, EXPLAIN ANALYZE) and the load average. Exact totals are checked against SQL counts.
 *
 * {@link searchChurnBench} returns the figures (for a runner of all benches); run directly
 * (`npx tsx bench/search-churn.ts`) it prints them as one JSON line.
 */
import './env';
import { createCatalogClient } from '@catalog-enrichment/client';
import { createOrganizationWithKey } from '../src/services/access/auth';
import type { Scope } from '../src/services/access/scope';
import { createCatalogCaches } from '../src/services/catalog/catalog-caches';
import { settleAfterLargeWrite } from '../src/services/catalog/search/post-write-maintenance';
import { buildSearchIndex } from '../src/services/catalog/search/search-count-index';
import { catchUpSearchWords } from '../src/services/catalog/search/search-words';
import { buildSortKeys } from '../src/services/catalog/items/sort-keys';
import { restoreSnapshot } from '../src/services/catalog/snapshots/snapshots';
import { runApply } from '../src/services/review/apply';
import { benchItem, createBenchCatalog, loadAvg, runBench, seedItems, since, type Bench } from './lib';
import type { Measured } from './figures';
import { measureSearches, SEARCH_KINDS, type SearchFigures } from './search-churn-measure';

/** Options of {@link searchChurnBench}. */
export interface SearchChurnOptions {
  /** Items of the catalog (default 200,000). */
  items: number;
  /** Items each write rewrites (default 10 % of `items`). */
  churnItems: number;
  /** Warm rounds per measurement (each term once per round). */
  rounds: number;
  /** Cold rounds per measurement. */
  coldRounds: number;
  /** Work on bench/search-list.ts's kept catalog (organization "bench search 1m") instead of this bench's own. */
  reuseSearchList?: boolean;
}

/** Options from the environment (BENCH_ITEMS, BENCH_CHURN_ITEMS, BENCH_ROUNDS, BENCH_COLD_ROUNDS, BENCH_REUSE_SEARCH_LIST=1). */
export function churnOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): SearchChurnOptions {
  const items = Number(env.BENCH_ITEMS ?? 200_000);
  return {
    items,
    churnItems: Number(env.BENCH_CHURN_ITEMS ?? Math.round(items / 10)),
    rounds: Number(env.BENCH_ROUNDS ?? 10),
    coldRounds: Number(env.BENCH_COLD_ROUNDS ?? 3),
    reuseSearchList: env.BENCH_REUSE_SEARCH_LIST === '1',
  };
}

/** The kept catalog of `items` items (seeded on first use) and a client on its organization. */
async function keptCatalog(b: Bench, items: number, reuseSearchList: boolean) {
  const [name, key] = reuseSearchList ? ['bench search 1m', 'ck_benchsearch1m'] : ['bench search churn', 'ck_benchsearchchurn'];
  const organizationId = (await createOrganizationWithKey(b.knex, name, key)).organizationId;
  let catalog = await b.knex('catalogs').where({ organization_id: organizationId, item_count: items }).first('id');
  let seedMs = 0;
  if (!catalog) {
    await b.knex('catalogs').where('organization_id', organizationId).delete();
    const kept = { ...b, organizationId };
    const id = await createBenchCatalog(kept, 'search churn');
    const t = performance.now();
    await seedItems(kept, id, items);
    seedMs = since(t);
    catalog = { id };
  }
  return { organizationId, catalogId: catalog.id as string, seedMs, api: createCatalogClient({ baseUrl: b.baseUrl, token: key }) };
}

/**
 * Runs the sequence of the module comment on bench `b`.
 * @returns the figures: `before`, then per write its time, `right_after`, the settle report and `settled`
 */
export async function searchChurnBench(b: Bench, o: SearchChurnOptions): Promise<Record<string, unknown>> {
  const loadStart = loadAvg();
  const { organizationId, catalogId, seedMs, api } = await keptCatalog(b, o.items, o.reuseSearchList === true);
  const scope: Scope = { organizationId, principal: { kind: 'api_key', id: 'bench', organizationIds: [organizationId] } };
  // A clean start: statistics, pending lists, visibility map, and the search count index.
  await settleAfterLargeWrite(b.knex, catalogId);
  let t = performance.now();
  const indexed = await b.knex('catalogs').where({ id: catalogId, search_indexed: true }).first('id');
  if (!indexed) await buildSearchIndex(b.knex, catalogId);
  const indexBuildMs = since(t);
  // The first list sorted by a data field records the field; the field index workflow then
  // builds its sort keys (buildSortKeys), which the bench app (no workflows) does here.
  await api.GET('/api/public/catalogs/{catalog_id}/items', { params: { path: { catalog_id: catalogId }, query: { limit: 1, sort: 'price:desc' } } });
  t = performance.now();
  await buildSortKeys(b.knex, catalogId);
  const sortKeysMs = since(t);
  const measure = () => measureSearches(b, api, catalogId, o.rounds, o.coldRounds);
  const before = await measure();
  const stamp = Date.now() % 1_000_000;
  const phases: Record<string, unknown> = {};
  const after = async (name: string, writeMs: number, extra: Record<string, unknown> = {}) => {
    const rightAfter = await measure();
    const settle = await settleAfterLargeWrite(b.knex, catalogId);
    const settled = await measure();
    phases[name] = { write_ms: Math.round(writeMs), ...extra, right_after: rightAfter, settle, settled };
  };
  // A restore, or an apply of 50,000 changes or more, commits with the word index behind, and its
  // workflow catches it up next: one round of searches in between, the catch-up, then `after`.
  const afterCatchUp = async (name: string, writeMs: number, extra: Record<string, unknown>) => {
    const beforeCatchUp = await measureSearches(b, api, catalogId, 1, 1);
    const t0 = performance.now();
    const caught = await catchUpSearchWords(b.knex, catalogId);
    await after(name, writeMs, { ...extra, before_catch_up: beforeCatchUp, catch_up_ms: Math.round(since(t0)), words_caught_up: caught.rows });
  };
  // The rewritten items: every tenth-ish item spread over the catalog (sku i with i % step == 0).
  const step = Math.max(1, Math.floor(o.items / o.churnItems));
  const churnWhere = `catalog_id = ? AND (split_part(business_key, '-', 2))::int % ${step} = 0`;

  // 1. Restore.
  const snap = await api.POST('/api/public/catalogs/{catalog_id}/snapshots', { params: { path: { catalog_id: catalogId } }, body: { reason: 'bench churn' } });
  if (snap.response.status !== 200 || !snap.data?.id) throw new Error(`snapshot: ${snap.response.status}`);
  await b.knex.raw(
    `UPDATE catalog_items SET data = data || jsonb_build_object('title', 'Changed ' || (data->>'title')), current_version = current_version + 1 WHERE ${churnWhere}`,
    [catalogId],
  );
  t = performance.now();
  const restored = await restoreSnapshot(
    { knex: b.knex, caches: b.caches, jobRunner: { startSearchIndexBuild: async () => true } },
    scope,
    catalogId,
    snap.data.id,
  );
  await afterCatchUp('restore', since(t), { items_restored: restored.items_restored });
  await b.knex('catalog_snapshots').where('id', snap.data.id).delete(); // its items go with it (trigger)

  // 2. Import: upserts through the item write path, 1,000 per request.
  t = performance.now();
  for (let i = 0; i < o.items; i += step * 1000) {
    const batch = [];
    for (let j = i; j < Math.min(o.items, i + step * 1000); j += step)
      batch.push({ ...benchItem(j), title: `${String(benchItem(j).title)} imported ${stamp}` });
    const res = await api.POST('/api/public/catalogs/{catalog_id}/items/bulk', { params: { path: { catalog_id: catalogId } }, body: { items: batch } });
    if (res.response.status !== 200) throw new Error(`import batch: ${res.response.status}`);
  }
  await after('import', since(t));

  // 3. Apply: one approved change per rewritten item.
  const { rows } = await b.knex.raw(
    `INSERT INTO review_activities (id, organization_id, catalog_id, type, status, description)
     VALUES (gen_random_uuid(), ?, ?, 'custom_transform', 'pending_review', 'bench churn') RETURNING id`,
    [organizationId, catalogId],
  );
  await b.knex.raw(
    `INSERT INTO staged_changes (id, activity_id, organization_id, catalog_id, catalog_item_id, before_data, after_data, row_index, status, base_version)
     SELECT gen_random_uuid(), ?, ?, ?, id, jsonb_build_object('title', data->'title'), jsonb_build_object('title', 'Reworked ' || (data->>'title')),
       (row_number() OVER (ORDER BY created_at))::int - 1, 'approved', current_version
     FROM catalog_items WHERE ${churnWhere}`,
    [rows[0].id, organizationId, catalogId, catalogId],
  );
  t = performance.now();
  const applied = await runApply(
    { knex: b.knex, caches: createCatalogCaches() },
    { activity_id: rows[0].id, force: false, actor: { kind: 'api_key', id: 'bench' } },
    `bench-${stamp}`,
  );
  await afterCatchUp('apply', since(t), { applied: applied.applied });

  const all = [before, ...Object.values(phases).flatMap((p) => [(p as { settled: SearchFigures }).settled])];
  const within = (f: SearchFigures) =>
    Object.values(f.warm).every((k) => k.p95_ms <= 100) && Object.values(f.cold).every((k) => k.p95_ms <= 100) && f.exact_totals && f.completeness_ms <= 300;
  return {
    bench: 'search_churn',
    items: o.items,
    churn_items: o.churnItems,
    rounds: o.rounds,
    cold_rounds: o.coldRounds,
    seed_ms: Math.round(seedMs),
    search_index_build_ms: Math.round(indexBuildMs),
    sort_keys_build_ms: Math.round(sortKeysMs),
    before,
    ...phases,
    target: 'every kind warm and cold p95 <= 100 ms, exact totals, completeness <= 300 ms',
    pass_settled: all.every(within),
    load_start: loadStart,
  };
}

/** The figures of one write's phase of {@link searchChurnBench}'s result. */
interface ChurnPhase {
  right_after: SearchFigures;
  settled: SearchFigures;
  /** Restore and apply: one round between the write's commit and the word index's catch-up. */
  before_catch_up?: SearchFigures;
}

/**
 * The headline figures of a {@link searchChurnBench} result for bench/run-all.ts: per kind of
 * search, warm and cold, the worst p95 right after any of the three writes (target 100 ms); the
 * worst right-after completeness report (300 ms), offset 100,000 page (1 s) and first page sorted
 * by a data field (300 ms); the worst p95 of any kind once settled (100 ms); and the slowest
 * search of the round between a restore's or an apply's commit and the word index's catch-up (100 ms).
 * @throws Error when a total was not exact at some point (the figures would measure wrong answers)
 */
export function churnFigures(r: Record<string, unknown>): Measured[] {
  const phases = ['restore', 'import', 'apply'].map((name) => {
    const p = r[name] as ChurnPhase | undefined;
    if (!p) throw new Error(`search_churn: phase ${name} missing`);
    return p;
  });
  const points = [r.before as SearchFigures, ...phases.flatMap((p) => [p.right_after, p.settled])];
  if (!points.every((f) => f.exact_totals)) throw new Error('search_churn: a total was not exact');
  const worst = (read: (f: SearchFigures) => number, of: SearchFigures[]) => Math.max(...of.map(read));
  const rightAfter = phases.map((p) => p.right_after);
  const out: Measured[] = [];
  for (const temp of ['warm', 'cold'] as const)
    for (const kind of Object.keys(SEARCH_KINDS))
      out.push({
        figure: `churn_${kind}_${temp}_p95`,
        value: worst((f) => f[temp][kind].p95_ms, rightAfter),
        unit: 'ms',
        limit: 'gin_posting',
        target: { max: 100 },
      });
  const time = (figure: string, read: (f: SearchFigures) => number, max: number, of = rightAfter): Measured => ({
    figure,
    value: worst(read, of),
    unit: 'ms',
    limit: 'gin_posting',
    target: { max },
  });
  const settledWorst = (f: SearchFigures) => Math.max(...(['warm', 'cold'] as const).flatMap((t) => Object.values(f[t]).map((k) => k.p95_ms)));
  return [
    ...out,
    time('churn_completeness', (f) => f.completeness_ms, 300),
    time('churn_offset_100k', (f) => f.offset_100k_ms, 1000),
    time('churn_sorted_first_page', (f) => f.sorted_by_price_first_page_ms, 300),
    time(
      'churn_settled_any_p95',
      settledWorst,
      100,
      phases.map((p) => p.settled),
    ),
    time(
      'churn_catching_up_any',
      settledWorst,
      100,
      phases.flatMap((p) => (p.before_catch_up ? [p.before_catch_up] : [])),
    ),
  ];
}

if (process.argv[1]?.endsWith('search-churn.ts')) runBench((b) => searchChurnBench(b, churnOptionsFromEnv()));
