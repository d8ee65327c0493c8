/**
 * Spreadsheet rows as items: the reverse of the export layout (export.ts). A cell is
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

/** What {@link schemaValue} made of a value: the typed value, or why it does not fit. */
export type SchemaValue = { value: unknown; problem?: undefined } | { value?: undefined; problem: string };

/** The non-null JSON Schema type of a property (`["number", "null"]` → `number`). */
function propertyType(prop: { type?: unknown } | undefined): unknown {
  return Array.isArray(prop?.type) ? prop?.type.find((t) => t !== 'null') : prop?.type;
}

/** Whether `v` is a value of JSON Schema type `type` (`integer`: a whole number). */
function fitsType(v: unknown, type: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'array':
      return Array.isArray(v);
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    default:
      return true;
  }
}

/**
 * One value from any client (a CSV/XLSX cell read as text, or JSON) as the type of its catalog
 * schema property, by the import's rules ({@link cellValue}): text is read as the column type
 * says (`"7"` → 7, `"a\nb"` → `["a", "b"]` for an array, `"yes"` → true); a number or boolean
 * for a `string` property becomes its text; the elements of an array whose `items` are numbers
 * are read as numbers. `null`, an empty text and a property without a type pass unchanged (the
 * schema validator judges them).
 * @returns `{value}` typed, or `{problem}` ("\"abc\" is not a number") when it cannot be read so
 */
export function schemaValue(value: unknown, prop: { type?: unknown; 'x-separator'?: unknown; items?: unknown } | undefined): SchemaValue {
  const type = propertyType(prop);
  if (value === null || value === undefined || type === undefined || (typeof value === 'string' && value.trim() === '')) return { value };
  let v = typeof value === 'string' ? cellValue(value, prop) : value;
  if (type === 'string' && (typeof v === 'number' || typeof v === 'boolean')) v = String(v);
  const itemType = propertyType(typeof prop?.items === 'object' && prop.items !== null ? (prop.items as { type?: unknown }) : undefined);
  if (Array.isArray(v) && (itemType === 'number' || itemType === 'integer')) v = v.map((e) => (typeof e === 'string' ? cellValue(e, { type: itemType }) : e));
  if (!fitsType(v, type))
    return { problem: `${JSON.stringify(value).slice(0, 80)} is not ${type === 'integer' || type === 'array' || type === 'object' ? 'an' : 'a'} ${type}` };
  if (Array.isArray(v) && itemType && v.some((e) => !fitsType(e, itemType)))
    return { problem: `${JSON.stringify(value).slice(0, 80)} holds an element that is not a ${itemType}` };
  return { value: v };
}

/**
 * The values of `data` typed by the catalog schema's properties with {@link schemaValue}; keys
 * without a property pass unchanged.
 * @returns the typed data, and one problem per value that could not be typed ("price: \"abc\" is not a number")
 */
export function typedBySchema(data: Record<string, unknown>, properties: ColumnTypes): { data: Record<string, unknown>; problems: string[] } {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [k, v] of Object.entries(data)) {
    const read = Object.prototype.hasOwnProperty.call(properties, k) ? schemaValue(v, properties[k] as Parameters<typeof schemaValue>[1]) : { value: v };
    if (read.problem !== undefined) problems.push(`${k}: ${read.problem}`);
    out[k] = read.problem !== undefined ? v : read.value;
  }
  return { data: out, problems };
}
