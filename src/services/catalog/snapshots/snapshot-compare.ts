/**
 * A snapshot compared with the catalog now (the console's snapshots page): how
 * many items were added, removed and changed since the snapshot, and a few of each with their
 * data then and now. One full join of the snapshot's rows with the catalog's (hash join, both
 * sides restricted to the catalog / the snapshot), counted and sampled in the same statement.
 */
import type { Knex } from 'knex';
import type { CatalogSnapshot } from '../../../models/catalog-snapshot';
import type { Scope } from '../../access/scope';
import { loadCatalogOwned } from '../catalogs';
import { loadSnapshot } from './snapshots';

/** Samples shown per kind of difference, at most. */
export const COMPARE_SAMPLES_PER_KIND = 5;

/** One item that differs: its data in the snapshot (null: added since) and now (null: removed since). */
export interface SnapshotDiffSample {
  id: string;
  kind: 'added' | 'removed' | 'changed';
  then: Record<string, unknown> | null;
  now: Record<string, unknown> | null;
}

/** The comparison of a snapshot with now. */
export interface SnapshotComparison {
  snapshot: CatalogSnapshot;
  /** The catalog's current schema version (the snapshot's is `snapshot.schema_version`). */
  schema_version_now: string;
  added: number;
  removed: number;
  changed: number;
  unchanged: number;
  samples: SnapshotDiffSample[];
}

/**
 * Compares snapshot `snapshotId` of the catalog with its items now (item data only; the schema
 * versions are named).
 * @throws NotFoundError (404) unknown catalog or snapshot; ForbiddenError (403) another organization's
 */
export async function compareSnapshotWithNow(knex: Knex, scope: Scope, catalogId: string, snapshotId: string): Promise<SnapshotComparison> {
  const catalog = await loadCatalogOwned(knex, scope, catalogId);
  const snapshot = await loadSnapshot(knex, scope, catalogId, snapshotId);
  const { rows } = await knex.raw(
    `WITH j AS (
       SELECT COALESCE(ci.id, s.id) AS id, s.data AS then_data, ci.data AS now_data,
         CASE WHEN s.id IS NULL THEN 'added' WHEN ci.id IS NULL THEN 'removed'
              WHEN s.data IS DISTINCT FROM ci.data THEN 'changed' ELSE 'unchanged' END AS kind
       FROM (SELECT id, data FROM catalog_items WHERE catalog_id = ?) ci
       FULL JOIN (SELECT id, data FROM catalog_snapshot_items WHERE snapshot_id = ?) s ON s.id = ci.id),
     c AS (SELECT kind, count(*)::int AS n FROM j GROUP BY kind),
     r AS (SELECT id, kind, then_data, now_data, row_number() OVER (PARTITION BY kind ORDER BY id) AS rn FROM j WHERE kind <> 'unchanged')
     SELECT 'count' AS row, kind, n, NULL::uuid AS id, NULL::jsonb AS then_data, NULL::jsonb AS now_data FROM c
     UNION ALL
     SELECT 'sample', kind, NULL, id, then_data, now_data FROM r WHERE rn <= ?`,
    [catalogId, snapshot.id, COMPARE_SAMPLES_PER_KIND],
  );
  const counts: Record<string, number> = {};
  const samples: SnapshotDiffSample[] = [];
  for (const r of rows as Array<{
    row: string;
    kind: SnapshotDiffSample['kind'] | 'unchanged';
    n: number;
    id: string;
    then_data: unknown;
    now_data: unknown;
  }>) {
    if (r.row === 'count') counts[r.kind] = r.n;
    else if (r.kind !== 'unchanged')
      samples.push({ id: r.id, kind: r.kind, then: (r.then_data as Record<string, unknown>) ?? null, now: (r.now_data as Record<string, unknown>) ?? null });
  }
  const order = { changed: 0, added: 1, removed: 2 };
  samples.sort((a, b) => order[a.kind] - order[b.kind] || a.id.localeCompare(b.id));
  return {
    snapshot,
    schema_version_now: catalog.current_schema_version,
    added: counts.added ?? 0,
    removed: counts.removed ?? 0,
    changed: counts.changed ?? 0,
    unchanged: counts.unchanged ?? 0,
    samples,
  };
}
