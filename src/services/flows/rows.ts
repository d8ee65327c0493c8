/**
 * Node output rows of flow runs (`flow_run_rows`; docs/api-review.md "Flow runs": node outputs live in
 * PostgreSQL and every node's output is paginated like `results`). Written and read a page at a
 * time, set-based, so a run of 100,000 rows never holds them all in memory.
 */
import type { Knex } from 'knex';

/** Rows a node reads, transforms and writes at once. */
export const NODE_PAGE_SIZE = 1000;

/** One row of a node's output. */
export type FlowRow = Record<string, unknown>;

/**
 * Writes `rows` as the output of `nodeId` from row index `firstIndex` on, in one statement
 * (`jsonb_array_elements`: one bind parameter whatever the page size). A row already there (a
 * page written before a crash) is left as it was.
 */
export async function writeNodeRows(db: Knex | Knex.Transaction, runId: string, nodeId: string, firstIndex: number, rows: FlowRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.raw(
    `INSERT INTO flow_run_rows (run_id, node_id, row_index, data)
     SELECT ?, ?, ? + (e.ordinality - 1)::int, e.value
     FROM jsonb_array_elements(?::jsonb) WITH ORDINALITY AS e(value, ordinality)
     ON CONFLICT DO NOTHING`,
    [runId, nodeId, firstIndex, JSON.stringify(rows)],
  );
}

/** Up to `limit` output rows of a node from row index `offset` on, in row order. */
export async function readNodeRows(db: Knex | Knex.Transaction, runId: string, nodeId: string, offset: number, limit: number): Promise<FlowRow[]> {
  const rows = (await db('flow_run_rows')
    .where({ run_id: runId, node_id: nodeId })
    .where('row_index', '>=', offset)
    .orderBy('row_index')
    .limit(limit)
    .select('data')) as Array<{ data: FlowRow }>;
  return rows.map((r) => r.data);
}

/** Deletes the output rows of `nodeIds` in a run (a rerun of those nodes starts clean). */
export async function deleteNodeRows(db: Knex | Knex.Transaction, runId: string, nodeIds: string[]): Promise<void> {
  if (nodeIds.length) await db('flow_run_rows').where({ run_id: runId }).whereIn('node_id', nodeIds).delete();
}
