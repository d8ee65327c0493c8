/**
 * Reading and writing the tool server's local tables (docs/tool-server-design.md "Pull" and docs/tool-server-design.md "Diff"): JSON Lines (one object per line, typed values), CSV (header row, no index; dict and
 * list cells JSON-encoded; an empty cell reads as null, as pandas reads it), JSON (an array of
 * objects, or one object) and Parquet (hyparquet and hyparquet-writer, maintained pure-JavaScript
 * reader and writer; the reader is asynchronous, hence {@link loadTable}).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { isNull, pythonJson, Row } from './values';

/** Table formats read by extension. */
export const TABLE_EXTENSIONS = ['.jsonl', '.ndjson', '.csv', '.json', '.parquet'] as const;

/** A table read from a file: its rows (null cells dropped) and its columns in first-seen order. */
export interface Table {
  rows: Row[];
  columns: string[];
}

/** A file whose extension or content is not a readable table. */
export class TableFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TableFormatError';
  }
}

/** Columns in first-seen order over `rows`. */
export function columnsOf(rows: Row[], first: readonly string[] = []): string[] {
  const seen = new Set<string>(first);
  const out = [...first];
  for (const r of rows)
    for (const k in r)
      if (!seen.has(k)) {
        seen.add(k);
        out.push(k);
      }
  return out;
}

/** `row` with every one of `columns` (null where it has no value), in their order, then its other keys. */
function withColumns(row: Row, columns: readonly string[]): Row {
  const out: Row = {};
  for (const c of columns) out[c] = row[c] ?? null;
  for (const k in row) if (!(k in out)) out[k] = row[k];
  return out;
}

/** `row` without its null cells (docs/tool-server-design.md "Diff": "a row becomes a dict with its null cells dropped"). */
function dropNulls(row: Row): Row {
  let any = false;
  for (const k in row) if (isNull(row[k])) any = true;
  if (!any) return row;
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) if (!isNull(v)) out[k] = v;
  return out;
}

/**
 * Reads a table of any of {@link TABLE_EXTENSIONS}: Parquet through hyparquet (values as typed in
 * the file, null cells dropped, columns in the file's order), the others by {@link readTable}.
 * @throws TableFormatError for an unknown extension or a file that does not parse
 */
export async function loadTable(file: string): Promise<Table> {
  if (path.extname(file).toLowerCase() !== '.parquet') return readTable(file);
  const bytes = fs.readFileSync(file);
  let records: Row[];
  try {
    records = (await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) })) as Row[];
  } catch (err) {
    throw new TableFormatError(`${path.basename(file)} is not a readable Parquet file: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { rows: records.map(dropNulls), columns: columnsOf(records.slice(0, 1)) };
}

/**
 * Reads a table by its extension (`.jsonl`/`.ndjson`, `.csv`, `.json`; Parquet: {@link loadTable}).
 * @throws TableFormatError for another extension, a line or file that is not JSON objects, or CSV that does not parse
 */
export function readTable(file: string): Table {
  const ext = path.extname(file).toLowerCase();
  const text = fs.readFileSync(file, 'utf8');
  if (ext === '.csv') {
    let records: string[][];
    try {
      records = parseCsv(text);
    } catch (err) {
      throw new TableFormatError(`${path.basename(file)}: ${err instanceof Error ? err.message : String(err)}`);
    }
    const header = records[0] ?? [];
    const rows = records.slice(1).map((rec) => {
      const row: Row = {};
      header.forEach((h, i) => {
        const v = rec[i];
        if (v !== undefined && v !== '') row[h] = v;
      });
      return row;
    });
    return { rows, columns: header };
  }
  if (ext === '.jsonl' || ext === '.ndjson') {
    const rows: Row[] = [];
    const columns: string[] = [];
    const seen = new Set<string>();
    let n = 0;
    for (const line of text.split('\n')) {
      n++;
      if (!line.trim()) continue;
      let v: unknown;
      try {
        v = JSON.parse(line);
      } catch {
        throw new TableFormatError(`${path.basename(file)} line ${n} is not JSON`);
      }
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw new TableFormatError(`${path.basename(file)} line ${n} is not a JSON object`);
      // Columns are the keys as written, null cells included: a pulled snapshot carries every
      // schema field, also one no row has a value for.
      for (const k in v as Row) {
        if (seen.has(k)) continue;
        seen.add(k);
        columns.push(k);
      }
      rows.push(dropNulls(v as Row));
    }
    return { rows, columns };
  }
  if (ext === '.json') {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      throw new TableFormatError(`${path.basename(file)} is not JSON`);
    }
    const list = Array.isArray(v) ? v : [v];
    if (!list.every((x) => x && typeof x === 'object' && !Array.isArray(x))) throw new TableFormatError(`${path.basename(file)} must hold objects`);
    const rows = (list as Row[]).map(dropNulls);
    return { rows, columns: columnsOf(rows) };
  }
  throw new TableFormatError(`unsupported table format ${ext || '(none)'} for ${path.basename(file)}: use one of ${TABLE_EXTENSIONS.join(', ')}`);
}

/**
 * Parses CSV text (RFC 4180: fields quoted with `"`, `""` inside quotes, CRLF or LF line ends; a
 * UTF-8 BOM is skipped; empty lines are skipped). Written here rather than taken from csv-parse,
 * which took 1.8 s of the 100,000-row diff's 5 s budget (the service's bench/mcp-diff.ts);
 * test/table.test.ts checks it against csv-parse on awkward input.
 * @returns the records (the first is the header)
 * @throws Error for a quote left open at the end, or text after a closing quote
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const n = text.length;
  let record: string[] = [];
  let quotedLine = false;
  while (i < n) {
    let field: string;
    if (text.charCodeAt(i) === 34) {
      quotedLine = true;
      // Quoted field: up to the quote that is not doubled.
      let value = '';
      let j = i + 1;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) throw new Error(`quoted field not closed (from offset ${i})`);
        value += text.slice(j, q);
        if (text.charCodeAt(q + 1) === 34) {
          value += '"';
          j = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      field = value;
      const c = text.charCodeAt(i);
      if (i < n && c !== 44 && c !== 10 && c !== 13) throw new Error(`unexpected text after a closing quote at offset ${i}`);
    } else {
      let j = i;
      while (j < n) {
        const c = text.charCodeAt(j);
        if (c === 44 || c === 10 || c === 13) break;
        j++;
      }
      field = text.slice(i, j);
      i = j;
    }
    record.push(field);
    const c = text.charCodeAt(i);
    if (c === 44) {
      i++;
      if (i === n) record.push('');
      continue;
    }
    // End of record (CRLF, LF, CR or end of text); an empty line (one unquoted empty field) is skipped.
    if (c === 13 && text.charCodeAt(i + 1) === 10) i += 2;
    else i++;
    if (quotedLine || !(record.length === 1 && record[0] === '')) records.push(record);
    record = [];
    quotedLine = false;
  }
  if (record.length && (quotedLine || !(record.length === 1 && record[0] === ''))) records.push(record);
  return records;
}

/** Reads JSON Lines of arbitrary objects (staged changes), or a `.json` array / single object (docs/tool-server-design.md "Validate"). */
export function readObjects(file: string): unknown[] {
  const ext = path.extname(file).toLowerCase();
  const text = fs.readFileSync(file, 'utf8');
  if (ext === '.json') {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v : [v];
  }
  if (ext === '.jsonl' || ext === '.ndjson') {
    return text
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as unknown);
  }
  throw new TableFormatError(`unsupported format ${ext || '(none)'} for ${path.basename(file)}: use .jsonl or .json`);
}

/**
 * Writes objects as JSON Lines (one `JSON.stringify` per line; non-JSON values as JSON makes them).
 * With `columns`, every row carries each of them (null where it has no value), so a reader sees
 * every column even when no row has a value for it.
 */
export function writeJsonl(file: string, rows: readonly unknown[], columns?: readonly string[]): void {
  const fd = fs.openSync(file, 'w');
  try {
    const chunk: string[] = [];
    for (const r of rows) {
      chunk.push(JSON.stringify(columns ? withColumns(r as Row, columns) : r));
      if (chunk.length === 2000) fs.writeSync(fd, chunk.splice(0).join('\n') + '\n');
    }
    if (chunk.length) fs.writeSync(fd, chunk.join('\n') + '\n');
  } finally {
    fs.closeSync(fd);
  }
}

/** A cell as CSV text: null → empty, dict/list → JSON with Python's separators (docs/tool-server-design.md "Pull"). */
export function csvCell(v: unknown): string {
  if (isNull(v)) return '';
  if (typeof v === 'object') return pythonJson(v);
  return String(v);
}

/** A CSV field (RFC 4180): quoted when it holds a comma, a quote, CR or LF, inner quotes doubled. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Writes rows as CSV with a header of `columns`, no index column (docs/tool-server-design.md "Pull").
 * RFC 4180 quoting is done here rather than by csv-stringify, which took 2.6 s of a 100,000-row
 * pull's 10 s budget on 2 busy cores (the service's bench/mcp-pull.ts); test/table.test.ts checks the
 * output is byte-identical to csv-stringify's.
 */
export function writeCsv(file: string, rows: readonly Row[], columns: readonly string[]): void {
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, columns.map(csvField).join(',') + '\n');
    let chunk = '';
    rows.forEach((r, i) => {
      let line = '';
      for (let c = 0; c < columns.length; c++) line += (c ? ',' : '') + csvField(csvCell(r[columns[c]]));
      chunk += line + '\n';
      if (i % 2000 === 1999) {
        fs.writeSync(fd, chunk);
        chunk = '';
      }
    });
    if (chunk) fs.writeSync(fd, chunk);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes rows as Parquet with `columns` in order. A column whose values are all numbers is DOUBLE,
 * all booleans BOOLEAN; any other column is STRING with cells as the CSV writes them (dict/list
 * cells JSON-encoded, docs/tool-server-design.md "Pull"); null cells are nulls.
 */
export function writeParquet(file: string, rows: readonly Row[], columns: readonly string[]): void {
  const columnData = columns.map((name) => {
    const values = rows.map((r) => (isNull(r[name]) ? null : r[name]));
    const present = values.filter((v) => v !== null);
    if (present.length && present.every((v) => typeof v === 'number')) return { name, data: values, type: 'DOUBLE' as const };
    if (present.length && present.every((v) => typeof v === 'boolean')) return { name, data: values, type: 'BOOLEAN' as const };
    return { name, data: values.map((v) => (v === null ? null : csvCell(v))), type: 'STRING' as const };
  });
  fs.writeFileSync(file, Buffer.from(parquetWriteBuffer({ columnData })));
}
