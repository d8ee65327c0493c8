import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { SqlPart } from '../../catalog/grid/item-grid-query';
import type { Knex } from 'knex';
import { parser } from 'stream-json';
import { pick } from 'stream-json/filters/Pick';
import { streamArray } from 'stream-json/streamers/StreamArray';
import { ValidationDetail, ValidationError } from '../../../lib/errors';
import { rowToInputItem } from '../../sheets/items-from-rows';
import { normalizeHeaders, sniffTable, tableRows } from '../../sheets/table-file';
import { unstorableTextPaths } from '../../../lib/text';
import { EnrichmentRow } from '../../../models/enrichment-row';

/**
 * Where a job's items come from, and how they become `enrichment_rows` (one row per item,
 * `(job_id, row_index)`): inline JSON, an uploaded `items_file` parsed as a stream, all items
 * of a catalog (set-based), or the rows of an earlier job (resume / re-extract, set-based).
 * Every writer runs inside the job-creation transaction, so a refused request leaves nothing.
 */

/** Rows are inserted in chunks of this many (keeps each INSERT's parameter count small). */
export const INSERT_CHUNK = 500;
/** A refused upload reports at most this many row problems. */
const MAX_ROW_DETAILS = 50;

/** Checks one item; returns its problems with `loc` under `loc` (e.g. `['body', 'items', 3]`). */
export type RowCheck = (item: unknown, loc: Array<string | number>) => ValidationDetail[];

/**
 * The per-row rules of the enrich request (docs/api-enrichment.md "Enrichment jobs"; `attribute_sets`, `source_hint_sets`): an item is an
 * object; inline `requested_attributes` / `source_hints` are refused (use the registries);
 * `attribute_set_id` / `source_hint_set_id` must name an entry of the request's registry.
 */
export function rowRules(attributeSets: Record<string, unknown> | undefined, sourceHintSets: Record<string, unknown> | undefined): RowCheck {
  return (item, loc) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return [{ loc, msg: 'Item must be a JSON object', type: 'type_error' }];
    const it = item as Record<string, unknown>;
    // Items of an items_file never pass the request validator: refuse unstorable text here.
    const out: ValidationDetail[] = unstorableTextPaths(it).map((p) => ({
      loc: [...loc, ...p],
      msg: 'Text must not contain NUL characters or unpaired UTF-16 surrogates',
      type: 'value_error.unstorable_text',
    }));
    if ('requested_attributes' in it)
      out.push({
        loc: [...loc, 'requested_attributes'],
        msg: 'Per-row requested_attributes are not accepted: define them in attribute_sets and reference one with attribute_set_id',
        type: 'value_error',
      });
    if ('source_hints' in it)
      out.push({
        loc: [...loc, 'source_hints'],
        msg: 'Inline source_hints are not accepted: define them in source_hint_sets and reference one with source_hint_set_id',
        type: 'value_error',
      });
    for (const [key, registry, name] of [
      ['attribute_set_id', attributeSets, 'attribute_sets'],
      ['source_hint_set_id', sourceHintSets, 'source_hint_sets'],
    ] as const) {
      if (!(key in it)) continue;
      const id = it[key];
      if (typeof id !== 'string' || !registry || !Object.prototype.hasOwnProperty.call(registry, id)) {
        out.push({ loc: [...loc, key], msg: `Unknown ${key} ${JSON.stringify(id)}: not an entry of ${name}`, type: 'value_error' });
      }
    }
    return out;
  };
}

async function insertChunk(trx: Knex.Transaction, jobId: string, first: number, items: unknown[]): Promise<void> {
  if (items.length) await trx('enrichment_rows').insert(items.map((input, k) => ({ job_id: jobId, row_index: first + k, input })));
}

/**
 * Inserts inline items in chunks.
 * @returns the number of rows
 * @throws ValidationError (422) listing the rows that break {@link rowRules}
 */
export async function insertInlineItems(trx: Knex.Transaction, jobId: string, items: unknown[], check: RowCheck): Promise<number> {
  const details = items.flatMap((item, i) => check(item, ['body', 'items', i])).slice(0, MAX_ROW_DETAILS);
  if (details.length) throw new ValidationError(details);
  for (let i = 0; i < items.length; i += INSERT_CHUNK) await insertChunk(trx, jobId, i, items.slice(i, i + INSERT_CHUNK));
  return items.length;
}

/** First non-whitespace character of a file (after a UTF-8 BOM), or null when empty. */
async function firstChar(file: string): Promise<string | null> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const buf = Buffer.alloc(4096);
    let pos = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) return null;
      const text = buf
        .subarray(0, bytesRead)
        .toString('utf8')
        .replace(/^\uFEFF/, '');
      const m = /\S/.exec(text);
      if (m) return m[0];
      pos += bytesRead;
    }
  } finally {
    await fh.close();
  }
}

/** Whether an `items_file` is a spreadsheet: a .csv/.tsv/.xlsx/.xls name, or a zip (XLSX) or OLE2 (.xls) file. */
async function isSpreadsheet(file: string, fileName: string): Promise<boolean> {
  if (/\.(csv|tsv|xlsx|xls)$/i.test(fileName)) return true;
  const fh = await fs.promises.open(file, 'r');
  try {
    const head = Buffer.alloc(4);
    await fh.read(head, 0, 4, 0);
    return head.equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])) || head.equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0]));
  } finally {
    await fh.close();
  }
}

/**
 * A CSV, XLSX or XLS `items_file`, streamed: the header row names the fields, each further
 * row is one item (src/services/sheets/items-from-rows.ts `rowToInputItem`: non-empty cells as
 * text, JSON arrays and objects parsed), inserted in chunks of {@link INSERT_CHUNK}.
 * @returns the number of rows
 * @throws UnsupportedMediaTypeError (415) for a workbook other than XLSX/XLS; ValidationError (422) at
 *   `body.items_file` for an unreadable file, at `body.items_file.<i>` for rows that break {@link rowRules}
 */
async function insertItemsFromSheet(trx: Knex.Transaction, jobId: string, file: string, fileName: string, check: RowCheck): Promise<number> {
  const dialect = await sniffTable(file, fileName);
  const details: ValidationDetail[] = [];
  let headers: string[] | null = null;
  let count = 0;
  let chunk: unknown[] = [];
  try {
    for await (const row of tableRows(file, dialect)) {
      if (!headers) {
        headers = normalizeHeaders(row);
        continue;
      }
      const item = rowToInputItem(headers, row);
      const problems = check(item, ['body', 'items_file', count]);
      if (problems.length) {
        details.push(...problems);
        if (details.length >= MAX_ROW_DETAILS) throw new ValidationError(details.slice(0, MAX_ROW_DETAILS));
      }
      chunk.push(item);
      count++;
      if (chunk.length >= INSERT_CHUNK) {
        if (!details.length) await insertChunk(trx, jobId, count - chunk.length, chunk);
        chunk = [];
      }
    }
  } catch (err) {
    // The reader reports at `body.file` (its name in infer-schema); here the field is `items_file`.
    if (err instanceof ValidationError && err.details.every((d) => d.loc[1] === 'file'))
      throw new ValidationError(err.details.map((d) => ({ ...d, loc: ['body', 'items_file', ...d.loc.slice(2)] })));
    throw err;
  }
  if (details.length) throw new ValidationError(details);
  await insertChunk(trx, jobId, count - chunk.length, chunk);
  return count;
}

/**
 * Parses an uploaded `items_file` as a stream (never whole in memory: stream-json tokenises it
 * and assembles one item at a time) and inserts its items in chunks of {@link INSERT_CHUNK}.
 * The file is a JSON array of item objects, or an object whose `items` key holds that array
 * (docs/api-enrichment.md "Enrichment jobs": `items_file`).
 * @returns the number of rows
 * @throws ValidationError (422) at `body.items_file` for invalid JSON or another top-level
 *   shape, and at `body.items_file.<i>` for rows that break {@link rowRules}
 */
export async function insertItemsFromFile(trx: Knex.Transaction, jobId: string, file: string, check: RowCheck, fileName = ''): Promise<number> {
  if (await isSpreadsheet(file, fileName)) return insertItemsFromSheet(trx, jobId, file, fileName, check);
  const first = await firstChar(file);
  if (first !== '[' && first !== '{') {
    throw ValidationError.at(
      ['body', 'items_file'],
      first === null ? 'items_file is empty' : 'items_file must be a JSON array of items or an object with an items array',
      first === null ? 'missing' : 'json_invalid',
    );
  }
  const details: ValidationDetail[] = [];
  let count = 0;
  let chunk: unknown[] = [];
  const stages: NodeJS.ReadWriteStream[] = [parser(), ...(first === '{' ? [pick({ filter: 'items' })] : []), streamArray()];
  // stream/promises' overloads cannot type a variable number of stages before an async consumer.
  const run = pipeline as unknown as (...streams: unknown[]) => Promise<void>;
  try {
    await run(fs.createReadStream(file), ...stages, async (source: AsyncIterable<{ key: number; value: unknown }>) => {
      for await (const { value } of source) {
        const problems = check(value, ['body', 'items_file', count]);
        if (problems.length) {
          details.push(...problems);
          if (details.length >= MAX_ROW_DETAILS) throw new ValidationError(details.slice(0, MAX_ROW_DETAILS));
        }
        chunk.push(value);
        count++;
        if (chunk.length >= INSERT_CHUNK) {
          if (!details.length) await insertChunk(trx, jobId, count - chunk.length, chunk);
          chunk = [];
        }
      }
    });
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    throw ValidationError.at(['body', 'items_file'], `items_file is not valid JSON: ${(err as Error).message}`, 'json_invalid');
  }
  if (details.length) throw new ValidationError(details);
  await insertChunk(trx, jobId, count - chunk.length, chunk);
  return count;
}

/**
 * Copies every item of a catalog into the job's rows in one statement (`source_catalog_id`),
 * in the catalog's listing order (created_at, id); with `where` (a console grid selection,
 * src/services/catalog/grid/grid-selection.ts: SQL over `catalog_items` with its bindings) only the
 * items it selects. Each input carries `__catalog_item_id`, so a job that writes back to the
 * same catalog stages against the very item.
 * @returns the number of rows
 */
export async function insertItemsFromCatalog(trx: Knex.Transaction, jobId: string, catalogId: string, where?: SqlPart): Promise<number> {
  const { rowCount } = await trx.raw(
    `INSERT INTO enrichment_rows (job_id, row_index, input)
     SELECT ?, (row_number() OVER (ORDER BY created_at, id) - 1)::int, data || jsonb_build_object('__catalog_item_id', id::text)
     FROM catalog_items WHERE catalog_id = ?${where ? ` AND (${where.sql})` : ''}`,
    [jobId, catalogId, ...(where?.bindings ?? [])],
  );
  return rowCount ?? 0;
}

/**
 * Copies the output rows of a flow run's node into the job's rows in one statement (the input
 * of an `enrich` node, src/services/flows/nodes/enrich-node.ts), keeping their row indexes.
 * @returns the number of rows
 */
export async function insertItemsFromFlowNode(trx: Knex.Transaction, jobId: string, runId: string, nodeId: string): Promise<number> {
  const { rowCount } = await trx.raw(
    `INSERT INTO enrichment_rows (job_id, row_index, input)
     SELECT ?, row_index, data FROM flow_run_rows WHERE run_id = ? AND node_id = ?`,
    [jobId, runId, nodeId],
  );
  return rowCount ?? 0;
}

/**
 * Resume (`source_activity_id`): copies every row of an earlier job. Rows that succeeded there
 * keep their result and are marked carried (shown, never charged again); every other row is
 * pending again and will be processed (failed rows are retried). Stored evidence is copied too,
 * so a resumed re-extraction job still reads it.
 * @returns rows copied and rows carried
 */
export async function copyRowsForResume(trx: Knex.Transaction, jobId: string, fromJobId: string): Promise<{ rows: number; carried: number }> {
  const { rowCount } = await trx.raw(
    `INSERT INTO enrichment_rows (job_id, row_index, input, status, result, evidence, usage, error, completed_at, carried_from_job_id)
     SELECT ?, row_index, input,
       CASE WHEN status = 'succeeded' THEN 'succeeded' ELSE 'pending' END,
       CASE WHEN status = 'succeeded' THEN result END,
       evidence, NULL, NULL,
       CASE WHEN status = 'succeeded' THEN completed_at END,
       CASE WHEN status = 'succeeded' THEN ?::uuid END
     FROM enrichment_rows WHERE job_id = ?`,
    [jobId, fromJobId, fromJobId],
  );
  return { rows: rowCount ?? 0, carried: await carriedRows(trx, jobId) };
}

/**
 * Re-extraction (`reextract_from_activity_id`): copies every row of an earlier job with its
 * stored evidence. Rows selected for re-extraction (`row_index < processedRows` and, when
 * `indices` is given, listed there) are pending; the other processed rows keep their result
 * unchanged, carried (never charged again) — a row the earlier job never finished is carried as
 * an item-level error saying so. Rows beyond `processedRows` stay pending and are never run.
 * @returns rows copied and rows carried
 */
export async function copyRowsForReextract(
  trx: Knex.Transaction,
  jobId: string,
  fromJobId: string,
  processedRows: number,
  indices: number[] | null,
): Promise<{ rows: number; carried: number }> {
  const selected = `(row_index < ?::int AND (?::int[] IS NULL OR row_index = ANY(?::int[])))`;
  const carried = `(row_index < ?::int AND NOT ${selected})`;
  const notSelected = 'Not selected for re-extraction (source_row_indices), and the earlier job has no result for this row';
  const idx = indices ?? null;
  const sel = [processedRows, idx, idx];
  const car = [processedRows, ...sel];
  const { rowCount } = await trx.raw(
    `INSERT INTO enrichment_rows (job_id, row_index, input, status, result, evidence, usage, error, completed_at, carried_from_job_id)
     SELECT ?, row_index, input,
       CASE WHEN ${carried} THEN (CASE WHEN status = 'pending' THEN 'failed' ELSE status END) ELSE 'pending' END,
       CASE WHEN ${carried} THEN coalesce(result, jsonb_build_object(
         'original_data', input, 'after_data', input || '{"sources": {}, "source_explanations": {}}'::jsonb, 'all_sources', '[]'::jsonb,
         'error', ?::text, 'review_info', jsonb_build_object('reasoning', ?::text, 'confidence', 'low', 'flags', '["error"]'::jsonb,
           'field_issues', '[]'::jsonb, 'field_confidence', '{}'::jsonb, 'field_methods', '{}'::jsonb))) END,
       evidence, NULL,
       CASE WHEN ${carried} THEN coalesce(error, CASE WHEN status = 'pending' THEN ?::text END) END,
       CASE WHEN ${carried} THEN coalesce(completed_at, now()) END,
       CASE WHEN ${carried} THEN ?::uuid END
     FROM enrichment_rows WHERE job_id = ?`,
    [jobId, ...car, ...car, notSelected, notSelected, ...car, notSelected, ...car, ...car, fromJobId, fromJobId],
  );
  return { rows: rowCount ?? 0, carried: await carriedRows(trx, jobId) };
}

/** How many of a job's rows were carried from an earlier job. */
function carriedRows(trx: Knex.Transaction, jobId: string): Promise<number> {
  return EnrichmentRow.query(trx).where({ job_id: jobId }).whereNotNull('carried_from_job_id').resultSize();
}
