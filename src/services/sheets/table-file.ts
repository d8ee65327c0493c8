/**
 * Reading spreadsheets as a stream of rows: CSV with any common delimiter,
 * RFC 4180 quoting, UTF-8 with or without BOM, UTF-16 (LE/BE, with or without BOM) and
 * Windows-1252; XLSX through exceljs's streaming `WorkbookReader` (first worksheet); legacy
 * Excel 97-2003 `.xls` (BIFF8 in an OLE2 compound file, as `POST /public/infer-schema` accepts,
 * docs/api-enrichment.md "Inference") through SheetJS Community Edition, published as `@e965/xlsx`
 * (0.20.x: the fixes of CVE-2023-30533 and CVE-2024-22363 that npm's `xlsx` 0.18.5 lacks).
 *
 * Memory stays bounded whatever the file size: bytes are decoded as a stream (iconv-lite),
 * csv-parse holds one record at a time (records over {@link MAX_RECORD_CHARS} fail), and the
 * XLSX reader streams sheet rows (it keeps the shared-string table, which is part of the file).
 * An .xls workbook is read whole (the format has no streaming reader), bounded by the format's
 * own limit of 65,536 rows × 256 columns per sheet and by the upload limit.
 */
import fs from 'node:fs';
import chardet from 'chardet';
import iconv from 'iconv-lite';
import { parse } from 'csv-parse';
import ExcelJS from 'exceljs';
import * as XLS from '@e965/xlsx';
import { UnsupportedMediaTypeError, ValidationError } from '../../lib/errors';

/** Formats this module reads. */
export type TableFormat = 'csv' | 'xlsx' | 'xls';

/** How a file was read: what {@link sniffTable} found, reported back so inference is explainable. */
export interface TableDialect {
  format: TableFormat;
  /** Text encoding as iconv-lite names it (`utf8`, `utf16le`, `utf16be`, `windows1252`, …); `xlsx` / `xls` for workbooks. */
  encoding: string;
  /** Field delimiter of a CSV (`,` `;` `\t` `|`); null for workbooks. */
  delimiter: string | null;
  /** Whether a byte-order mark was present (and skipped). */
  bom: boolean;
}

/** One row of cells as text (XLSX numbers and dates are written out as text too; empty cells are ''). */
export type Row = string[];

/** Bytes read from the head of a file to detect format, encoding and delimiter. */
const HEAD_BYTES = 64 * 1024;
/** A CSV record longer than this (characters) is an error rather than unbounded memory (an unclosed quote). */
export const MAX_RECORD_CHARS = 8 * 1024 * 1024;
/** Delimiters tried, in order of preference on a tie. */
const DELIMITERS = [',', ';', '\t', '|'] as const;

/** Reads up to `n` bytes from the start of a file. */
async function readHead(file: string, n: number): Promise<Buffer> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** Whether `buf` is valid UTF-8, ignoring a multi-byte sequence cut at the end of the buffer. */
function isUtf8(buf: Buffer, truncated: boolean): boolean {
  let end = buf.length;
  if (truncated) {
    // Step back over a trailing partial sequence (at most 3 continuation bytes and a lead byte).
    let i = end - 1;
    while (i >= 0 && end - i <= 4 && (buf[i] & 0xc0) === 0x80) i--;
    if (i >= 0 && buf[i] >= 0xc0) end = i;
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(buf.subarray(0, end));
    return true;
  } catch {
    return false;
  }
}

/**
 * The text encoding of a file from its first bytes: a BOM decides (UTF-8, UTF-16 LE/BE);
 * without one, NUL bytes on every other position mean UTF-16 without BOM; valid UTF-8 is
 * UTF-8; otherwise chardet's statistical guess among single-byte encodings, Windows-1252 when
 * it has none (the encoding spreadsheet programs on Windows write "CSV" in).
 * @returns iconv-lite encoding name and whether a BOM was present
 */
export function detectEncoding(head: Buffer, truncated: boolean): { encoding: string; bom: boolean } {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: 'utf8', bom: true };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf16le', bom: true };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf16be', bom: true };
  const pairs = Math.min(512, Math.floor(head.length / 2));
  let evenNul = 0;
  let oddNul = 0;
  for (let i = 0; i < pairs; i++) {
    if (head[2 * i] === 0) evenNul++;
    if (head[2 * i + 1] === 0) oddNul++;
  }
  if (pairs >= 2 && oddNul > pairs * 0.4 && evenNul < pairs * 0.05) return { encoding: 'utf16le', bom: false };
  if (pairs >= 2 && evenNul > pairs * 0.4 && oddNul < pairs * 0.05) return { encoding: 'utf16be', bom: false };
  if (isUtf8(head, truncated)) return { encoding: 'utf8', bom: false };
  const guess = (chardet.detect(head) ?? '').toLowerCase();
  const single: Record<string, string> = {
    'iso-8859-1': 'windows1252',
    'windows-1252': 'windows1252',
    'iso-8859-2': 'iso88592',
    'windows-1250': 'windows1250',
    'windows-1251': 'windows1251',
    'iso-8859-5': 'iso88595',
    'koi8-r': 'koi8r',
    'iso-8859-7': 'iso88597',
    'windows-1253': 'windows1253',
    'iso-8859-9': 'iso88599',
    'windows-1254': 'windows1254',
    shift_jis: 'shiftjis',
    'euc-jp': 'eucjp',
    gb18030: 'gb18030',
    big5: 'big5',
    'euc-kr': 'euckr',
  };
  return { encoding: single[guess] ?? 'windows1252', bom: false };
}

/**
 * Cells of a line split on `delim`, outside double quotes (quotes are RFC 4180: `""` inside a
 * quoted field is a quote). Used only to sniff delimiters on the first lines.
 */
function countFields(line: string, delim: string): number {
  let n = 1;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') quoted = !quoted;
    else if (c === delim && !quoted) n++;
  }
  return n;
}

/** Logical lines of a CSV head: newlines inside quotes do not end a line. The last (maybe cut) line is dropped when `truncated`. */
function headLines(text: string, truncated: boolean): string[] {
  const lines: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (c === '\n' && !quoted) {
      lines.push(text.slice(start, i).replace(/\r$/, ''));
      start = i + 1;
    }
  }
  if (!truncated && start < text.length) lines.push(text.slice(start));
  return lines.filter((l) => l.trim() !== '').slice(0, 50);
}

/**
 * The delimiter of a CSV from its first lines: the candidate that splits the header into the
 * most fields while giving the same field count on most lines (the approach of Python's
 * `csv.Sniffer`, reduced to the four delimiters spreadsheets write). A single-column file
 * gets `,`.
 */
export function sniffDelimiter(text: string, truncated: boolean): string {
  const lines = headLines(text, truncated);
  if (lines.length === 0) return ',';
  let best: { delim: string; score: number } = { delim: ',', score: 0 };
  for (const delim of DELIMITERS) {
    const header = countFields(lines[0], delim);
    if (header < 2) continue;
    const rest = lines.slice(1);
    const same = rest.length ? rest.filter((l) => countFields(l, delim) === header).length / rest.length : 1;
    const score = same * Math.log2(header + 1);
    if (same >= 0.5 && score > best.score) best = { delim, score };
  }
  return best.delim;
}

/**
 * Detects format, encoding and delimiter of an uploaded spreadsheet from its first 64 KiB.
 * @param file path on disk; `fileName` the client's name (only its extension is used, as a hint)
 * @throws UnsupportedMediaTypeError (415) for a workbook that is not XLSX or XLS (ODS, XLSB) or
 *   another binary file
 */
export async function sniffTable(file: string, fileName: string): Promise<TableDialect> {
  const size = (await fs.promises.stat(file)).size;
  const head = await readHead(file, HEAD_BYTES);
  const truncated = size > head.length;
  const ext = fileName.toLowerCase().split('.').pop() ?? '';
  // The OLE2 compound-file signature ([MS-CFB] §2.2): Excel 97-2003 workbooks.
  if (head.subarray(0, 8).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])))
    return { format: 'xls', encoding: 'xls', delimiter: null, bom: false };
  if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) {
    if (ext === 'ods' || ext === 'xlsb' || ext === 'numbers')
      throw new UnsupportedMediaTypeError(`.${ext} workbooks are not read: save the file as .xlsx or CSV, then upload again`);
    return { format: 'xlsx', encoding: 'xlsx', delimiter: null, bom: false };
  }
  const { encoding, bom } = detectEncoding(head, truncated);
  const text = iconv.decode(head, encoding, { stripBOM: true });
  if (text.includes('\u0000')) throw new UnsupportedMediaTypeError('The file is neither CSV nor Excel (binary content): upload a .csv, .xlsx or .xls file');
  return { format: 'csv', encoding, delimiter: sniffDelimiter(text, truncated), bom };
}

/** One cell value of exceljs as text: numbers in plain notation, booleans `true`/`false`, dates as ISO 8601, rich text and formulas by their text/result. */
function excelCellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) < 1e21 ? BigInt(value).toString() : String(value);
  // JSON's spelling, as the CSV export writes booleans: a column outside the schema reads it back as a boolean.
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Date) {
    const iso = value.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.replace('.000Z', 'Z');
  }
  if (typeof value === 'object') {
    const v = value as { richText?: Array<{ text?: string }>; text?: unknown; result?: unknown; error?: unknown; hyperlink?: string };
    if (Array.isArray(v.richText)) return v.richText.map((r) => r.text ?? '').join('');
    if ('result' in v) return excelCellText(v.result);
    if (v.text !== undefined) return excelCellText(v.text);
    if (v.hyperlink) return v.hyperlink;
    if (v.error !== undefined) return '';
  }
  return String(value);
}

/** Rows of the first worksheet of an XLSX file, as text cells (exceljs `row.values` is 1-based and sparse). */
async function* xlsxRows(file: string): AsyncGenerator<Row> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, {
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    worksheets: 'emit',
    entries: 'ignore',
  });
  for await (const sheet of reader) {
    for await (const row of sheet) {
      const values = Array.isArray(row.values) ? row.values : [];
      const cells: Row = [];
      for (let i = 1; i < values.length; i++) cells.push(excelCellText(values[i]));
      yield cells;
    }
    return; // the first worksheet only
  }
}

/**
 * Rows of the first worksheet of a legacy .xls workbook (SheetJS CE), as text cells written as
 * {@link excelCellText} writes XLSX cells (dates read as dates, numbers in plain notation).
 */
async function* xlsRows(file: string): AsyncGenerator<Row> {
  const book = XLS.read(await fs.promises.readFile(file), { type: 'buffer', cellDates: true, dense: true });
  const first = book.SheetNames[0];
  const sheet = first === undefined ? undefined : book.Sheets[first];
  if (!sheet) return;
  const rows = XLS.utils.sheet_to_json<unknown[]>(sheet, { header: 1, raw: true, defval: '', blankrows: false });
  for (const cells of rows) yield cells.map(excelCellText);
}

/** Records of a CSV file decoded as a stream. */
async function* csvRows(file: string, dialect: TableDialect): AsyncGenerator<Row> {
  const bytes = fs.createReadStream(file);
  const text = bytes.pipe(iconv.decodeStream(dialect.encoding, { stripBOM: true }));
  const records = text.pipe(
    parse({
      delimiter: dialect.delimiter ?? ',',
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      max_record_size: MAX_RECORD_CHARS,
    }),
  );
  bytes.on('error', (err) => records.destroy(err));
  try {
    for await (const record of records) yield record as Row;
  } catch (err) {
    throw ValidationError.at(['body', 'file'], `The CSV file could not be read: ${(err as Error).message}`, 'file_invalid');
  } finally {
    bytes.destroy();
  }
}

/**
 * Every row of the table, header first, as text cells; rows whose cells are all empty are
 * skipped (so CSV and XLSX count alike).
 * @throws ValidationError (422) for a CSV that cannot be parsed (e.g. a record over
 *   {@link MAX_RECORD_CHARS}); errors of the workbook readers (a corrupt zip or compound file) as ValidationError too
 */
export async function* tableRows(file: string, dialect: TableDialect): AsyncGenerator<Row> {
  const source = dialect.format === 'xlsx' ? xlsxRows(file) : dialect.format === 'xls' ? xlsRows(file) : csvRows(file, dialect);
  try {
    for await (const row of source) {
      if (row.some((c) => c !== '')) yield row;
    }
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    throw ValidationError.at(['body', 'file'], `The ${dialect.format.toUpperCase()} file could not be read: ${(err as Error).message}`, 'file_invalid');
  }
}

/**
 * Header names made usable as field names: trimmed, a BOM or NBSP removed, empty headers named
 * `column_<n>` (1-based), repeated names suffixed `_2`, `_3`… in order.
 */
export function normalizeHeaders(cells: Row): string[] {
  const seen = new Map<string, number>();
  return cells.map((c, i) => {
    let name =
      c
        .replace(/^\uFEFF/, '')
        .replace(/\u00a0/g, ' ')
        .trim() || `column_${i + 1}`;
    if (name.startsWith('__')) name = name.replace(/^_+/, '') || `column_${i + 1}`;
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return n === 1 ? name : `${name}_${n}`;
  });
}
