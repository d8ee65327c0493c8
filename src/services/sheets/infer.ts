/**
 * Schema, taxonomy and enrichment-field inference (docs/api-enrichment.md "Enrichment jobs":
 * `POST /public/infer-schema`, `POST /public/infer-enrichment`). Deterministic and
 * explainable: a file (or a list of items) is profiled in one streaming pass
 * (profile.ts), each column is typed from its values (columns.ts), identity and product/variant
 * structure are chosen across columns (structure.ts), a taxonomy comes from a category column or
 * from titles mapped to the Google product taxonomy (taxonomy.ts), and fields the file lacks are
 * suggested for its kind of product (enrichment-fields.ts). Every field carries its reasons.
 */
import type { LlmClient } from '../../enrichment/llm/client';
import { ValidationError } from '../../lib/errors';
import { inferColumn, type InferredField } from './columns';
import { suggestEnrichmentFields, type SuggestedField } from './enrichment-fields';
import { profileTable, type TableProfile } from './profile';
import { refineWithLlm } from './llm';
import { inferStructure, type Structure } from './structure';
import { normalizeHeaders, sniffTable, tableRows, type Row, type TableDialect } from './table-file';
import { taxonomyFromPaths, taxonomyFromTitles, type GoogleTaxonomyCache, type SuggestedTaxonomy, type TaxonomySuggestion } from './taxonomy';

/** A JSON Schema property of the suggested schema (keywords the catalog schema reads: `x-field-category`, `x-unit`, `x-scope`, `examples`). */
export type SchemaProperty = Record<string, unknown>;

/** The suggested catalog schema (`schema_definition` of `POST /public/catalogs`). */
export interface SuggestedSchema {
  type: 'object';
  properties: Record<string, SchemaProperty>;
  required: string[];
  'x-unique-id-field': string | null;
  'x-product-id-field': string | null;
  'x-variant-attributes': string[];
}

/** Everything inference found (services return this; src/presenters/inference.ts shapes the wire JSON). */
export interface Inference {
  total_rows: number;
  sample_rows_used: number;
  dialect: TableDialect | null;
  fields: InferredField[];
  structure: Structure;
  schema: SuggestedSchema;
  enrichment_fields: SuggestedField[];
  taxonomy: TaxonomySuggestion | null;
  /** `rules` (deterministic only) or `llm` (the rules' result refined by the configured LLM). */
  method: 'rules' | 'llm';
  /** Why the LLM refinement was not applied (the call failed or answered out of shape). */
  llm_error?: string;
}

/** Options of an inference. */
export interface InferOptions {
  /** Example rows shown per field and given to an LLM (`max_sample_rows`, default 20). */
  maxSampleRows: number;
  /** The user's description of the data (used by the LLM path; recorded in the schema's description). */
  prompt?: string;
  google: GoogleTaxonomyCache;
  /** The configured LLM (config `llm`); absent or null: rules only. */
  llm?: LlmClient | null;
}

/** Words of a field name for a description ("Variant Grams" → "variant grams"). */
function words(name: string): string {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_\-./]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** The JSON Schema property of an input column. */
function inputProperty(f: InferredField): SchemaProperty {
  const p: SchemaProperty = { type: f.type };
  const what = f.role === 'gtin' ? 'GTIN (GS1 barcode number)' : f.role === 'row_number' ? 'row number of the source file' : words(f.name);
  p.description = `${what.charAt(0).toUpperCase()}${what.slice(1)}${f.unit ? ` in ${f.unit.symbol}` : ''} (input column "${f.name}")`;
  if (f.format === 'date' || f.format === 'date-time' || f.format === 'uri' || f.format === 'email') p.format = f.format;
  if (f.role === 'image_url' || f.format === 'html' || f.format === 'dimensions') p['x-format'] = f.role === 'image_url' ? 'image_url' : f.format;
  if (f.type === 'array') {
    p.items = { type: f.items_type === 'number' ? 'number' : 'string', ...(f.items_enum ? { enum: f.items_enum } : {}) };
    if (f.separator) p['x-separator'] = f.separator;
  }
  if (f.enum && f.type === 'string') p.enum = f.enum;
  if (f.role === 'gtin' && f.warnings.length === 0) p.pattern = '^(\\d{8}|\\d{12,14})$';
  if (f.unit) {
    p['x-unit'] = f.unit.symbol;
    if (f.unit.code) p['x-unit-code'] = f.unit.code;
  }
  if (f.role) p['x-role'] = f.role;
  if (f.path_separator !== null) p['x-path-separator'] = f.path_separator;
  if (f.scope) p['x-scope'] = f.scope;
  if (f.null_values.length) p['x-null-values'] = f.null_values;
  p['x-field-category'] = 'input';
  p['x-reason'] = f.reasons.join('; ');
  if (f.warnings.length) p['x-warnings'] = f.warnings;
  if (f.examples.length) p.examples = f.examples.slice(0, 3);
  return p;
}

/** The JSON Schema property of a suggested enrichment field. */
function enrichedProperty(s: SuggestedField): SchemaProperty {
  return {
    type: s.type,
    description: s.description,
    ...(s.type === 'array' ? { items: { type: s.array_element_type === 'number' ? 'number' : 'string' } } : {}),
    ...(s.array_element_type === 'image_url' ? { 'x-format': 'image_url' } : {}),
    ...(s.enum ? { enum: s.enum } : {}),
    ...(s.pattern ? { pattern: s.pattern } : {}),
    ...(s.unit ? { 'x-unit': s.unit } : {}),
    'x-field-category': 'enriched',
    'x-reason': s.reason,
  };
}

/** Builds the suggested catalog schema from inferred columns and suggested fields. */
export function buildSchema(fields: InferredField[], structure: Structure, enrich: SuggestedField[]): SuggestedSchema {
  const properties: Record<string, SchemaProperty> = {};
  for (const f of fields) properties[f.name] = inputProperty(f);
  for (const s of enrich) if (!properties[s.name]) properties[s.name] = enrichedProperty(s);
  const required = fields.filter((f) => f.required && f.scope !== 'product').map((f) => f.name);
  if (structure.unique_id_field && !required.includes(structure.unique_id_field) && fields.find((f) => f.name === structure.unique_id_field)?.null_rate === 0)
    required.push(structure.unique_id_field);
  return {
    type: 'object',
    properties,
    required,
    'x-unique-id-field': structure.unique_id_field,
    'x-product-id-field': structure.product_id_field,
    'x-variant-attributes': structure.variant_attributes,
  };
}

/** The column a taxonomy is built from: deepest category paths first, then one-level categories. */
function categoryField(fields: InferredField[]): InferredField | null {
  const cats = fields.filter((f) => f.role === 'category');
  return cats.sort((a, b) => Number(b.path_separator !== '') - Number(a.path_separator !== '') || a.null_rate - b.null_rate)[0] ?? null;
}

/** The title column: a `title` role, else the first text column of short single-line values that is not an identifier or enum. */
function titleField(fields: InferredField[], profile: TableProfile): number {
  const byRole = fields.findIndex((f) => f.role === 'title');
  if (byRole >= 0) return byRole;
  return fields.findIndex((f, i) => {
    const p = profile.columns[i];
    const avg = p.totalLength / Math.max(1, p.filled);
    return f.type === 'string' && !f.role && !f.enum && !f.format && avg >= 8 && avg <= 150 && /\s/.test(f.examples.join(' '));
  });
}

/**
 * The suggested taxonomy: from the category column when there is one, else from titles
 * mapped to the Google product taxonomy.
 */
function suggestTaxonomy(profile: TableProfile, fields: InferredField[], google: GoogleTaxonomyCache): TaxonomySuggestion | null {
  const cat = categoryField(fields);
  if (cat) {
    const p = profile.columns[fields.indexOf(cat)];
    return taxonomyFromPaths(cat.name, [...p.distinct.keys()], cat.path_separator ?? '', google.get(), cat.type === 'array' ? cat.separator : null);
  }
  const t = titleField(fields, profile);
  if (t < 0) return null;
  const d = fields.findIndex((f) => f.role === 'description');
  const rows = profile.rows.slice(0, 500);
  return taxonomyFromTitles(
    rows.map((r) => r[t] ?? ''),
    rows.map((r) => (d >= 0 ? (r[d] ?? '').replace(/<[^>]*>/g, ' ') : '')),
    google.get(),
  );
}

/** Runs column, structure, taxonomy and enrichment-field inference on a profile. */
export function inferFromProfile(profile: TableProfile, options: InferOptions, dialect: TableDialect | null, withTaxonomy: boolean): Inference {
  const fields = profile.columns.map((c) => inferColumn(c, profile.decimalComma));
  const structure = inferStructure(profile, fields);
  const taxonomy = withTaxonomy ? suggestTaxonomy(profile, fields, options.google) : null;
  const cat = categoryField(fields);
  const t = titleField(fields, profile);
  const texts = profile.rows.slice(0, 500).map((r) => `${cat ? (r[fields.indexOf(cat)] ?? '') : ''} ${t >= 0 ? (r[t] ?? '') : ''}`);
  const taxonomyTexts = taxonomy ? Object.values(taxonomy.taxonomy.nodes).map((n) => n.name) : [];
  const enrichment = suggestEnrichmentFields(fields, [...texts, ...taxonomyTexts]);
  return {
    total_rows: profile.totalRows,
    sample_rows_used: Math.min(options.maxSampleRows, profile.totalRows),
    dialect,
    fields,
    structure,
    schema: buildSchema(fields, structure, enrichment),
    enrichment_fields: enrichment,
    taxonomy,
    method: 'rules',
  };
}

/**
 * Infers schema, enrichment fields and (when asked) a taxonomy from a spreadsheet on disk.
 * @param file the upload's path and the client's file name
 * @throws UnsupportedMediaTypeError (415) for workbooks other than XLSX/XLS;
 *   ValidationError (422) for a file without a header row or that cannot be parsed
 */
export async function inferSchemaFromFile(file: { path: string; name: string }, options: InferOptions & { generateTaxonomy: boolean }): Promise<Inference> {
  const dialect = await sniffTable(file.path, file.name);
  const profile = await profileTable(tableRows(file.path, dialect), normalizeHeaders);
  if (profile.headers.length === 0) throw ValidationError.at(['body', 'file'], 'The file is empty: a header row is needed', 'file_empty');
  return withLlm(inferFromProfile(profile, options, dialect, options.generateTaxonomy), profile, options);
}

/** The rules' inference refined by the LLM when one is configured (src/services/sheets/llm.ts); unchanged otherwise. */
async function withLlm(r: Inference, profile: TableProfile, options: InferOptions): Promise<Inference> {
  if (!options.llm) return r;
  const refined = await refineWithLlm(options.llm, r, profile.headers, profile.rows.slice(0, r.sample_rows_used), options.prompt);
  if ('error' in refined) return { ...r, llm_error: refined.error };
  return { ...r, schema: { ...r.schema, properties: refined.properties }, enrichment_fields: refined.enrichment_fields, method: 'llm' };
}

/** A JSON value as a cell's text: scalars as written, arrays and objects as JSON. */
function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** Rows of JSON items: the header is the union of their keys in first-seen order (at most 500 keys). */
async function* itemRows(items: Array<Record<string, unknown>>): AsyncGenerator<Row> {
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const item of items)
    for (const k of Object.keys(item))
      if (!seen.has(k) && keys.length < 500) {
        seen.add(k);
        keys.push(k);
      }
  yield keys;
  for (const item of items) yield keys.map((k) => cellText(item[k]));
}

/**
 * `POST /public/infer-enrichment`: schema, taxonomy and enrichment fields from JSON items
 * (always with a taxonomy attempt: the response names `suggested_taxonomy`).
 */
export async function inferFromItems(items: Array<Record<string, unknown>>, options: InferOptions): Promise<Inference> {
  const profile = await profileTable(itemRows(items), (h) => h);
  return withLlm(inferFromProfile(profile, options, null, true), profile, options);
}

/** The taxonomy of an inference, or null. */
export function taxonomyOf(inference: Inference): SuggestedTaxonomy | null {
  return inference.taxonomy?.taxonomy ?? null;
}
