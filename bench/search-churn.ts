/**
 * Searches after churn: a `BENCH_ITEMS`-item catalog (default 200,000) is searched
 * (identifier, phrase and broad terms; p95 over `BENCH_ROUNDS` rounds, default 10), then churned
 * as restores, bulk updates and deletes do (every row rewritten twice with new words, a fifth
 * deleted and written again), searched again, then maintained by `maintainSearchIndexes`
 * (src/services/catalog/index-maintenance.ts, what the hourly schedule runs) and searched a
 * third time. Prints one JSON line with the three sets of figures and the maintenance report.
 * Target: p95 ≤ 100 ms after maintenance.
 */
import './env';
import { maintainSearchIndexes } from '../src/services/catalog/index-maintenance';
import { createBenchCatalog, loadAvg, runBench, seedItems, seedSql, since } from './lib';

const N = Number(process.env.BENCH_ITEMS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const TERMS: Record<string, string[]> = {
  identifier: ['sku-12345', 'MPN4242', '4000000077777'],
  phrase: ['model 996', 'Acme Red'],
  broad: ['wool', 'boot'],
};

function p95(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)]);
}

runBench(async (b) => {
  const loadStart = loadAvg();
  const catalogId = await createBenchCatalog(b, 'search churn');
  await seedItems(b, catalogId, N);
  const measure = async (): Promise<Record<string, number>> => {
    const out: Record<string, number> = {};
    for (const [kind, terms] of Object.entries(TERMS)) {
      const times: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        for (const term of terms) {
          const t = performance.now();
          const { error, response } = await b.api.GET('/api/public/catalogs/{catalog_id}/items', {
            params: { path: { catalog_id: catalogId }, query: { limit: 50, search: term } },
            parseAs: 'arrayBuffer',
          });
          if (!response.ok) throw new Error(`${response.status} ${JSON.stringify(error)}`);
          times.push(since(t));
        }
      }
      out[`${kind}_p95_ms`] = p95(times);
    }
    return out;
  };
  await maintainSearchIndexes(b.knex, { minRows: 0 }); // a clean baseline first
  const fresh = await measure();

  const churnStarted = performance.now();
  for (const word of ['Remade', 'Again']) {
    await b.knex.raw(`UPDATE catalog_items SET data = data || jsonb_build_object('title', ? || ' ' || (data->>'title')) WHERE catalog_id = ?`, [
      word,
      catalogId,
    ]);
  }
  await b.knex.raw(`DELETE FROM catalog_items WHERE catalog_id = ? AND (data->>'stock')::int % 5 = 0`, [catalogId]);
  await b.knex.raw(
    `INSERT INTO catalog_items (id, catalog_id, entity_type, business_key, data, created_at, updated_at)
     SELECT gen_random_uuid(), ?, 'product', 'SKU-' || g, ${seedSql()}, now(), now() FROM generate_series(0, ? - 1) AS g WHERE g % 500 % 5 = 0`,
    [catalogId, N],
  );
  await b.knex.raw('VACUUM ANALYZE catalog_items');
  const churnMs = Math.round(since(churnStarted));
  const afterChurn = await measure();

  const maintenance = await maintainSearchIndexes(b.knex);
  const afterMaintenance = await measure();
  return {
    bench: 'search_churn',
    items: N,
    rounds: ROUNDS,
    fresh,
    after_churn: afterChurn,
    after_maintenance: afterMaintenance,
    churn_ms: churnMs,
    maintenance: maintenance.map((m) => ({
      index: m.index,
      action: m.action,
      bloat: Number((m.bytes_per_row / (m.baseline ?? m.bytes_per_row)).toFixed(2)),
      rebuild_ms: m.rebuild_ms,
    })),
    load_start: loadStart,
  };
});
