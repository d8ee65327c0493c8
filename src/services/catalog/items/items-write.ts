/**
 * Writing items set-based (docs/api-reference.md "Items"): one `INSERT … ON CONFLICT` per
 * batch after identity resolution, strict validation and product grouping in memory
 * (src/services/catalog/items/items-write-plan.ts). The statement is raw SQL by design
 * (docs/architecture.md "3. Which data-access style when": set-based work): it writes every row of the batch, with its
 * search columns, in one round trip. Also the copy of a catalog's items (duplicate).
 */
import type { Knex } from 'knex';
import { ConflictError, errorFields, NotFoundError, ValidationError } from '../../../lib/errors';
import { StageTimings } from '../../../lib/stage-timings';
import { Catalog } from '../../../models/catalog';
import type { Scope } from '../../access/scope';
import type { CatalogCaches, ItemValidator } from '../catalog-caches';
import { isGrouped } from './items-keys';
import {
  Candidate,
  ItemError,
  lastOfEachIdentity,
  linkVariants,
  loadExisting,
  parseCandidates,
  Plan,
  planRows,
  WriteOptions,
  WriteRow,
} from './items-write-plan';
import { lockCatalogShared, lockProducts, MAX_PRODUCT_LOCKS } from '../catalog-locks';
import { evolveSchema, getCurrentSchema, lockCatalog, schemaWouldEvolve } from '../schema/schema';
import { wordsColumn } from '../search/search-words';
import { itemValidator } from '../schema/schema-validation';

/** Outcome of one batch write (the counters, plus the id written for each input index). */
export interface WriteResult {
  items_processed: number;
  items_created: number;
  items_updated: number;
  items_failed: number;
  schema_evolved: boolean;
  new_schema_version?: string;
  errors: ItemError[];
  /** Database id written for each input index (undefined for failed entries). */
  ids: Array<string | undefined>;
  /** Input indexes of items left as they were because nothing differed (only with `skip_unchanged`). */
  unchanged?: number[];
}

/** Thrown by {@link upsertRows} when a business key it writes was taken by a writer that committed meanwhile. */
class KeyTaken extends Error {}

/** Orders rows by business key (keyless rows last): every writer inserts keys in this one order (catalog-locks.ts). */
function byBusinessKey(a: WriteRow, b: WriteRow): number {
  if (a.business_key === b.business_key) return 0;
  if (a.business_key === null) return 1;
  if (b.business_key === null) return -1;
  return a.business_key < b.business_key ? -1 : 1;
}

/**
 * Step 6: writes every row with ONE `INSERT … ON CONFLICT (id) DO UPDATE`, in business key
 * order, and adds the rows inserted to `catalogs.item_count` in the same statement (the catalog
 * row, which the statement's counter trigger locks anyway, is then held to commit without a
 * round trip to Node in between). `created_at` advances by one
 * microsecond per payload position, so the default list order (created_at, id) is the payload order.
 * @returns rows inserted, and those of them that are payload items (not auto-created products)
 * @throws KeyTaken when a concurrent writer took a business key of the batch (the statement
 *   waited for it to commit); NotFoundError (404) when the catalog was deleted
 */
async function upsertRows(
  trx: Knex.Transaction,
  catalog: Catalog,
  rows: WriteRow[],
  autoProducts: Set<string>,
  sourceInfo: Record<string, unknown> | null | undefined,
  skipUnchanged: boolean,
): Promise<{ inserted: number; created: number; written: Set<string> }> {
  if (rows.length === 0) return { inserted: 0, created: 0, written: new Set() };
  // The row is left alone (and not returned) when nothing it would be written with differs.
  const onlyChanged = skipUnchanged
    ? `WHERE (catalog_items.entity_type, catalog_items.parent_id, catalog_items.business_key, catalog_items.data)
         IS DISTINCT FROM (EXCLUDED.entity_type, EXCLUDED.parent_id, EXCLUDED.business_key, EXCLUDED.data)`
    : '';
  let out: Array<{ id: string; inserted: boolean }>;
  try {
    ({ rows: out } = await trx.raw(
      `WITH written AS (
       INSERT INTO catalog_items (id, catalog_id, entity_type, parent_id, business_key, data, search_text, search_tsv, source_info, current_version, created_at, updated_at)
       SELECT x.id, ?, x.entity_type, x.parent_id, x.business_key, x.data, x.search_text, array_to_tsvector(x.search_words), ?::jsonb, 1, now() + x.ord * interval '1 microsecond', now()
       FROM jsonb_to_recordset(?::jsonb) AS x(id uuid, ord int, entity_type text, parent_id uuid, business_key text, data jsonb, search_text text, search_words text[])
       ON CONFLICT (id) DO UPDATE SET entity_type = EXCLUDED.entity_type, parent_id = EXCLUDED.parent_id,
         business_key = EXCLUDED.business_key, data = EXCLUDED.data, search_text = EXCLUDED.search_text, search_tsv = EXCLUDED.search_tsv, source_info = EXCLUDED.source_info,
         current_version = catalog_items.current_version + 1, updated_at = now()
       ${onlyChanged}
       RETURNING id, (xmax = 0) AS inserted),
       counted AS (
         UPDATE catalogs c SET item_count = c.item_count + n.inserted
         FROM (SELECT count(*) FILTER (WHERE inserted) AS inserted FROM written) n WHERE c.id = ? AND n.inserted > 0)
       SELECT id, inserted FROM written`,
      [catalog.id, sourceInfo ? JSON.stringify(sourceInfo) : null, JSON.stringify([...rows].sort(byBusinessKey)), catalog.id],
    ));
  } catch (err) {
    const { code, constraint } = errorFields(err);
    if (code === '23505') throw new KeyTaken(String(constraint));
    // Writers hold the catalog lock shared, not the row: a delete that committed before it was taken.
    if (code === '23503' && constraint === 'catalog_items_catalog_id_foreign') throw new NotFoundError('Catalog not found');
    throw err;
  }
  const inserted = out.filter((r) => r.inserted).length;
  const created = out.filter((r) => r.inserted && !autoProducts.has(r.id)).length;
  return { inserted, created, written: new Set(out.map((r) => r.id)) };
}

/**
 * Takes the catalog lock for an item write (src/services/catalog/catalog-locks.ts): shared, so
 * writers of one catalog overlap, unless `exclusive` (a batch naming more product ids than
 * MAX_PRODUCT_LOCKS) or the batch would add schema fields (`samples` given: auto-evolution
 * asked for); then exclusive, since a schema version is a catalog-wide change. Whether it would
 * is read under the shared lock (no schema change can start meanwhile); when it would, the
 * shared lock is given back (rollback to a savepoint taken before it: an upgrade while other
 * writers hold it shared could deadlock) and the exclusive one taken. A transaction holding
 * the lock exclusive already keeps it.
 * @returns the mode held
 */
async function lockForWrite(
  trx: Knex.Transaction,
  catalogId: string,
  samples: Array<Record<string, unknown>> | null,
  exclusive: boolean,
  timings: StageTimings,
): Promise<'shared' | 'exclusive'> {
  if (exclusive) {
    await timings.time('lock', () => lockCatalog(trx, catalogId));
    return 'exclusive';
  }
  if (!samples) return timings.time('lock', () => lockCatalogShared(trx, catalogId));
  await trx.raw('SAVEPOINT catalog_write_lock');
  const mode = await timings.time('lock', () => lockCatalogShared(trx, catalogId));
  const evolves = mode === 'shared' && (await timings.time('schema', () => schemaWouldEvolve(trx, catalogId, samples)));
  if (evolves) {
    await trx.raw('ROLLBACK TO SAVEPOINT catalog_write_lock');
    await timings.time('lock', () => lockCatalog(trx, catalogId));
  }
  await trx.raw('RELEASE SAVEPOINT catalog_write_lock');
  return evolves ? 'exclusive' : mode;
}

/** Attempts of a shared-mode write whose business keys concurrent writers keep taking before it gives up (409). */
const MAX_WRITE_ATTEMPTS = 8;

/** What one attempt of steps 3–6 wrote: its plan, the products it created, the ids it wrote and the items created. */
interface Written {
  plan: Plan;
  autoProducts: Set<string>;
  ids: Set<string>;
  created: number;
}

/** Runs `fn` inside a savepoint: released when it resolves, rolled back (its locks and writes undone) when it throws. */
async function inSavepoint<T>(trx: Knex.Transaction, fn: () => Promise<T>): Promise<T> {
  await trx.raw('SAVEPOINT catalog_write_try');
  try {
    const out = await fn();
    await trx.raw('RELEASE SAVEPOINT catalog_write_try');
    return out;
  } catch (err) {
    await trx.raw('ROLLBACK TO SAVEPOINT catalog_write_try');
    throw err;
  }
}

/**
 * Steps 3–6 of {@link writeItems}: the look-up (locking the stored rows), the merge and
 * validation, the product links and the one write; pushes item errors to `errors`.
 * @throws KeyTaken (see {@link upsertRows})
 */
async function resolveAndWrite(
  trx: Knex.Transaction,
  catalog: Catalog,
  unique: Candidate[],
  pidField: string | null,
  validate: ItemValidator | null,
  errors: ItemError[],
  opts: WriteOptions & { timings: StageTimings },
): Promise<Written> {
  const { timings } = opts;
  const existing = await timings.time('identity', () => loadExisting(trx, catalog, unique, pidField));
  // planRows adds its validation and search-word time to those stages itself.
  const plan = planRows(catalog, opts, unique, existing, validate, errors);
  const autoProducts = pidField ? linkVariants(plan, pidField) : new Set<string>();
  const { created, written } = await timings.time('write', () =>
    upsertRows(trx, catalog, plan.rows, autoProducts, opts.source_info, opts.skip_unchanged !== undefined),
  );
  return { plan, autoProducts, ids: written, created };
}

/**
 * Upserts a batch of items into a catalog inside `trx` (docs/api-reference.md "Items").
 *
 * Identity per item: `opts.ids[i]`, else `__catalog_item_id` in the data (removed from the
 * stored data), else the business key (`unique_id_field`), else a new item. Updates merge the
 * given fields over the stored data (fields not given keep their values) and add 1 to
 * `current_version`. With several items of the same identity, the last wins and the earlier
 * ones are reported as `duplicate` errors. `strict_mode` validates the merged data with the
 * current schema (after auto-evolution, which runs once per call when enabled). All valid rows
 * are written by ONE `INSERT … ON CONFLICT (id) DO UPDATE`; `catalogs.item_count` grows by the
 * rows created. One bad item never fails the others.
 *
 * Product-grouped catalogs (`product_enabled` or `product_id_field` set; docs/api-reference.md "Products and variants"),
 * outside the product routes (`opts.parent`): an item whose data names a product business id
 * in `data[product_id_field]` is, without a business key of its own, that product (matched to
 * the existing product row of that business id, else created), and with a business key a
 * variant linked to that product (`entity_type` variant, `parent_id` the product). Products
 * are found with one set-based look-up; a product named only by variants is created with the
 * business id and the `product_*` fields of its last variant in the payload (not validated
 * against the item schema, which describes variants; counted in `item_count` but not in
 * `items_created`). Items without the field keep their current grouping.
 *
 * Locking (src/services/catalog/catalog-locks.ts; docs/architecture.md "Catalog write locks"):
 * the catalog lock shared (exclusive when the batch evolves the schema or names more than
 * MAX_PRODUCT_LOCKS product ids, or when the transaction holds it exclusive already), the
 * product locks of the batch's product business ids in hash order, then its stored rows in id
 * order; rows are inserted in business key order, and a business key a concurrent writer
 * created first makes the write run again from the look-up (in a savepoint; after
 * {@link MAX_WRITE_ATTEMPTS} attempts, 409); the catalog row is held only from the statement's
 * counter trigger to commit. Concurrent writes into one catalog overlap and end as if run one
 * after the other. Call at most once per transaction while other writers may write the catalog
 * in shared mode: a second call would wait for their keys while holding the catalog row, which
 * they wait for.
 * @throws NotFoundError (404) when the catalog vanished; ConflictError (409) when concurrent
 *   writers kept taking business keys of the batch, or (exclusive mode) a writer outside this
 *   service took one between look-up and write
 */
export async function writeItems(
  trx: Knex.Transaction,
  caches: CatalogCaches,
  scope: Scope,
  catalog: Catalog,
  input: unknown[],
  opts: WriteOptions = {},
): Promise<WriteResult> {
  const timings = opts.timings ?? new StageTimings();
  // Product-grouped catalogs (docs/api-reference.md "Products and variants"): outside the product routes, an item naming a
  // product business id in data[product_id_field] is that product (no business key of its own)
  // or a variant linked to it.
  const pidField =
    !opts.parent && isGrouped(catalog) && catalog.product_id_field && catalog.product_id_field !== catalog.unique_id_field ? catalog.product_id_field : null;
  const { candidates, errors } = timings.timeSync('parse', () => parseCandidates(input, catalog, opts, pidField));
  const unique = timings.timeSync('parse', () => lastOfEachIdentity(candidates, errors));

  // A batch may fill the word index's pending list, whose merge then runs in this statement
  // with work_mem as its sort memory: 4 MB merges it in many small passes.
  if (input.length > 100) await trx.raw("SET LOCAL work_mem = '64MB'");
  const samples = (opts.auto_evolve_schema ?? catalog.auto_evolve_schema) && unique.length > 0 ? unique.map((c) => c.data) : null;
  const pids = pidField ? [...new Set(unique.flatMap((c) => (c.pid === null ? [] : [c.pid])))] : [];
  const mode = await lockForWrite(trx, catalog.id, samples, pids.length > MAX_PRODUCT_LOCKS, timings);
  if (mode === 'shared') await timings.time('lock', () => lockProducts(trx, catalog.id, pids));
  let evolved: { evolved: boolean; new_schema_version?: string } = { evolved: false };
  if (samples && mode === 'exclusive') {
    evolved = await timings.time('schema', () => evolveSchema(trx, scope, catalog.id, samples, 'Auto-evolved from item upsert'));
  }
  const validate = catalog.strict_mode
    ? await timings.time('schema', async () => itemValidator(caches.validators, await getCurrentSchema(trx, catalog.id)))
    : null;
  const parseErrors = [...errors];
  let written: Written;
  // Shared mode: a business key a concurrent writer created first fails the write; it runs again
  // from the look-up (inside a savepoint), which then finds that writer's row.
  for (let attempt = 1; ; attempt++) {
    errors.splice(0, errors.length, ...parseErrors);
    try {
      const attemptWrite = () => resolveAndWrite(trx, catalog, unique, pidField, validate, errors, { ...opts, timings });
      written = mode === 'shared' ? await inSavepoint(trx, attemptWrite) : await attemptWrite();
      break;
    } catch (err) {
      if (!(err instanceof KeyTaken)) throw err;
      if (mode === 'exclusive' || attempt >= MAX_WRITE_ATTEMPTS)
        throw new ConflictError(`A ${catalog.unique_id_field} in this request was written concurrently; retry the request`);
    }
  }
  const { plan, autoProducts, created } = written;

  const idsOut: Array<string | undefined> = new Array(input.length).fill(undefined);
  const unchanged: number[] = [];
  for (const [id, index] of plan.written) {
    idsOut[index] = id;
    if (opts.skip_unchanged === 'report' && !written.ids.has(id)) unchanged.push(index);
  }
  unchanged.sort((a, b) => a - b);
  errors.sort((a, b) => a.index - b.index);
  return {
    items_processed: input.length,
    items_created: created,
    items_updated: plan.rows.length - autoProducts.size - created - unchanged.length,
    items_failed: errors.length,
    schema_evolved: evolved.evolved,
    ...(evolved.new_schema_version ? { new_schema_version: evolved.new_schema_version } : {}),
    errors,
    ids: idsOut,
    ...(opts.skip_unchanged === 'report' ? { unchanged } : {}),
  };
}

/**
 * Turns the single error of a one-item write into the HTTP error of a single-item route:
 * schema problems → 422 with `loc` under `locPrefix`; unknown id → 404; key taken → 409.
 */
export function throwSingleItemError(e: ItemError, locPrefix: Array<string | number>): never {
  if (e.kind === 'not_found') throw new NotFoundError('Item not found');
  if (e.kind === 'conflict') throw new ConflictError(e.detail);
  if (e.details) throw new ValidationError(e.details.map((d) => ({ ...d, loc: [...locPrefix, ...d.loc] })));
  throw ValidationError.at(locPrefix, e.detail);
}

/**
 * Copies every item of one catalog into another (catalog duplicate with `include_items`):
 * one `INSERT … SELECT` giving each row a new id, remapping `parent_id` to the copies, keeping
 * data, search columns (a pending word vector becomes the copy's `search_tsv`), versions and
 * timestamps. Adds the number copied to the target catalog's `item_count`.
 * @returns the number of items copied
 */
export async function copyCatalogItems(trx: Knex.Transaction, fromCatalogId: string, toCatalogId: string): Promise<number> {
  const result = await trx.raw(
    `WITH m AS (SELECT id AS old_id, gen_random_uuid() AS new_id FROM catalog_items WHERE catalog_id = ?)
     INSERT INTO catalog_items (id, catalog_id, entity_type, parent_id, business_key, data, search_text, search_tsv, source_info, current_version, created_at, updated_at)
     SELECT m.new_id, ?, ci.entity_type, pm.new_id, ci.business_key, ci.data, ci.search_text, ${wordsColumn(true, 'ci')}, ci.source_info, ci.current_version, ci.created_at, ci.updated_at
     FROM catalog_items ci JOIN m ON m.old_id = ci.id LEFT JOIN m pm ON pm.old_id = ci.parent_id`,
    [fromCatalogId, toCatalogId],
  );
  const copied = result.rowCount as number;
  if (copied > 0) await Catalog.query(trx).where('id', toCatalogId).increment('item_count', copied);
  return copied;
}
