import * as XLS from '@e965/xlsx';

/**
 * A real Excel 97-2003 workbook (BIFF8 in an OLE2 compound file, what Excel writes as `.xls`)
 * whose first sheet holds `rows` (header first), written by SheetJS CE's writer.
 */
export function xlsBuffer(rows: unknown[][], sheetName = 'Sheet1'): Buffer {
  const book = XLS.utils.book_new();
  XLS.utils.book_append_sheet(book, XLS.utils.aoa_to_sheet(rows), sheetName);
  const out: unknown = XLS.write(book, { bookType: 'biff8', type: 'buffer' });
  if (!Buffer.isBuffer(out)) throw new Error('SheetJS did not write a buffer');
  return out;
}
