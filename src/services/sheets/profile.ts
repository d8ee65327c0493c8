/**
 * One streaming pass over a table that counts every row exactly and profiles the first
 * {@link PROFILE_ROWS} rows column by column ("`total_rows` is exact while memory
 * stays bounded"). Per column it keeps counts of cell kinds, distinct values (capped), the
 * pieces of delimited cells, units and currencies; the first {@link STRUCTURE_ROWS} rows are kept
 * whole for the checks that look across columns (product/variant groups, units shared between
 * columns). Everything kept is bounded by those two constants and the column count, so a
 * 500 MB file is counted with the memory of its first rows.
 */
import { CELL_KINDS, CellKind, classifyCell } from './cells';
import type { Row } from './table-file';

/** Rows whose values are profiled (the rest are only counted). */
export const PROFILE_ROWS = 10_000;
/** Rows kept whole for cross-column checks. */
export const STRUCTURE_ROWS = 2_000;
/** Distinct values remembered per column (more → `distinctOverflow`). */
const DISTINCT_CAP = PROFILE_ROWS;
/** Distinct pieces of delimited cells remembered per column and separator. */
const PIECE_CAP = 2_000;
/** Distinct values are compared on at most this many characters (long texts are never enum values). */
const KEY_CHARS = 300;
/** Separators of multi-valued cells, in order of preference. */
export const LIST_SEPARATORS = ['\n', '|', ';', ','] as const;

/** Counts for one separator of multi-valued cells. */
export interface PieceStats {
  /** Cells containing the separator. */
  cells: number;
  /** Pieces over all those cells. */
  pieces: number;
  /** Pieces containing a digit. */
  withDigits: number;
  /** Total characters of pieces. */
  chars: number;
  /** Pieces with more than three words. */
  long: number;
  /** Fewest and most pieces in one cell. */
  minPieces: number;
  maxPieces: number;
  /** Distinct pieces (capped at PIECE_CAP) with counts. */
  distinct: Map<string, number>;
}

/** What the pass learned about one column. */
export interface ColumnProfile {
  name: string;
  index: number;
  /** Profiled rows (≤ PROFILE_ROWS). */
  rows: number;
  /** Non-empty cells among them. */
  filled: number;
  kinds: Record<CellKind, number>;
  /** Distinct non-empty values (keys cut to KEY_CHARS) with counts, in first-seen order. */
  distinct: Map<string, number>;
  distinctOverflow: boolean;
  /** Longest value and sum of lengths of non-empty values (characters). */
  maxLength: number;
  totalLength: number;
  /** Units of quantity/dimension cells and currencies of money cells, with counts. */
  units: Map<string, number>;
  /** Cells written with a decimal comma / point. */
  decimalComma: number;
  decimalPoint: number;
  /** Integers with a leading zero ("0042"): codes, not quantities. */
  leadingZeros: number;
  /** Integer cells that are the previous row's integer + 1 (a row counter). */
  sequential: number;
  /** Non-empty values equal to an earlier, non-adjacent value (breaks contiguous groups). */
  nonContiguousRepeats: number;
  /** Minimum and maximum of numeric cells. */
  min: number;
  max: number;
  /** Piece statistics per separator, for separators that occurred. */
  pieces: Map<string, PieceStats>;
  /** Up to 10 example values (distinct, first seen). */
  examples: string[];
}

/** Result of {@link profileTable}. */
export interface TableProfile {
  headers: string[];
  /** Data rows in the whole file (header excluded, empty rows skipped). */
  totalRows: number;
  columns: ColumnProfile[];
  /** The first STRUCTURE_ROWS data rows, whole. */
  rows: Row[];
  /** Whether the file writes decimals with commas (decided on the profiled rows). */
  decimalComma: boolean;
}

function emptyProfile(name: string, index: number): ColumnProfile {
  return {
    name,
    index,
    rows: 0,
    filled: 0,
    kinds: Object.fromEntries(CELL_KINDS.map((k) => [k, 0])) as Record<CellKind, number>,
    distinct: new Map(),
    distinctOverflow: false,
    maxLength: 0,
    totalLength: 0,
    units: new Map(),
    decimalComma: 0,
    decimalPoint: 0,
    leadingZeros: 0,
    sequential: 0,
    nonContiguousRepeats: 0,
    min: Infinity,
    max: -Infinity,
    pieces: new Map(),
    examples: [],
  };
}

function addPieces(p: ColumnProfile, text: string): void {
  for (const sep of LIST_SEPARATORS) {
    if (!text.includes(sep)) continue;
    const parts = text
      .split(sep)
      .map((s) => s.trim())
      .filter(Boolean);
    if (parts.length < 2 && sep !== '\n') continue;
    let s = p.pieces.get(sep);
    if (!s) p.pieces.set(sep, (s = { cells: 0, pieces: 0, withDigits: 0, chars: 0, long: 0, minPieces: Infinity, maxPieces: 0, distinct: new Map() }));
    s.cells++;
    s.minPieces = Math.min(s.minPieces, parts.length);
    s.maxPieces = Math.max(s.maxPieces, parts.length);
    for (const part of parts) {
      s.pieces++;
      s.chars += part.length;
      if (/\d/.test(part)) s.withDigits++;
      if (part.split(/\s+/).length > 3) s.long++;
      const key = part.slice(0, 100);
      if (s.distinct.has(key) || s.distinct.size < PIECE_CAP) s.distinct.set(key, (s.distinct.get(key) ?? 0) + 1);
    }
  }
}

/** Profiles one cell into its column (second pass over a row, once the decimal style is known). */
function profileCell(p: ColumnProfile, raw: string, prev: { text: string; number: number | null }, decimalComma: boolean): void {
  p.rows++;
  const text = raw.trim();
  const cell = classifyCell(text, decimalComma);
  p.kinds[cell.kind]++;
  if (cell.kind === 'empty') {
    prev.text = '';
    prev.number = null;
    return;
  }
  p.filled++;
  p.maxLength = Math.max(p.maxLength, text.length);
  p.totalLength += text.length;
  if (cell.unit) p.units.set(cell.unit, (p.units.get(cell.unit) ?? 0) + 1);
  if (cell.decimal === ',') p.decimalComma++;
  if (cell.decimal === '.') p.decimalPoint++;
  if (cell.kind === 'integer' && /^0\d/.test(text)) p.leadingZeros++;
  if (cell.number !== undefined && Number.isFinite(cell.number)) {
    p.min = Math.min(p.min, cell.number);
    p.max = Math.max(p.max, cell.number);
  }
  if (cell.kind === 'integer' && prev.number !== null && cell.number === prev.number + 1) p.sequential++;
  const key = text.slice(0, KEY_CHARS);
  const seen = p.distinct.get(key);
  if (seen !== undefined && prev.text !== key) p.nonContiguousRepeats++;
  if (seen !== undefined || p.distinct.size < DISTINCT_CAP) p.distinct.set(key, (seen ?? 0) + 1);
  else p.distinctOverflow = true;
  if (seen === undefined && p.examples.length < 10) p.examples.push(text.slice(0, 200));
  if (cell.kind === 'text' || cell.kind === 'dimensions') addPieces(p, text);
  prev.text = key;
  prev.number = cell.kind === 'integer' ? (cell.number ?? null) : null;
}

/**
 * Whether a file writes decimals with commas, from its first rows: cells like `265,0` or
 * `1.234,5` outnumber cells like `265.0`, and no cell is a comma-grouped integer (`1,234`).
 */
function decideDecimalComma(rows: Row[]): boolean {
  let comma = 0;
  let point = 0;
  for (const row of rows)
    for (const c of row) {
      const t = c.trim();
      if (/^[-+]?\d+,\d{1,2}$|^[-+]?\d{1,3}(?:\.\d{3})+,\d+$|^[-+]?\d+,\d{4,}$/.test(t)) comma++;
      else if (/^[-+]?\d+\.\d+$|^[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(t)) point++;
    }
  return comma > point;
}

/**
 * Reads every row of `rows` (header first): counts them all, profiles the first PROFILE_ROWS.
 * @param rows the table's rows as text cells (src/services/sheets/table-file.ts `tableRows`)
 * @param normalize turns the header row into field names
 * @returns the profile; a file without rows has `headers: []`
 */
export async function profileTable(rows: AsyncIterable<Row>, normalize: (header: Row) => string[]): Promise<TableProfile> {
  let headers: string[] | null = null;
  let totalRows = 0;
  const kept: Row[] = [];
  let columns: ColumnProfile[] = [];
  let decimalComma = false;
  let prevs: Array<{ text: string; number: number | null }> = [];
  const profileRow = (row: Row) => {
    for (let i = 0; i < columns.length; i++) profileCell(columns[i], row[i] ?? '', prevs[i], decimalComma);
  };
  // Rows are profiled once the decimal style is decided on the first 200 (held back until then).
  const DECIDE = 200;
  for await (const row of rows) {
    if (headers === null) {
      headers = normalize(row);
      columns = headers.map((h, i) => emptyProfile(h, i));
      prevs = headers.map(() => ({ text: '', number: null }));
      continue;
    }
    totalRows++;
    if (totalRows <= STRUCTURE_ROWS) kept.push(row);
    if (totalRows === DECIDE) {
      decimalComma = decideDecimalComma(kept);
      kept.forEach(profileRow);
    } else if (totalRows > DECIDE && totalRows <= PROFILE_ROWS) profileRow(row);
  }
  if (totalRows < DECIDE) {
    decimalComma = decideDecimalComma(kept);
    kept.forEach(profileRow);
  }
  return { headers: headers ?? [], totalRows, columns, rows: kept, decimalComma };
}
