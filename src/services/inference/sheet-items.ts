/**
 * Spreadsheet rows as items (issue 20): the reverse of the export layout (export.ts). A cell is
 * read by the type its column has in the catalog schema: `number`/`integer` as a number (a
 * decimal comma is accepted), `boolean` from true/false/yes/no/1/0, `array`/`object` from JSON
 * (an array also from a list separated by the property's `x-separator`, `|`, or a line break),
 * `string` as it is. A column without a schema type: JSON arrays, objects, numbers and booleans
 * are parsed, anything else stays text (so a text field outside the schema that looks like a
 * number comes back as a number). An empty cell leaves the field out.
 */
import { booleanValue, readNumber } from './cells';

/** Types of schema properties, as far as the conversion needs them. */
export type ColumnTypes = Record<string, { type?: unknown; 'x-separator'?: unknown }>;

/** One cell read into its value; `undefined` for an empty cell. */
export function cellValue(cell: string, prop: { type?: unknown; 'x-separator'?: unknown } | undefined): unknown {
  if (cell === '') return undefined;
  const type = Array.isArray(prop?.type) ? prop?.type.find((t) => t !== 'null') : prop?.type;
  switch (type) {
    case 'string':
      return cell;
    case 'integer':
    case 'number': {
      const n = readNumber(cell, /^-?\d+,\d+$/.test(cell.trim()));
      return Number.isNaN(n) ? cell : n;
    }
    case 'boolean':
      return booleanValue(cell) ?? cell;
    case 'array':
    case 'object': {
      const t = cell.trim();
      if (t.startsWith('[') || t.startsWith('{')) {
        try {
          return JSON.parse(t) as unknown;
        } catch {
          // not JSON: a separated list below
        }
      }
      if (type === 'object') return cell;
      const sep = typeof prop?.['x-separator'] === 'string' ? prop['x-separator'] : t.includes('|') ? '|' : t.includes('\n') ? '\n' : ',';
      return t
        .split(sep)
        .map((s) => s.trim())
        .filter(Boolean);
    }
    default:
      return untypedValue(cell);
  }
}

/** A cell of a column the schema does not type: JSON values other than strings are parsed. */
function untypedValue(cell: string): unknown {
  const t = cell.trim();
  if (/^(-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?|true|false)$/.test(t) || ((t.startsWith('[') || t.startsWith('{')) && t.length > 1)) {
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return cell;
    }
  }
  return cell;
}

/**
 * A row as an item: each non-empty cell under its column's name, read by {@link cellValue}.
 * @param headers normalized column names; `types` the schema's properties (or `{}`)
 */
export function rowToItem(headers: string[], cells: string[], types: ColumnTypes): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (let i = 0; i < headers.length; i++) {
    const v = cellValue(cells[i] ?? '', types[headers[i]]);
    if (v !== undefined) item[headers[i]] = v;
  }
  return item;
}

/**
 * A row as an enrichment input item: non-empty cells as text, JSON arrays and objects parsed
 * (enrichment reads text; numbers stay as written, e.g. "0012" or "1,5 kg").
 */
export function rowToInputItem(headers: string[], cells: string[]): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (let i = 0; i < headers.length; i++) {
    const c = cells[i] ?? '';
    if (c === '') continue;
    const t = c.trim();
    if ((t.startsWith('[') && t.endsWith(']')) || (t.startsWith('{') && t.endsWith('}'))) {
      try {
        item[headers[i]] = JSON.parse(t) as unknown;
        continue;
      } catch {
        // text
      }
    }
    item[headers[i]] = c;
  }
  return item;
}
