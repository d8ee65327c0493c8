/**
 * `execution_local_diff_compute` (docs/tool-server-design.md "Diff", the baseline release's algorithm; docs/tool-server-design.md "How the local tools behave": `key_field`, `deterministic_key_fields`, `allow_row_index_fallback`
 * and the outputs). Values are compared by type (values.ts) after both files' cells are
 * converted to the catalog column kinds, so `"1.0"` vs `1` or an array vs its JSON string is no change.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadTable, Table, writeJsonl } from './table';
import { canonicalJson, coerceCell, ColumnKind, differs, isNull, isSystemColumn, kindsFromSchema, normKey, Row, sha256Hex } from './values';

/** Inputs of the diff (docs/tool-server-design.md "Diff"). */
export interface DiffInput {
  /** The pulled snapshot (`.jsonl`, `.csv`, `.json` or `.parquet`), absolute. */
  before_path: string;
  /** The transformed file, absolute; the outputs are written next to it. */
  after_path: string;
  key_field: string;
  deterministic_key_fields: string[];
  allow_row_index_fallback: boolean;
  /** The catalog schema file (default: `<before stem>_schema.json` when it exists), for column kinds. */
  schema_path?: string | null;
}

/** How a row found its partner (docs/tool-server-design.md "Diff"). */
type Strategy = 'key_field' | 'deterministic_fields' | 'row_index';

/** `change_type` of a row diff (docs/tool-server-design.md "Diff"). */
export type ChangeType = 'added' | 'added_from_match' | 'modified' | 'modified_unmatched' | 'removed' | 'removed_untracked';

/** A staged change as the diff writes it (docs/tool-server-design.md "Staging", plus `base_version`). */
export interface StagedChangeOut {
  catalog_item_id: string | null;
  catalog_item_entity_type: string | null;
  before_data: Row | null;
  after_data: Row;
  source_data: Row | null;
  is_new_item: boolean;
  is_delete?: true;
  row_index: number;
  /** The item version the change was computed from (the before row's `__current_version`; docs/api-review.md "Conflicts"). */
  base_version?: number;
}

/** One entry of `diff_details.json` `row_diffs`. */
export interface RowDiff {
  match_key: string;
  match_strategy: string;
  change_type: ChangeType;
  catalog_item_id: string | null;
  catalog_item_entity_type: string | null;
  changed_fields: string[];
  before_data: Row | null;
  after_data: Row | null;
}

/** `diff_summary` (docs/tool-server-design.md "Diff"). */
export interface DiffSummary {
  rows_before: number;
  rows_after: number;
  rows_added: number;
  rows_removed: number;
  rows_modified: number;
  columns_added: string[];
  columns_removed: string[];
}

/** `key_diagnostics` (docs/tool-server-design.md "Diff"), plus up to 10 examples of duplicated keys per side. */
export interface KeyDiagnostics {
  key_field: string;
  key_field_present_before: boolean;
  key_field_present_after: boolean;
  before_missing_key_values: number;
  after_missing_key_values: number;
  before_duplicate_key_values: number;
  after_duplicate_key_values: number;
  before_duplicate_key_examples: string[];
  after_duplicate_key_examples: string[];
  deterministic_key_fields_used: string[];
  ignored_deterministic_key_fields: string[];
  allow_row_index_fallback: boolean;
  before_match_strategy_counts: Record<string, number>;
  after_match_strategy_counts: Record<string, number>;
  pair_match_strategy_counts: Record<string, number>;
}

/** A sample field change (docs/tool-server-design.md "Diff": up to 10, 2 per pair). */
export interface SampleChange {
  key: string;
  field: string;
  before: unknown;
  after: unknown;
}

/** What the diff returns; the staged changes themselves are in the file. */
export interface DiffResult {
  diff_summary: DiffSummary;
  staged_changes_path: string;
  diff_details_path: string;
  staged_count: number;
  field_change_counts: Record<string, number>;
  entity_type_change_counts: Record<string, { added: number; removed: number; modified: number }>;
  key_diagnostics: KeyDiagnostics;
  sample_changes: SampleChange[];
}

/** A diff that cannot be computed (missing key column without a fallback, unmatched rows). */
export class DiffError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DiffError';
  }
}

/** A row's match key and strategy, or null when unmatched. */
type Match = { key: string; strategy: Strategy } | null;

/** The value of a deterministic field as it enters the identity hash: containers as sorted JSON, strings trimmed, other scalars as text. */
function detValue(v: unknown): string {
  return v !== null && typeof v === 'object' ? canonicalJson(v) : String(v).trim();
}

/** Match keys of a file's rows (docs/tool-server-design.md "Diff"). */
function matchKeys(rows: Row[], keyPresent: boolean, keyField: string, fields: string[], fallback: boolean): Match[] {
  return rows.map((row, pos): Match => {
    if (keyPresent) {
      const k = normKey(row[keyField]);
      if (k !== null) return { key: `k:${k}`, strategy: 'key_field' };
    }
    if (fields.length) {
      const id: Record<string, string> = {};
      for (const f of fields) if (!isNull(row[f])) id[f] = detValue(row[f]);
      if (Object.keys(id).length) return { key: `f:${sha256Hex(canonicalJson(id))}`, strategy: 'deterministic_fields' };
    }
    return fallback ? { key: `r:${pos}`, strategy: 'row_index' } : null;
  });
}

/** Null-key count (the row count when the column is missing) and duplicated keys of one side. */
function keyStats(table: Table, keyField: string): { present: boolean; missing: number; duplicates: string[] } {
  const present = table.columns.includes(keyField);
  if (!present) return { present, missing: table.rows.length, duplicates: [] };
  const counts = new Map<string, number>();
  let missing = 0;
  for (const r of table.rows) {
    const k = normKey(r[keyField]);
    if (k === null) missing++;
    else counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return { present, missing, duplicates: [...counts].filter(([, n]) => n > 1).map(([k]) => k) };
}

/** Column kinds: from the schema file, else inferred from the before file's typed values. */
function columnKinds(before: Table, schemaPath: string | null): Map<string, ColumnKind> {
  if (schemaPath && fs.existsSync(schemaPath)) {
    const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8')) as { schema_definition?: unknown };
    const kinds = kindsFromSchema(schema.schema_definition ?? schema);
    if (kinds.size) return kinds;
  }
  const kinds = new Map<string, ColumnKind>();
  const seen = new Map<string, Set<string>>();
  for (const r of before.rows)
    for (const [k, v] of Object.entries(r)) {
      const t = Array.isArray(v) ? 'array' : typeof v;
      const s = seen.get(k) ?? new Set<string>();
      s.add(t);
      seen.set(k, s);
    }
  for (const [k, s] of seen) {
    if (s.size !== 1) continue;
    const t = [...s][0];
    if (t === 'number' || t === 'boolean' || t === 'array' || t === 'object') kinds.set(k, t);
  }
  return kinds;
}

/**
 * Converts the cells of `rows` to the column kinds in place (system columns untouched): the rows
 * are this diff's own copies, and 100,000 rows copied twice cost more in garbage collection than
 * the diff itself.
 */
function coerceRows(rows: Row[], kinds: Map<string, ColumnKind>): Row[] {
  if (!kinds.size) return rows;
  for (const row of rows)
    for (const k in row) {
      const v = row[k];
      if (typeof v !== 'string') continue;
      const kind = kinds.get(k);
      if (!kind || kind === 'string' || isSystemColumn(k)) continue;
      const c = coerceCell(v, kind);
      if (c !== v) row[k] = c;
    }
  return rows;
}

/** The non-system fields whose values differ between two rows, sorted (without building the rows' data objects). */
function changedFields(br: Row, ar: Row): string[] {
  const changed: string[] = [];
  for (const k in br) if (!isSystemColumn(k) && differs(br[k], ar[k])) changed.push(k);
  for (const k in ar) if (!(k in br) && !isSystemColumn(k) && differs(undefined, ar[k])) changed.push(k);
  return changed.length > 1 ? changed.sort() : changed;
}

/** `row` without the system columns. */
function dataOf(row: Row): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) if (!isSystemColumn(k)) out[k] = v;
  return out;
}

/** The before row's `__current_version` as a non-negative integer, if it has one. */
function baseVersion(row: Row | undefined): number | undefined {
  const n = Number(normKey(row?.__current_version));
  return row && Number.isInteger(n) && n >= 0 && normKey(row.__current_version) !== null ? n : undefined;
}

/** Counter helper. */
function bump(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/**
 * What the pairing produces, built up one match key at a time in sorted key order
 * (docs/tool-server-design.md "Diff": pairs, added and removed rows).
 */
class DiffAccumulator {
  readonly staged: StagedChangeOut[] = [];
  readonly rowDiffs: RowDiff[] = [];
  readonly fieldCounts: Record<string, number> = {};
  readonly entityCounts: Record<string, { added: number; removed: number; modified: number }> = {};
  readonly pairCounts: Record<string, number> = {};
  readonly samples: SampleChange[] = [];
  readonly summary = { added: 0, removed: 0, modified: 0 };

  /** Counts a change under its entity type label ("unknown" when null). */
  private countEntity(entity: string | null, kind: 'added' | 'removed' | 'modified'): void {
    const c = (this.entityCounts[entity ?? 'unknown'] ??= { added: 0, removed: 0, modified: 0 });
    c[kind]++;
  }

  /** A before row and an after row with the same match key: every differing field counts; a change is staged when any differs. */
  pair(key: string, br: Row, ar: Row, bs: Strategy, as: Strategy): void {
    const strategy = bs === as ? bs : `${bs}->${as}`;
    bump(this.pairCounts, strategy);
    const changed = changedFields(br, ar);
    if (!changed.length) return;
    for (const f of changed) bump(this.fieldCounts, f);
    const bd = dataOf(br);
    const ad = dataOf(ar);
    const itemId = normKey(br.__catalog_item_id) ?? normKey(ar.__catalog_item_id);
    const entity = normKey(ar.__entity_type) ?? normKey(br.__entity_type);
    const isNew = itemId === null;
    const change: StagedChangeOut = {
      catalog_item_id: itemId,
      catalog_item_entity_type: entity,
      before_data: isNew ? null : bd,
      after_data: ad,
      source_data: null,
      is_new_item: isNew,
      row_index: this.staged.length,
    };
    const version = baseVersion(br);
    if (!isNew && version !== undefined) change.base_version = version;
    this.staged.push(change);
    this.summary[isNew ? 'added' : 'modified']++;
    this.countEntity(entity, isNew ? 'added' : 'modified');
    this.rowDiffs.push({
      match_key: key,
      match_strategy: strategy,
      change_type: isNew ? 'added_from_match' : 'modified',
      catalog_item_id: itemId,
      catalog_item_entity_type: entity,
      changed_fields: changed,
      before_data: bd,
      after_data: ad,
    });
    for (const f of changed.slice(0, 2)) if (this.samples.length < 10) this.samples.push({ key, field: f, before: bd[f] ?? null, after: ad[f] ?? null });
  }

  /** An after row without a partner: a new item, or (with a catalog id) a modify of an unmatched item. */
  added(key: string, ar: Row, strategy: Strategy): void {
    const itemId = normKey(ar.__catalog_item_id);
    const entity = normKey(ar.__entity_type);
    const ad = dataOf(ar);
    this.staged.push({
      catalog_item_id: itemId,
      catalog_item_entity_type: entity,
      before_data: null,
      after_data: ad,
      source_data: ad,
      is_new_item: itemId === null,
      row_index: this.staged.length,
    });
    bump(this.pairCounts, `added:${strategy}`);
    const kind = itemId === null ? 'added' : 'modified';
    this.summary[kind]++;
    this.countEntity(entity, kind);
    this.rowDiffs.push({
      match_key: key,
      match_strategy: strategy,
      change_type: itemId === null ? 'added' : 'modified_unmatched',
      catalog_item_id: itemId,
      catalog_item_entity_type: entity,
      changed_fields: Object.keys(ad).sort(),
      before_data: null,
      after_data: ad,
    });
  }

  /** A before row without a partner: a delete when it has a catalog id, else only recorded as `removed_untracked`. */
  removed(key: string, br: Row, strategy: Strategy): void {
    const itemId = normKey(br.__catalog_item_id);
    const entity = normKey(br.__entity_type);
    const bd = dataOf(br);
    bump(this.pairCounts, `removed:${strategy}`);
    this.rowDiffs.push({
      match_key: key,
      match_strategy: strategy,
      change_type: itemId === null ? 'removed_untracked' : 'removed',
      catalog_item_id: itemId,
      catalog_item_entity_type: entity,
      changed_fields: [],
      before_data: bd,
      after_data: null,
    });
    if (itemId === null) return;
    const change: StagedChangeOut = {
      catalog_item_id: itemId,
      catalog_item_entity_type: entity,
      before_data: bd,
      after_data: {},
      source_data: null,
      is_new_item: false,
      is_delete: true,
      row_index: this.staged.length,
    };
    const version = baseVersion(br);
    if (version !== undefined) change.base_version = version;
    this.staged.push(change);
    this.summary.removed++;
    this.countEntity(entity, 'removed');
  }
}

/** The default schema file beside a pulled snapshot: `<stem>_schema.json`. */
export function defaultSchemaPath(beforePath: string): string {
  const ext = path.extname(beforePath);
  return beforePath.slice(0, beforePath.length - ext.length) + '_schema.json';
}

/**
 * Computes the diff of two tables (docs/tool-server-design.md "Diff") and writes `staged_changes.jsonl` and
 * `diff_details.json` next to the after file.
 * @returns summary, counts, key diagnostics, sample changes and the two paths
 * @throws DiffError when rows cannot be matched (see docs/tool-server-design.md "Diff"); TableFormatError for unreadable files
 */
export async function computeDiff(input: DiffInput): Promise<DiffResult> {
  return diffTables(await loadTable(input.before_path), await loadTable(input.after_path), input);
}

/**
 * {@link computeDiff} that also hands back what it read and staged, so that stage_dataset can
 * validate without reading the three files again (they are large: 100,000 rows each).
 */
export async function computeDiffKeeping(input: DiffInput): Promise<{ result: DiffResult; before: Table; after: Table; staged: StagedChangeOut[] }> {
  const before = await loadTable(input.before_path);
  const after = await loadTable(input.after_path);
  const kept: { staged: StagedChangeOut[] } = { staged: [] };
  const result = diffTables(before, after, input, kept);
  return { result, before, after, staged: kept.staged };
}

/**
 * {@link computeDiff} over tables already read (the bench calls it directly). Its length is the
 * documented sequence (match keys, errors, grouping, pairing, summary, diagnostics, files), kept in one
 * place so it can be read against docs/tool-server-design.md "Diff" top to bottom.
 */
export function diffTables(beforeRaw: Table, afterRaw: Table, input: DiffInput, keep?: { staged: StagedChangeOut[] }): DiffResult {
  const kinds = columnKinds(beforeRaw, input.schema_path ?? defaultSchemaPath(input.before_path));
  const before = coerceRows(beforeRaw.rows, kinds);
  const after = coerceRows(afterRaw.rows, kinds);
  const keyField = input.key_field;
  const bStats = keyStats(beforeRaw, keyField);
  const aStats = keyStats(afterRaw, keyField);
  const requested = input.deterministic_key_fields;
  const usable = requested.filter((f) => beforeRaw.columns.includes(f) && afterRaw.columns.includes(f) && !isSystemColumn(f));
  const ignored = requested.filter((f) => !usable.includes(f));
  if (!bStats.present && !aStats.present && !requested.length && !input.allow_row_index_fallback)
    throw new DiffError(`key field ${keyField} is in neither file, no deterministic_key_fields were given and allow_row_index_fallback is off`);

  const bKeys = matchKeys(before, bStats.present, keyField, usable, input.allow_row_index_fallback);
  const aKeys = matchKeys(after, aStats.present, keyField, usable, input.allow_row_index_fallback);
  const bUnmatched = bKeys.filter((m) => m === null).length;
  const aUnmatched = aKeys.filter((m) => m === null).length;
  if (bUnmatched || aUnmatched)
    throw new DiffError(
      `${bUnmatched} before rows and ${aUnmatched} after rows have no match key (no ${keyField}, no deterministic field value, row-index fallback off)`,
    );

  const beforeCounts: Record<string, number> = {};
  const afterCounts: Record<string, number> = {};
  const groups = new Map<string, { b: number[]; a: number[] }>();
  const group = (k: string) => groups.get(k) ?? (groups.set(k, { b: [], a: [] }), groups.get(k)!);
  bKeys.forEach((m, i) => (bump(beforeCounts, m!.strategy), group(m!.key).b.push(i)));
  aKeys.forEach((m, i) => (bump(afterCounts, m!.strategy), group(m!.key).a.push(i)));

  const acc = new DiffAccumulator();
  for (const key of [...groups.keys()].sort()) {
    const { b, a } = groups.get(key)!;
    const n = Math.min(b.length, a.length);
    for (let i = 0; i < n; i++) acc.pair(key, before[b[i]], after[a[i]], bKeys[b[i]]!.strategy, aKeys[a[i]]!.strategy);
    for (const ai of a.slice(n)) acc.added(key, after[ai], aKeys[ai]!.strategy);
    for (const bi of b.slice(n)) acc.removed(key, before[bi], bKeys[bi]!.strategy);
  }
  const { staged, rowDiffs, fieldCounts, entityCounts, pairCounts, samples, summary } = acc;

  const bCols = beforeRaw.columns.filter((c) => !isSystemColumn(c));
  const aCols = afterRaw.columns.filter((c) => !isSystemColumn(c));
  const diffSummary: DiffSummary = {
    rows_before: before.length,
    rows_after: after.length,
    rows_added: summary.added,
    rows_removed: summary.removed,
    rows_modified: summary.modified,
    columns_added: aCols.filter((c) => !bCols.includes(c)).sort(),
    columns_removed: bCols.filter((c) => !aCols.includes(c)).sort(),
  };
  const sortedFieldCounts = Object.fromEntries(Object.entries(fieldCounts).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
  const keyDiagnostics: KeyDiagnostics = {
    key_field: keyField,
    key_field_present_before: bStats.present,
    key_field_present_after: aStats.present,
    before_missing_key_values: bStats.missing,
    after_missing_key_values: aStats.missing,
    before_duplicate_key_values: bStats.duplicates.length,
    after_duplicate_key_values: aStats.duplicates.length,
    before_duplicate_key_examples: bStats.duplicates.slice(0, 10),
    after_duplicate_key_examples: aStats.duplicates.slice(0, 10),
    deterministic_key_fields_used: usable,
    ignored_deterministic_key_fields: ignored,
    allow_row_index_fallback: input.allow_row_index_fallback,
    before_match_strategy_counts: beforeCounts,
    after_match_strategy_counts: afterCounts,
    pair_match_strategy_counts: pairCounts,
  };

  const dir = path.dirname(input.after_path);
  const stagedPath = path.join(dir, 'staged_changes.jsonl');
  const detailsPath = path.join(dir, 'diff_details.json');
  writeJsonl(stagedPath, staged);
  if (keep) keep.staged = staged;
  fs.writeFileSync(
    detailsPath,
    JSON.stringify({
      summary: diffSummary,
      key_diagnostics: keyDiagnostics,
      field_change_counts: sortedFieldCounts,
      entity_type_change_counts: entityCounts,
      row_diffs: rowDiffs,
    }),
  );
  return {
    diff_summary: diffSummary,
    staged_changes_path: stagedPath,
    diff_details_path: detailsPath,
    staged_count: staged.length,
    field_change_counts: sortedFieldCounts,
    entity_type_change_counts: entityCounts,
    key_diagnostics: keyDiagnostics,
    sample_changes: samples,
  };
}
