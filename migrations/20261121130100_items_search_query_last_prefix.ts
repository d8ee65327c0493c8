import type { Knex } from 'knex';

/**
 * Search terms (docs/api-reference.md "Items"): every word of the term but the last must be a whole word
 * of the item's text values, the last may be a word prefix (search-as-you-type). Whole words
 * are exact GIN entries the scan can skip through; prefix entries are first collected into a
 * bitmap of every match, which for words present in nearly every item (`sku`, `https`, a
 * colour) cost ~1 s on 1,000,000 items.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE OR REPLACE FUNCTION catalog_item_search_query(term text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT string_agg(quote_literal(w) || CASE WHEN n = total THEN ':*' ELSE '' END, ' & ' ORDER BY n)::tsquery
      FROM (SELECT w, row_number() OVER () AS n, count(*) OVER () AS total
            FROM regexp_split_to_table(lower(coalesce(term, '')), '[^[:alnum:]]+') AS w
            WHERE w <> '' AND octet_length(w) < 2047) AS words
    $$`);
}

/** Reverts `up`, restoring the schema of the previous migration. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE OR REPLACE FUNCTION catalog_item_search_query(term text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT string_agg(quote_literal(w) || ':*', ' & ')::tsquery
      FROM regexp_split_to_table(lower(coalesce(term, '')), '[^[:alnum:]]+') AS w
      WHERE w <> '' AND octet_length(w) < 2047
    $$`);
}
