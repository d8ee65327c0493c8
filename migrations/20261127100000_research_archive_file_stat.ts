import type { Knex } from 'knex';

/**
 * (configured archives): a `RESEARCH_ARCHIVES` file's path, size and modification
 * time are kept with its content hash, so a worker start re-reads (hashes) only files that
 * changed since.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('research_archives', (t) => {
    t.text('source_path');
    t.bigInteger('source_mtime_ms');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('research_archives', (t) => {
    t.dropColumn('source_path');
    t.dropColumn('source_mtime_ms');
  });
}
