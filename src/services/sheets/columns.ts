/**
 * Column-level inference from a column's profile (src/services/sheets/profile.ts): its JSON
 * type and format, enum values, identifier kind (GTIN by GS1 check digit, SKU/MPN shapes), unit
 * with its UN/CEFACT or ISO 4217 code, arrays from delimited cells, category paths, and
 * required-ness from the null rate. Every decision records its reason in words, so a user sees
 * why a column got its type ("deterministic, explainable").
 */
import { validGtin } from '../../enrichment/normalize/identifiers';
import { classifyCell, isNullMarker, type CellKind } from './cells';
import { LIST_SEPARATORS, type ColumnProfile, type PieceStats } from './profile';
import { currencyUnit, headerUnit, physicalUnit, type ColumnUnit } from './units';

/** JSON types of inferred fields (the catalog schema's field types). */
export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';

/** What a column means, when it can be told. */
export type FieldRole =
  | 'gtin'
  | 'sku'
  | 'mpn'
  | 'identifier'
  | 'row_number'
  | 'title'
  | 'description'
  | 'brand'
  | 'price'
  | 'category'
  | 'image_url'
  | 'url'
  | 'quantity'
  | 'dimensions';

/** One inferred column. */
export interface InferredField {
  name: string;
  type: FieldType;
  /** JSON Schema `format` (`date`, `date-time`, `uri`, `email`) or a service format (`html`, `image_url`, `dimensions`). */
  format: string | null;
  /** Element type of an array field. */
  items_type: 'string' | 'number' | 'image_url' | null;
  /** Separator of the cells of an array field (`\n`, `|`, `;`, `,`). */
  separator: string | null;
  role: FieldRole | null;
  /** Allowed values (low-cardinality columns), in order of frequency. */
  enum: string[] | null;
  /** Allowed elements of an array field. */
  items_enum: string[] | null;
  unit: ColumnUnit | null;
  /** Category path separator when the column holds category paths (`>`, `/`, `\n`, …); '' for one-level categories. */
  path_separator: string | null;
  required: boolean;
  /** Share of profiled rows with no value (null markers and sentinels like "No old price" count as none). */
  null_rate: number;
  /** Texts read as "no value" in this column besides empty cells ("No old price"). */
  null_values: string[];
  /** Distinct non-empty values among the profiled rows, and whether every filled value is distinct. */
  distinct: number;
  unique: boolean;
  /** Product-level (same for all variants of a product) or variant-level, once the structure is known. */
  scope: 'product' | 'variant' | null;
  examples: string[];
  /** Why the field got its type, role, enum and unit. */
  reasons: string[];
  /** What a user should check (mangled barcodes, duplicate ids, …). */
  warnings: string[];
}

/** Enums hold at most this many values. */
const ENUM_MAX = 50;
/** A value kind must cover this share of a column's values to decide its type. */
const MAJORITY = 0.95;

const HINT = {
  gtin: /\b(gtin|ean|upc|barcode|isbn|jan)\b|ean13|gtin1[34]/i,
  sku: /\bsku\b|article|artikel|item[\s_-]?(no|number|code)|product[\s_-]?code/i,
  mpn: /\bmpn\b|part[\s_-]?(no|number)|model[\s_-]?(no|number)|manufacturer[\s_-]?part/i,
  id: /(^|[\s_\-.])(id|sku|code|key|handle|ref|reference|no|number|nr)$|_id$|[a-z]Id$|^id[\s_]/i,
  rowNumber: /^(row|index|idx|#|no|nr|line|unnamed: ?0|column_1|)$/i,
  title: /^(name|title|product[\s_-]?(name|title)|item[\s_-]?name)$/i,
  description: /descr|body|details|overview|summary/i,
  brand: /\b(brand|vendor|manufacturer|maker|marke)\b/i,
  price: /price|cost|msrp|amount|preis|prix/i,
  category: /categor|breadcrumb|taxonom|department|product[\s_-]?type|^type$|kategorie|rayon/i,
  dimension: /^(width|height|depth|length|diameter|thickness|breite|höhe|tiefe|länge)$/i,
  /** Names of measured quantities (a number whatever the sample holds): weight, sizes, volume. */
  measure:
    /(^|[\s_\-.])(weight|net[\s_-]?weight|gross[\s_-]?weight|width|height|depth|length|diameter|thickness|volume|gewicht|breite|höhe|tiefe|länge|poids|largeur|hauteur|longueur|peso)([\s_\-.(]|$)/i,
  /** Names of counted quantities (a whole number whatever the sample holds). */
  count: /(^|[\s_\-.])(qty|quantity|quantities|stock[\s_-]?(qty|quantity|level)|inventory|menge|anzahl|quantité|cantidad)([\s_\-.(]|$)/i,
  /** Names of yes/no settings ("is_in_stock", "use_config_min_qty", "manage_stock"): a quantity word in them does not make a quantity. */
  flag: /^(is|has|use|uses|enable|enabled|allow|allows|manage|can|show|needs?)([\s_\-.]|[A-Z])/,
  /** Attributes whose values come from a fixed list (Google Merchant Center product data specification: availability, condition, gender, age_group; and workflow status). */
  enumerated: /\b(availability|condition|gender|age[\s_-]?group|status)$/i,
  list: /tags?$|keywords|features|materials?|colou?rs|sizes|options|labels|activit|styles?|genders?|categories/i,
};

/** Separators of category paths, strongest first. */
const PATH_SEPARATORS = [' > ', '>', ' » ', '»', ' / ', ' | ', '\n', '/'] as const;

function share(n: number, of: number): number {
  return of > 0 ? n / of : 0;
}

function pct(x: number): string {
  return `${Math.round(x * 1000) / 10}%`;
}

/** Distinct values sorted by count (then first seen). */
function byFrequency(distinct: Map<string, number>): string[] {
  return [...distinct.entries()].sort((a, b) => b[1] - a[1]).map(([v]) => v);
}

/** Words of phrases that say a value is absent ("No old price", "not available", "unknown"). */
const ABSENCE = /\b(no|none|not|without|unknown|unavailable|keine?|nicht|sans|aucun|tbd|n\/a)\b/i;

/**
 * Values that stand for "no value" in a column otherwise of `kinds`: the (at most two) most
 * frequent values of another kind that are words only, like "No old price" or "unknown".
 */
function sentinels(p: ColumnProfile, kinds: ReadonlySet<CellKind>, decimalComma: boolean): Map<string, number> {
  const phrases = [...p.distinct.entries()]
    .filter(([v]) => /^[\p{L}\s'’.()/-]{2,40}$/u.test(v) && ABSENCE.test(v) && !kinds.has(classifyCell(v, decimalComma).kind))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 2);
  return new Map(phrases);
}

/** Whether enough of the column's values (after sentinels) are of `kinds`. */
function mostly(p: ColumnProfile, kinds: CellKind[], decimalComma: boolean, threshold = MAJORITY): { ok: boolean; sentinels: Map<string, number> } {
  const set = new Set(kinds);
  const hits = kinds.reduce((s, k) => s + p.kinds[k], 0);
  if (p.filled === 0) return { ok: false, sentinels: new Map() };
  if (hits === p.filled) return { ok: true, sentinels: new Map() };
  if (share(hits, p.filled) >= threshold) return { ok: true, sentinels: new Map() };
  if (hits === 0) return { ok: false, sentinels: new Map() };
  const s = sentinels(p, set, decimalComma);
  const sentinelCount = [...s.values()].reduce((a, b) => a + b, 0);
  return { ok: s.size > 0 && share(hits, p.filled - sentinelCount) >= threshold, sentinels: s };
}

/** Whether the column's distinct values are GTINs with valid check digits (≥ 90% of filled cells). */
function gtinShare(p: ColumnProfile): number {
  let valid = 0;
  for (const [v, n] of p.distinct) if (/^\d{8}$|^\d{12,14}$/.test(v.replace(/[\s-]/g, '')) && validGtin(v)) valid += n;
  return share(valid, p.filled);
}

/** Share of filled cells that look like product codes: one token of letters and digits with a digit ("24-MB01", "SRT_COT_111"), or a hex digest / UUID without dashes. */
function codeShare(p: ColumnProfile): number {
  let codes = 0;
  for (const [v, n] of p.distinct) if (/^(?=.*\d)[A-Za-z0-9][A-Za-z0-9_\-./]{1,39}$|^[0-9a-f]{32,64}$/i.test(v)) codes += n;
  return share(codes, p.filled);
}

/**
 * The separator of a multi-valued column, when its cells are lists: the separator occurs in at
 * least 30% of cells; its pieces are short (≤ 3 words, mostly without digits, so "Bar table,
 * 51x51 cm" stays text); and the pieces repeat across rows (a shared vocabulary) or the header
 * names a list ("Tags", "Materials").
 */
function listSeparator(p: ColumnProfile): { sep: string; stats: PieceStats } | null {
  for (const [sep, s] of p.pieces) {
    // Newlines in short values are a multi-select export (Magento); other separators need more cells.
    if (share(s.cells, p.filled) < (sep === '\n' ? 0.1 : 0.3) || s.pieces < 2) continue;
    if (share(s.long, s.pieces) > 0.1 || share(s.withDigits, s.pieces) > 0.1 || s.chars / s.pieces > 30) continue;
    // Every cell split into the same number of pieces is a template ("Title | Shop"), not a list.
    const varies = s.maxPieces > s.minPieces || share(s.cells, p.filled) < 1;
    // A shared vocabulary: most pieces occur more than once, or alone as another cell's value.
    const shared = [...s.distinct].filter(([piece, n]) => n > 1 || p.distinct.has(piece)).length;
    const vocabulary = share(shared, s.distinct.size) >= 0.5;
    if ((vocabulary && (varies || sep === '\n')) || (HINT.list.test(p.name) && share(s.cells, p.filled) >= 0.5)) return { sep, stats: s };
  }
  return null;
}

/** The category path separator of a column whose header names categories or whose values are `A > B` paths. */
function pathSeparator(p: ColumnProfile): string | null {
  const hinted = HINT.category.test(p.name);
  for (const sep of PATH_SEPARATORS) {
    let cells = 0;
    let multi = 0;
    let sorted = 0;
    for (const [v, n] of p.distinct) {
      const parts = v.split(sep).map((x) => x.trim());
      if (!v.includes(sep) || !parts.every((part) => part.length > 0 || sep === '\n')) continue;
      cells += n;
      const filled = parts.filter(Boolean);
      if (filled.length >= 2) {
        multi++;
        if (filled.every((x, i) => i === 0 || filled[i - 1].localeCompare(x) <= 0)) sorted++;
      }
    }
    const strong = sep.includes('>') || sep.includes('»');
    // With a separator that is not an arrow, pieces always in alphabetical order are a sorted set of values (a multi-select), not a path.
    if (!strong && multi >= 2 && sorted === multi) continue;
    if (share(cells, p.filled) >= 0.5 && (strong || hinted)) return sep;
  }
  return null;
}

/**
 * The separator between several category paths in one cell (Magento's `categories`:
 * `Default Category/Gear,Default Category/Gear/Bags`), or null: some cells split on it into two or
 * more pieces, and (nearly) every piece of those cells is itself a path of `pathSep`.
 */
function pathListSeparator(p: ColumnProfile, pathSep: string): string | null {
  for (const sep of LIST_SEPARATORS) {
    if (pathSep.includes(sep.trim() || sep) || sep === pathSep.trim()) continue;
    let cells = 0;
    let pieces = 0;
    let paths = 0;
    for (const v of p.distinct.keys()) {
      const parts = v
        .split(sep)
        .map((x) => x.trim())
        .filter(Boolean);
      if (parts.length < 2) continue;
      cells++;
      pieces += parts.length;
      paths += parts.filter((x) => x.split(pathSep).filter((y) => y.trim()).length >= 2).length;
    }
    if (cells > 0 && share(paths, pieces) >= 0.9) return sep;
  }
  return null;
}

/** The most frequent key of a count map. */
function top<K>(counts: Map<K, number>): K | null {
  let best: K | null = null;
  let n = -1;
  for (const [k, c] of counts)
    if (c > n) {
      best = k;
      n = c;
    }
  return best;
}

/**
 * Enum values of a text column, or null: at most 50 distinct short values (≤ 40 characters
 * on average, none over 80) that repeat — in a column of 20 or more values, at most 30% are
 * distinct; in a smaller one, some value occurs twice.
 */
function enumValues(distinct: Map<string, number>, filled: number, overflow: boolean): string[] | null {
  if (overflow || distinct.size === 0 || distinct.size > ENUM_MAX) return null;
  const values = [...distinct.keys()];
  if (values.some((v) => v.length > 80) || values.reduce((s, v) => s + v.length, 0) / values.length > 40) return null;
  const repeats = filled >= 20 ? distinct.size <= filled * 0.3 : distinct.size < filled;
  return repeats ? byFrequency(distinct) : null;
}

function baseField(p: ColumnProfile): InferredField {
  return {
    name: p.name,
    type: 'string',
    format: null,
    items_type: null,
    separator: null,
    role: null,
    enum: null,
    items_enum: null,
    unit: null,
    path_separator: null,
    required: false,
    null_rate: 1 - share(p.filled, p.rows),
    null_values: [],
    distinct: p.distinct.size,
    unique: !p.distinctOverflow && p.filled > 1 && p.distinct.size === p.filled,
    scope: null,
    examples: p.examples.slice(0, 5),
    reasons: [],
    warnings: [],
  };
}

/**
 * What a column's header says its numbers are: a measured quantity (`weight`,
 * `width`, …) or a price is a `number`, a counted quantity (`qty`, …) an `integer`, whatever a
 * sample of whole numbers, or of only 1s and blanks, would suggest; null when the header says
 * nothing (or names a yes/no setting such as `use_config_min_qty`).
 */
export function headerNumberType(name: string): 'number' | 'integer' | null {
  if (HINT.flag.test(name)) return null;
  if (HINT.measure.test(name) || HINT.price.test(name)) return 'number';
  if (HINT.count.test(name)) return 'integer';
  return null;
}

/** Decides numbers: integers, decimals, row counters, identifiers written as digits, flags 0/1, header units. */
function numericField(f: InferredField, p: ColumnProfile): void {
  const allInt = p.kinds.number === 0 && p.kinds.scientific === 0;
  const keys = [...p.distinct.keys()];
  const digitsOnly = keys.every((k) => /^\d+$/.test(k));
  const byHeader = headerNumberType(p.name);
  if (allInt && byHeader === null && keys.every((k) => k === '0' || k === '1') && (keys.length === 2 || f.null_rate > 0)) {
    f.type = 'boolean';
    f.reasons.push(`only 0 and 1 (${keys.join(', ')}) with blanks: a flag`);
    return;
  }
  if (allInt && HINT.rowNumber.test(p.name) && p.sequential >= (p.filled - 1) * 0.95 && f.unique) {
    f.type = 'integer';
    f.role = 'row_number';
    f.reasons.push('integers counting up by one per row: a row number, not a product identifier');
    return;
  }
  if (digitsOnly && (HINT.gtin.test(p.name) || gtinShare(p) >= 0.9)) {
    f.type = 'string';
    f.role = 'gtin';
    f.reasons.push(`GTIN: ${pct(gtinShare(p))} of values have a valid GS1 check digit (GS1 General Specifications §7.9)`);
    if (gtinShare(p) < 0.9) f.warnings.push('the header names a barcode but fewer than 90% of values pass the GS1 check digit');
    return;
  }
  if (p.kinds.scientific > 0 && HINT.gtin.test(p.name)) {
    f.type = 'string';
    f.role = 'gtin';
    f.reasons.push('the header names a barcode/GTIN');
    f.warnings.push(
      `${p.kinds.scientific} values are in scientific notation (e.g. ${p.examples[0]}): a spreadsheet program turned the barcodes into numbers and lost digits; re-export them as text`,
    );
    return;
  }
  if (digitsOnly && (p.leadingZeros > 0 || (HINT.id.test(p.name) && p.max >= 1000))) {
    f.type = 'string';
    f.role = HINT.sku.test(p.name) ? 'sku' : 'identifier';
    f.reasons.push(
      p.leadingZeros > 0
        ? `digits with leading zeros (${p.leadingZeros} values): a code, kept as text`
        : `the header names an identifier and the values are codes of digits: kept as text (a number would drop leading zeros)`,
    );
    return;
  }
  if (p.kinds.scientific > 0 && HINT.mpn.test(p.name)) {
    f.type = 'string';
    f.role = 'mpn';
    f.reasons.push('the header names a part number');
    f.warnings.push(`${p.kinds.scientific} values are in scientific notation: a spreadsheet program turned codes into numbers and lost digits`);
    return;
  }
  f.type = allInt && byHeader !== 'number' ? 'integer' : 'number';
  f.reasons.push(
    !allInt
      ? 'numbers with decimals'
      : byHeader === 'number'
        ? 'whole numbers in the sample, but the header names a price or a measured quantity: a number'
        : 'every value is a whole number',
  );
  if (p.decimalComma > 0) f.reasons.push(`decimal commas (${p.decimalComma} values like ${keys.find((k) => k.includes(',')) ?? ''})`);
  if (HINT.price.test(p.name)) f.role = 'price';
  const unit = headerUnit(p.name);
  if (unit) {
    f.unit = unit;
    f.role = f.role ?? 'quantity';
    f.reasons.push(`unit ${unit.symbol} (${unit.code ?? 'no Rec 20 code'}) from the header`);
  }
}

/**
 * Infers one column.
 * @param decimalComma the file writes decimals with commas (profile.ts)
 */
export function inferColumn(p: ColumnProfile, decimalComma: boolean): InferredField {
  const f = baseField(p);
  if (p.filled === 0) {
    const byHeader = headerNumberType(p.name);
    if (byHeader) {
      f.type = byHeader;
      f.reasons.push(`no values in the profiled rows; the header names a ${byHeader === 'integer' ? 'count' : 'price or measured quantity'}: ${byHeader}`);
    } else f.reasons.push('no values in the profiled rows: type unknown, kept as optional text');
    return finish(f, p);
  }
  const numeric = mostly(p, ['integer', 'number', 'scientific'], decimalComma);
  const money = mostly(p, ['money'], decimalComma, 0.9);
  const quantity = mostly(p, ['quantity'], decimalComma, 0.9);
  if (mostly(p, ['json_object'], decimalComma).ok) {
    f.type = 'object';
    f.reasons.push('every value is a JSON object');
  } else if (mostly(p, ['json_array'], decimalComma).ok) {
    f.type = 'array';
    f.reasons.push('every value is a JSON array');
  } else if (mostly(p, ['boolean'], decimalComma).ok) {
    f.type = 'boolean';
    f.reasons.push(`yes/no values (${byFrequency(p.distinct).slice(0, 4).join(', ')})`);
  } else if (numeric.ok) {
    f.null_values = [...numeric.sentinels.keys()];
    numericField(f, p);
  } else if (money.ok) {
    f.null_values = [...money.sentinels.keys()];
    f.type = 'number';
    f.role = 'price';
    const code = top(p.units);
    if (code) f.unit = currencyUnit(code);
    f.reasons.push(`amounts with a currency (${p.examples.find((e) => /\d/.test(e)) ?? ''} → ${code ?? '?'}, ISO 4217)`);
  } else if (quantity.ok && p.units.size === 1) {
    f.null_values = [...quantity.sentinels.keys()];
    f.type = 'number';
    f.role = 'quantity';
    f.unit = physicalUnit(top(p.units) ?? '');
    f.reasons.push(`quantities in ${f.unit.symbol} (UN/CEFACT ${f.unit.code ?? '—'}) read from the values, e.g. ${p.examples[0]}`);
  } else if (mostly(p, ['dimensions'], decimalComma, 0.9).ok) {
    f.role = 'dimensions';
    f.format = 'dimensions';
    const unit = top(p.units);
    if (unit) f.unit = physicalUnit(unit);
    f.reasons.push(`dimensions written as A×B(×C) with a unit, e.g. ${p.examples[0]}`);
  } else if (mostly(p, ['datetime'], decimalComma).ok) {
    f.format = 'date-time';
    f.reasons.push('ISO 8601 date-times');
  } else if (mostly(p, ['date', 'datetime'], decimalComma).ok) {
    f.format = 'date';
    f.reasons.push('dates');
  } else if (mostly(p, ['image_url'], decimalComma, 0.8).ok && mostly(p, ['image_url', 'url'], decimalComma).ok) {
    f.format = 'uri';
    f.role = 'image_url';
    f.reasons.push('URLs of image files (.jpg, .png, …)');
  } else if (mostly(p, ['url', 'image_url'], decimalComma).ok) {
    f.format = 'uri';
    f.role = 'url';
    f.reasons.push('http(s) URLs');
  } else if (mostly(p, ['email'], decimalComma).ok) {
    f.format = 'email';
    f.reasons.push('e-mail addresses');
  } else textField(f, p);
  return finish(f, p);
}

/** Text columns: HTML, category paths, lists, identifiers, enums, titles, brands. */
function textField(f: InferredField, p: ColumnProfile): void {
  const avg = p.totalLength / Math.max(1, p.filled);
  if (share(p.kinds.html, p.filled) >= 0.3) {
    f.format = 'html';
    f.role = 'description';
    f.reasons.push(`HTML markup in ${pct(share(p.kinds.html, p.filled))} of values`);
    return;
  }
  const pathSep = pathSeparator(p);
  if (pathSep !== null) {
    f.role = 'category';
    f.path_separator = pathSep;
    const several = pathListSeparator(p, pathSep);
    if (several) {
      f.type = 'array';
      f.items_type = 'string';
      f.separator = several;
      f.reasons.push(`several category paths per cell, separated by ${JSON.stringify(several)}; levels of a path separated by ${JSON.stringify(pathSep)}`);
      return;
    }
    f.reasons.push(`category paths separated by ${JSON.stringify(pathSep)}`);
    f.enum = enumValues(p.distinct, p.filled, p.distinctOverflow);
    return;
  }
  const list = listSeparator(p);
  if (list) {
    f.type = 'array';
    f.items_type = 'string';
    f.separator = list.sep;
    const pieces = new Map(list.stats.distinct);
    let total = list.stats.pieces;
    for (const [v, n] of p.distinct)
      if (!v.includes(list.sep)) {
        pieces.set(v, (pieces.get(v) ?? 0) + n);
        total += n;
      }
    f.items_enum = enumValues(pieces, total, list.stats.distinct.size >= 2000 || p.distinctOverflow);
    f.reasons.push(
      `lists: ${pct(share(list.stats.cells, p.filled))} of cells hold several short values separated by ${JSON.stringify(list.sep)} (${list.stats.distinct.size} distinct values over ${list.stats.pieces})`,
    );
    return;
  }
  if (HINT.gtin.test(p.name) && gtinShare(p) >= 0.5) {
    f.role = 'gtin';
    f.reasons.push(`GTIN: ${pct(gtinShare(p))} of values have a valid GS1 check digit`);
    return;
  }
  const codes = codeShare(p);
  if (codes >= 0.9 && share(p.distinct.size, p.filled) >= 0.9 && !HINT.title.test(p.name)) {
    f.role = HINT.mpn.test(p.name) ? 'mpn' : HINT.sku.test(p.name) || /\bsku\b/i.test(p.name) ? 'sku' : HINT.id.test(p.name) ? 'identifier' : 'sku';
    f.reasons.push(`product codes (letters and digits in one token, ${pct(codes)} of values, ${pct(share(p.distinct.size, p.filled))} distinct)`);
    return;
  }
  if (HINT.id.test(p.name) && share(p.distinct.size, p.filled) >= 0.5 && avg <= 60 && !/\s/.test(p.examples.join(''))) {
    f.role = 'identifier';
    f.reasons.push('the header names an identifier and the values are single tokens');
    return;
  }
  if (HINT.category.test(p.name) && !p.distinctOverflow && share(p.distinct.size, p.filled) <= 0.5 && avg <= 60) {
    f.role = 'category';
    f.path_separator = '';
    f.reasons.push(`one-level categories (${p.distinct.size} distinct)`);
  }
  f.enum = enumValues(p.distinct, p.filled, p.distinctOverflow);
  if (f.enum) f.reasons.push(`${f.enum.length} distinct values over ${p.filled} filled cells: an enum`);
  else if (HINT.enumerated.test(p.name) && p.distinct.size <= 20 && avg <= 30) {
    f.enum = byFrequency(p.distinct);
    f.reasons.push(
      `the header names an attribute with a fixed list of values (Google Merchant Center product data specification); values seen: ${f.enum.join(', ')}`,
    );
  }
  if (!f.role && HINT.title.test(p.name)) f.role = 'title';
  else if (!f.role && HINT.brand.test(p.name)) f.role = 'brand';
  else if (!f.role && (avg > 80 || HINT.description.test(p.name))) f.role = 'description';
  if (!f.reasons.length) f.reasons.push(avg > 80 ? `free text (${Math.round(avg)} characters on average)` : 'text');
}

/** Required-ness from the null rate (sentinels count as null): required when ≤ 1% of rows are empty. */
function finish(f: InferredField, p: ColumnProfile): InferredField {
  const sentinelCount = f.null_values.reduce((s, v) => s + (p.distinct.get(v) ?? 0), 0);
  f.null_rate = 1 - share(p.filled - sentinelCount, p.rows);
  if (sentinelCount) f.warnings.push(`${f.null_values.map((v) => JSON.stringify(v)).join(', ')} (${sentinelCount} rows) read as no value`);
  f.required = p.rows > 0 && f.null_rate <= 0.01;
  f.reasons.push(f.required ? 'required: a value in every row' : `optional: ${pct(f.null_rate)} of rows have no value`);
  if (f.unique && f.enum && !HINT.enumerated.test(f.name)) f.enum = null;
  return f;
}

/** Whether a text is empty or a null marker (for structure checks on whole rows). */
export function blank(text: string | undefined): boolean {
  return text === undefined || isNullMarker(text);
}
