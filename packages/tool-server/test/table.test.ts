/**
 * The tool server's table files (src/table.ts; docs/tool-server-design.md "Pull"): the CSV writer
 * quotes as RFC 4180 and csv-stringify do (byte-identical output), and its reader agrees with csv-parse, and encodes dict/list cells with Python's JSON separators; JSON Lines round-trip
 * with nulls dropped; Parquet keeps numbers and booleans typed, encodes dict/list cells as the
 * CSV does, and a diff reads it like the other formats.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { parse } from 'csv-parse/sync';
import { computeDiff } from '../src/diff';
import { csvCell, loadTable, parseCsv, readTable, writeCsv, writeJsonl, writeParquet } from '../src/table';

const ROWS = [
  { a: 'plain', b: 'with, comma', c: 'with "quotes"', d: 'multi\nline', e: 'cr\r\nlf', f: 12.5, g: true, h: ['x', 'y'], i: { k: 1, l: [2] }, j: null },
  { a: '', b: ' spaced ', c: 'ünïcødé ✓', d: '"', e: ',', f: 0, g: false, h: [], i: {}, j: 'last' },
];
const COLUMNS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];

let dir: string;
beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-table-'))));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('CSV: byte-identical to csv-stringify, and csv-parse reads back the same cells', () => {
  const file = path.join(dir, 'x.csv');
  writeCsv(file, ROWS, COLUMNS);
  const ours = fs.readFileSync(file, 'utf8');
  expect(ours).toBe(stringify([COLUMNS, ...ROWS.map((r) => COLUMNS.map((c) => csvCell((r as Record<string, unknown>)[c])))]));
  const back = readTable(file);
  expect(back.columns).toEqual(COLUMNS);
  expect(back.rows[0]).toEqual({
    a: 'plain',
    b: 'with, comma',
    c: 'with "quotes"',
    d: 'multi\nline',
    e: 'cr\r\nlf',
    f: '12.5',
    g: 'true',
    h: '["x", "y"]',
    i: '{"k": 1, "l": [2]}',
  });
  expect(back.rows[1]).toEqual({ b: ' spaced ', c: 'ünïcødé ✓', d: '"', e: ',', f: '0', g: 'false', h: '[]', i: '{}', j: 'last' });
});

test('JSON Lines keep types and drop null cells', () => {
  const file = path.join(dir, 'x.jsonl');
  writeJsonl(file, ROWS);
  const back = readTable(file);
  expect(back.rows[0]).toEqual({ ...ROWS[0], j: undefined });
  expect(back.rows[0]).not.toHaveProperty('j');
  expect(back.rows[1]).toEqual(ROWS[1]);
});

test('the CSV reader agrees with csv-parse on awkward input, and refuses a quote left open', () => {
  const inputs = [
    '\ufeffa,b,c\r\n1,"x, y","he said ""hi"""\r\n\r\n2,,"multi\nline"\r\n',
    'a,b\n1,2',
    'a,b\n1,\n,2\n',
    'a\n""\n"x"\n',
    'a,b,c\n1,2\n3,4,5\n',
    stringify([['h1', 'h2'], ...Array.from({ length: 50 }, (_, i) => [`v${i}`, `"q${i}",\r\n`])]),
  ];
  for (const text of inputs) expect(parseCsv(text)).toEqual(parse(text, { bom: true, relax_column_count: true, skip_empty_lines: true }));
  expect(() => parseCsv('a\n"open')).toThrow(/not closed/);
  expect(() => parseCsv('a\n"x"y\n')).toThrow(/after a closing quote/);
});

test('Parquet: numbers and booleans typed, dict/list cells as the CSV writes them, null cells dropped; a diff reads it', async () => {
  const file = path.join(dir, 'x.parquet');
  writeParquet(file, ROWS, COLUMNS);
  expect(fs.readFileSync(file).subarray(0, 4).toString()).toBe('PAR1');
  const back = await loadTable(file);
  expect(back.columns).toEqual(COLUMNS);
  expect(back.rows[0]).toEqual({
    ...Object.fromEntries(COLUMNS.slice(0, 7).map((c) => [c, (ROWS[0] as Record<string, unknown>)[c]])),
    h: '["x", "y"]',
    i: '{"k": 1, "l": [2]}',
  });
  expect(back.rows[1]).toEqual({ ...ROWS[1], h: '[]', i: '{}' });

  // The pulled snapshot as Parquet, the transform as JSON Lines: one price changed, nothing else.
  const rows = [0, 1, 2].map((i) => ({ __catalog_item_id: `id-${i}`, __entity_type: 'product', sku: `S${i}`, price: i + 0.5, tags: ['a'] }));
  const before = path.join(dir, 'before.parquet');
  writeParquet(before, rows, ['__catalog_item_id', '__entity_type', 'sku', 'price', 'tags']);
  const after = path.join(dir, 'after.jsonl');
  writeJsonl(
    after,
    rows.map((r) => (r.sku === 'S1' ? { ...r, price: 9 } : r)),
  );
  const out = await computeDiff({
    before_path: before,
    after_path: after,
    key_field: '__catalog_item_id',
    deterministic_key_fields: [],
    allow_row_index_fallback: true,
  });
  expect(out.diff_summary).toMatchObject({ rows_modified: 1, rows_added: 0, rows_removed: 0 });
  expect(out.field_change_counts).toEqual({ price: 1 });
  await expect(loadTable(path.join(dir, 'x.csv'))).resolves.toMatchObject({ columns: COLUMNS });
  fs.writeFileSync(path.join(dir, 'broken.parquet'), 'not parquet');
  await expect(loadTable(path.join(dir, 'broken.parquet'))).rejects.toThrow(/not a readable Parquet file/);
});
