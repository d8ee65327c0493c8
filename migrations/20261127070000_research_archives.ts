import type { Knex } from 'knex';

/**
 * Web archives as a research source (docs/research.md): `research_archives`, one
 * uploaded or configured WARC/WACZ file (an organization's, or `organization_id` null for the
 * archives of `RESEARCH_ARCHIVES`, shared by every organization, indexed once per content hash),
 * and `research_archive_pages`, one row per indexed HTML/PDF response record: where the record is
 * (file, offset, length, WARC-Record-ID), its original URL and capture date, the GTIN/MPN/SKU
 * values of its structured data for exact lookup, and a weighted full-text vector for ranking.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('research_archives', (t) => {
    t.uuid('id').primary();
    t.uuid('organization_id').references('organizations.id').onDelete('CASCADE');
    t.string('name', 300).notNullable();
    t.string('format', 16).notNullable();
    t.text('file_path').notNullable();
    t.string('content_sha256', 64).notNullable();
    t.bigInteger('size_bytes').notNullable();
    t.string('status', 16).notNullable();
    t.integer('records_read').notNullable().defaultTo(0);
    t.integer('pages_indexed').notNullable().defaultTo(0);
    t.jsonb('skipped').notNullable().defaultTo('{}');
    t.text('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.index(['organization_id', 'created_at']);
  });
  await knex.raw('create unique index research_archives_configured_hash on research_archives (content_sha256) where organization_id is null');
  await knex.schema.createTable('research_archive_pages', (t) => {
    t.bigIncrements('id');
    t.uuid('archive_id').notNullable().references('research_archives.id').onDelete('CASCADE');
    t.text('url').notNullable();
    t.text('url_key').notNullable();
    t.timestamp('captured_at', { useTz: true });
    t.text('warc_file').notNullable();
    t.bigInteger('record_offset').notNullable();
    t.bigInteger('record_length').notNullable();
    t.text('record_id');
    t.string('content_type', 200).notNullable();
    t.text('title').notNullable();
    t.text('snippet').notNullable();
    t.specificType('identifiers', 'text[]').notNullable();
    t.specificType('head', 'tsvector').notNullable();
    t.specificType('document', 'tsvector').notNullable();
    t.index(['archive_id']);
    t.index(['url_key']);
  });
  await knex.raw('create index research_archive_pages_identifiers on research_archive_pages using gin (identifiers)');
  await knex.raw('create index research_archive_pages_head on research_archive_pages using gin (head)');
  await knex.raw('create index research_archive_pages_document on research_archive_pages using gin (document)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('research_archive_pages');
  await knex.schema.dropTableIfExists('research_archives');
}
