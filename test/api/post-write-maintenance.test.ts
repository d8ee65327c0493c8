/**
 * What the service does after a large write to the items table
 * (src/services/catalog/search/post-write-maintenance.ts `settleAfterLargeWrite`; docs/large-catalogs.md,
 * "Search right after churn"): the table's statistics are fresh (last ANALYZE advanced, rows
 * modified since it back to 0), the GIN pending list of the word index is merged
 * (pgstattuple's `pgstatginindex`), the table is vacuumed (all-visible pages up), and the
 * catalog's completeness counter deltas are folded.
 */
import type { Knex } from 'knex';
import { SEARCH_GIN_INDEXES, settleAfterLargeWrite } from '../../src/services/catalog/search/post-write-maintenance';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';

let knex: Knex;

beforeAll(async () => {
  knex = testKnex();
  await knex.raw('CREATE EXTENSION IF NOT EXISTS pgstattuple');
});

afterAll(async () => {
  await closeTestKnex();
});

/** The items table's statistics (a fresh snapshot of them). */
async function tableStats(): Promise<{ analyzed: number; modified: number; vacuums: number; allVisible: number }> {
  const { rows } = await knex.raw(
    `SELECT pg_stat_clear_snapshot(), extract(epoch FROM last_analyze) * 1000 AS analyzed, n_mod_since_analyze AS modified,
       vacuum_count AS vacuums, (SELECT relallvisible FROM pg_class WHERE oid = 'catalog_items'::regclass) AS all_visible
     FROM pg_stat_user_tables WHERE relid = 'catalog_items'::regclass`,
  );
  const r = rows[0];
  return { analyzed: Number(r.analyzed ?? 0), modified: Number(r.modified), vacuums: Number(r.vacuums), allVisible: Number(r.all_visible) };
}

/** Pending-list pages of a GIN index. */
async function pendingPages(index: string): Promise<number> {
  const { rows } = await knex.raw('SELECT pending_pages FROM pgstatginindex(?::regclass)', [index]);
  return Number(rows[0].pending_pages);
}

it('analyzes, merges the GIN pending lists, vacuums and folds the counters after a large write', async () => {
  const { organizationId } = await createTestOrg('post-write maintenance');
  const catalogId = await createTestCatalog(organizationId);
  const before = await tableStats();
  // A large write in batches (each statement appends completeness deltas), its statistics flushed at commit.
  await knex.transaction(async (trx) => {
    for (let at = 0; at < 6000; at += 1000) {
      await trx.raw(
        `INSERT INTO catalog_items (id, catalog_id, entity_type, business_key, data)
         SELECT gen_random_uuid(), ?, 'product', 'w-' || g, jsonb_build_object('sku', 'w-' || g, 'title', 'settle word' || g, 'price', g % 7)
         FROM generate_series(?::int, ? - 1) AS g`,
        [catalogId, at, at + 1000],
      );
      await trx.raw(`UPDATE catalog_items SET data = data || '{"brand": "B"}' WHERE catalog_id = ? AND (data->>'price')::int = ?`, [catalogId, at / 1000]);
    }
    await trx.raw('SELECT pg_stat_force_next_flush()');
  });
  const written = await tableStats();
  expect(written.modified).toBeGreaterThanOrEqual(6000);
  for (const index of SEARCH_GIN_INDEXES) expect(await pendingPages(index)).toBeGreaterThan(0);

  const report = await settleAfterLargeWrite(knex, catalogId);

  const settled = await tableStats();
  expect(settled.analyzed).toBeGreaterThan(before.analyzed);
  expect(settled.modified).toBe(0);
  for (const index of SEARCH_GIN_INDEXES) {
    expect(await pendingPages(index)).toBe(0);
    expect(report.pending_pages_merged[index]).toBeGreaterThan(0);
  }
  expect(report.vacuum).toBe('done');
  expect(settled.vacuums).toBe(written.vacuums + 1);
  // Not asserted: how many pages VACUUM can mark all-visible depends on the oldest snapshot any
  // other session of the shared test database holds (the vacuum count above proves it ran).
  expect(report.fill_counts.before).toBeGreaterThan(report.fill_counts.after);
  const { rows } = await knex.raw('SELECT count(*)::int AS n, sum(n)::int AS items FROM catalog_fill_counts WHERE catalog_id = ?', [catalogId]);
  expect(rows[0]).toEqual({ n: report.fill_counts.after, items: 6000 });
}, 120_000);
