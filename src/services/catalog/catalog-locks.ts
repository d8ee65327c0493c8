/**
 * The locks that order writes into one catalog (docs/architecture.md "Catalog write locks"),
 * all transaction-scoped (released at commit or rollback, and by a rollback to a savepoint
 * taken before them):
 *
 * - The catalog lock, an advisory lock on a hash of the catalog id, in two modes. Item writers
 *   (src/services/catalog/items/items-write.ts) hold it SHARED: any number of them write one
 *   catalog at once. Everything that changes the catalog as a whole (schema versions,
 *   snapshots and restores, review applies, deletes, the word index catch-up) holds it
 *   EXCLUSIVE, then the catalog row `FOR UPDATE`: it waits for the item writers in flight, and
 *   the writers that come after wait for it. A transaction holding it exclusive is marked (a
 *   transaction-local setting, undone with the lock by a rollback to a savepoint), so its own
 *   item writes need no finer lock.
 * - Product locks, exclusive advisory locks on a hash of (catalog id, product business id),
 *   taken by a writer that may create or update products by business id, in ascending hash
 *   order in one statement: two writers naming one new product create it once. Every lock
 *   takes an entry of PostgreSQL's shared lock table (`max_locks_per_transaction` × connections
 *   entries in all), so a batch naming more than {@link MAX_PRODUCT_LOCKS} product ids takes the
 *   catalog lock exclusive instead.
 * - Business keys need no lock of their own: the unique index on (catalog, business key) makes a
 *   second writer of a new key wait for the first and fail when it commits; the writer then runs
 *   its write again, which finds the first's row (items-write.ts). Writers insert their rows in
 *   business key order, so two of them never wait for each other's keys in a cycle.
 * - Stored rows a writer updates are locked `FOR NO KEY UPDATE` in id order before its write
 *   (items-write-plan.ts `loadExisting`).
 * - The catalog row itself is locked by an item write only at its end, by the statement trigger
 *   that advances `items_rev` (and the `item_count` update), to commit.
 *
 * A hash collision between two locks only makes one writer wait for an unrelated one.
 */
import type { Knex } from 'knex';
import { Catalog } from '../../models/catalog';

/**
 * Most product business ids one write locks one by one; a batch naming more takes the catalog
 * lock exclusive (see the module comment: 10 writers at this bound take 2,560 of the 6,400
 * lock table entries of a default server with 100 connections).
 */
export const MAX_PRODUCT_LOCKS = 256;

/** Text whose 64-bit hash keys the catalog lock of `catalogId` (apart from product locks by the prefix). */
function catalogLockText(catalogId: string): string {
  return `catalog-write:${catalogId}`;
}

/** Name of the transaction-local setting that marks the catalog lock of `catalogId` as held exclusive. */
function exclusiveMark(catalogId: string): string {
  return `catalog_write.x${catalogId.replace(/-/g, '')}`;
}

/**
 * Takes the catalog lock EXCLUSIVE (waiting for every item writer in flight) and marks it held,
 * then the catalog row `FOR UPDATE` (see the module comment; docs/architecture.md "Catalog write locks").
 * @returns false when the catalog does not exist (the advisory lock is held anyway)
 */
export async function lockCatalogExclusive(trx: Knex.Transaction, catalogId: string): Promise<boolean> {
  await trx.raw("SELECT pg_advisory_xact_lock(hashtextextended(?, 0)), set_config(?, 'on', true)", [catalogLockText(catalogId), exclusiveMark(catalogId)]);
  return (await Catalog.query(trx).select('id').where('id', catalogId).forUpdate().first()) !== undefined;
}

/**
 * Takes the catalog lock SHARED, as every item writer does first (see the module comment):
 * waits while a catalog-wide change holds it exclusive, never for another item writer. Takes
 * nothing when this transaction holds it exclusive already.
 * @returns the mode this transaction now holds
 */
export async function lockCatalogShared(trx: Knex.Transaction, catalogId: string): Promise<'shared' | 'exclusive'> {
  const { rows } = await trx.raw(
    `SELECT CASE WHEN current_setting(?, true) = 'on' THEN 'exclusive'
       ELSE (SELECT 'shared' FROM (SELECT pg_advisory_xact_lock_shared(hashtextextended(?, 0))) s) END AS mode`,
    [exclusiveMark(catalogId), catalogLockText(catalogId)],
  );
  return rows[0].mode;
}

/**
 * Takes the product locks of `pids` (product business ids) in one catalog: exclusive, in
 * ascending hash order, in one statement (the ordered subquery is not flattened, so the
 * aggregate calls the lock function in that order). Call after {@link lockCatalogShared}, with
 * at most {@link MAX_PRODUCT_LOCKS} ids.
 */
export async function lockProducts(trx: Knex.Transaction, catalogId: string, pids: string[]): Promise<void> {
  if (pids.length === 0) return;
  await trx.raw(
    `SELECT count(pg_advisory_xact_lock(s.h)) FROM (
       SELECT DISTINCT hashtextextended(?::text || chr(31) || i, 0) AS h FROM unnest(?::text[]) AS i ORDER BY 1) s`,
    [catalogId, pids],
  );
}
