/**
 * `GET /public/catalogs/{id}/items/export?format=csv|xlsx`: the whole catalog as one
 * spreadsheet, streamed with backpressure so memory stays bounded whatever the catalog's size:
 * CSV is written by PostgreSQL itself (`COPY … TO STDOUT`, one snapshot); XLSX rows are read
 * through a server-side cursor in one read-only repeatable-read transaction (2,000 rows in memory
 * at a time) and zipped by exceljs's streaming writer.
 *
 * Layout (predictable, and read back by the import): one header row; the columns are the
 * schema's properties in schema order, then any other data keys in alphabetical order. Each
 * product comes before its variants. Cells: strings as they are; numbers as JavaScript writes
 * them (shortest exact form); booleans `true`/`false`; arrays and objects as JSON; null and
 * absent as an empty cell. XLSX writes numbers and booleans as typed cells.
 *
 * Every export is recorded in `catalog_exports` (the jobs page lists it with its
 * rows and how it ended).
 */
import { PassThrough } from 'node:stream';
import { to as copyTo } from 'pg-copy-streams';
import type { Knex } from 'knex';
import ExcelJS from 'exceljs';
import { loadCatalogOwned } from '../catalog/catalogs';
import { getCurrentSchema } from '../catalog/schema/schema';
import type { Scope } from '../access/scope';
import { newId } from '../../lib/ids';
import { CatalogExport } from '../../models/catalog-export';

/** Spreadsheet formats of export and import. */
export type SheetFormat = 'csv' | 'xlsx';

/** An export ready to stream: the response's file name and content type, and the body. */
export interface ExportStream {
  fileName: string;
  contentType: string;
  body: PassThrough;
  columns: string[];
}

/** Rows fetched per cursor round trip. */
const FETCH_ROWS = 2000;

/** A data value as a cell's text (the layout in the header of this file; what `data->>'field'` gives in SQL). */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** A CSV field, quoted when it holds the delimiter, a quote or a line break (RFC 4180). */
function csvField(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The message of an export whose client went away before the end (recorded as `cancelled`). */
const CLIENT_GONE = 'export stream closed by the client';

/** Resolves when `out` drains; rejects when the client went away first (the export stops). */
function drained(out: PassThrough): Promise<void> {
  return new Promise((resolve, reject) => {
    const onDrain = () => {
      out.off('close', onClose);
      resolve();
    };
    const onClose = () => {
      out.off('drain', onDrain);
      reject(new Error(CLIENT_GONE));
    };
    out.once('drain', onDrain);
    out.once('close', onClose);
  });
}

/** Column order: schema properties first, then the other data keys alphabetically. */
async function exportColumns(trx: Knex.Transaction, catalogId: string, schemaKeys: string[]): Promise<string[]> {
  const { rows } = await trx.raw<{ rows: Array<{ k: string }> }>(
    `SELECT DISTINCT jsonb_object_keys(data) AS k FROM catalog_items WHERE catalog_id = ? ORDER BY 1`,
    [catalogId],
  );
  const known = new Set(schemaKeys);
  return [...schemaKeys, ...rows.map((r) => r.k).filter((k) => !known.has(k))];
}

/**
 * A part of the items to export (the console grid's filter and columns): a `WHERE`
 * over `catalog_items` (src/services/catalog/grid/grid-selection.ts) and the columns, in order.
 */
export interface ExportSelection {
  where: { sql: string; bindings: Knex.RawBinding[] };
  columns: string[];
}

/** Streams every item's data (of `selection` when given), product before its variants, through a cursor; calls `row` per item. */
async function eachItem(
  trx: Knex.Transaction,
  catalogId: string,
  row: (data: Record<string, unknown>) => Promise<void> | void,
  selection?: ExportSelection,
): Promise<number> {
  await trx.raw(
    `DECLARE export_items NO SCROLL CURSOR FOR
       SELECT data FROM catalog_items WHERE catalog_id = ?${selection ? ` AND (${selection.where.sql})` : ''}
       ORDER BY coalesce(parent_id, id), (entity_type = 'variant'), created_at, id`,
    [catalogId, ...(selection?.where.bindings ?? [])],
  );
  let n = 0;
  for (;;) {
    const { rows } = await trx.raw<{ rows: Array<{ data: Record<string, unknown> }> }>(`FETCH ${FETCH_ROWS} FROM export_items`);
    for (const r of rows) {
      const p = row(r.data);
      if (p) await p;
      n++;
    }
    if (rows.length < FETCH_ROWS) return n;
  }
}

/**
 * Starts the export of a catalog: checks ownership and reads the columns before anything is
 * sent (so 404/403 are plain responses), then streams the rows into `body` in the background;
 * a failure after that destroys the stream (the client sees a cut response). `options.selection`:
 * only those items and those columns (the console grid's export).
 * @throws NotFoundError (404), ForbiddenError (403)
 */
export async function exportCatalog(
  knex: Knex,
  scope: Scope,
  catalogId: string,
  format: SheetFormat,
  options: { bom?: boolean; selection?: ExportSelection } = {},
): Promise<ExportStream> {
  const selection = options.selection;
  const catalog = await loadCatalogOwned(knex, scope, catalogId);
  const schema = await getCurrentSchema(knex, catalogId);
  const schemaKeys = Object.keys(schema.schema_definition.properties ?? {});
  const body = new PassThrough({ highWaterMark: 256 * 1024 });
  const safeName = catalog.name.replace(/[^\p{L}\p{N}._-]+/gu, '-').slice(0, 80) || 'catalog';
  const result = (columns: string[]): ExportStream => ({
    fileName: `${safeName}.${format}`,
    contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    body,
    columns,
  });
  if (format === 'csv') {
    const columns = selection ? selection.columns : await knex.transaction((trx) => exportColumns(trx, catalog.id, schemaKeys), { readOnly: true });
    // COPY takes no bind parameters: the selection's are inlined by knex's own escaping.
    const where = selection ? knex.raw(selection.where.sql, selection.where.bindings).toQuery() : null;
    const exportId = await recordExport(knex, scope, catalog.id, format, columns, Boolean(selection), `${safeName}.${format}`);
    void finishExport(knex, exportId, streamCsv(knex, catalog.id, columns, body, options.bom === true, where));
    return result(columns);
  }
  const trx = await knex.transaction({ isolationLevel: 'repeatable read', readOnly: true });
  let columns: string[];
  try {
    columns = selection ? selection.columns : await exportColumns(trx, catalog.id, schemaKeys);
  } catch (err) {
    await trx.rollback();
    throw err;
  }
  const exportId = await recordExport(knex, scope, catalog.id, format, columns, Boolean(selection), `${safeName}.${format}`);
  const written = streamXlsx(trx, catalog.id, columns, body, selection).then(
    async (rows) => {
      await trx.commit();
      return rows;
    },
    async (err: unknown) => {
      await trx.rollback().catch(() => undefined);
      const error = err instanceof Error ? err : new Error(String(err));
      body.destroy(error);
      throw error;
    },
  );
  void finishExport(knex, exportId, written);
  return result(columns);
}

/**
 * Records an export as an operation (`catalog_exports`: the jobs page lists it),
 * `running` until {@link finishExport}.
 * @returns the export's id
 */
async function recordExport(
  knex: Knex,
  scope: Scope,
  catalogId: string,
  format: SheetFormat,
  columns: string[],
  filtered: boolean,
  fileName: string,
): Promise<string> {
  const id = newId();
  await CatalogExport.query(knex).insert({
    id,
    organization_id: scope.organizationId,
    catalog_id: catalogId,
    format,
    filtered,
    columns: columns.length,
    file_name: fileName,
    requested_by_kind: scope.principal.kind,
    requested_by_id: scope.principal.id,
  });
  return id;
}

/**
 * Records how export `exportId` ended once `written` settles: `completed` with the rows written,
 * `cancelled` when the client went away, `failed` with the error. Never rejects: the stream has
 * already ended for the client, and a record that cannot be written (database gone) stays `running`.
 */
async function finishExport(knex: Knex, exportId: string, written: Promise<number>): Promise<void> {
  const update = await written.then(
    (rows): Partial<CatalogExport> => ({ status: 'completed', rows, error: null }),
    (err: unknown): Partial<CatalogExport> => {
      const message = err instanceof Error ? err.message : String(err);
      return { status: message === CLIENT_GONE ? 'cancelled' : 'failed', rows: null, error: message };
    },
  );
  await CatalogExport.query(knex)
    .findById(exportId)
    .patch({ ...update, completed_at: new Date() })
    .catch(() => undefined);
}

/** A SQL string literal (standard_conforming_strings is on: only quotes are doubled). COPY takes no bind parameters. */
function literal(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** The pg connection knex lends out, as far as the export uses it. */
interface PgConnection {
  query<T extends ReturnType<typeof copyTo>>(stream: T): T;
  end(): Promise<void>;
  /** Set on a connection knex must not reuse (knex's pg dialect checks it when the connection is released). */
  __knex__disposed?: unknown;
}

/**
 * CSV: one `COPY (SELECT …) TO STDOUT WITH CSV` (PostgreSQL writes the rows, RFC 4180 quoting,
 * `data->>'field'` is exactly the cell layout above: text as it is, numbers and booleans as
 * written, arrays and objects as JSON, null as empty), piped to the client with backpressure,
 * after the header — and before it a UTF-8 BOM only when asked (`bom`: some spreadsheet programs
 * need one to read UTF-8; without it the file is exactly what the import and other tools read). One statement is one
 * snapshot. A client that goes away ends the connection (a half-read COPY cannot be reused).
 * `where`: a further condition (SQL with its values inlined), for a selection.
 */
async function streamCsv(knex: Knex, catalogId: string, columns: string[], body: PassThrough, bom: boolean, where: string | null): Promise<number> {
  let conn: PgConnection | null = null;
  try {
    conn = (await knex.client.acquireConnection()) as PgConnection;
    const select = columns.length ? columns.map((c) => `data->>${literal(c)}`).join(', ') : `''`;
    const copy = conn.query(
      copyTo(
        `COPY (SELECT ${select} FROM catalog_items WHERE catalog_id = ${literal(catalogId)}${where ? ` AND (${where})` : ''}
               ORDER BY coalesce(parent_id, id), (entity_type = 'variant'), created_at, id) TO STDOUT WITH (FORMAT csv)`,
      ),
    );
    body.write((bom ? '\uFEFF' : '') + columns.map(csvField).join(',') + '\n');
    await new Promise<void>((resolve, reject) => {
      copy.on('error', reject);
      copy.on('end', () => resolve());
      body.on('close', () => reject(new Error(CLIENT_GONE)));
      copy.pipe(body, { end: false });
    });
    body.end();
    return copy.rowCount;
  } catch (err) {
    if (conn) {
      conn.__knex__disposed = err;
      await conn.end().catch(() => undefined);
    }
    const error = err instanceof Error ? err : new Error(String(err));
    body.destroy(error);
    throw error;
  } finally {
    if (conn) await knex.client.releaseConnection(conn);
  }
}

/** XLSX through exceljs's streaming writer (inline strings, no styles): numbers and booleans as typed cells. */
async function streamXlsx(trx: Knex.Transaction, catalogId: string, columns: string[], body: PassThrough, selection?: ExportSelection): Promise<number> {
  // Deflate level 1: the zip of row XML was half the time at the default level (bench/sheets-export.ts).
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: body, useSharedStrings: false, useStyles: false, zip: { zlib: { level: 1 } } });
  const ws = wb.addWorksheet('items');
  ws.addRow(columns).commit();
  const rows = await eachItem(
    trx,
    catalogId,
    (data) => {
      ws.addRow(
        columns.map((c) => {
          const v = data[c];
          return typeof v === 'number' || typeof v === 'boolean' ? v : v === null || v === undefined ? null : cellText(v);
        }),
      ).commit();
      // Let the zip stream flush before the next row when the client is slow.
      if (body.destroyed) throw new Error(CLIENT_GONE);
      if (body.writableNeedDrain) return drained(body);
    },
    selection,
  );
  ws.commit();
  await wb.commit();
  return rows;
}
