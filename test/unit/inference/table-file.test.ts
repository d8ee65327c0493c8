/**
 * Reading spreadsheets: delimiters, quoting, encodings (UTF-8 with and
 * without BOM, UTF-16 LE/BE, Windows-1252), decimal commas, XLSX through the streaming reader,
 * legacy .xls read through SheetJS CE, and exact row counts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import { normalizeHeaders, sniffTable, tableRows } from '../../../src/services/sheets/table-file';
import { profileTable } from '../../../src/services/sheets/profile';
import { ValidationError } from '../../../src/lib/errors';
import { xlsBuffer } from '../../helpers/xls';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'table-file-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: Buffer | string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}

async function readAll(file: string, name = path.basename(file)): Promise<{ dialect: Awaited<ReturnType<typeof sniffTable>>; rows: string[][] }> {
  const dialect = await sniffTable(file, name);
  const rows: string[][] = [];
  for await (const r of tableRows(file, dialect)) rows.push(r);
  return { dialect, rows };
}

const TEXT = 'name;price;note\n"Café, crème";"1.234,50";"line1\nline2"\nÜber straße;2,5;"say ""hi"""\n';

describe('CSV dialects and encodings', () => {
  it('reads ; with quotes, embedded newlines and doubled quotes', async () => {
    const { dialect, rows } = await readAll(write('semi.csv', TEXT));
    expect(dialect).toMatchObject({ format: 'csv', encoding: 'utf8', delimiter: ';', bom: false });
    expect(rows).toEqual([
      ['name', 'price', 'note'],
      ['Café, crème', '1.234,50', 'line1\nline2'],
      ['Über straße', '2,5', 'say "hi"'],
    ]);
  });

  it.each([
    ['utf8 BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(TEXT, 'utf8')]), 'utf8', true],
    ['utf16le BOM', Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(TEXT, 'utf16le')]), 'utf16le', true],
    ['utf16be BOM', Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(TEXT, 'utf16be')]), 'utf16be', true],
    ['utf16le without BOM', iconv.encode(TEXT, 'utf16le'), 'utf16le', false],
    ['windows-1252', iconv.encode(TEXT, 'windows1252'), 'windows1252', false],
  ])('decodes %s', async (_name, bytes, encoding, bom) => {
    const { dialect, rows } = await readAll(write(`${encoding}-${bom}.csv`, bytes));
    expect(dialect).toMatchObject({ encoding, bom, delimiter: ';' });
    expect(rows[0]).toEqual(['name', 'price', 'note']);
    expect(rows[1][0]).toBe('Café, crème');
    expect(rows[2][0]).toBe('Über straße');
  });

  it.each([
    [',', 'a,b,c\n1,2,3\n'],
    ['\t', 'a\tb\tc\n1\t2\t3\n'],
    ['|', 'a|b|c\n1|2|3\n'],
    [';', 'a;b,x;c\n1;2,5;3\n'],
  ])('sniffs the delimiter %j', async (delim, text) => {
    const { dialect, rows } = await readAll(write(`d${text.length}${delim === '\t' ? 't' : delim}.csv`, text));
    expect(dialect.delimiter).toBe(delim);
    expect(rows[1]).toHaveLength(3);
  });

  it('profiles decimal commas as numbers and counts rows exactly', async () => {
    const lines = ['sku;weight (kg);price'];
    for (let i = 0; i < 1234; i++) lines.push(`A-${i};${i},5;${i}.99`.replace(/\.99$/, ',99'));
    const file = write('decimal.csv', lines.join('\r\n'));
    const dialect = await sniffTable(file, 'decimal.csv');
    const profile = await profileTable(tableRows(file, dialect), normalizeHeaders);
    expect(profile.totalRows).toBe(1234);
    expect(profile.decimalComma).toBe(true);
    expect(profile.columns[1].kinds.number).toBe(1234);
  });
});

describe('workbooks', () => {
  it('streams the first worksheet of an XLSX file with dates, numbers and rich text as text', async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Products');
    ws.addRow(['sku', 'price', 'released', 'gtin', 'name']);
    ws.addRow(['A-1', 12.5, new Date(Date.UTC(2024, 0, 31)), 4006381333931, { richText: [{ text: 'Big ' }, { text: 'Box' }] }]);
    ws.addRow([]);
    ws.addRow(['A-2', 3, null, '0012345678905', 'Small']);
    wb.addWorksheet('Other').addRow(['ignored']);
    const file = path.join(dir, 'book.xlsx');
    await wb.xlsx.writeFile(file);
    const { dialect, rows } = await readAll(file);
    expect(dialect.format).toBe('xlsx');
    expect(rows).toEqual([
      ['sku', 'price', 'released', 'gtin', 'name'],
      ['A-1', '12.5', '2024-01-31', '4006381333931', 'Big Box'],
      ['A-2', '3', '', '0012345678905', 'Small'],
    ]);
  });

  it('reads a legacy .xls (numbers, booleans, dates, empty cells and blank rows as XLSX reads them); a broken one is 422', async () => {
    const file = write(
      'old.xls',
      xlsBuffer([
        ['sku', 'price', 'active', 'released', 'note'],
        ['A-1', 12.5, true, new Date(Date.UTC(2024, 0, 31)), ''],
        [],
        ['A-2', 1e21, false, null, 'Größe'],
      ]),
    );
    const dialect = await sniffTable(file, 'old.xls');
    expect(dialect).toEqual({ format: 'xls', encoding: 'xls', delimiter: null, bom: false });
    const rows: string[][] = [];
    for await (const r of tableRows(file, dialect)) rows.push(r);
    expect(rows).toEqual([
      ['sku', 'price', 'active', 'released', 'note'],
      ['A-1', '12.5', 'true', '2024-01-31', ''],
      ['A-2', '1e+21', 'false', '', 'Größe'],
    ]);
    const broken = write('broken.xls', Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(600)]));
    const err = await (async () => {
      for await (const _ of tableRows(broken, await sniffTable(broken, 'broken.xls'))) void _;
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
  });
});
