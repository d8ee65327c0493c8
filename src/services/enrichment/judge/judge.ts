/**
 * `POST /public/judge` (docs/api-enrichment.md "Judging"): a decision per row — `pass`, `review_required` or
 * `fail` — with confidence, reasons, field issues and suggested updates, built on the
 * post-enrichment audit (src/enrichment/result-audit.ts), so a row is judged by the same rules a job's
 * results are. A row is an enriched result (`{data, before?, sources?, review_info?}`) or a plain
 * object of field values. Rows without any `sources` are judged on their values alone (type,
 * enum, bounds, pattern, GS1 check digit, required fields): their values count as input, and
 * "nothing was extracted" does not apply. With a model configured, the model decides each row
 * from the catalog's quality prompt, the `prompt`, the fields and the row's `images`, the rules
 * cross-checking it and deciding when it fails (./judge-llm.ts); without one the rules decide and
 * `meta.notices` names the options that needed a model.
 */
import type { Knex } from 'knex';
import { auditResult } from '../../../enrichment/result-audit';
import { validGtin } from '../../../enrichment/normalize/identifiers';
import { validateValue } from '../../../enrichment/semantics/validate';
import type { EnrichmentResult, OutputField, ReviewInfo } from '../../../enrichment/types';
import { ValidationError } from '../../../lib/errors';
import type { JsonSchemaProperty } from '../../../models/catalog-schema';
import type { Scope } from '../../access/scope';
import { loadCatalogOwned } from '../../catalog/catalogs';
import { getCurrentSchema } from '../../catalog/schema/schema';
import { fieldsFromCatalogSchema } from '../jobs/request';
import { judgeWithModel, rowImageUrls, type JudgeModelMeta } from './judge-llm';
import type { LlmClient } from '../../../enrichment/llm/client';

/** The judge request after validation (src/schemas/judge.ts). */
export interface JudgeRequest {
  rows: Array<Record<string, unknown>>;
  catalog_id?: string;
  schema?: Record<string, unknown>;
  prompt?: string;
  model?: string;
  max_rows: number;
  /**
   * Image URLs per row: row index (as a string) → URLs (src/services/enrichment/judge/judge-request.ts
   * checks the keys); `true`: each row's own image fields (./judge-llm.ts rowImageUrls).
   */
  images?: boolean | Record<string, string[]>;
}

/** One row's judgment (docs/api-enrichment.md "Judging"). */
export interface Judgment {
  row_index: number;
  item_id: string | null;
  decision: 'pass' | 'review_required' | 'fail';
  confidence: 'high' | 'medium' | 'low';
  reasons: string[];
  field_issues: Array<{ field: string; message: string }>;
  /** Field → value that would fix a failed check without guessing (a number written as text, a GTIN with spaces). */
  suggested_updates: Record<string, unknown>;
  /** With a model: `llm` (the model decided, the rules cross-checked) or `rules` (the call failed). */
  method?: 'llm' | 'rules';
  /** With a model: what the rules decided. */
  rule_decision?: Judgment['decision'];
  /** With a model: `model_passed_rule_failure`, `rules_disagree`, `llm_failed` (./judge-llm.ts). */
  flags?: string[];
}

/** The judge's answer. */
export interface JudgeResult {
  judgments: Judgment[];
  meta: JudgeModelMeta & {
    rows_received: number;
    rows_judged: number;
    fields: number;
    catalog_id: string | null;
    quality_prompt_present: boolean;
    prompt_present: boolean;
    counts: Record<'pass' | 'review_required' | 'fail', number>;
  };
}

const ROW_KEYS = new Set(['row_index', 'item_id', 'data', 'before', 'sources', 'source_explanations', 'review_info']);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A value that passes `field`'s checks, derived from `value` without guessing; undefined when none. */
export function suggestFix(value: unknown, field: OutputField): unknown {
  if (typeof value === 'string') {
    const t = value.trim();
    if ((field.type === 'number' || field.type === 'integer') && /^-?\d+(\.\d+)?$/.test(t.replace(/,(?=\d{3}\b)/g, ''))) {
      const n = Number(t.replace(/,(?=\d{3}\b)/g, ''));
      if (field.type === 'number' || Number.isInteger(n)) return validateValue(n, field).length ? undefined : n;
    }
    if (field.type === 'boolean' && /^(true|false|yes|no)$/i.test(t)) return /^(true|yes)$/i.test(t);
    const digits = t.replace(/[\s-]/g, '');
    if (/gtin|ean|upc|barcode/i.test(field.name) && digits !== t && validGtin(digits)) return validateValue(digits, field).length ? undefined : digits;
    if (t !== value && validateValue(t, field).length === 0) return t;
  }
  return undefined;
}

const DEFAULT_REVIEW: ReviewInfo = { reasoning: '', confidence: 'high', flags: [], field_issues: [], field_confidence: {}, field_methods: {} };

/**
 * Judges one row (an enriched result `{data, before?, sources?, review_info?}` or plain field
 * values) against `fields`, as `POST /public/judge` does for each row; pure (the pages suite of
 * `npm run eval` scores it too).
 */
export function judgeRow(row: Record<string, unknown>, index: number, fields: OutputField[]): Judgment {
  const data = isObject(row.data) ? row.data : Object.fromEntries(Object.entries(row).filter(([k]) => !ROW_KEYS.has(k)));
  const given = isObject(row.sources) ? row.sources : isObject(data.sources) ? data.sources : null;
  const sources: Record<string, string[]> = {};
  if (given) {
    for (const [k, v] of Object.entries(given)) if (Array.isArray(v)) sources[k] = v.filter((s): s is string => typeof s === 'string');
  } else {
    for (const f of fields) if (data[f.name] !== undefined) sources[f.name] = [`INPUT:${f.name}`];
  }
  const review = isObject(row.review_info) ? { ...DEFAULT_REVIEW, ...(row.review_info as Partial<ReviewInfo>) } : DEFAULT_REVIEW;
  const result: EnrichmentResult = {
    original_data: isObject(row.before) ? row.before : {},
    after_data: { ...data, sources, source_explanations: {} },
    all_sources: [],
    review_info: review,
  };
  const audit = auditResult(result, isObject(row.before) ? row.before : {}, fields, null);
  // Without provenance the row's values are its input: "nothing was extracted" is not a finding.
  const reasons = given ? audit.reasons : audit.reasons.filter((r) => r !== 'Nothing was extracted.');
  const decision = !given && audit.decision === 'review_required' && reasons.length === 0 ? 'pass' : audit.decision;
  const suggested: Record<string, unknown> = {};
  for (const f of fields) {
    const fix = data[f.name] === undefined ? undefined : suggestFix(data[f.name], f);
    if (fix !== undefined && validateValue(data[f.name], f).length > 0) suggested[f.name] = fix;
  }
  return {
    row_index: typeof row.row_index === 'number' ? row.row_index : index,
    item_id: typeof row.item_id === 'string' ? row.item_id : typeof data.__catalog_item_id === 'string' ? data.__catalog_item_id : null,
    decision,
    confidence: decision === 'pass' && !given ? 'high' : audit.confidence,
    reasons: decision === 'pass' && reasons.length === 0 ? ['All values fit their fields.'] : reasons,
    field_issues: audit.field_issues,
    suggested_updates: suggested,
  };
}

/** The values and sources of a judge row (an enriched result or plain field values), as judgeRow reads them. */
function rowParts(row: Record<string, unknown>): { data: Record<string, unknown>; sources: unknown } {
  const data = isObject(row.data) ? row.data : Object.fromEntries(Object.entries(row).filter(([k]) => !ROW_KEYS.has(k)));
  return { data, sources: isObject(row.sources) ? row.sources : (data.sources ?? null) };
}

/**
 * Judges up to `max_rows` rows against the fields of `schema`, else of the catalog's current
 * schema (`catalog_id`): by the model when `llm` is given (./judge-llm.ts), else by rules.
 * @throws ValidationError (422) when neither a schema nor a catalog gives fields;
 *   NotFoundError (404) / ForbiddenError (403) for the catalog
 */
export async function judgeRows(knex: Knex, scope: Scope, req: JudgeRequest, llm: LlmClient | null = null): Promise<JudgeResult> {
  let definition: { properties?: Record<string, JsonSchemaProperty>; required?: unknown } | null = null;
  let qualityPrompt: string | null = null;
  if (req.catalog_id) {
    const catalog = await loadCatalogOwned(knex, scope, req.catalog_id);
    qualityPrompt = catalog.quality_prompt;
    if (!req.schema) definition = (await getCurrentSchema(knex, catalog.id)).schema_definition;
  }
  if (req.schema) {
    if (!isObject(req.schema.properties)) throw ValidationError.at(['body', 'schema', 'properties'], 'A JSON Schema with properties is needed', 'missing');
    definition = req.schema as { properties: Record<string, JsonSchemaProperty>; required?: unknown };
  }
  if (!definition) throw ValidationError.at(['body', 'schema'], 'Give a schema or a catalog_id whose schema the rows are judged by', 'missing');
  const required = Array.isArray(definition.required) ? new Set(definition.required) : new Set<unknown>();
  const fields = fieldsFromCatalogSchema(definition).map((f) => ({ ...f, required: required.has(f.name) }));
  const rows = req.rows.slice(0, req.max_rows);
  const ruled = rows.map((row, i) => {
    const { data, sources } = rowParts(row);
    const rules = judgeRow(row, i, fields);
    return { data, sources, rules, images: rowImageUrls(row, data, rules.row_index, fields, req.images) };
  });
  const judged = await judgeWithModel(llm, ruled, { fields, qualityPrompt, prompt: req.prompt, model: req.model, images: req.images });
  const judgments = judged.judgments;
  const counts = { pass: 0, review_required: 0, fail: 0 };
  for (const j of judgments) counts[j.decision]++;
  return {
    judgments,
    meta: {
      rows_received: req.rows.length,
      rows_judged: rows.length,
      fields: fields.length,
      catalog_id: req.catalog_id ?? null,
      quality_prompt_present: !!qualityPrompt,
      prompt_present: !!req.prompt,
      ...judged.meta,
      counts,
    },
  };
}
