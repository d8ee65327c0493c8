/**
 * Whether a snapshot restore's row updates stay heap-only (HOT), A/B in one database and one run
 * (docs/benchmarks.md, "Restore regression"): a `BENCH_ITEMS`-item catalog (default 100,000) is
 * snapshotted; then, `BENCH_ROUNDS` times (default 2), every row's `data` is changed and the
 * snapshot restored through `restoreSnapshot` (what the restore workflow's activity runs), in
 * four set-ups (`setup`): the table as it is (`none`); with an extra expression index over `data`
 * (`data_index`: the index that caused the regression, and the form grid field indexes had before
 * migration 20261208090000; created before and dropped after); with a grid field's keys kept for
 * another catalog (`grid_keys_elsewhere`); and with the restored field's own keys kept for this
 * catalog (`grid_keys_here`: what a console sort by price leaves, docs/console.md "Grid field
 * indexes"; every restored row rewrites its key). Prints one JSON line per restore: its time, the
 * restore's updates and HOT updates (from `pg_stat_user_tables`, read around it), the load.
 * Expected: nearly every update HOT but with `data_index`, none with it.
 */
import type { Scope } from '../src/services/access/scope';
import { buildSortKeys } from '../src/services/catalog/items/sort-keys';
import { restoreSnapshot, takeSnapshot } from '../src/services/catalog/snapshots/snapshots';
import { createBenchCatalog, loadAvg, seedItems, since, startBench } from './lib';

const N = Number(process.env.BENCH_ITEMS ?? 100000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

async function main(): Promise<void> {
  const b = await startBench();
  try {
    const catalog = await createBenchCatalog(b, 'restore hot');
    await seedItems(b, catalog, N);
    // Another catalog, for a grid field kept elsewhere.
    const other = await createBenchCatalog(b, 'restore hot other');
    await seedItems(b, other, 1000);
    const scope: Scope = { organizationId: b.organizationId, principal: { kind: 'api_key', id: 'bench', organizationIds: [b.organizationId] } };
    const snap = await b.knex.transaction((trx) => takeSnapshot(trx, scope, catalog, 'manual', 'restore hot'));
    // Statistics reach pg_stat_user_tables when a backend reports them (at most once a second).
    const stats = async (): Promise<{ u: number; h: number }> => {
      await new Promise((r) => setTimeout(r, 1200));
      await b.knex.raw('SELECT pg_stat_clear_snapshot()');
      return (await b.knex.raw("SELECT n_tup_upd::int AS u, n_tup_hot_upd::int AS h FROM pg_stat_user_tables WHERE relname = 'catalog_items'")).rows[0];
    };
    for (let round = 1; round <= ROUNDS; round++) {
      for (const setup of ['none', 'data_index', 'grid_keys_elsewhere', 'grid_keys_here'] as const) {
        const extraIndex = setup === 'data_index';
        if (extraIndex) await b.knex.raw("CREATE INDEX bench_restore_hot_data ON catalog_items (catalog_id, (data ->> 'category_id'))");
        const keysOf = setup === 'grid_keys_elsewhere' ? other : setup === 'grid_keys_here' ? catalog : null;
        if (keysOf) {
          await b.knex('catalog_sort_fields').insert({ catalog_id: keysOf, field: 'price' });
          await buildSortKeys(b.knex, keysOf);
        }
        await b.knex.raw(
          `UPDATE catalog_items SET data = data || jsonb_build_object('price', ?::int), current_version = current_version + 1 WHERE catalog_id = ?`,
          [round, catalog],
        );
        const s0 = await stats();
        const t = performance.now();
        await restoreSnapshot({ knex: b.knex, caches: b.caches, jobRunner: { startSearchIndexBuild: async () => true } }, scope, catalog, snap.id);
        const ms = since(t);
        const s1 = await stats();
        if (extraIndex) await b.knex.raw('DROP INDEX bench_restore_hot_data');
        if (keysOf) await b.knex('catalog_sort_fields').where({ catalog_id: keysOf, field: 'price' }).delete();
        console.log(
          JSON.stringify({
            bench: 'restore_hot',
            items: N,
            round,
            setup,
            restore_ms: Math.round(ms),
            updates: s1.u - s0.u,
            hot: s1.h - s0.h,
            load: loadAvg(),
          }),
        );
      }
    }
  } finally {
    await b.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
