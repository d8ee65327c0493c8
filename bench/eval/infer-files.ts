/**
 * The files of the inference suite (`npm run eval -- infer`): the real exports named in issue 20
 * as they are, and the Zyte and WDC-PAVE ground truths written out as CSV and XLSX, plus the
 * IKEA file re-written the way a European spreadsheet program saves it (semicolons, decimal
 * commas, Windows-1252) and as XLSX. Each variant is scored against the same gold schema.
 */
import fs from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import { parse } from 'csv-parse/sync';
import { SHARED_DATA } from '../../test/helpers/data';

/** A gold schema (bench/eval/infer-gold/*.json), written by hand from the data and its SOURCE.md. */
export interface InferGold {
  name: string;
  /** Path under ../shared/data of a file used as it is. */
  file?: string;
  /** Or the name of a generated table (`zyte`, `wdc`). */
  generated?: 'zyte' | 'wdc';
  note: string;
  /** Acceptable unique-id columns. */
  unique_id_field: string[];
  /** Acceptable product-id columns (null: no product/variant structure). */
  product_id_field: Array<string | null>;
  /** The file's category column and its number of levels; null when it has none. */
  taxonomy: { column: string; levels: number } | null;
  /** Per column: acceptable types (null: no values, not scored), whether it is an enum, its unit code, whether it is an identifier. */
  columns: Record<string, { type: string | string[] | null; enum: boolean; unit?: string; identifier?: boolean }>;
}

/** One file to infer: its path, the name a client would upload it under, and its gold. */
export interface InferCase {
  gold: InferGold;
  variant: string;
  file: string;
  fileName: string;
}

/** Reads every gold schema of `dir`. */
export function readGolds(dir: string): InferGold[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as InferGold);
}

/** A CSV field quoted when it needs to be (RFC 4180). */
function csvField(v: string, delim: string): string {
  return v.includes(delim) || /["\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

function toCsv(rows: string[][], delim = ','): string {
  return rows.map((r) => r.map((c) => csvField(c, delim)).join(delim)).join('\r\n') + '\r\n';
}

/** Writes rows as XLSX (streaming writer); cells of `numeric` columns that are numbers become number cells. */
async function writeXlsx(file: string, rows: string[][], numeric: Set<string>): Promise<void> {
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: true });
  const ws = wb.addWorksheet('Sheet1');
  const header = rows[0];
  ws.addRow(header).commit();
  for (const r of rows.slice(1)) ws.addRow(r.map((c, i) => (numeric.has(header[i]) && /^-?\d+(\.\d+)?$/.test(c) ? Number(c) : c === '' ? null : c))).commit();
  ws.commit();
  await wb.commit();
}

/** The Zyte DEV ground truth, one page per row (first acceptable value of each field). */
function zyteRows(): string[][] {
  const gt = JSON.parse(fs.readFileSync(path.join(SHARED_DATA, 'zyte-product-extraction', 'ground-truth.json'), 'utf8')) as Record<
    string,
    Record<string, string[] | string>
  >;
  const cols = ['price', 'currency', 'availability', 'sku', 'brand', 'gtin', 'mpn'];
  const rows = [['id', 'url', ...cols]];
  for (const [id, rec] of Object.entries(gt)) {
    const first = (k: string) => {
      const v = rec[k];
      return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
    };
    rows.push([id, first('url'), ...cols.map(first)]);
  }
  return rows;
}

/** WDC-PAVE normalized gold values, one offer per row, common attributes only (see the gold's note). */
function wdcRows(): string[][] {
  const lines = fs
    .readFileSync(path.join(SHARED_DATA, 'wdc-pave', 'wdc_with_all_attributes_normalized', 'train_large.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean);
  const attrs: Array<[string, string[]]> = [
    ['product_type', ['Product Type']],
    ['brand', ['Brand', 'Manufacturer']],
    ['mpn', ['Manufacturer Stock Number', 'Part Number', 'Model Number']],
    ['color', ['Color', 'Color(s)']],
    ['material', ['Material']],
    ['width', ['Width']],
    ['height', ['Height']],
    ['depth', ['Depth']],
    ['pack_quantity', ['Pack Quantity']],
  ];
  const rows = [['id', 'cluster_id', 'category', 'title', 'description', 'shop', ...attrs.map(([n]) => n)]];
  for (const line of lines) {
    const r = JSON.parse(line) as {
      id: number;
      cluster_id: number;
      category: string;
      input_title: string;
      input_description: string;
      url: string;
      target_scores: Record<string, Record<string, unknown>>;
    };
    const value = (names: string[]) => {
      for (const n of names) {
        const v = r.target_scores[n];
        if (v && !('n/a' in v)) return Object.keys(v)[0] ?? '';
      }
      return '';
    };
    rows.push([
      String(r.id),
      String(Math.trunc(r.cluster_id)),
      r.category,
      r.input_title,
      (r.input_description ?? '').slice(0, 2000),
      r.url,
      ...attrs.map(([, names]) => value(names)),
    ]);
  }
  return rows;
}

/** Columns the gold types as numbers (written as number cells in XLSX). */
function numericColumns(gold: InferGold): Set<string> {
  const out = new Set<string>();
  for (const [name, c] of Object.entries(gold.columns)) {
    const types = Array.isArray(c.type) ? c.type : [c.type];
    if (types.includes('number') || (types.includes('integer') && !c.identifier)) out.add(name);
  }
  return out;
}

/**
 * Materialises every variant of every gold into `workDir`.
 * @returns the cases, in gold order
 */
export async function inferCases(golds: InferGold[], workDir: string): Promise<InferCase[]> {
  fs.mkdirSync(workDir, { recursive: true });
  const cases: InferCase[] = [];
  for (const gold of golds) {
    if (gold.file) {
      const file = path.join(SHARED_DATA, gold.file);
      cases.push({ gold, variant: 'csv', file, fileName: path.basename(file) });
      if (gold.name === 'ikea-sa-2020') {
        // The upstream form of this file: semicolons, decimal commas, as a Windows spreadsheet program saves it.
        const rows = parse(fs.readFileSync(file, 'utf8'), { relax_column_count: true }) as string[][];
        const numeric = numericColumns(gold);
        const european = rows.map((r, i) => (i === 0 ? r : r.map((c, j) => (numeric.has(rows[0][j]) && /^\d+\.\d+$/.test(c) ? c.replace('.', ',') : c))));
        const semi = path.join(workDir, `${gold.name}-semicolon-1252.csv`);
        fs.writeFileSync(semi, iconv.encode(toCsv(european, ';'), 'windows1252'));
        cases.push({ gold, variant: 'csv ; , cp1252', file: semi, fileName: path.basename(semi) });
        const xlsx = path.join(workDir, `${gold.name}.xlsx`);
        await writeXlsx(xlsx, rows, numeric);
        cases.push({ gold, variant: 'xlsx', file: xlsx, fileName: path.basename(xlsx) });
      }
      continue;
    }
    const rows = gold.generated === 'zyte' ? zyteRows() : wdcRows();
    const csv = path.join(workDir, `${gold.name}.csv`);
    fs.writeFileSync(csv, toCsv(rows));
    cases.push({ gold, variant: 'csv', file: csv, fileName: path.basename(csv) });
    const xlsx = path.join(workDir, `${gold.name}.xlsx`);
    await writeXlsx(xlsx, rows, numericColumns(gold));
    cases.push({ gold, variant: 'xlsx', file: xlsx, fileName: path.basename(xlsx) });
  }
  return cases;
}
