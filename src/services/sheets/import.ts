/**
 * `POST /public/catalogs/{id}/items/import`: a CSV or XLSX file into a catalog.
 *
 * The API stages the file: every data row becomes a line (`catalog_import_lines`, numbered as
 * in the file with the header as line 1) holding its item, converted by the catalog schema's
 * types (items-from-rows.ts, the reverse of the export layout), under a column → field mapping that
 * defaults to the identity (the column names the inferred schema gives the fields). The import
 * workflow (workflows/catalog-import.ts) then writes the lines in batches with the catalog's
 * own bulk write (items-write.ts: identity by business key, products and variants, strict
 * validation), one transaction per batch that also records each line's status (`created`,
 * `updated`, `failed` with its errors) — a bad line never fails the others, and a retried batch
 * finds its lines no longer pending. The per-line report downloads as CSV.
 */
import type { Knex } from 'knex';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { Catalog } from '../../models/catalog';
import { CatalogImport, type ImportMode } from '../../models/catalog-import';
import type { CatalogImportLine } from '../../models/catalog-import-line';
import { actorScope } from '../access/roles';
import { API_ROUTE_ROLES, IMPORT_ROUTE } from '../access/route-roles';
import type { Scope } from '../access/scope';
import type { CatalogCaches } from '../catalog/catalog-caches';
import { loadCatalogOwned } from '../catalog/catalogs';
import { writeItems } from '../catalog/items/items-write';
import { getCurrentSchema } from '../catalog/schema/schema';
import { IMPORT_BATCH_LINES, catalogImportWorkflowId } from '../../contracts/workflows';
import { rowToItem, type ColumnTypes } from './items-from-rows';
import { normalizeHeaders, sniffTable, tableRows } from './table-file';

/** Lines inserted per statement while staging. */
const STAGE_CHUNK = 1000;

/** One line's outcome, as the report shows it. */
export type ImportLine = Pick<CatalogImportLine, 'line' | 'status' | 'errors' | 'item_id'>;

/** What a batch did (the workflow's counters). */
export interface ImportBatchResult {
  last_line: number;
  done: boolean;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
}

/**
 * Stages a file as the lines of a new import (one transaction).
 * @param mapping column → field; columns not named keep their name; a column mapped to '' is skipped
 * @param options `dry_run` (report what would happen, write nothing) and `mode` (which lines may be written; default upsert)
 * @param id the import's id (derived from the request's `Idempotency-Key` claim when it has one,
 *   src/services/access/idempotency.ts idempotentResourceId; else new)
 * @throws NotFoundError (404), ForbiddenError (403); UnsupportedMediaTypeError (415) for a workbook that is not XLSX/XLS;
 *   ValidationError (422) for an unreadable file, a mapping naming unknown columns, or a file without rows
 */
export async function stageImport(
  knex: Knex,
  scope: Scope,
  catalogId: string,
  file: { path: string; name: string },
  mapping: Record<string, string>,
  options: { dry_run?: boolean; mode?: ImportMode } = {},
  id: string = newId(),
): Promise<CatalogImport> {
  const catalog = await loadCatalogOwned(knex, scope, catalogId);
  const types: ColumnTypes = (await getCurrentSchema(knex, catalog.id)).schema_definition.properties ?? {};
  const dialect = await sniffTable(file.path, file.name);
  return knex.transaction(async (trx) => {
    await CatalogImport.query(trx).insert({
      id,
      organization_id: catalog.organization_id,
      catalog_id: catalog.id,
      status: 'running',
      file_name: file.name,
      mapping,
      total_lines: 0,
      dry_run: options.dry_run ?? false,
      mode: options.mode ?? 'upsert',
      actor_kind: scope.principal.kind,
      actor_id: scope.principal.id,
    });
    let headers: string[] | null = null;
    let line = 1;
    let chunk: Array<{ import_id: string; line: number; data: string; status: string }> = [];
    for await (const row of tableRows(file.path, dialect)) {
      if (!headers) {
        const columns = normalizeHeaders(row);
        const unknown = Object.keys(mapping).filter((c) => !columns.includes(c));
        if (unknown.length) throw ValidationError.at(['body', 'mapping'], `Columns not in the file: ${unknown.join(', ')}`, 'value_error');
        headers = columns.map((c) => (Object.prototype.hasOwnProperty.call(mapping, c) ? mapping[c] : c));
        continue;
      }
      line++;
      const item = rowToItem(headers, row, types);
      delete item[''];
      chunk.push({ import_id: id, line, data: JSON.stringify(item), status: 'pending' });
      if (chunk.length >= STAGE_CHUNK) {
        await trx('catalog_import_lines').insert(chunk);
        chunk = [];
      }
    }
    if (chunk.length) await trx('catalog_import_lines').insert(chunk);
    if (line === 1) throw ValidationError.at(['body', 'file'], 'The file has no data rows', 'missing');
    return CatalogImport.query(trx).patchAndFetchById(id, { total_lines: line - 1 });
  });
}

/**
 * Writes the pending lines of the range (`afterLine`, `afterLine + limit`] (one transaction; see
 * the module comment). Ranges are disjoint, so the workflow runs several at once; a line already
 * written (a retried batch) is not pending any more and is skipped. Line statuses: `failed` with
 * the write's errors, `unchanged` when the line equals its item (nothing is written: no new
 * version, so reviews computed from the item do not conflict), else `created` when the item's
 * row is at version 1, else `updated`.
 * @returns counters of the range; `done` when the range reaches past the import's last line
 */
export async function importBatch(
  knex: Knex,
  caches: CatalogCaches,
  importId: string,
  afterLine: number,
  limit = IMPORT_BATCH_LINES,
): Promise<ImportBatchResult> {
  return knex.transaction(async (trx) => {
    const imp = await CatalogImport.query(trx).findById(importId);
    if (!imp) throw new Error(`import ${importId} not found`);
    const lastLine = afterLine + limit;
    // Cancelled (or finished): write nothing more; the lines not reached stay pending.
    if (imp.status !== 'running') return { last_line: lastLine, done: true, created: 0, updated: 0, unchanged: 0, failed: 0 };
    const done = lastLine >= imp.total_lines + 1;
    const lines: Array<{ line: number; data: Record<string, unknown> }> = await trx('catalog_import_lines')
      .where({ import_id: importId, status: 'pending' })
      .andWhere('line', '>', afterLine)
      .andWhere('line', '<=', lastLine)
      .orderBy('line')
      .select('line', 'data');
    if (lines.length === 0) return { last_line: lastLine, done, created: 0, updated: 0, unchanged: 0, failed: 0 };
    // The batch writes as its starter does now: a person demoted or disabled since stops the import (403, not retried).
    const scope = await actorScope(trx, imp.organization_id, { kind: imp.actor_kind, id: imp.actor_id }, API_ROUTE_ROLES[IMPORT_ROUTE]);
    const catalog = await loadCatalogOwned(trx, scope, imp.catalog_id);
    const attempt = (db: Knex.Transaction, ls: typeof lines) => writeLines(db, caches, scope, catalog, ls, { import_id: importId, file_name: imp.file_name });
    const mode: ImportMode = imp.mode ?? 'upsert';
    let outcome: LineOutcome[];
    if (!imp.dry_run && mode === 'upsert') outcome = await attempt(trx, lines);
    else {
      // A dry run, or a mode that may refuse lines: write in a savepoint, see what each line
      // would do, roll it back; then (not a dry run) write only the lines the mode allows.
      let tried: LineOutcome[] = [];
      await trx
        .transaction(async (savepoint) => {
          tried = await attempt(savepoint, lines);
          throw DRY_RUN_ROLLBACK;
        })
        .catch((err: unknown) => {
          if (err !== DRY_RUN_ROLLBACK) throw err;
        });
      const refused = new Map(tried.flatMap((o) => (modeRefusal(mode, o) ? [[o.line, modeRefusal(mode, o)!] as const] : [])));
      if (imp.dry_run)
        outcome = tried.map((o) =>
          refused.has(o.line) ? refusedOutcome(o, refused.get(o.line)!) : { ...o, item_id: o.status === 'created' ? null : o.item_id },
        );
      else {
        const allowed = lines.filter((l) => !refused.has(l.line));
        const written = new Map((allowed.length ? await attempt(trx, allowed) : []).map((o) => [o.line, o]));
        outcome = tried.map((o) => written.get(o.line) ?? refusedOutcome(o, refused.get(o.line)!));
      }
    }
    await trx.raw(
      `UPDATE catalog_import_lines l SET status = x.status, errors = x.errors, item_id = x.item_id
       FROM jsonb_to_recordset(?::jsonb) AS x(line int, status text, errors jsonb, item_id uuid)
       WHERE l.import_id = ? AND l.line = x.line`,
      [JSON.stringify(outcome), importId],
    );
    const count = (s: string) => outcome.filter((o) => o.status === s).length;
    const counts = { created: count('created'), updated: count('updated'), unchanged: count('unchanged'), failed: count('failed') };
    await trx('catalog_imports').where({ id: importId }).increment(counts);
    return { last_line: lastLine, done, ...counts };
  });
}

/** Thrown inside a savepoint to roll it back (dry runs and refusing modes of {@link importBatch}). */
const DRY_RUN_ROLLBACK = new Error('import dry run rollback');

/** One line's outcome as {@link importBatch} records it. */
type LineOutcome = { line: number; status: ImportLine['status']; errors: ImportLine['errors']; item_id: string | null };

/**
 * Writes staged lines with the catalog's bulk write (items-write.ts) and says per line what
 * happened: `failed` with the write's errors, `unchanged`, `created` (the item's row is at
 * version 1), else `updated`.
 */
async function writeLines(
  trx: Knex.Transaction,
  caches: CatalogCaches,
  scope: Scope,
  catalog: Catalog,
  lines: Array<{ line: number; data: Record<string, unknown> }>,
  sourceInfo: { import_id: string; file_name: string },
): Promise<LineOutcome[]> {
  const result = await writeItems(
    trx,
    caches,
    scope,
    catalog,
    lines.map((l) => l.data),
    { source_info: sourceInfo, skip_unchanged: 'report' },
  );
  const unchanged = new Set(result.unchanged ?? []);
  const errorsAt = new Map<number, ImportLine['errors']>();
  for (const e of result.errors) {
    const list = errorsAt.get(e.index) ?? [];
    list?.push(...(e.details?.length ? e.details.map((d) => ({ loc: d.loc, msg: d.msg, type: d.type })) : [{ msg: e.detail, type: e.kind }]));
    errorsAt.set(e.index, list);
  }
  const ids = result.ids.filter((x): x is string => !!x);
  const versions = new Map<string, number>(
    (await trx('catalog_items').whereIn('id', ids).select('id', 'current_version')).map((r: { id: string; current_version: number }) => [
      r.id,
      r.current_version,
    ]),
  );
  return lines.map((l, i) => {
    const id = result.ids[i];
    const errors = errorsAt.get(i);
    const status = errors || !id ? 'failed' : unchanged.has(i) ? 'unchanged' : versions.get(id) === 1 ? 'created' : 'updated';
    return { line: l.line, status, errors: errors ?? (id ? null : [{ msg: 'not written' }]), item_id: status === 'failed' ? null : (id ?? null) };
  });
}

/** Why `mode` refuses a line that would have had `outcome`, or null when it allows it. */
function modeRefusal(mode: ImportMode, outcome: LineOutcome): string | null {
  if (mode === 'create' && (outcome.status === 'updated' || outcome.status === 'unchanged'))
    return 'An item with this key exists already; mode "create" only adds new items';
  if (mode === 'update' && outcome.status === 'created') return 'No item has this key; mode "update" only changes existing items';
  return null;
}

/** A line refused by the import's mode: `failed` with the reason (type `mode`). */
function refusedOutcome(o: LineOutcome, reason: string): LineOutcome {
  return { line: o.line, status: 'failed', errors: [{ msg: reason, type: 'mode' }], item_id: null };
}

/** Marks an import finished (`completed`, `cancelled`, or `failed` with the error). Idempotent: only a running import changes. */
export async function finishImport(knex: Knex, importId: string, status: 'completed' | 'failed' | 'cancelled', error?: string): Promise<void> {
  await CatalogImport.query(knex)
    .where({ id: importId, status: 'running' })
    .patch({ status, error: error ?? null, completed_at: new Date() });
}

/** What cancelling an import keeps (the API's and the jobs page's words). */
export const IMPORT_CANCEL_KEEPS =
  'Cancel stops the import after the batches being written: lines already written stay written (each batch is one transaction), lines not reached stay pending in the report and are not imported.';

/**
 * Cancels a running import of a catalog of the scope: marks it `cancelled` at once (a batch that
 * starts after that writes nothing) and cancels its workflow `catalog-import-<id>` (which records
 * nothing more). See {@link IMPORT_CANCEL_KEEPS}.
 * @returns the import, now `cancelled` (a repeated cancel returns it again)
 * @throws NotFoundError (404) / ForbiddenError (403); ConflictError (409) when it already completed or failed
 */
export async function cancelImport(
  deps: { knex: Knex; jobRunner: { cancel(workflowId: string): Promise<void> } },
  scope: Scope,
  catalogId: string,
  importId: string,
): Promise<CatalogImport> {
  const imp = await loadImport(deps.knex, scope, catalogId, importId);
  if (imp.status === 'running') {
    const updated = await CatalogImport.query(deps.knex)
      .where({ id: imp.id, status: 'running' })
      .patch({ status: 'cancelled', error: 'cancelled by request', completed_at: new Date() });
    if (updated) await deps.jobRunner.cancel(catalogImportWorkflowId(imp.id));
  }
  const now = await CatalogImport.query(deps.knex).findById(imp.id).throwIfNotFound();
  if (now.status !== 'cancelled') throw new ConflictError(`Import is already ${now.status} and cannot be cancelled`);
  return now;
}

/**
 * The import `importId` of a catalog of the scope, or undefined when the catalog has none by that
 * id (also a retry's look-up of the import its first attempt staged under its Idempotency-Key's
 * id: found, it is started and answered instead of the file being staged again).
 * @throws NotFoundError (404) / ForbiddenError (403) for the catalog
 */
export async function findImport(knex: Knex, scope: Scope, catalogId: string, importId: string): Promise<CatalogImport | undefined> {
  await loadCatalogOwned(knex, scope, catalogId);
  return /^[0-9a-f-]{36}$/i.test(importId) ? CatalogImport.query(knex).findOne({ id: importId, catalog_id: catalogId }) : undefined;
}

/**
 * An import of a catalog of the scope.
 * @throws NotFoundError (404) / ForbiddenError (403) for the catalog; NotFoundError for an unknown import
 */
export async function loadImport(knex: Knex, scope: Scope, catalogId: string, importId: string): Promise<CatalogImport> {
  const row = await findImport(knex, scope, catalogId, importId);
  if (!row) throw new NotFoundError('Import not found');
  return row;
}

/** The lines of an import in order, `limit` after `afterLine` (the report is read page by page). */
export async function importLines(knex: Knex, importId: string, afterLine: number, limit: number): Promise<ImportLine[]> {
  return knex('catalog_import_lines')
    .where({ import_id: importId })
    .andWhere('line', '>', afterLine)
    .orderBy('line')
    .limit(limit)
    .select('line', 'status', 'errors', 'item_id');
}

/**
 * Every line of an import after `afterLine`, in order, a page of `pageSize` at a time (the CSV
 * report streams them with bounded memory).
 */
export async function* importLinePages(knex: Knex, importId: string, afterLine: number, pageSize = 5000): AsyncGenerator<ImportLine[]> {
  let after = afterLine;
  for (;;) {
    const lines = await importLines(knex, importId, after, pageSize);
    yield lines;
    if (lines.length < pageSize) return;
    after = lines[lines.length - 1].line;
  }
}
