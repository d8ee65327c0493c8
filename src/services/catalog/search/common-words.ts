import type { Knex } from 'knex';

/**
 * Search terms whose last word the literal match already implies (docs/large-catalogs.md
 * "Identifiers and URLs ending in a common word").
 *
 * A term with characters other than letters, digits and white space (`img.example.com/4242.jpg`)
 * is matched by its words through the word index AND literally (`search_text LIKE`,
 * src/services/catalog/items/items-sql.ts `searchSql`). Its last word is a word prefix
 * (`'jpg':*`), and the word index answers a prefix by collecting every item of every word that
 * starts with it: for a word most items hold (`jpg`, `com`, `html`) that is the whole catalog's
 * posting tree, ~235 ms of reads at 1,000,000 items before the other words narrow anything. When
 * that last word follows a separator inside the term (`.jpg`), the literal match implies it: a
 * text holding `….jpg` has a word starting with `jpg` (words are runs of letters and digits, and
 * `.` ends one). The word index can then match the term without it, and the answer is the same.
 * It is left out only when PostgreSQL's statistics of the word column say words starting with it
 * are common (a rare last word, such as a number, is the most selective part of the term).
 */

/** A prefix held by at least this share of the items table's rows (`pg_stats.most_common_elem_freqs`) is common. */
export const COMMON_PREFIX_SHARE = 0.02;

/** ASCII characters that are neither letters nor digits: a word boundary for PostgreSQL's `[[:alnum:]]` and for JavaScript's `\p{L}\p{N}` alike. */
const ASCII_SEPARATOR = /[\x20-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/;

/**
 * The term without its last word when the literal match implies that word: the term has
 * characters other than letters, digits and white space (so it is matched literally), at least
 * two words, and an ASCII separator right before its last word (trailing separators are kept
 * out of the words and stay in the literal). Otherwise null.
 * @returns `{ rest, last }`: the term up to (and with) the separator before the last word, and that word lower-cased
 */
export function impliedLastWord(term: string): { rest: string; last: string } | null {
  if (!/[^\p{L}\p{N}\s]/u.test(term)) return null;
  const m = /([\p{L}\p{N}]+)[^\p{L}\p{N}]*$/u.exec(term);
  if (!m || m.index === 0) return null;
  const rest = term.slice(0, m.index);
  if (!ASCII_SEPARATOR.test(rest[rest.length - 1]) || !/[\p{L}\p{N}]/u.test(rest)) return null;
  return { rest, last: m[1].toLowerCase() };
}

/**
 * The share (0–1) of the items table's rows whose word vector holds a word starting with
 * `prefix`, as far as the table's statistics know it (the largest frequency among the most common
 * words with that prefix, from the last ANALYZE; 0 when none is among them or the table was never
 * analyzed). One read of `pg_stats` (~1–3 ms).
 */
export async function commonPrefixShare(knex: Knex | Knex.Transaction, prefix: string): Promise<number> {
  const pattern = prefix.replace(/[\\%_]/g, (c) => '\\' + c) + '%';
  const { rows } = await knex.raw(
    `SELECT coalesce(max(e.f), 0)::float8 AS share
     FROM pg_stats s, unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(w, f)
     WHERE s.schemaname = current_schema() AND s.tablename = 'catalog_items' AND s.attname = 'search_tsv' AND e.w LIKE ? ESCAPE '\\'`,
    [pattern],
  );
  return Number(rows[0]?.share ?? 0);
}

/**
 * The term the word index should match for search `term`: the term without its last word when
 * {@link impliedLastWord} allows it and that word's prefix is common
 * ({@link COMMON_PREFIX_SHARE}); undefined to match the term's own words. Exactness does not
 * depend on the statistics: either way the literal match decides.
 */
export async function indexWordsTerm(knex: Knex | Knex.Transaction, term: string): Promise<string | undefined> {
  const implied = impliedLastWord(term);
  if (!implied) return undefined;
  return (await commonPrefixShare(knex, implied.last)) >= COMMON_PREFIX_SHARE ? implied.rest : undefined;
}
