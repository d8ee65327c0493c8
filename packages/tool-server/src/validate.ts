/**
 * `execution_bundle_validate` (docs/tool-server-design.md "Validate" order of checks with the later release's product/variant
 * check: "the staged changes against the catalog schema (Ajv, as the service validates),
 * required fields, enum values, product/variant structure; a report with every error").
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ApiClient } from './api-client';
import { guardPath, UnsafePathError } from './workspace';
import { loadTable, readObjects, Table } from './table';
import { coerceCell, isNull, isSystemColumn, kindsFromSchema, normKey, Row, sha256Hex } from './values';

/** One finding (docs/tool-server-design.md "Validate"), with where it is when it concerns one change. */
export interface Issue {
  code: string;
  message: string;
  fix_hint?: string;
  row_index?: number;
  field?: string;
}

/** Rules of the validation (docs/tool-server-design.md "Validate": the baseline release's defaults). */
export interface ValidationRules {
  allow_row_deletes: boolean;
  max_change_ratio_warning: number;
}

/** Inputs of the validation; paths are as the caller gave them (the guard resolves them). */
export interface ValidateInput {
  catalog_id: string;
  before_path?: string | null;
  after_path?: string | null;
  script_path?: string | null;
  staged_changes_path?: string | null;
  /** Changes given inline instead of a file. */
  staged_changes?: unknown[] | null;
  diff_summary?: Record<string, unknown> | null;
  schema_changes?: Record<string, unknown> | null;
  rules: ValidationRules;
  organization_id?: string | null;
  /** The files' contents when the caller has just read them (stage_dataset after its diff); the paths are still checked. */
  loaded?: { before?: Table; after?: Table; staged?: unknown[] };
}

/** The report (docs/tool-server-design.md "Validate"). */
export interface ValidationReport {
  valid: boolean;
  errors: Issue[];
  warnings: Issue[];
  computed: Record<string, unknown>;
}

/** The catalog schema as `GET …/schema` answers it (docs/api-reference.md "Schema versions"). */
interface SchemaDoc {
  version?: string;
  schema_definition?: { properties?: Record<string, unknown>; required?: string[]; additionalProperties?: unknown };
}

/** The catalog as `GET …/catalogs/{id}` answers it (the fields read here). */
interface CatalogDoc {
  strict_mode?: boolean;
  variant_mode?: string;
  product_id_field?: string | null;
}

const DATASET_EXT = ['.csv', '.jsonl', '.ndjson', '.json', '.parquet'];
const STAGED_EXT = ['.jsonl', '.ndjson', '.json'];
const SCRIPT_EXT = ['.py', '.ts', '.js', '.mjs', '.sql'];

/** Ajv code of an error keyword (enum and type get their own codes, the rest are schema violations). */
function ajvCode(e: ErrorObject): string {
  if (e.keyword === 'enum') return 'INVALID_ENUM_VALUE';
  if (e.keyword === 'type') return 'TYPE_MISMATCH';
  if (e.keyword === 'required') return 'MISSING_REQUIRED_FIELD';
  if (e.keyword === 'additionalProperties') return 'UNKNOWN_COLUMN';
  return 'SCHEMA_VIOLATION';
}

/** A change classified (docs/tool-server-design.md "Validate"). */
type Kind = 'added' | 'removed' | 'modified';

/** The classification of a staged change: added when new or without id, removed when its after_data is empty, else modified. */
export function classify(c: Row): Kind {
  if (c.is_new_item === true || !c.catalog_item_id) return 'added';
  const after = c.after_data;
  if (after === null || after === undefined || (typeof after === 'object' && Object.keys(after).length === 0) || c.is_delete === true) return 'removed';
  return 'modified';
}

/** A file check (docs/tool-server-design.md "Validate"): guard, readability, extension. */
function checkFile(root: string, p: string, allowed: string[], what: string, errors: Issue[]): string | null {
  let abs: string;
  try {
    abs = guardPath(root, p, { kind: 'file' });
  } catch (err) {
    const outside = err instanceof UnsafePathError && /outside/.test(err.message);
    errors.push({ code: outside ? 'INVALID_PATH' : 'FILE_NOT_READABLE', message: `${what}: ${(err as Error).message}` });
    return null;
  }
  if (!allowed.includes(path.extname(abs).toLowerCase())) {
    errors.push({
      code: 'INVALID_FORMAT',
      message: `${what} ${path.basename(abs)} has an unsupported extension`,
      fix_hint: `Use one of ${allowed.join(', ')}`,
    });
    return null;
  }
  return abs;
}

/** Key diagnostics of a dataset (docs/tool-server-design.md "Validate"). */
function datasetKeys(t: Table, which: string, errors: Issue[], warnings: Issue[]): Record<string, number> {
  const seen = new Set<string>();
  const dups = new Set<string>();
  let nulls = 0;
  for (const r of t.rows) {
    const k = normKey(r.__catalog_item_id);
    if (k === null) nulls++;
    else if (seen.has(k)) dups.add(k);
    else seen.add(k);
  }
  if (dups.size)
    errors.push({
      code: 'DUPLICATE_KEY',
      message: `${which} has ${dups.size} duplicated __catalog_item_id values (e.g. ${[...dups].slice(0, 5).join(', ')})`,
      fix_hint: 'Each catalog item may appear once; drop or merge the duplicates',
    });
  if (nulls) warnings.push({ code: 'NULL_KEYS', message: `${which} has ${nulls} rows without __catalog_item_id (they are new items)` });
  return { duplicate_keys: dups.size, null_keys: nulls, rows: t.rows.length };
}

/**
 * Validates a bundle (docs/tool-server-design.md "Validate", checks in its order; "return early" = valid false at
 * once). Paths are resolved inside `root` (the workspace). Longer than the house limit on purpose:
 * it reads as the numbered checks of docs/tool-server-design.md "Validate", one block each, in that order.
 * @returns the report; never throws for bad input (it becomes an issue), only for programming errors
 */
export async function validateBundle(api: ApiClient, root: string, input: ValidateInput): Promise<ValidationReport> {
  const errors: Issue[] = [];
  const warnings: Issue[] = [];
  const computed: Record<string, unknown> = {};
  const report = (): ValidationReport => ({ valid: errors.length === 0, errors, warnings, computed });

  // 1. Files.
  const before = input.before_path ? checkFile(root, input.before_path, DATASET_EXT, 'before_path', errors) : null;
  const after = input.after_path ? checkFile(root, input.after_path, DATASET_EXT, 'after_path', errors) : null;
  const stagedFile = input.staged_changes_path ? checkFile(root, input.staged_changes_path, STAGED_EXT, 'staged_changes_path', errors) : null;
  const script = input.script_path ? checkFile(root, input.script_path, SCRIPT_EXT, 'script_path', errors) : null;
  if (errors.length) return report();
  if (script) computed.script_sha256 = sha256Hex(fs.readFileSync(script));

  // 2. Load.
  let beforeT: Table | null = null;
  let afterT: Table | null = null;
  let staged: unknown[] = input.staged_changes ?? [];
  try {
    beforeT = before ? (input.loaded?.before ?? (await loadTable(before))) : null;
    afterT = after ? (input.loaded?.after ?? (await loadTable(after))) : null;
    if (stagedFile) staged = input.loaded?.staged ?? readObjects(stagedFile);
  } catch (err) {
    errors.push({ code: 'INVALID_FORMAT', message: (err as Error).message });
    return report();
  }

  // 3. System column.
  for (const [t, which] of [
    [beforeT, 'before'],
    [afterT, 'after'],
  ] as const)
    if (t && !t.columns.includes('__catalog_item_id'))
      errors.push({
        code: 'MISSING_SYSTEM_COLUMN',
        message: `${which} dataset has no __catalog_item_id column`,
        fix_hint: 'Keep the system columns of the pulled snapshot',
      });
  if (errors.length) return report();

  // 4. Keys.
  if (beforeT) computed.before_key_diagnostics = datasetKeys(beforeT, 'before', errors, warnings);
  if (afterT) computed.after_key_diagnostics = datasetKeys(afterT, 'after', errors, warnings);

  // 5. Classification.
  const counts = { added: 0, removed: 0, modified: 0 };
  const changes: Array<{ change: Row; kind: Kind; index: number }> = [];
  staged.forEach((c, i) => {
    if (!c || typeof c !== 'object' || Array.isArray(c)) {
      errors.push({ code: 'INVALID_STAGED_CHANGE', message: `staged change ${i} is not an object`, row_index: i });
      return;
    }
    const change = c as Row;
    const kind = classify(change);
    counts[kind]++;
    changes.push({ change, kind, index: typeof change.row_index === 'number' ? change.row_index : i });
  });
  if (counts.removed && !input.rules.allow_row_deletes)
    errors.push({
      code: 'ROW_DELETES_BLOCKED',
      message: `${counts.removed} staged changes delete catalog items`,
      fix_hint: 'Set rules.allow_row_deletes to stage deletes',
    });
  computed.staged_summary = { total: staged.length, rows_added: counts.added, rows_removed: counts.removed, rows_modified: counts.modified };

  // 6. Diff / staged consistency.
  const ds = input.diff_summary;
  if (ds) {
    computed.diff_summary = ds;
    for (const [k, v] of [
      ['rows_added', counts.added],
      ['rows_removed', counts.removed],
      ['rows_modified', counts.modified],
    ] as const)
      if (Number(ds[k] ?? 0) !== v)
        errors.push({ code: 'COUNT_MISMATCH', message: `diff_summary.${k} is ${String(ds[k])} but the staged changes hold ${v}`, fix_hint: 'Re-run the diff' });
    if (beforeT && ds.rows_before !== undefined && Number(ds.rows_before) !== beforeT.rows.length)
      warnings.push({
        code: 'ROWS_BEFORE_MISMATCH',
        message: `diff_summary.rows_before ${String(ds.rows_before)} ≠ ${beforeT.rows.length} rows in the before file`,
      });
    if (afterT && ds.rows_after !== undefined && Number(ds.rows_after) !== afterT.rows.length)
      warnings.push({
        code: 'ROWS_AFTER_MISMATCH',
        message: `diff_summary.rows_after ${String(ds.rows_after)} ≠ ${afterT.rows.length} rows in the after file`,
      });
  }

  // 7–10. Against the catalog: columns, Ajv (required fields, enums, types), product/variant.
  await checkAgainstCatalog(api, input, afterT, changes, errors, warnings, computed);

  // 11. Large changeset.
  const touched = ds ? Number(ds.rows_added ?? 0) + Number(ds.rows_modified ?? 0) + Number(ds.rows_removed ?? 0) : staged.length;
  const base = beforeT ? beforeT.rows.length : ds ? Number(ds.rows_before ?? 0) : 0;
  if (base > 0 && touched / base > input.rules.max_change_ratio_warning)
    warnings.push({ code: 'LARGE_CHANGESET', message: `${Math.round((100 * touched) / base)}% of base rows affected (${touched}/${base})` });

  // 12. Second delete gate.
  if (ds && Number(ds.rows_removed ?? 0) > 0 && !input.rules.allow_row_deletes && !errors.some((e) => e.code === 'ROW_DELETES_BLOCKED'))
    errors.push({
      code: 'ROW_DELETES_BLOCKED',
      message: `the diff removes ${String(ds.rows_removed)} rows`,
      fix_hint: 'Set rules.allow_row_deletes to stage deletes',
    });
  return report();
}

/**
 * Steps 7–10 of docs/tool-server-design.md "Validate" against the catalog's current schema (columns, required fields,
 * Ajv over each change as the service would store it, product/variant references). One block per
 * step, like {@link validateBundle}, hence its length.
 */
async function checkAgainstCatalog(
  api: ApiClient,
  input: ValidateInput,
  afterT: Table | null,
  changes: Array<{ change: Row; kind: Kind; index: number }>,
  errors: Issue[],
  warnings: Issue[],
  computed: Record<string, unknown>,
): Promise<void> {
  const id = encodeURIComponent(input.catalog_id);
  let schema: SchemaDoc;
  let catalog: CatalogDoc;
  try {
    [schema, catalog] = await Promise.all([
      api.call<SchemaDoc>('GET', '/api/public/catalogs/{catalog_id}/schema', { path: { catalog_id: id }, organizationId: input.organization_id, attempts: 3 }),
      api.call<CatalogDoc>('GET', '/api/public/catalogs/{catalog_id}', { path: { catalog_id: id }, organizationId: input.organization_id, attempts: 3 }),
    ]);
  } catch (err) {
    warnings.push({ code: 'SCHEMA_CHECK_SKIPPED', message: `the catalog schema could not be read: ${(err as Error).message}` });
    return;
  }
  const definition = schema.schema_definition ?? {};
  const props = definition.properties ?? {};
  computed.schema_version = schema.version ?? null;
  const declared = new Set<string>();
  for (const f of (input.schema_changes?.fields_to_add as Array<{ field_name?: string }> | undefined) ?? []) if (f.field_name) declared.add(f.field_name);

  // 7. Every after column is in the schema (or declared by schema_changes).
  const afterCols = new Set<string>(afterT ? afterT.columns : changes.flatMap((c) => Object.keys((c.change.after_data as Row | null) ?? {})));
  const unknown = [...afterCols].filter((c) => !isSystemColumn(c) && !(c in props) && !declared.has(c)).sort();
  for (const c of unknown)
    errors.push({
      code: 'UNKNOWN_COLUMN',
      field: c,
      message: `column ${c} is not in the catalog schema`,
      fix_hint: 'Add the field to the schema first, or drop the column',
    });

  // 8 + Ajv: each change as the service would store it (data overlaid with after_data; new items: after_data alone).
  const kinds = kindsFromSchema(definition);
  const required = definition.required ?? [];
  const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
  let validate: ValidateFunction;
  try {
    validate = ajv.compile({ ...definition, additionalProperties: catalog.strict_mode ? (definition.additionalProperties ?? false) : true });
  } catch (err) {
    warnings.push({ code: 'SCHEMA_CHECK_SKIPPED', message: `the catalog schema does not compile: ${(err as Error).message}` });
    return;
  }
  let schemaErrors = 0;
  for (const { change, kind, index } of changes) {
    if (kind === 'removed') continue;
    const after = change.after_data;
    if (!after || typeof after !== 'object' || Array.isArray(after)) {
      errors.push({ code: 'INVALID_STAGED_CHANGE', message: `staged change ${index} has no after_data object`, row_index: index });
      continue;
    }
    const merged: Row = {};
    const sources = kind === 'added' ? [after as Row] : [(change.before_data as Row | null) ?? {}, after as Row];
    for (const src of sources) for (const [k, v] of Object.entries(src)) if (!isSystemColumn(k)) merged[k] = coerceCell(v, kinds.get(k));
    if (kind === 'added')
      for (const f of required)
        if (isNull(merged[f]) || (typeof merged[f] === 'string' && !(merged[f] as string).trim())) {
          errors.push({ code: 'MISSING_REQUIRED_FIELD', field: f, row_index: index, message: `new item (row ${index}) has no value for required field ${f}` });
          schemaErrors++;
        }
    if (!validate(merged))
      for (const e of validate.errors ?? []) {
        if (e.keyword === 'required' && kind === 'added') continue; // reported above with the field name
        if (e.keyword === 'additionalProperties') continue; // reported once per column above
        const field = e.instancePath.replace(/^\//, '').split('/')[0] || undefined;
        errors.push({ code: ajvCode(e), field, row_index: index, message: `row ${index}: ${field ?? 'item'} ${e.message ?? 'is invalid'}` });
        schemaErrors++;
      }
  }
  computed.schema_errors = schemaErrors;

  // 10. Product/variant structure (the later release), when the catalog groups variants under products.
  if (catalog.variant_mode === 'product_grouped') {
    const field = catalog.product_id_field || 'product_id';
    const products = new Set<string>();
    const variantRefs = new Set<string>();
    for (const { change, kind } of changes) {
      if (kind === 'removed') continue;
      const ref = normKey((change.after_data as Row)[field]);
      if (ref === null) continue;
      if (change.catalog_item_entity_type === 'product') products.add(ref);
      else variantRefs.add(ref);
    }
    const orphans = [...variantRefs].filter((r) => !products.has(r));
    if (orphans.length)
      warnings.push({
        code: 'ORPHAN_PRODUCT_IDS',
        message: `${orphans.length} variant ${field} values have no product row in this changeset (e.g. ${orphans.slice(0, 5).join(', ')}); the catalog must already hold them`,
      });
  }
}
