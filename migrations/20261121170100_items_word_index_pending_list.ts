import type { Knex } from 'knex';

/**
 * Word index pending list: 4 MB instead of 64 MB (docs/api-reference.md "Items"). GIN's fast-update
 * pending list is scanned in full by every search, whatever the catalog (measured on
 * 1,000,000 items: an identifier search whose page needs one row read 4,500 pending-list pages,
 * ~115 ms, of a list filled by earlier writes), so its size bounds search latency. Writers now
 * merge it into the index more often; each merge sorts with the writer's work_mem, which the
 * item service raises for batches and snapshot restores so a merge is still one pass.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER INDEX catalog_items_search_words SET (gin_pending_list_limit = 4096)');
  // Merge what the old limit let accumulate, so searches start with a short list.
  await knex.raw("SELECT gin_clean_pending_list('catalog_items_search_words'::regclass)");
}

/** Reverts `up`, restoring the schema of the previous migration. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER INDEX catalog_items_search_words SET (gin_pending_list_limit = 65536)');
}
