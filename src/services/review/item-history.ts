/**
 * The history of one catalog item for the console's item page: the staged changes
 * applied to it (newest first, with the activity that staged them), which also give each
 * field's provenance (the newest applied change that set it: its sources, confidence, method,
 * activity and date), and the item as each of the catalog's newest snapshots holds it.
 * Callers check ownership of the catalog and item first (src/services/catalog/items/items-read.ts
 * `loadItem`).
 */
import type { Knex } from 'knex';

/** History entries read per kind, at most (newest first). */
export const ITEM_HISTORY_LIMIT = 50;

/** A staged change applied to the item, with its activity. */
export interface AppliedItemChange {
  id: string;
  activity_id: string;
  activity_type: string;
  activity_description: string | null;
  /** The activity's metadata `source` (e.g. `console_item_edit`), when it has one. */
  activity_source: string | null;
  before_data: Record<string, unknown>;
  after_data: Record<string, unknown>;
  accepted_fields: string[] | null;
  source_data: Record<string, unknown>;
  review_info: Record<string, unknown>;
  applied_at: Date;
  created_at: Date;
  /** Who approved it: `person:<id>`, `api_key:<id>`, `user:<sub>`; null before people were recorded. */
  decided_by: string | null;
}

/** The item as one snapshot holds it. */
export interface ItemSnapshotVersion {
  snapshot_id: string;
  snapshot_type: string;
  reason: string | null;
  snapshot_created_at: Date;
  created_by: string;
  data: Record<string, unknown>;
  current_version: number;
  updated_at: Date;
}

/**
 * The applied staged changes of item `itemId`, newest applied first (at most
 * {@link ITEM_HISTORY_LIMIT}; index `staged_changes_item_applied_idx`).
 */
export async function appliedItemChanges(knex: Knex, catalogId: string, itemId: string): Promise<AppliedItemChange[]> {
  return (await knex('staged_changes as s')
    .join('review_activities as a', 'a.id', 's.activity_id')
    .where('s.catalog_item_id', itemId)
    .where('s.catalog_id', catalogId)
    .whereNotNull('s.applied_at')
    .orderBy([
      { column: 's.applied_at', order: 'desc' },
      { column: 's.id', order: 'desc' },
    ])
    .limit(ITEM_HISTORY_LIMIT)
    .select(
      's.id',
      's.activity_id',
      'a.type as activity_type',
      'a.description as activity_description',
      knex.raw("a.metadata ->> 'source' AS activity_source"),
      's.before_data',
      's.after_data',
      's.accepted_fields',
      's.source_data',
      's.review_info',
      's.applied_at',
      's.created_at',
      's.decided_by',
    )) as AppliedItemChange[];
}

/**
 * The item as each of the catalog's newest {@link ITEM_HISTORY_LIMIT} snapshots holds it, newest
 * snapshot first; snapshots taken while the item did not exist are left out (one primary-key
 * look-up per snapshot).
 */
export async function itemSnapshotVersions(knex: Knex, catalogId: string, itemId: string): Promise<ItemSnapshotVersion[]> {
  const { rows } = await knex.raw(
    `SELECT s.id AS snapshot_id, s.snapshot_type, s.reason, s.created_at AS snapshot_created_at, s.created_by,
            i.data, i.current_version, i.updated_at
     FROM (SELECT * FROM catalog_snapshots WHERE catalog_id = ? ORDER BY created_at DESC, id DESC LIMIT ?) s
     JOIN catalog_snapshot_items i ON i.snapshot_id = s.id AND i.id = ?
     ORDER BY s.created_at DESC, s.id DESC`,
    [catalogId, ITEM_HISTORY_LIMIT, itemId],
  );
  return rows as ItemSnapshotVersion[];
}

/** What a field's value was set by: the newest applied change of the item that wrote it. */
export interface FieldProvenance {
  change: AppliedItemChange;
  /** Source URLs of the field (`source_data.sources[field]`, `review_info.sources[field]`). */
  sources: string[];
  confidence: string | null;
  method: string | null;
  /** Who staged it when the change says (`review_info.edited_by`, the console's edits). */
  edited_by: string | null;
  /** URL → `<job_id>/<record_id>` of the captured page (`review_info.source_captures`). */
  captures: Record<string, string>;
}

function obj(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Whether `change` wrote `field`: its value differs before → after and the field was accepted. */
function wrote(change: AppliedItemChange, field: string): boolean {
  if (change.accepted_fields && !change.accepted_fields.includes(field)) return false;
  const before = obj(change.before_data);
  const after = obj(change.after_data);
  return (field in after || field in before) && JSON.stringify(before[field]) !== JSON.stringify(after[field]);
}

/** The string URLs of a `sources` entry (a string, a list, or `{url}` objects). */
function urlsOf(value: unknown): string[] {
  const out: string[] = [];
  for (const s of Array.isArray(value) ? value : [value]) {
    const url = typeof s === 'string' ? s : typeof obj(s).url === 'string' ? String(obj(s).url) : null;
    if (url && !out.includes(url)) out.push(url);
  }
  return out;
}

/**
 * Each field's provenance from `changes` (newest first, as {@link appliedItemChanges} gives
 * them): for every field, the first change that wrote it. Fields no applied change wrote (the
 * item's import or API writes) have none.
 */
export function fieldProvenance(changes: AppliedItemChange[], fields: string[]): Record<string, FieldProvenance> {
  const out: Record<string, FieldProvenance> = {};
  for (const field of fields) {
    const change = changes.find((c) => wrote(c, field));
    if (!change) continue;
    const info = obj(change.review_info);
    const conf = obj(info.field_confidence)[field];
    const method = obj(info.field_methods)[field];
    out[field] = {
      change,
      sources: [...new Set([...urlsOf(obj(obj(change.source_data).sources)[field]), ...urlsOf(obj(info.sources)[field])])],
      confidence: typeof conf === 'string' ? conf : null,
      method: typeof method === 'string' ? method : null,
      edited_by: typeof info.edited_by === 'string' ? info.edited_by : null,
      captures: Object.fromEntries(Object.entries(obj(info.source_captures)).filter((e): e is [string, string] => typeof e[1] === 'string')),
    };
  }
  return out;
}
