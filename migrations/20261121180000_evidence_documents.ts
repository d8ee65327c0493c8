import type { Knex } from 'knex';

/**
 * Content-addressed evidence documents (src/services/enrichment/rows/rows.ts `storeEvidence`).
 *
 * A row's stored research (`enrichment_rows.evidence`, read back by re-extraction) used to carry
 * every parsed page inline: about 3 pages of up to 20,000 characters of text each, 57 KB of JSON
 * per row (p50, pages suite) written in the row's transaction, and again for every row that read
 * the same page. Parsed pages now live once per organization in `enrichment_evidence_documents`,
 * keyed by the SHA-256 of their JSON; a row's evidence keeps the queries, the search ranking and
 * per document only `{url, rank, doc_ref}`. Rows written before this migration keep their inline
 * documents and are read as before.
 *
 * Scoped by organization (a page fetched for one tenant, e.g. behind `FETCH_ALLOW_PRIVATE`, is
 * never served to another) and deleted with it. Documents are immutable (the key is their
 * content), so rows copied by resume / re-extraction share them without copying.
 *
 * lz4 compresses these JSON values several times faster than the default pglz at a similar ratio
 * (PostgreSQL 14+ built with lz4; this migration falls back to pglz when it is not).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('enrichment_evidence_documents', (t) => {
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    /** Hex SHA-256 of the document's JSON text as the engine produced it. */
    t.string('sha256', 64).notNullable();
    t.jsonb('doc').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['organization_id', 'sha256']);
  });
  const lz4 = await knex.raw("SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)");
  if (lz4.rows.length) {
    await knex.raw('ALTER TABLE enrichment_evidence_documents ALTER COLUMN doc SET COMPRESSION lz4');
    // New values only; old ones stay pglz and remain readable.
    await knex.raw('ALTER TABLE enrichment_rows ALTER COLUMN evidence SET COMPRESSION lz4, ALTER COLUMN result SET COMPRESSION lz4');
  }
}

/** Puts the documents back inline into the rows that reference them, then drops the table. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE enrichment_rows r SET evidence = jsonb_set(r.evidence, '{documents}', (
      SELECT coalesce(jsonb_agg(CASE WHEN x.d->>'doc_ref' IS NOT NULL THEN (x.d - 'doc_ref') || jsonb_build_object('doc', e.doc) ELSE x.d END ORDER BY x.ord), '[]'::jsonb)
      FROM jsonb_array_elements(r.evidence->'documents') WITH ORDINALITY AS x(d, ord)
      LEFT JOIN enrichment_evidence_documents e ON e.organization_id = j.organization_id AND e.sha256 = x.d->>'doc_ref'))
    FROM enrichment_jobs j
    WHERE j.id = r.job_id AND jsonb_typeof(r.evidence->'documents') = 'array' AND jsonb_path_exists(r.evidence, '$.documents[*].doc_ref')`);
  await knex.raw('ALTER TABLE enrichment_rows ALTER COLUMN evidence SET COMPRESSION default, ALTER COLUMN result SET COMPRESSION default');
  await knex.schema.dropTableIfExists('enrichment_evidence_documents');
}
