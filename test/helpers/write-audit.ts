/**
 * An independent record of writes, kept by PostgreSQL triggers in the test database only: the service's own counters (`write_count`, `completed_items`, `credits_used`) are moved by
 * the very statements whose duplicates they should reveal, so checks built on them hold by
 * construction. These triggers see every statement that actually writes, whoever runs it:
 *
 * - `enrichment_rows`: every UPDATE that sets `result` (one per row write), with the row's status;
 * - `staged_changes`: every INSERT, and every UPDATE that sets `after_data` (a re-staging);
 * - `catalog_items`: every INSERT, and every UPDATE that sets `data` (an apply, an import, an edit);
 * - `enrichment_jobs`: every UPDATE that changes `credits_used` (the credit ledger), with the delta.
 *
 * `installWriteAudit` is idempotent; tests filter the record by their own job, activity or catalog.
 */
import type { Knex } from 'knex';

/** One audited write. `row_key`: `<job_id>:<row_index>`, `<activity_id>:<row_index>` or the item / job id. */
export interface AuditedWrite {
  table_name: 'enrichment_rows' | 'staged_changes' | 'catalog_items' | 'enrichment_jobs';
  op: 'INSERT' | 'UPDATE';
  row_key: string;
  /** The job, activity or catalog the row belongs to (what tests filter by). */
  owner_id: string;
  /** enrichment_rows: the status written; enrichment_jobs: the credits added (as text). */
  detail: string | null;
}

const TRIGGERS: Array<{ table: string; events: string; fn: string; body: string }> = [
  {
    table: 'enrichment_rows',
    events: 'AFTER UPDATE OF result',
    fn: 'test_audit_enrichment_rows',
    body: `INSERT INTO test_write_audit (table_name, op, row_key, owner_id, detail)
           VALUES ('enrichment_rows', TG_OP, NEW.job_id || ':' || NEW.row_index, NEW.job_id::text, NEW.status);`,
  },
  {
    table: 'staged_changes',
    events: 'AFTER INSERT OR UPDATE OF after_data',
    fn: 'test_audit_staged_changes',
    body: `INSERT INTO test_write_audit (table_name, op, row_key, owner_id, detail)
           VALUES ('staged_changes', TG_OP, NEW.activity_id || ':' || NEW.row_index, NEW.activity_id::text, NEW.status);`,
  },
  {
    table: 'catalog_items',
    events: 'AFTER INSERT OR UPDATE OF data',
    fn: 'test_audit_catalog_items',
    body: `INSERT INTO test_write_audit (table_name, op, row_key, owner_id, detail)
           VALUES ('catalog_items', TG_OP, NEW.id::text, NEW.catalog_id::text, NEW.current_version::text);`,
  },
  {
    table: 'enrichment_jobs',
    events: 'AFTER UPDATE OF credits_used',
    fn: 'test_audit_enrichment_jobs',
    body: `IF NEW.credits_used IS DISTINCT FROM OLD.credits_used THEN
             INSERT INTO test_write_audit (table_name, op, row_key, owner_id, detail)
             VALUES ('enrichment_jobs', TG_OP, NEW.id::text, NEW.id::text, (coalesce(NEW.credits_used, 0) - coalesce(OLD.credits_used, 0))::text);
           END IF;`,
  },
];

/** Creates the audit table and its triggers when missing (safe to call from every suite). */
export async function installWriteAudit(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE IF NOT EXISTS test_write_audit (
    id bigserial PRIMARY KEY, table_name text NOT NULL, op text NOT NULL, row_key text NOT NULL,
    owner_id text NOT NULL, detail text, at timestamptz NOT NULL DEFAULT clock_timestamp())`);
  await knex.raw('CREATE INDEX IF NOT EXISTS test_write_audit_owner ON test_write_audit (owner_id, table_name)');
  for (const t of TRIGGERS) {
    await knex.raw(`CREATE OR REPLACE FUNCTION ${t.fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${t.body} RETURN NULL; END $$`);
    await knex.raw(`CREATE OR REPLACE TRIGGER ${t.fn} ${t.events} ON ${t.table} FOR EACH ROW EXECUTE FUNCTION ${t.fn}()`);
  }
}

/** The audited writes of one owner (a job, an activity or a catalog), oldest first. */
export async function auditedWrites(knex: Knex, table: AuditedWrite['table_name'], ownerId: string): Promise<AuditedWrite[]> {
  return knex('test_write_audit').where({ table_name: table, owner_id: ownerId }).orderBy('id').select('table_name', 'op', 'row_key', 'owner_id', 'detail');
}

/**
 * Writes per row key of one owner's audited writes, e.g. `{ "job:0": 1, "job:1": 2 }`.
 * @returns the counts, and the keys written more than once
 */
export async function writesPerRow(
  knex: Knex,
  table: AuditedWrite['table_name'],
  ownerId: string,
): Promise<{ perRow: Map<string, number>; repeated: string[] }> {
  const perRow = new Map<string, number>();
  for (const w of await auditedWrites(knex, table, ownerId)) perRow.set(w.row_key, (perRow.get(w.row_key) ?? 0) + 1);
  return { perRow, repeated: [...perRow].filter(([, n]) => n > 1).map(([k]) => k) };
}

/**
 * A job's exactly-once figures from the audit alone: rows written, rows written more than once,
 * successful row writes, and the credits the ledger moved (sum of `credits_used` deltas).
 */
export async function auditedJob(knex: Knex, jobId: string): Promise<{ rowsWritten: number; repeated: string[]; successes: number; credits: number }> {
  const { perRow, repeated } = await writesPerRow(knex, 'enrichment_rows', jobId);
  const rows = await auditedWrites(knex, 'enrichment_rows', jobId);
  const credits = (await auditedWrites(knex, 'enrichment_jobs', jobId)).reduce((sum, w) => sum + Number(w.detail), 0);
  return { rowsWritten: perRow.size, repeated, successes: rows.filter((w) => w.detail === 'succeeded').length, credits };
}
