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
 *   the writers that come after wait for it.
 * - Identity locks, exclusive advisory locks on a hash of (catalog id, identity): a business
 *   key or a product business id an item writer resolves. Two writers of one key are ordered,
 *   so the second sees the first's row (one item per key). Taken in ascending hash order in one
 *   statement, after the shared catalog lock: writers taking overlapping sets in any order never
 *   deadlock.
 * - Stored rows an item writer updates are locked `FOR NO KEY UPDATE` in id order after the
 *   identity locks (items-write-plan.ts `loadExisting`).
 * - The catalog row itself is locked only by the last step of a write, the statement trigger
 *   that advances `items_rev` (and the `item_count` update): held from there to commit.
 *
 * A hash collision between two locks only makes one writer wait for an unrelated one.
 */
import type { Knex } from 'knex';
import { Catalog } from '../../models/catalog';

/** Text whose 64-bit hash keys the catalog lock of `catalogId` (apart from identity locks by the prefix). */
function catalogLockText(catalogId: string): string {
  return `catalog-write:${catalogId}`;
}

/**
 * Takes the catalog lock EXCLUSIVE (waiting for every item writer in flight), then the catalog
 * row `FOR UPDATE` (see the module comment; docs/architecture.md "Catalog write locks").
 * @returns false when the catalog does not exist (the advisory lock is held anyway)
 */
export async function lockCatalogExclusive(trx: Knex.Transaction, catalogId: string): Promise<boolean> {
  await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [catalogLockText(catalogId)]);
  return (await Catalog.query(trx).select('id').where('id', catalogId).forUpdate().first()) !== undefined;
}

/**
 * Takes the catalog lock SHARED, as every item writer does first (see the module comment):
 * waits while a catalog-wide change holds it exclusive, never for another item writer.
 */
export async function lockCatalogShared(trx: Knex.Transaction, catalogId: string): Promise<void> {
  await trx.raw('SELECT pg_advisory_xact_lock_shared(hashtextextended(?, 0))', [catalogLockText(catalogId)]);
}

/**
 * Takes the identity locks of `identities` (strings naming one identity each, e.g. `k:<business
 * key>`, `p:<product business id>`) in one catalog: exclusive, in ascending hash order, in one
 * statement (the ordered subquery is not flattened, so the aggregate calls the lock function in
 * that order). Call after {@link lockCatalogShared}.
 */
export async function lockIdentities(trx: Knex.Transaction, catalogId: string, identities: string[]): Promise<void> {
  if (identities.length === 0) return;
  await trx.raw(
    `SELECT count(pg_advisory_xact_lock(s.h)) FROM (
       SELECT DISTINCT hashtextextended(?::text || chr(31) || i, 0) AS h FROM unnest(?::text[]) AS i ORDER BY 1) s`,
    [catalogId, identities],
  );
}
