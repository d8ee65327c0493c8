/**
 * Channel readiness kept per (catalog, channel) instead of scanned on every request
 * (docs/channels.md, "Readiness"). A state row holds the report's counts and the watermark they
 * are complete from; `channel_readiness_items` holds each counted item's verdict (error codes,
 * missing attributes). A request refreshes the state by the items touched since the watermark
 * (src/services/catalog/item-changes.ts): each touched item's old verdict is subtracted and its
 * new one added, so the answer costs the changes, not the catalog. The state is rebuilt by one
 * scan when it has none yet, when what the verdicts depend on changed (its context key), or
 * after a snapshot restore (which writes no change records: item-changes.ts `restoredSince`).
 * Refreshes of one state are serialized by its row lock.
 */
import type { Knex } from 'knex';
import { newId } from '../../lib/ids';
import { ITEMS_WATERMARK_SQL, restoredSince, touchedIdsAfter } from '../catalog/item-changes';

/** Items read per page of a rebuild or a refresh. */
export const STATE_PAGE_ITEMS = 2000;

/** An item's verdict for a channel: the error codes it has and the attributes it misses (each once). */
export interface ReadinessVerdict {
  errors: string[];
  missing: string[];
}

/** The report's counts: items counted, ready (no error), blocked per error code, missing per attribute. */
export interface ReadinessCounts {
  total: number;
  ready: number;
  blocked: Record<string, number>;
  by_attribute: Record<string, number>;
}

/** An item as the verdicts read it. */
export interface ReadinessItem {
  id: string;
  entity_type: 'product' | 'variant';
  parent_id: string | null;
  data: Record<string, unknown>;
}

/** The verdict of one counted item: `parent` is a variant's product's data (undefined for a product). */
export type VerdictOf = (item: ReadinessItem, parent: Record<string, unknown> | undefined) => ReadinessVerdict;

/** Adds (`sign` 1) or removes (-1) one verdict to the counts; counters that reach 0 are dropped. */
function addVerdict(c: ReadinessCounts, v: ReadinessVerdict, sign: 1 | -1): void {
  c.total += sign;
  if (v.errors.length === 0) c.ready += sign;
  const bump = (m: Record<string, number>, k: string) => {
    m[k] = (m[k] ?? 0) + sign;
    if (m[k] === 0) delete m[k];
  };
  for (const code of v.errors) bump(c.blocked, code);
  for (const attribute of v.missing) bump(c.by_attribute, attribute);
}

/** The data of the variants' products among `rows`. */
export async function parentData(knex: Knex, rows: ReadinessItem[]): Promise<Map<string, Record<string, unknown>>> {
  const ids = [...new Set(rows.map((r) => r.parent_id).filter((p): p is string => p !== null))];
  if (ids.length === 0) return new Map();
  const found = (await knex('catalog_items').whereRaw('id = ANY(?::uuid[])', [ids]).select('id', 'data')) as Array<{
    id: string;
    data: Record<string, unknown>;
  }>;
  return new Map(found.map((r) => [r.id, r.data]));
}

/** Which products among `rows` have variants (they are counted through their variants). */
export async function productsWithVariants(knex: Knex, rows: ReadinessItem[]): Promise<Set<string>> {
  const ids = rows.filter((r) => r.entity_type === 'product').map((r) => r.id);
  if (ids.length === 0) return new Set();
  // One parent_id index probe per product (a semi join over the ids): a plain `parent_id IN (…)`
  // was planned as a scan of the whole table.
  const { rows: found } = (await knex.raw('SELECT p.id FROM unnest(?::uuid[]) AS p(id) WHERE EXISTS (SELECT 1 FROM catalog_items c WHERE c.parent_id = p.id)', [
    ids,
  ])) as { rows: Array<{ id: string }> };
  return new Set(found.map((r) => r.id));
}

/** The verdicts of the counted items among `rows` (variants, and products without variants). */
async function verdictsOf(knex: Knex, rows: ReadinessItem[], verdictOf: VerdictOf): Promise<Map<string, ReadinessVerdict>> {
  const parents = await parentData(knex, rows);
  const withVariants = await productsWithVariants(knex, rows);
  const out = new Map<string, ReadinessVerdict>();
  for (const item of rows) {
    if (item.entity_type === 'variant') out.set(item.id, verdictOf(item, item.parent_id ? parents.get(item.parent_id) : undefined));
    else if (!withVariants.has(item.id)) out.set(item.id, verdictOf(item, undefined));
  }
  return out;
}

/** Stores verdicts under a state (one statement). */
async function insertVerdicts(trx: Knex.Transaction, stateId: string, verdicts: Map<string, ReadinessVerdict>): Promise<void> {
  if (verdicts.size === 0) return;
  await trx.raw(
    `INSERT INTO channel_readiness_items (state_id, item_id, errors, missing)
     SELECT ?, x.i, ARRAY(SELECT jsonb_array_elements_text(x.e)), ARRAY(SELECT jsonb_array_elements_text(x.m))
     FROM jsonb_to_recordset(?::jsonb) AS x(i uuid, e jsonb, m jsonb)`,
    [stateId, JSON.stringify([...verdicts].map(([i, v]) => ({ i, e: v.errors, m: v.missing })))],
  );
}

/** The next `limit` items of the catalog after `after` in id order (a keyset page of a scan). */
export async function itemsPageAfter(db: Knex, catalogId: string, after: string | null, limit: number): Promise<ReadinessItem[]> {
  const q = db('catalog_items').where('catalog_id', catalogId).orderBy('id').limit(limit).select('id', 'entity_type', 'parent_id', 'data');
  if (after) q.where('id', '>', after);
  return (await q) as ReadinessItem[];
}

/** Rebuilds a state's verdicts by one keyset scan of the catalog; adds them to `counts`. */
async function rebuild(trx: Knex.Transaction, stateId: string, catalogId: string, verdictOf: VerdictOf, counts: ReadinessCounts): Promise<void> {
  await trx('channel_readiness_items').where('state_id', stateId).delete();
  let after: string | null = null;
  for (;;) {
    const rows = await itemsPageAfter(trx, catalogId, after, STATE_PAGE_ITEMS);
    if (rows.length === 0) return;
    after = rows[rows.length - 1].id;
    const verdicts = await verdictsOf(trx, rows, verdictOf);
    for (const v of verdicts.values()) addVerdict(counts, v, 1);
    await insertVerdicts(trx, stateId, verdicts);
    if (rows.length < STATE_PAGE_ITEMS) return;
  }
}

/** Whether two verdicts are the same (codes and attributes in the same order). */
function sameVerdict(a: ReadinessVerdict, b: ReadinessVerdict): boolean {
  return a.errors.join('\u0000') === b.errors.join('\u0000') && a.missing.join('\u0000') === b.missing.join('\u0000');
}

/** A touched id with the item as it is now (absent fields when deleted) and its kept verdict (absent when none). */
interface TouchedRow {
  touched: string;
  id: string | null;
  entity_type: ReadinessItem['entity_type'] | null;
  parent_id: string | null;
  data: Record<string, unknown> | null;
  errors: string[] | null;
  missing: string[] | null;
}

/**
 * Refreshes a state by the items touched since `since`. Each page of touched ids is read with
 * the items and their kept verdicts in one query; only the verdicts that differ are written (a
 * write that changes no verdict, such as a new price, writes nothing): old verdicts out of the
 * counts and the table, new ones in.
 */
async function refresh(trx: Knex.Transaction, stateId: string, catalogId: string, since: Date, verdictOf: VerdictOf, counts: ReadinessCounts): Promise<void> {
  let after: string | null = null;
  for (;;) {
    const ids = await touchedIdsAfter(trx, catalogId, since, after, STATE_PAGE_ITEMS);
    if (ids.length === 0) return;
    after = ids[ids.length - 1];
    const { rows: touched } = (await trx.raw(
      `SELECT u.id AS touched, i.id, i.entity_type, i.parent_id, i.data, r.errors, r.missing
       FROM unnest(?::uuid[]) AS u(id)
       LEFT JOIN catalog_items i ON i.id = u.id AND i.catalog_id = ?
       LEFT JOIN channel_readiness_items r ON r.state_id = ? AND r.item_id = u.id`,
      [ids, catalogId, stateId],
    )) as { rows: TouchedRow[] };
    const items = touched.filter((t) => t.id !== null) as unknown as ReadinessItem[];
    const verdicts = await verdictsOf(trx, items, verdictOf);
    const gone: string[] = [];
    const added = new Map<string, ReadinessVerdict>();
    for (const t of touched) {
      const before = t.errors !== null ? { errors: t.errors, missing: t.missing ?? [] } : null;
      const now = verdicts.get(t.touched) ?? null;
      if (before && now && sameVerdict(before, now)) continue;
      if (before) {
        addVerdict(counts, before, -1);
        gone.push(t.touched);
      }
      if (now) {
        addVerdict(counts, now, 1);
        added.set(t.touched, now);
      }
    }
    if (gone.length) await trx('channel_readiness_items').where('state_id', stateId).whereRaw('item_id = ANY(?::uuid[])', [gone]).del();
    await insertVerdicts(trx, stateId, added);
    if (ids.length < STATE_PAGE_ITEMS) return;
  }
}

/**
 * The readiness counts of a catalog for a channel from its kept state, refreshed first (see the
 * module comment). `contextKey` names everything `verdictOf` depends on besides the items; a
 * state with another key is rebuilt.
 * @returns the counts, exact as of the refresh
 */
export async function keptReadinessCounts(
  knex: Knex,
  catalogId: string,
  channelId: string,
  contextKey: string,
  verdictOf: VerdictOf,
): Promise<ReadinessCounts> {
  // The state row exists (committed) before any refresh locks it.
  await knex('channel_readiness_states')
    .insert({ id: newId(), catalog_id: catalogId, channel: channelId, context_key: contextKey })
    .onConflict(['catalog_id', 'channel'])
    .ignore();
  return knex.transaction(async (trx) => {
    const state = await trx('channel_readiness_states').where({ catalog_id: catalogId, channel: channelId }).forUpdate().first();
    const { rows } = await trx.raw(`SELECT ${ITEMS_WATERMARK_SQL} AS mark`);
    const fresh = state.watermark && state.context_key === contextKey && !(await restoredSince(trx, catalogId, state.watermark));
    const counts: ReadinessCounts = fresh
      ? { total: state.total, ready: state.ready, blocked: { ...state.blocked }, by_attribute: { ...state.by_attribute } }
      : { total: 0, ready: 0, blocked: {}, by_attribute: {} };
    if (fresh) await refresh(trx, state.id, catalogId, state.watermark, verdictOf, counts);
    else await rebuild(trx, state.id, catalogId, verdictOf, counts);
    await trx('channel_readiness_states')
      .where('id', state.id)
      .update({
        context_key: contextKey,
        watermark: rows[0].mark,
        total: counts.total,
        ready: counts.ready,
        blocked: JSON.stringify(counts.blocked),
        by_attribute: JSON.stringify(counts.by_attribute),
        updated_at: trx.fn.now(),
      });
    return counts;
  });
}
