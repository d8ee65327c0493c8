/**
 * Checks across columns: the unique-id column (`unique_id_field`), product/variant
 * structure (`product_id_field`: a column whose values group consecutive rows, where the
 * product's own columns are repeated or left blank on the variant rows, as Shopify, WooCommerce
 * and Akeneo exports do), variant attributes, the scope of each column, and units of bare
 * dimension columns (`width`, `height`) read from quantities written in other columns of the
 * same rows ("Bar table, 51x51 cm" with width 51).
 */
import { findQuantities } from '../../enrichment/normalize/units';
import { readNumber } from './cells';
import { blank, type InferredField } from './columns';
import type { TableProfile } from './profile';
import { currencyUnit, physicalUnit } from './units';

/** The chosen identity columns with their reasons. */
export interface Structure {
  unique_id_field: string | null;
  unique_id_reason: string;
  product_id_field: string | null;
  product_id_reason: string | null;
  /** Columns whose values differ between the variants of one product. */
  variant_attributes: string[];
}

const ID_HEADER = /(^|[\s_\-.])(id|sku|code|key|handle|ref|reference|no|number|nr)$|_id$|[a-z]Id$|^id[\s_]|\bsku\b/i;
const PRODUCT_HEADER = /handle|parent|product[\s_-]?(id|code|key|handle|number)|group|model|style|master|item[\s_-]?group/i;

/** Score of a column as the unique id: identifiers and id-like headers first, then the leftmost. */
function idScore(f: InferredField, index: number): number {
  let s = 0;
  if (f.role === 'sku' || f.role === 'gtin' || f.role === 'mpn' || f.role === 'identifier') s += 3;
  if (ID_HEADER.test(f.name)) s += 2;
  if (f.role === 'url') s -= 1;
  if (f.role === 'title' || f.role === 'description' || f.role === 'image_url') s -= 3;
  if (f.type === 'number' || f.type === 'boolean' || f.type === 'array' || f.type === 'object') s -= 5;
  // A value on every row beats a column that some rows leave empty (those rows would have no key).
  if (f.null_rate === 0) s += 2;
  return s - index * 0.01;
}

/**
 * A column that groups consecutive rows into products: filled on (nearly) every row, values
 * repeated in contiguous runs only, at least 1.2 rows per group, and within groups the other
 * repeated-or-blank columns (the product's own fields) outnumber the varying ones; or its
 * header names a parent/product key and its runs are contiguous.
 */
function productColumn(profile: TableProfile, fields: InferredField[], uniqueId: string | null): { field: string; reason: string } | null {
  const rows = profile.rows;
  let best: { field: string; reason: string; score: number } | null = null;
  profile.columns.forEach((p, i) => {
    const f = fields[i];
    if (f.name === uniqueId || f.type !== 'string' || f.role === 'description' || f.role === 'category' || f.format) return;
    if (p.filled < p.rows * 0.9 || p.distinct.size >= p.filled || p.nonContiguousRepeats > 0 || p.distinctOverflow) return;
    const perGroup = p.filled / p.distinct.size;
    if (perGroup < 1.2) return;
    // Within each group: which other columns stay constant (or blank after the first row), which vary?
    let constant = 0;
    let varying = 0;
    profile.columns.forEach((q, j) => {
      if (j === i || q.filled === 0) return;
      let changes = 0;
      let blanks = 0;
      let pairs = 0;
      for (let r = 1; r < rows.length; r++) {
        if (rows[r][i] !== rows[r - 1][i] || blank(rows[r][i])) continue;
        pairs++;
        const a = rows[r - 1][j];
        const b = rows[r][j];
        if (blank(b)) blanks++;
        else if (a !== b && !blank(a)) changes++;
      }
      if (pairs === 0) return;
      if (changes / pairs > 0.3) varying++;
      else if (blanks / pairs > 0.5 || changes === 0) constant++;
    });
    const hinted = PRODUCT_HEADER.test(f.name);
    const grouped = varying > 0 && constant >= varying;
    if (!grouped && !(hinted && varying > 0)) return;
    const score = (hinted ? 2 : 0) + constant / Math.max(1, constant + varying);
    if (!best || score > best.score)
      best = {
        field: f.name,
        score,
        reason: `groups consecutive rows into ${p.distinct.size} products (${perGroup.toFixed(1)} rows each); within a group ${constant} columns repeat or stay blank and ${varying} vary (the variants)`,
      };
  });
  return best ? { field: (best as { field: string }).field, reason: (best as { reason: string }).reason } : null;
}

/** Columns whose values change between rows of one product group. */
function variantColumns(profile: TableProfile, fields: InferredField[], productIndex: number): string[] {
  const rows = profile.rows;
  const out: string[] = [];
  profile.columns.forEach((q, j) => {
    if (j === productIndex || q.filled === 0) return;
    let changes = 0;
    let pairs = 0;
    for (let r = 1; r < rows.length; r++) {
      if (rows[r][productIndex] !== rows[r - 1][productIndex]) continue;
      const a = rows[r - 1][j];
      const b = rows[r][j];
      if (blank(a) || blank(b)) continue;
      pairs++;
      if (a !== b) changes++;
    }
    const f = fields[j];
    if (pairs > 0 && changes / pairs > 0.3 && f.enum !== null && f.role !== 'image_url') out.push(f.name);
  });
  return out;
}

/**
 * Sets `scope` and product-level required-ness: in a product/variant file, a column filled only
 * on a group's first row is a product field, and is required when every group's first row has it.
 */
function applyScopes(profile: TableProfile, fields: InferredField[], productIndex: number): void {
  const rows = profile.rows;
  fields.forEach((f, j) => {
    let firstFilled = 0;
    let groups = 0;
    let laterFilled = 0;
    let later = 0;
    for (let r = 0; r < rows.length; r++) {
      const first = r === 0 || rows[r][productIndex] !== rows[r - 1][productIndex];
      if (first) {
        groups++;
        if (!blank(rows[r][j])) firstFilled++;
      } else {
        later++;
        if (!blank(rows[r][j])) laterFilled++;
      }
    }
    if (j === productIndex) {
      f.scope = 'product';
      return;
    }
    if (later > 0 && laterFilled === 0 && firstFilled > 0) {
      f.scope = 'product';
      f.required = firstFilled === groups;
      f.reasons.push(`product field: filled on each product's first row only${f.required ? ', on every product' : ''}`);
    } else f.scope = 'variant';
  });
}

/**
 * Units of bare numeric dimension columns (`width`, `height`, `depth`, …) from quantities
 * written in the text columns of the same rows: when the column's value appears as a number of
 * a length quantity there ("51x51 cm") in at least half the rows that have both, that unit is
 * the column's.
 */
function dimensionUnits(profile: TableProfile, fields: InferredField[]): void {
  const dims = fields
    .map((f, i) => ({ f, i }))
    .filter(({ f }) => (f.type === 'number' || f.type === 'integer') && !f.unit && /^(width|height|depth|length|diameter|thickness)$/i.test(f.name));
  if (!dims.length) return;
  const texts = fields.map((f, i) => ({ f, i })).filter(({ f }) => f.type === 'string' && !f.format);
  for (const { f, i } of dims) {
    const votes = new Map<string, number>();
    let rowsWithBoth = 0;
    for (const row of profile.rows) {
      const v = readNumber(row[i] ?? '', profile.decimalComma);
      if (Number.isNaN(v)) continue;
      let found: string | null = null;
      let any = false;
      for (const t of texts) {
        const text = row[t.i] ?? '';
        const dimsText = /(\d+(?:[.,]\d+)?)\s*[x×]\s*(\d+(?:[.,]\d+)?)(?:\s*[x×]\s*(\d+(?:[.,]\d+)?))?\s*(mm|cm|m|in|")\b/.exec(text);
        const numbers: Array<{ value: number; unit: string }> = [];
        if (dimsText)
          for (const g of [dimsText[1], dimsText[2], dimsText[3]])
            if (g) numbers.push({ value: readNumber(g), unit: dimsText[4] === '"' ? 'in' : dimsText[4] });
        for (const q of findQuantities(text)) numbers.push({ value: q.value, unit: q.unit });
        if (numbers.length) any = true;
        const hit = numbers.find((n) => Math.abs(n.value - v) < 1e-9 && ['mm', 'cm', 'm', 'in', 'ft'].includes(n.unit));
        if (hit) found = hit.unit;
      }
      if (any) rowsWithBoth++;
      if (found) votes.set(found, (votes.get(found) ?? 0) + 1);
    }
    const [unit, n] = [...votes.entries()].sort((a, b) => b[1] - a[1])[0] ?? [null, 0];
    if (unit && rowsWithBoth > 0 && n / rowsWithBoth >= 0.5) {
      f.unit = physicalUnit(unit);
      f.role = 'quantity';
      f.reasons.push(
        `unit ${unit} (UN/CEFACT ${f.unit.code ?? '—'}): the value appears as a ${unit} dimension in another column of the same row in ${n} of ${rowsWithBoth} rows`,
      );
    }
  }
}

/**
 * Currency of bare price columns: when the file's other price columns state exactly one
 * currency ("SR 2,375"), the bare ones ("265.0") are read in it — a file lists its prices in one
 * currency unless a column says otherwise.
 */
function priceCurrencies(fields: InferredField[]): void {
  const stated = new Set(fields.filter((f) => f.role === 'price' && f.unit?.kind === 'currency').map((f) => f.unit?.code));
  if (stated.size !== 1) return;
  const code = [...stated][0] ?? '';
  const from = fields.find((f) => f.role === 'price' && f.unit)?.name ?? '';
  for (const f of fields)
    if (f.role === 'price' && !f.unit && (f.type === 'number' || f.type === 'integer')) {
      f.unit = currencyUnit(code);
      f.reasons.push(`currency ${code} (ISO 4217) from the column "${from}", which states it`);
    }
}

/**
 * Chooses the unique-id and product-id columns, marks variant attributes and scopes, and
 * fills units of bare dimension columns. Mutates `fields` (scopes, required-ness, units, reasons).
 */
export function inferStructure(profile: TableProfile, fields: InferredField[]): Structure {
  dimensionUnits(profile, fields);
  priceCurrencies(fields);
  // Unique id: every filled value distinct and (nearly) every row filled; else the most distinct identifier.
  const candidates = fields
    .map((f, i) => ({ f, i, p: profile.columns[i] }))
    .filter(({ f, p }) => f.role !== 'row_number' && p.filled >= p.rows * 0.9 && p.filled > 0 && !p.distinctOverflow);
  const unique = candidates.filter(({ f }) => f.unique).sort((a, b) => idScore(b.f, b.i) - idScore(a.f, a.i));
  let uniqueId: string | null = null;
  let uniqueReason = 'no column identifies rows: every candidate has repeated or missing values';
  const firstUnique = unique.find(({ f, i }) => idScore(f, i) > -1);
  if (firstUnique) {
    uniqueId = firstUnique.f.name;
    uniqueReason = `every filled value is distinct (${firstUnique.p.distinct.size} values)${firstUnique.f.role ? ` and it is a ${firstUnique.f.role}` : ''}${ID_HEADER.test(firstUnique.f.name) ? '; the header names an identifier' : ''}`;
  } else {
    const ids = candidates
      .filter(({ f }) => (f.role === 'sku' || f.role === 'identifier' || f.role === 'gtin' || f.role === 'mpn') && f.type === 'string')
      .sort((a, b) => b.p.distinct.size - a.p.distinct.size || idScore(b.f, b.i) - idScore(a.f, a.i));
    if (ids.length) {
      const { f, p } = ids[0];
      uniqueId = f.name;
      uniqueReason = `the most distinct identifier column (${p.distinct.size} distinct values in ${p.filled} rows)`;
      f.warnings.push(`${p.filled - p.distinct.size} rows repeat an earlier ${f.name}: those rows describe the same item (imports update it)`);
    }
  }
  const product = productColumn(profile, fields, uniqueId);
  const productIndex = product ? fields.findIndex((f) => f.name === product.field) : -1;
  // Identity columns are keys, not lists of allowed values.
  for (const f of fields)
    if (f.enum && (f.name === uniqueId || f.name === product?.field)) {
      f.enum = null;
      f.reasons.push('not an enum: it is the ' + (f.name === uniqueId ? 'unique id' : 'product id'));
    }
  const variant_attributes = productIndex >= 0 ? variantColumns(profile, fields, productIndex) : [];
  if (productIndex >= 0) applyScopes(profile, fields, productIndex);
  return {
    unique_id_field: uniqueId,
    unique_id_reason: uniqueReason,
    product_id_field: product?.field ?? null,
    product_id_reason: product?.reason ?? null,
    variant_attributes,
  };
}
