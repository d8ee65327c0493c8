/**
 * Snapshot and restore of a 100,000-item catalog: the snapshot through HTTP, each restore through
 * the service the restore workflow's activity runs (`restoreSnapshot`: the API starts
 * snapshot-restore-<id>, whose queueing this bench leaves out). After the snapshot, 10% of the
 * items are changed, 1% deleted and 1,000 added, then the snapshot is restored (which first
 * takes a safety snapshot of the changed state); a second restore returns to the safety
 * snapshot, and a third after changing EVERY item measures the worst case. Verifies the
 * restored rows equal the snapshot in every column (ids, type, parent, key, data, search
 * columns, source_info, version, timestamps) and `item_count`. Restores of 100,000 items leave
 * the word index behind (src/services/catalog/search/search-words.ts): the bench times a search meanwhile,
 * the catch-up (run directly; the service runs it in searchIndexBuildWorkflow) and the same
 * search after it, and checks the indexed column then equals the snapshot's too. Each restore's
 * row updates and how many stayed heap-only (`hot_updates`) are printed beside its time. Another catalog
 * keeps a sort key, as on a server where one sorted list of a large catalog was asked for. Prints one JSON line with the
 * 1-minute load average at start and end (the machine is shared). Target: snapshot and
 * restore ≤ 5 s each.
 */
import type { Scope } from '../src/services/access/scope';
import { catchUpSearchWords } from '../src/services/catalog/search/search-words';
import { restoreSnapshot } from '../src/services/catalog/snapshots/snapshots';
import { type Bench, createBenchCatalog, loadAvg, seedItems, since, runBench } from './lib';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 100000);

/**
 * The benchmark of this file's header on a running {@link Bench}, with `N` items; returns its figures
 * (the JSON line's fields).
 */
export async function measureSnapshotRestore(b: Bench, N: number = ITEMS): Promise<Record<string, unknown>> {
  const loadStart = loadAvg();
  const catalog = await createBenchCatalog(b, 'snapshots');
  await seedItems(b, catalog, N);
  // Another catalog keeps a sort key (as one sorted list of a large catalog makes it do): the
  // key triggers then run for every catalog's writes (docs/large-catalogs.md "Sorting by a data field").
  const sorted = await createBenchCatalog(b, 'snapshots-sorted');
  await b.knex('catalog_sort_fields').insert({ catalog_id: sorted, field: 'price', ready: true });
  const scope: Scope = { organizationId: b.organizationId, principal: { kind: 'api_key', id: 'bench', organizationIds: [b.organizationId] } };
  /**
   * The table's row updates so far and how many of them were heap-only: a restore's time depends
   * on how many of its updates found room on their page (a HOT update writes no index entry).
   * Read after a pause: a backend reports its counters up to a second after its commit.
   */
  const updateCounts = async () => {
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await b.knex.raw('SELECT pg_stat_clear_snapshot()');
    return (await b.knex.raw("SELECT n_tup_upd::int AS updates, n_tup_hot_upd::int AS hot FROM pg_stat_user_tables WHERE relname = 'catalog_items'"))
      .rows[0] as {
      updates: number;
      hot: number;
    };
  };
  const restoreTo = async (snapshotId: string) => {
    const counts = await updateCounts();
    const t = performance.now();
    const json = await restoreSnapshot({ knex: b.knex, caches: b.caches, jobRunner: { startSearchIndexBuild: async () => true } }, scope, catalog, snapshotId);
    const ms = since(t);
    const now = await updateCounts();
    return { ms, json, updates: now.updates - counts.updates, hot: now.hot - counts.hot };
  };
  /** `POST …/snapshots` through the typed client, timed. */
  const takeSnapshot = async (reason: string) => {
    const t = performance.now();
    const { data, error, response } = await b.api.POST('/api/public/catalogs/{catalog_id}/snapshots', {
      params: { path: { catalog_id: catalog } },
      body: { reason },
    });
    if (response.status !== 200 || !data) throw new Error(`/snapshots: ${response.status} ${JSON.stringify(error)}`);
    return { ms: since(t), json: data as { id: string } };
  };
  // Rows as a restore must leave them; `words`: the word vector compared (each row's current
  // one, or the indexed column, which equals it once the word index caught up).
  const fingerprint = async (words = 'coalesce(search_tsv_pending, search_tsv)') =>
    (
      await b.knex.raw(
        `SELECT count(*)::int AS n, md5(string_agg(concat_ws('|', id, entity_type, parent_id, business_key, data, search_text, ${words}, source_info,
       current_version, created_at, updated_at), ',' ORDER BY id)) AS h, (SELECT item_count FROM catalogs WHERE id = ?) AS item_count
     FROM catalog_items WHERE catalog_id = ?`,
        [catalog, catalog],
      )
    ).rows[0];

  const before = await fingerprint();
  const snap = await takeSnapshot('bench');
  await b.knex.raw(
    "UPDATE catalog_items SET data = data || '{\"price\": 1}', current_version = current_version + 1 WHERE catalog_id = ? AND (data->>'stock')::int % 10 = 0",
    [catalog],
  );
  await b.knex.raw("DELETE FROM catalog_items WHERE catalog_id = ? AND (data->>'stock')::int % 100 = 1", [catalog]);
  await b.knex.raw(
    `INSERT INTO catalog_items (id, catalog_id, business_key, data) SELECT gen_random_uuid(), ?, 'NEW-' || g, jsonb_build_object('sku', 'NEW-' || g) FROM generate_series(1, 1000) g`,
    [catalog],
  );
  const restore = await restoreTo(snap.json.id);
  const after = await fingerprint();
  const back = await restoreTo(restore.json.safety_snapshot_id);
  await b.knex.raw('UPDATE catalog_items SET data = data || \'{"price": 2}\', current_version = current_version + 1 WHERE catalog_id = ?', [catalog]);
  const worst = await restoreTo(snap.json.id);
  const afterWorst = await fingerprint();
  // The word index was left behind (search-words.ts): a search meanwhile, then the catch-up the
  // restore asked searchIndexBuildWorkflow for, run here directly.
  const searchMs = async () => {
    const t = performance.now();
    const { data } = await b.api.GET('/api/public/catalogs/{catalog_id}/items', {
      params: { path: { catalog_id: catalog }, query: { search: 'olive boot', limit: 50 } },
    });
    return { ms: since(t), total: (data as { total: number }).total };
  };
  const searchPending = await searchMs();
  const t0 = performance.now();
  const caught = await catchUpSearchWords(b.knex, catalog);
  const catchUpMs = since(t0);
  const searchCaughtUp = await searchMs();
  const indexed = await fingerprint('search_tsv');
  const exact =
    before.n === N &&
    after.n === N &&
    after.h === before.h &&
    afterWorst.h === before.h &&
    after.item_count === N &&
    afterWorst.item_count === N &&
    indexed.h === before.h &&
    caught.cleared &&
    searchPending.total === searchCaughtUp.total;
  const slowest = Math.max(snap.ms, restore.ms, back.ms, worst.ms);
  return {
    bench: 'snapshot_restore',
    items: N,
    snapshot_ms: Math.round(snap.ms),
    restore_12pct_changed_ms: Math.round(restore.ms),
    restore_back_to_safety_ms: Math.round(back.ms),
    restore_all_changed_ms: Math.round(worst.ms),
    // Row updates of each restore and how many stayed heap-only (HOT).
    hot_updates: {
      restore_12pct_changed: `${restore.hot} of ${restore.updates}`,
      restore_back_to_safety: `${back.hot} of ${back.updates}`,
      restore_all_changed: `${worst.hot} of ${worst.updates}`,
    },
    words_catch_up_rows: caught.rows,
    words_catch_up_ms: Math.round(catchUpMs),
    search_while_behind_ms: Math.round(searchPending.ms),
    search_after_catch_up_ms: Math.round(searchCaughtUp.ms),
    search_total: searchPending.total,
    items_restored: restore.json.items_restored,
    restored_exactly: exact,
    target_ms: 5000,
    pass_snapshot: exact && snap.ms <= 5000,
    pass_restore: exact && Math.max(restore.ms, back.ms, worst.ms) <= 5000,
    pass: exact && slowest <= 5000,
    load_start: loadStart,
  };
}

if (require.main === module) runBench((b) => measureSnapshotRestore(b));
