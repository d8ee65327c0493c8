/**
 * `GET /public/catalogs/{id}/items/export?format=csv|xlsx` (issue 20): the whole catalog as one
 * spreadsheet, streamed. Rows are read through a server-side cursor in one read-only
 * repeatable-read transaction (a consistent snapshot, one sort, 2,000 rows in memory at a time)
 * and written to the response as they come, waiting for the client when its buffer is full, so
 * memory stays bounded whatever the catalog's size.
 *
 * Layout (predictable, and read back by the import): one header row; the columns are the
 * schema's properties in schema order, then any other data keys in alphabetical order. Each
 * product comes before its variants. Cells: strings as they are; numbers as JavaScript writes
 * them (shortest exact form); booleans `true`/`false`; arrays and objects as JSON; null and
 * absent as an empty cell. XLSX writes numbers and booleans as typed cells.
 */
import { PassThrough } from 'node:stream';
import type { Knex } from 'knex';
import ExcelJS from 'exceljs';
import { loadCatalogOwned } from '../catalog/catalogs';
import { getCurrentSchema } from '../catalog/schema';
import type { Scope } from '../access/scope';

/** Spreadsheet formats of export and import. */
export type SheetFormat = 'csv' | 'xlsx';

/** An export ready to stream: the response's file name and content type, and the body. */
export interface CatalogExport {
  fileName: string;
  contentType: string;
  body: PassThrough;
  columns: string[];
}

/** Rows fetched per cursor round trip. */
const FETCH_ROWS = 2000;

/** A data value as a cell's text (the layout in the header of this file). */
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

/** Resolves when `out` drains; rejects when the client went away first (the export stops). */
function drained(out: PassThrough): Promise<void> {
  return new Promise((resolve, reject) => {
    const onDrain = () => {
      out.off('close', onClose);
      resolve();
    };
    const onClose = () => {
      out.off('drain', onDrain);
      reject(new Error('export stream closed by the client'));
    };
    out.once('drain', onDrain);
    out.once('close', onClose);
  });
}

/** Writes to a stream, waiting for `drain` when its buffer is full. */
function write(out: PassThrough, chunk: string): Promise<void> | void {
  if (out.destroyed) throw new Error('export stream closed by the client');
  if (!out.write(chunk)) return drained(out);
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

/** Streams every item's data, product before its variants, through a cursor; calls `row` per item. */
async function eachItem(trx: Knex.Transaction, catalogId: string, row: (data: Record<string, unknown>) => Promise<void> | void): Promise<number> {
  await trx.raw(
    `DECLARE export_items NO SCROLL CURSOR FOR
       SELECT data FROM catalog_items WHERE catalog_id = ?
       ORDER BY coalesce(parent_id, id), (entity_type = 'variant'), created_at, id`,
    [catalogId],
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
 * a failure after that destroys the stream (the client sees a cut response).
 * @throws NotFoundError (404), ForbiddenError (403)
 */
export async function exportCatalog(knex: Knex, scope: Scope, catalogId: string, format: SheetFormat): Promise<CatalogExport> {
  const catalog = await loadCatalogOwned(knex, scope, catalogId);
  const schema = await getCurrentSchema(knex, catalogId);
  const trx = await knex.transaction({ isolationLevel: 'repeatable read', readOnly: true });
  let columns: string[];
  try {
    columns = await exportColumns(trx, catalogId, Object.keys(schema.schema_definition.properties ?? {}));
  } catch (err) {
    await trx.rollback();
    throw err;
  }
  const body = new PassThrough({ highWaterMark: 256 * 1024 });
  const run = format === 'csv' ? streamCsv(trx, catalogId, columns, body) : streamXlsx(trx, catalogId, columns, body);
  run.then(
    async () => {
      await trx.commit();
    },
    async (err: unknown) => {
      await trx.rollback().catch(() => undefined);
      body.destroy(err instanceof Error ? err : new Error(String(err)));
    },
  );
  const safeName = catalog.name.replace(/[^\p{L}\p{N}._-]+/gu, '-').slice(0, 80) || 'catalog';
  return {
    fileName: `${safeName}.${format}`,
    contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    body,
    columns,
  };
}

/** CSV: UTF-8 with BOM (so spreadsheet programs read it as UTF-8), CRLF line ends (RFC 4180). */
async function streamCsv(trx: Knex.Transaction, catalogId: string, columns: string[], body: PassThrough): Promise<void> {
  let buffer = '\uFEFF' + columns.map(csvField).join(',') + '\r\n';
  await eachItem(trx, catalogId, (data) => {
    buffer += columns.map((c) => csvField(cellText(data[c]))).join(',') + '\r\n';
    if (buffer.length < 64 * 1024) return;
    const chunk = buffer;
    buffer = '';
    return write(body, chunk);
  });
  await write(body, buffer);
  body.end();
}

/** XLSX through exceljs's streaming writer (inline strings, no styles): numbers and booleans as typed cells. */
async function streamXlsx(trx: Knex.Transaction, catalogId: string, columns: string[], body: PassThrough): Promise<void> {
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: body, useSharedStrings: false, useStyles: false });
  const ws = wb.addWorksheet('items');
  ws.addRow(columns).commit();
  await eachItem(trx, catalogId, (data) => {
    ws.addRow(
      columns.map((c) => {
        const v = data[c];
        return typeof v === 'number' || typeof v === 'boolean' ? v : v === null || v === undefined ? null : cellText(v);
      }),
    ).commit();
    // Let the zip stream flush before the next row when the client is slow.
    if (body.destroyed) throw new Error('export stream closed by the client');
    if (body.writableNeedDrain) return drained(body);
  });
  ws.commit();
  await wb.commit();
}
