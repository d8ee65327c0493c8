/**
 * Completeness counters (migration 20261202090000, src/services/catalog/grid/completeness-counters.ts;
 * docs/large-catalogs.md "Completeness counters"): the counts the write path keeps equal a full
 * recount (`countCompleteness`, one scan) after inserts, updates (fields emptied and filled,
 * category moved, variants linked), deletes, a rolled-back write, a snapshot restore (which
 * appends the counts itself, its statements skipping the counter triggers) and a fold of the
 * deltas; the completeness report is served from them.
 */
import type { Knex } from 'knex';
import { newId } from '../../src/lib/ids';
import type { ReadinessProfile } from '../../src/models/readiness-profile';
import type { Scope } from '../../src/services/access/scope';
import { createCatalogCaches } from '../../src/services/catalog/catalog-caches';
import { countCompleteness, type CompletenessCounts } from '../../src/services/catalog/grid/completeness';
import { compactFillCounts, countsFromGroups, readFillGroups } from '../../src/services/catalog/grid/completeness-counters';
import { completenessReport } from '../../src/services/catalog/grid/completeness-report';
import { loadGridCatalog, type GridCatalog } from '../../src/services/catalog/grid/item-grid';
import { filterSql } from '../../src/services/catalog/items/items-sql';
import { createSnapshot, restoreSnapshot } from '../../src/services/catalog/snapshots/snapshots';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { createGridFixture } from '../helpers/grid-catalog';

let knex: Knex;
let scope: Scope;
let catalogId: string;
let grid: GridCatalog;
const caches = { catalog: createCatalogCaches() };
/** Profiles without rules (derivable from the counters): one of schema fields, one naming a field outside the schema. */
const profiles = [
  { id: 'p1', required_fields: ['brand', 'price'], rules: [] },
  { id: 'p2', required_fields: ['gtin', 'not_in_schema'], rules: [] },
] as unknown as ReadinessProfile[];

beforeAll(async () => {
  knex = testKnex();
  const org = await createTestOrg('completeness counters');
  scope = { organizationId: org.organizationId, principal: { kind: 'api_key', id: 'test', organizationIds: [org.organizationId] } };
  ({ catalogId } = await createGridFixture(org.organizationId));
  grid = await loadGridCatalog({ knex, caches }, scope, catalogId);
}, 60_000);

afterAll(async () => {
  await closeTestKnex();
});

/** Maps to plain objects, sorted, so two counts compare with toEqual. */
function plain(c: CompletenessCounts) {
  return {
    groups: Object.fromEntries([...c.groups.entries()].sort(([a], [b]) => a.localeCompare(b))),
    profiles: Object.fromEntries(c.profiles.entries()),
  };
}

/** The counters' counts and a full recount, for all items and for top-level ones. */
async function both(topLevel: boolean) {
  const fields = Object.keys(grid.types);
  const { groups } = await readFillGroups(knex, catalogId, topLevel);
  const counters = countsFromGroups(groups, grid.rules, fields, profiles)!;
  const recount = await countCompleteness(knex, filterSql(catalogId, { top_level: topLevel }), grid.rules, fields, profiles, grid.types);
  return { counters: plain(counters), recount: plain(recount) };
}

async function expectExact(): Promise<void> {
  for (const topLevel of [false, true]) {
    const { counters, recount } = await both(topLevel);
    expect(counters).toEqual(recount);
  }
}

it('equal a full recount after inserts, updates, deletes, a rollback and a fold', async () => {
  await expectExact();
  const before = await both(false);
  expect(before.counters.groups.shirts.items).toBeGreaterThan(0);
  // Updates: fields emptied (blank, null, [], {}), filled, a category moved, an unchanged rewrite.
  await knex.raw(`UPDATE catalog_items SET data = data || '{"brand": "  ", "size": null}' WHERE catalog_id = ? AND substr(business_key, 5)::int % 11 = 0`, [
    catalogId,
  ]);
  await knex.raw(
    `UPDATE catalog_items SET data = data || '{"title": "Filled", "material": []}' WHERE catalog_id = ? AND substr(business_key, 5)::int % 13 = 0`,
    [catalogId],
  );
  await knex.raw(
    `UPDATE catalog_items SET data = data || '{"category_id": "shoes", "gtin": {}}' WHERE catalog_id = ? AND substr(business_key, 5)::int % 17 = 0`,
    [catalogId],
  );
  await knex.raw(`UPDATE catalog_items SET updated_at = now() WHERE catalog_id = ?`, [catalogId]);
  // Variants: some items become children (not top-level) of another.
  const parent = (await knex('catalog_items').where({ catalog_id: catalogId }).orderBy('created_at').first('id')).id;
  await knex.raw(`UPDATE catalog_items SET parent_id = ?, entity_type = 'variant' WHERE catalog_id = ? AND substr(business_key, 5)::int % 19 = 0 AND id <> ?`, [
    parent,
    catalogId,
    parent,
  ]);
  // Inserts (several rows per statement) and deletes.
  await knex('catalog_items').insert(
    [0, 1, 2, 3, 4].map((i) => ({
      id: newId(),
      catalog_id: catalogId,
      business_key: `NEW-${i}`,
      data: JSON.stringify({ sku: `NEW-${i}`, title: i % 2 ? 'x' : '', category_id: 'shirts', size: 'M', price: i }),
    })),
  );
  await knex.raw(`DELETE FROM catalog_items WHERE catalog_id = ? AND substr(business_key, 5)::int % 23 = 0 AND parent_id IS NULL`, [catalogId]);
  await expectExact();
  const changed = await both(false);
  expect(changed.counters).not.toEqual(before.counters); // the writes did change the counts

  // A rolled-back write leaves the counts as they were.
  await expect(
    knex.transaction(async (trx) => {
      await trx.raw(`UPDATE catalog_items SET data = '{"sku": "gone"}' WHERE catalog_id = ?`, [catalogId]);
      throw new Error('roll back');
    }),
  ).rejects.toThrow('roll back');
  expect((await both(false)).counters).toEqual(changed.counters);

  // Folding the deltas keeps every count and leaves one row per group.
  const folded = await compactFillCounts(knex, catalogId);
  expect(folded.after).toBeLessThan(folded.before);
  expect((await readFillGroups(knex, catalogId, false)).deltaRows).toBe(folded.after);
  await expectExact();
}, 60_000);

it('stay exact through a snapshot restore, and serve the report', async () => {
  const snapshot = await createSnapshot(knex, scope, catalogId, 'counters');
  await knex.raw(`UPDATE catalog_items SET data = data - 'title' - 'brand' WHERE catalog_id = ? AND substr(business_key, 5)::int % 3 = 0`, [catalogId]);
  await knex.raw(`DELETE FROM catalog_items WHERE catalog_id = ? AND substr(business_key, 5)::int % 29 = 0 AND parent_id IS NULL`, [catalogId]);
  await knex.raw(
    `INSERT INTO catalog_items (id, catalog_id, business_key, data) VALUES (gen_random_uuid(), ?, 'new-9999', '{"title": "added after the snapshot"}')`,
    [catalogId],
  );
  await expectExact();
  // The restore appends the counts itself (its statements skip the counter triggers): counted
  // twice, or not at all, the sums would differ from the recount.
  await restoreSnapshot({ knex, caches, jobRunner: { startSearchIndexBuild: async () => true } }, scope, catalogId, snapshot.id);
  await expectExact();
  expect(await knex('catalog_snapshot_fill_counts').where('snapshot_id', snapshot.id).count({ n: '*' })).not.toEqual([{ n: '0' }]);
  // A snapshot taken before its counts were stored: the restore counts its rows instead.
  const older = await createSnapshot(knex, scope, catalogId, 'counters, as an older snapshot');
  await knex('catalog_snapshot_fill_counts').where('snapshot_id', older.id).delete();
  await knex('catalog_snapshots').where('id', older.id).update({ fill_counted: false });
  await knex.raw(`UPDATE catalog_items SET data = data - 'price' WHERE catalog_id = ? AND substr(business_key, 5)::int % 4 = 0`, [catalogId]);
  await restoreSnapshot({ knex, caches, jobRunner: { startSearchIndexBuild: async () => true } }, scope, catalogId, older.id);
  await expectExact();
  // The report's numbers are the counters' (no profiles here: none with rules).
  const report = await completenessReport({ knex, caches }, scope, catalogId);
  const { recount } = await both(grid.grouped);
  const all = Object.values(recount.groups);
  expect(report.total).toBe(all.reduce((n, g) => n + g.items, 0));
  expect(report.complete).toBe(all.reduce((n, g) => n + g.complete, 0));
  expect(report.fields.find((f) => f.field === 'brand')!.empty).toBe(all.reduce((n, g) => n + g.empty.brand, 0));
}, 60_000);

it('are not written by statements whose writer supplies the counts (catalog_items.fill_counts_supplied), as a restore does', async () => {
  const deltas = async (trx: Knex.Transaction) => Number((await trx('catalog_fill_counts').where('catalog_id', catalogId).count({ n: '*' }))[0].n);
  await knex
    .transaction(async (trx) => {
      const before = await deltas(trx);
      await trx.raw("SET LOCAL catalog_items.fill_counts_supplied = 'on'");
      await trx.raw(`UPDATE catalog_items SET data = data - 'brand' WHERE catalog_id = ?`, [catalogId]);
      await trx.raw(`DELETE FROM catalog_items WHERE catalog_id = ? AND substr(business_key, 5)::int % 7 = 0`, [catalogId]);
      expect(await deltas(trx)).toBe(before);
      await trx.raw('SET LOCAL catalog_items.fill_counts_supplied = DEFAULT');
      await trx.raw(`UPDATE catalog_items SET data = data - 'title' WHERE catalog_id = ?`, [catalogId]);
      expect(await deltas(trx)).toBeGreaterThan(before);
      throw new Error('roll back');
    })
    .catch((e: Error) => expect(e.message).toBe('roll back'));
  await expectExact();
}, 60_000);

it('are gone with the catalog', async () => {
  await knex('catalogs').where('id', catalogId).delete();
  expect((await readFillGroups(knex, catalogId, false)).groups).toEqual([]);
});
