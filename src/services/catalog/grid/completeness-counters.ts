/**
 * Completeness from the counters the write path keeps (migration 20261202090000,
 * docs/large-catalogs.md "Completeness counters"): `catalog_fill_counts` counts a catalog's items
 * per (top-level or not, `category_id` value, sorted set of filled top-level keys), appended as
 * deltas by statement triggers in the writing transaction. Every number of the completeness report
 * follows from these groups: an item is complete when its filled set holds every field its node
 * requires, a field is empty for the items whose set lacks it, a readiness profile without rules
 * is met when its set holds the profile's required fields. Reading them costs a few rows per group
 * instead of a scan of every item (11 s cold at 1,000,000 items), and it stays exact right after
 * any write. Profiles with rules (value conditions) are not derivable from filled sets: the report
 * counts those by scanning (completeness-report.ts).
 * Set-based SQL by design (architecture.md, data access): grouped sums the query builder cannot express.
 */
import type { Knex } from 'knex';
import type { ReadinessProfile } from '../../../models/readiness-profile';
import { requiredFields, type CompletenessCounts, type GroupCounts, type ProfileCounts, type RequiredRules } from './completeness';

/** One group of a catalog's items with the same category and filled keys. */
export interface FillGroup {
  /** `category_id` value as text ('' for none). */
  category: string;
  /** Top-level keys of `data` whose values are filled (sorted). */
  filled: string[];
  /** Items in the group (> 0). */
  n: number;
}

/** Delta rows of one catalog beyond which a read folds them into one row per group. */
export const COMPACT_AFTER_ROWS = 512;

/**
 * The groups of a catalog's items (top-level ones only when `topLevelOnly`, as a product-grouped
 * grid lists them), summed over the delta rows, in the caller's snapshot; exact.
 */
export async function readFillGroups(
  knex: Knex | Knex.Transaction,
  catalogId: string,
  topLevelOnly: boolean,
): Promise<{ groups: FillGroup[]; deltaRows: number }> {
  const { rows } = (await knex.raw(
    `SELECT category, filled, sum(n)::bigint AS n, count(*)::int AS deltas FROM catalog_fill_counts
     WHERE catalog_id = ? ${topLevelOnly ? 'AND top_level' : ''} GROUP BY category, filled`,
    [catalogId],
  )) as { rows: Array<{ category: string; filled: string[]; n: string; deltas: number }> };
  let deltaRows = 0;
  const groups: FillGroup[] = [];
  for (const r of rows) {
    deltaRows += r.deltas;
    if (Number(r.n) !== 0) groups.push({ category: r.category, filled: r.filled, n: Number(r.n) });
  }
  return { groups, deltaRows };
}

/**
 * Folds a catalog's delta rows into one row per group (groups summing to zero disappear), in one
 * statement: the rows it deletes are exactly the ones it sums, so deltas appended meanwhile by
 * concurrent writers are kept and the sums stay exact.
 * @returns delta rows before and group rows after
 */
export async function compactFillCounts(knex: Knex, catalogId: string): Promise<{ before: number; after: number }> {
  const { rows } = (await knex.raw(
    `WITH gone AS (DELETE FROM catalog_fill_counts WHERE catalog_id = ? RETURNING catalog_id, top_level, category, filled, n),
     kept AS (
       INSERT INTO catalog_fill_counts (catalog_id, top_level, category, filled, n)
       SELECT catalog_id, top_level, category, filled, sum(n) FROM gone GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0
       RETURNING 1)
     SELECT (SELECT count(*) FROM gone)::int AS before, (SELECT count(*) FROM kept)::int AS after`,
    [catalogId],
  )) as { rows: Array<{ before: number; after: number }> };
  return rows[0];
}

/**
 * Stores the catalog's counts per group as those of snapshot `snapshotId`
 * (`catalog_snapshot_fill_counts`, migration 20261206100000), summed from its delta rows. The
 * caller holds the catalog lock exclusive (snapshots.ts `takeSnapshot`): no item writer of the
 * catalog is in flight, so the counts are those of the items it copies in the same transaction.
 */
export async function storeSnapshotFillCounts(trx: Knex.Transaction, catalogId: string, snapshotId: string): Promise<void> {
  await trx.raw(
    `INSERT INTO catalog_snapshot_fill_counts (snapshot_id, top_level, category, filled, n)
     SELECT ?, top_level, category, filled, sum(n) FROM catalog_fill_counts WHERE catalog_id = ?
     GROUP BY top_level, category, filled HAVING sum(n) <> 0`,
    [snapshotId, catalogId],
  );
}

/**
 * Brings the catalog's counts to the snapshot's after a restore whose statements skipped the
 * counter triggers (`catalog_items.fill_counts_supplied`; docs/large-catalogs.md "Completeness
 * counters"): appends, per group, the snapshot's count minus the catalog's current sum. The
 * snapshot's counts are the stored ones when `fillCounted`, otherwise computed from its rows (a
 * snapshot taken before migration 20261206100000). Exact while no other item writer of the
 * catalog is in flight (the restore holds the catalog lock exclusive).
 */
export async function restoreSnapshotFillCounts(trx: Knex.Transaction, catalogId: string, snapshot: { id: string; fill_counted: boolean }): Promise<void> {
  const snapshotCounts = snapshot.fill_counted
    ? 'SELECT top_level, category, filled, n FROM catalog_snapshot_fill_counts WHERE snapshot_id = ?'
    : `SELECT s.parent_id IS NULL AS top_level, coalesce(s.data ->> 'category_id', '') AS category, catalog_item_filled_keys(s.data) AS filled, 1::bigint AS n
       FROM catalog_snapshot_items s WHERE s.snapshot_id = ?`;
  await trx.raw(
    `INSERT INTO catalog_fill_counts (catalog_id, top_level, category, filled, n)
     SELECT ?, top_level, category, filled, sum(n) FROM (
       ${snapshotCounts}
       UNION ALL
       SELECT top_level, category, filled, -n FROM catalog_fill_counts WHERE catalog_id = ?
     ) d GROUP BY top_level, category, filled HAVING sum(n) <> 0`,
    [catalogId, snapshot.id, catalogId],
  );
}

/**
 * The completeness report's counts (the shape `countCompleteness` returns) from the counters, or
 * null when some profile has rules (they need the item values; the caller scans). `fields`: the
 * schema fields counted per group; a profile's missing counts cover its required fields among them,
 * as the scan's do.
 */
export function countsFromGroups(groups: FillGroup[], rules: RequiredRules, fields: string[], profiles: ReadinessProfile[]): CompletenessCounts | null {
  if (profiles.some((p) => p.rules.length > 0)) return null;
  const out = new Map<string, GroupCounts>();
  const required = new Map<string, string[]>();
  const profileCounts = new Map<string, ProfileCounts>(
    profiles.map((p) => [p.id, { ready: 0, missing: Object.fromEntries(p.required_fields.map((f) => [f, 0])), failing: [] }]),
  );
  const counted = new Set(fields);
  for (const g of groups) {
    const filled = new Set(g.filled);
    let c = out.get(g.category);
    if (!c) out.set(g.category, (c = { items: 0, complete: 0, empty: Object.fromEntries(fields.map((f) => [f, 0])) }));
    let req = required.get(g.category);
    if (!req) required.set(g.category, (req = requiredFields(rules, g.category === '' ? undefined : g.category)));
    c.items += g.n;
    if (req.every((f) => filled.has(f))) c.complete += g.n;
    for (const f of fields) if (!filled.has(f)) c.empty[f] += g.n;
    for (const p of profiles) {
      const pc = profileCounts.get(p.id)!;
      if (p.required_fields.every((f) => filled.has(f))) pc.ready += g.n;
      for (const f of p.required_fields) if (counted.has(f) && !filled.has(f)) pc.missing[f] += g.n;
    }
  }
  return { groups: out, profiles: profileCounts };
}
