/**
 * The in-memory part of a batch write (src/services/catalog/items/items-write.ts `writeItems`): the
 * payload's shape checks, duplicate identities, the look-up of the stored rows it names,
 * strict validation, and product grouping, producing the rows of the one set-based write.
 */
import type { Knex } from 'knex';
import type { ValidationDetail } from '../../../lib/errors';
import type { StageTimings } from '../../../lib/stage-timings';
import { isUuid, newId } from '../../../lib/ids';
import type { Catalog } from '../../../models/catalog';
import type { CatalogItem } from '../../../models/catalog-item';
import type { ItemValidator } from '../catalog-caches';
import { businessKeyOf, ITEM_ID_KEY, itemsByIdOrKey, MAX_BUSINESS_KEY_BYTES, searchTextOf, searchWordsOf, SYSTEM_COLUMNS } from './items-keys';
import { wordsColumn, wordsPending } from '../search/search-words';

/** One failed entry of a batch write (`errors[]`), with a kind single-item routes map to a status. */
export interface ItemError {
  index: number;
  detail: string;
  kind: 'invalid' | 'not_found' | 'conflict' | 'duplicate';
  /** Schema validation problems (strict mode), `loc` relative to the item data. */
  details?: ValidationDetail[];
}

/** Options of one batch write. */
export interface WriteOptions {
  source_info?: Record<string, unknown> | null;
  /** Overrides the catalog's `auto_evolve_schema` for this request (docs/api-reference.md "Bulk writes"). */
  auto_evolve_schema?: boolean;
  /** Writes every item as a variant of this product, with `shared` data laid over each (docs/api-reference.md "Products and variants"). */
  parent?: { id: string; shared: Record<string, unknown> };
  /** Identity of item `i` is this database id (PUT …/items/{id}); else `__catalog_item_id` or the business key. */
  ids?: Array<string | undefined>;
  /**
   * Leave an existing row whose entity type, parent, business key and data already equal what
   * would be written as it is: no new `current_version` (so staged changes computed from it do
   * not conflict), no `updated_at`/`source_info` change. `report`: such items are listed in
   * `WriteResult.unchanged` and not counted as updated (the spreadsheet import: an
   * import line equal to its item writes nothing). `as_updated`: they count as updated, as answer always did, but nothing is written (the bulk upsert: a request run again after its
   * process died before its answer was stored writes nothing twice).
   */
  skip_unchanged?: 'report' | 'as_updated';
  /**
   * Where to add the time of each stage of the write (lock, parse, schema, identity, validation,
   * words, write), for the bulk route's `Server-Timing` header (docs/benchmarks.md "Bulk upsert by stage").
   */
  timings?: StageTimings;
}

/** One payload item after the shape checks, with its identity. */
export interface Candidate {
  index: number;
  explicitId?: string;
  key: string | null;
  /** The product business id named by the incoming data (product-grouped catalogs, bulk writes). */
  pid: string | null;
  data: Record<string, unknown>;
}

/** Identity of a candidate inside one payload: database id, business key, or (keyless) product business id. */
function identityOf(c: Candidate): string | null {
  if (c.explicitId) return `id:${c.explicitId}`;
  if (c.key !== null) return `key:${c.key}`;
  if (c.pid !== null) return `pid:${c.pid}`;
  return null;
}

/** A row of the set-based write. */
export interface WriteRow {
  id: string;
  ord: number;
  entity_type: string;
  parent_id: string | null;
  business_key: string | null;
  data: Record<string, unknown>;
  search_text: string;
  /** Words of `search_text` ({@link searchWordsOf}); null lets the trigger build `search_tsv`. */
  search_words: string[] | null;
}

/** Sets the derived search columns of a write row from its data (its time added to the `words` stage). */
function withSearch(row: WriteRow, timings: StageTimings | undefined): WriteRow {
  const t0 = timings ? performance.now() : 0;
  row.search_text = searchTextOf(row.data);
  row.search_words = searchWordsOf(row.search_text);
  if (timings) timings.add('words', performance.now() - t0);
  return row;
}

/**
 * The products of a catalog by business id (`data[pidField]`), among product rows without a
 * business key: one set-based look-up, the word index narrowing the rows (a product's id value
 * is one of its text values, so its rows hold each of the id's words whole: the search query's
 * `:*` prefix marks are dropped, or `P-1` would also fetch `P-10` … `P-1999`; each row's current
 * vector while the index is behind a restore, read after the writer locked the catalog, see
 * search-words.ts) and `data->>pidField` deciding. The catalog is an InitPlan parameter, as in
 * {@link itemsByIdOrKey}. The oldest wins when several products share a business id.
 */
async function productsByBusinessId(trx: Knex.Transaction, catalogId: string, pidField: string, pids: string[]): Promise<Map<string, ExistingItem>> {
  if (pids.length === 0) return new Map();
  const { rows } = await trx.raw(
    `SELECT DISTINCT ON (pid) * FROM (
       SELECT data->>? AS pid, id, entity_type, parent_id, business_key, data, current_version, created_at
       FROM catalog_items
       WHERE catalog_id = (SELECT ?::uuid) AND entity_type = 'product' AND parent_id IS NULL AND business_key IS NULL
         AND ${wordsColumn(await wordsPending(trx, catalogId))} @@ (SELECT string_agg('(' || replace(catalog_item_search_query(p)::text, ':*', '') || ')', ' | ')::tsquery FROM unnest(?::text[]) AS p)
         AND data->>? = ANY(?::text[])) x
     ORDER BY pid, created_at, id`,
    [pidField, catalogId, pids, pidField, pids],
  );
  return new Map(rows.map((r: ExistingItem & { pid: string }) => [r.pid, r]));
}

/** True for a JSON object (not an array, not null). */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An item as the write reads it before writing: identity, grouping, data and version. */
type ExistingItem = Pick<CatalogItem, 'id' | 'entity_type' | 'parent_id' | 'business_key' | 'data' | 'current_version'>;

/** Payload items that passed the shape checks, and the errors of those that did not. */
export interface Parsed {
  candidates: Candidate[];
  errors: ItemError[];
}

/**
 * Step 1 of a batch write: every input must be a JSON object with a well-formed id when it
 * names one; the id key and the other snapshot-row system columns (`__entity_type`,
 * `__parent_id`, `__current_version`; docs/api-reference.md "Bulk writes") are taken out of the data, and the
 * product's shared data laid over it.
 */
export function parseCandidates(input: unknown[], catalog: Catalog, opts: WriteOptions, pidField: string | null): Parsed {
  const errors: ItemError[] = [];
  const candidates: Candidate[] = [];
  input.forEach((raw, index) => {
    if (!isPlainObject(raw)) {
      errors.push({ index, detail: 'Item must be a JSON object', kind: 'invalid' });
      return;
    }
    const data: Record<string, unknown> = { ...raw };
    const rawId = data[ITEM_ID_KEY];
    // A pulled row's empty id column means "no id" (docs/tool-server-design.md "Pull": missing → "").
    const givenId = opts.ids?.[index] ?? (rawId === '' || rawId === null ? undefined : rawId);
    // docs/api-reference.md "Bulk writes": snapshot-row system columns are recognised, never stored as data.
    for (const k of SYSTEM_COLUMNS) delete data[k];
    if (givenId !== undefined && (typeof givenId !== 'string' || !isUuid(givenId))) {
      errors.push({ index, detail: `Unknown ${ITEM_ID_KEY}: ${JSON.stringify(givenId)}`, kind: 'not_found' });
      return;
    }
    if (opts.parent) Object.assign(data, opts.parent.shared);
    const key = businessKeyOf(data, catalog.unique_id_field);
    const pid = pidField ? businessKeyOf(data, pidField) : null;
    const tooLong = [key, pid].some((k) => k !== null && Buffer.byteLength(k, 'utf8') > MAX_BUSINESS_KEY_BYTES);
    if (tooLong) {
      errors.push({ index, detail: `${catalog.unique_id_field} / product id values are limited to ${MAX_BUSINESS_KEY_BYTES} bytes`, kind: 'invalid' });
      return;
    }
    candidates.push({ index, explicitId: givenId as string | undefined, key, pid, data });
  });
  return { candidates, errors };
}

/** Step 2: the same identity twice in one payload: the last occurrence wins, the others are `duplicate` errors. */
export function lastOfEachIdentity(candidates: Candidate[], errors: ItemError[]): Candidate[] {
  const lastByIdentity = new Map<string, number>();
  for (const c of candidates) {
    const identity = identityOf(c);
    if (identity) lastByIdentity.set(identity, c.index);
  }
  return candidates.filter((c) => {
    const identity = identityOf(c);
    const winner = identity ? lastByIdentity.get(identity) : c.index;
    if (winner !== c.index) errors.push({ index: c.index, detail: `Duplicate in payload: superseded by the item at index ${winner}`, kind: 'duplicate' });
    return winner === c.index;
  });
}

/** The stored rows the payload names: by database id, by business key, and products by business id. */
export interface Existing {
  byId: Map<string, ExistingItem>;
  byKey: Map<string, ExistingItem>;
  products: Map<string, ExistingItem>;
}

/** The columns of a stored row the write reads ({@link ExistingItem}). */
const EXISTING_COLUMNS = 'id, entity_type, parent_id, business_key, data, current_version';

/** The stored rows of `ids` and `keys` ({@link itemsByIdOrKey}), with `tail` (an order and lock) appended. */
async function selectByIdOrKey(trx: Knex.Transaction, catalogId: string, ids: string[], keys: string[], tail: string): Promise<ExistingItem[]> {
  const where = itemsByIdOrKey(catalogId, ids, keys);
  return (await trx.raw(`SELECT ${EXISTING_COLUMNS} FROM catalog_items WHERE ${where.sql} ${tail}`, where.bindings)).rows;
}

/**
 * Step 3: reads the stored rows the payload names in one set-based look-up (ids and business
 * keys), plus the products named by business id in grouped catalogs, and locks them
 * `FOR NO KEY UPDATE` in id order (src/services/catalog/catalog-locks.ts): a concurrent writer
 * of the same row waits, and the rows read are their latest committed versions. Call with the
 * product locks of `unique` held (no other writer can then give a product business id of the
 * payload to a row meanwhile); a business key another writer gives a row meanwhile makes the
 * write fail on the unique index, and run again. Without product look-ups the look-up locks
 * itself (a row whose business key changed while it waited is left out, as a later read would
 * not find it); with them, the rows found are locked and read again in one second statement,
 * and a product whose row no longer carries its business id is left out.
 */
export async function loadExisting(trx: Knex.Transaction, catalog: Catalog, unique: Candidate[], pidField: string | null): Promise<Existing> {
  const ids = unique.filter((c) => c.explicitId).map((c) => c.explicitId as string);
  const keys = unique.filter((c) => c.key !== null).map((c) => c.key as string);
  const pids = pidField ? [...new Set(unique.filter((c) => c.pid !== null).map((c) => c.pid as string))] : [];
  const lockNow = pids.length === 0 ? 'ORDER BY id FOR NO KEY UPDATE' : '';
  let existing: ExistingItem[] = ids.length + keys.length === 0 ? [] : await selectByIdOrKey(trx, catalog.id, ids, keys, lockNow);
  let products = pidField ? await productsByBusinessId(trx, catalog.id, pidField, pids) : new Map<string, ExistingItem>();
  if (pids.length > 0) {
    const found = [...new Set([...existing.map((r) => r.id), ...[...products.values()].map((r) => r.id)])];
    const locked: Array<ExistingItem & { pid_text: string | null }> =
      found.length === 0
        ? []
        : // The ids an InitPlan parameter ({@link itemsByIdOrKey}): with plain values and stale
          // statistics the planner read the whole table sequentially to lock 500 rows.
          (
            await trx.raw(
              `SELECT ${EXISTING_COLUMNS}, data->>? AS pid_text FROM catalog_items WHERE id = ANY((SELECT ?::uuid[])::uuid[]) ORDER BY id FOR NO KEY UPDATE`,
              [pidField, found],
            )
          ).rows;
    const now = new Map(locked.map((r) => [r.id, r]));
    const keySet = new Set(keys);
    const idSet = new Set(ids);
    existing = locked.filter((r) => idSet.has(r.id) || (r.business_key !== null && keySet.has(r.business_key))).map(({ pid_text: _, ...r }) => r);
    products = new Map(
      [...products].flatMap(([pid, r]) => {
        const row = now.get(r.id);
        const still = row && row.entity_type === 'product' && row.parent_id === null && row.business_key === null && row.pid_text === pid;
        return still ? [[pid, row] as const] : [];
      }),
    );
  }
  return {
    byId: new Map(existing.map((r) => [r.id, r])),
    byKey: new Map(existing.filter((r) => r.business_key !== null).map((r) => [r.business_key as string, r])),
    products,
  };
}

/** The rows to write, and what step 5 needs to link variants to products. */
export interface Plan {
  rows: WriteRow[];
  /** Database id written → payload index. */
  written: Map<string, number>;
  /** Product row id per product business id: existing products, then the payload's own. */
  productIds: Map<string, string>;
  /** Variant rows whose parent is resolved once every product of the payload is known. */
  linkLater: Array<{ row: WriteRow; pid: string; data: Record<string, unknown> }>;
}

/**
 * Step 4: resolves each candidate to its stored row (by id, business key or product business
 * id), merges the data, validates it in strict mode and builds its write row; errors go to
 * `errors`. Keyless items naming a product business id become that product.
 */
export function planRows(
  catalog: Catalog,
  opts: WriteOptions,
  unique: Candidate[],
  existing: Existing,
  validate: ItemValidator | null,
  errors: ItemError[],
): Plan {
  const plan: Plan = { rows: [], written: new Map(), productIds: new Map([...existing.products].map(([pid, r]) => [pid, r.id])), linkLater: [] };
  for (const c of unique) {
    const current = resolveCurrent(catalog, c, existing, errors);
    if (current === null) continue;
    const data = current ? { ...current.data, ...c.data } : c.data;
    const problems = validate ? timedValidation(validate, data, opts.timings) : [];
    if (problems.length > 0) {
      errors.push({ index: c.index, detail: problems.map((p) => `${p.loc.join('.') || 'data'}: ${p.msg}`).join('; '), kind: 'invalid', details: problems });
      continue;
    }
    const id = current?.id ?? newId();
    if (plan.written.has(id)) {
      // An id-addressed item and a key-addressed item resolved to the same row: the later wins.
      const earlier = plan.written.get(id) as number;
      errors.push({ index: earlier, detail: `Duplicate in payload: superseded by the item at index ${c.index}`, kind: 'duplicate' });
      plan.rows.splice(
        plan.rows.findIndex((r) => r.id === id),
        1,
      );
    }
    plan.written.set(id, c.index);
    const row = withSearch(
      {
        id,
        ord: c.index,
        entity_type: opts.parent ? 'variant' : (current?.entity_type ?? 'product'),
        parent_id: opts.parent ? opts.parent.id : (current?.parent_id ?? null),
        business_key: businessKeyOf(data, catalog.unique_id_field),
        data,
        search_text: '',
        search_words: null,
      },
      opts.timings,
    );
    if (c.pid !== null) {
      if (row.business_key === null) {
        row.entity_type = 'product';
        row.parent_id = null;
        plan.productIds.set(c.pid, id);
      } else {
        plan.linkLater.push({ row, pid: c.pid, data });
      }
    }
    plan.rows.push(row);
  }
  return plan;
}

/** Strict validation of one item's merged data, its time added to the `validation` stage. */
function timedValidation(validate: ItemValidator, data: Record<string, unknown>, timings: StageTimings | undefined): ReturnType<ItemValidator> {
  if (!timings) return validate(data);
  return timings.timeSync('validation', () => validate(data));
}

/**
 * The stored row a candidate updates: undefined for a new item; null (with an error pushed)
 * when the named id is unknown or the business key belongs to another item.
 */
function resolveCurrent(catalog: Catalog, c: Candidate, existing: Existing, errors: ItemError[]): ExistingItem | undefined | null {
  if (c.explicitId) {
    const current = existing.byId.get(c.explicitId);
    if (!current) {
      errors.push({ index: c.index, detail: `Item ${c.explicitId} not found in this catalog`, kind: 'not_found' });
      return null;
    }
    const holder = c.key !== null ? existing.byKey.get(c.key) : undefined;
    if (holder && holder.id !== current.id) {
      errors.push({ index: c.index, detail: `${catalog.unique_id_field} ${JSON.stringify(c.key)} already belongs to item ${holder.id}`, kind: 'conflict' });
      return null;
    }
    return current;
  }
  if (c.key !== null) return existing.byKey.get(c.key);
  if (c.pid !== null) return existing.products.get(c.pid);
  return undefined;
}

/**
 * Step 5: variants link to their product by business id; a product named by no row yet is
 * created (its data: the business id and the product_* fields of its last variant in the
 * payload).
 * @returns the ids of the products created this way
 */
export function linkVariants(plan: Plan, pidField: string): Set<string> {
  const autoProducts = new Set<string>();
  for (const { row, pid, data } of plan.linkLater) {
    let parent = plan.productIds.get(pid);
    if (!parent) {
      parent = newId();
      plan.productIds.set(pid, parent);
      autoProducts.add(parent);
      plan.rows.push({
        id: parent,
        ord: row.ord,
        entity_type: 'product',
        parent_id: null,
        business_key: null,
        data: { [pidField]: data[pidField] },
        search_text: '',
        search_words: null,
      });
    }
    if (autoProducts.has(parent)) {
      const product = plan.rows.find((r) => r.id === parent) as WriteRow;
      for (const [k, v] of Object.entries(data)) if (k.startsWith('product_')) product.data[k] = v;
      product.ord = Math.min(product.ord, row.ord);
    }
    row.entity_type = 'variant';
    row.parent_id = parent;
  }
  for (const r of plan.rows) if (autoProducts.has(r.id)) withSearch(r, undefined);
  return autoProducts;
}
