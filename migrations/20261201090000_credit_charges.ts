import type { Knex } from 'knex';

/**
 * The credit ledger (docs/workflows.md, "The credit ledger"): `credit_charges`, one row per
 * charge, written in the transaction that first records a job's row as `succeeded`
 * (src/services/enrichment/rows/row-results.ts), never at finalize.
 *
 * - unique (job_id, row_index): a retried write inserts `ON CONFLICT DO NOTHING`, so a row is
 *   charged at most once however often its write is attempted;
 * - `credits` is positive (1 per successful item today);
 * - append-only, enforced by triggers: an UPDATE is refused; a DELETE is refused while the charge's
 *   job and organization both exist, so a charge goes only with them (the cascade from the job, its
 *   review activity or its organization: removing an organization removes its data as a whole); a
 *   TRUNCATE is refused.
 * - (organization_id, charged_at) indexes the organization's usage over a period;
 * - existing successful rows not carried from an earlier job are charged once here (at their
 *   `completed_at`), so a job running across the upgrade finalizes with all its credits.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('credit_charges', (t) => {
    t.bigIncrements('id').primary();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.uuid('job_id').notNullable().references('enrichment_jobs.id').onDelete('CASCADE');
    t.integer('row_index').notNullable();
    t.integer('credits').notNullable().defaultTo(1);
    t.timestamp('charged_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['job_id', 'row_index']);
    t.index(['organization_id', 'charged_at']);
  });
  await knex.raw('ALTER TABLE credit_charges ADD CONSTRAINT credit_charges_credits_positive CHECK (credits > 0)');
  await knex.raw(`INSERT INTO credit_charges (organization_id, job_id, row_index, credits, charged_at)
    SELECT j.organization_id, r.job_id, r.row_index, 1, coalesce(r.completed_at, now())
    FROM enrichment_rows r JOIN enrichment_jobs j ON j.id = r.job_id
    WHERE r.status = 'succeeded' AND r.carried_from_job_id IS NULL`);
  // A cascaded delete runs after its parent row is gone (the job's, or the organization's through
  // its own foreign key), so "the job or the organization no longer exists" tells a cascade from a
  // direct DELETE.
  await knex.raw(`
    CREATE FUNCTION credit_charges_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        IF NOT EXISTS (SELECT 1 FROM enrichment_jobs WHERE id = OLD.job_id)
          OR NOT EXISTS (SELECT 1 FROM organizations WHERE id = OLD.organization_id) THEN
          RETURN OLD;
        END IF;
      END IF;
      RAISE EXCEPTION 'credit_charges is append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation', HINT = 'a charge goes only with its job or its organization';
    END $$`);
  await knex.raw(`CREATE TRIGGER credit_charges_append_only BEFORE UPDATE OR DELETE ON credit_charges
    FOR EACH ROW EXECUTE FUNCTION credit_charges_append_only()`);
  await knex.raw(`CREATE TRIGGER credit_charges_no_truncate BEFORE TRUNCATE ON credit_charges
    FOR EACH STATEMENT EXECUTE FUNCTION credit_charges_append_only()`);
}

/** Drops the ledger and its triggers. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('credit_charges');
  await knex.raw('DROP FUNCTION IF EXISTS credit_charges_append_only()');
}
