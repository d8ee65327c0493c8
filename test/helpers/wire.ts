/**
 * Response bodies as tests read them. supertest types `response.body` as `any`; these small
 * interfaces name only the parts the tests read (what the API reference (docs/api-reference.md) promises for that
 * route), and {@link bodyOf} gives a body its type, so a misspelt field is a type error and no
 * `any` leaks into the assertions. The assertions themselves check the values.
 */
import type { Response } from 'supertest';
import type { ValidationDetail } from '../../src/lib/errors';

/** `body` of a supertest (or any) response, read as `T`. Nothing is checked: the test asserts. */
export function bodyOf<T>(res: { body: unknown }): T {
  return res.body as T;
}

/**
 * supertest's `.parse()` for a binary answer (a download: evidence.wacz, an export, a hosted
 * image): `res.body` becomes the whole body as one Buffer. Use with `.buffer(true)`.
 */
export function bufferBody(res: Response, cb: (err: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
}

/** A 422 answer: `{detail: [{loc, msg, type}, ...]}` (docs/api-reference.md "Errors"). */
export interface ValidationErrorBody {
  detail: ValidationDetail[];
}

/** A variant as listed under its product's `data.variants`. */
export interface VariantEntry {
  sku: string;
  [field: string]: unknown;
}

/** An item's `data`: the catalog's fields; the ones tests read by name are typed. */
export interface ItemData {
  sku?: string;
  product_id?: string;
  product_name?: string;
  color?: string;
  variants?: VariantEntry[];
  [field: string]: unknown;
}

/** An item as the items routes return it (and a `catalog_items` row as tests select it). */
export interface ItemBody {
  id: string;
  entity_type: 'product' | 'variant';
  parent_id: string | null;
  business_key: string | null;
  current_version: number;
  data: ItemData;
  search_text?: string;
}

/** `GET /catalogs/:id/items`: a page of items with the exact total. */
export interface ItemListBody {
  items: ItemBody[];
  total: number;
}

/** One entry of a schema's `fields_workflow_info`. */
export interface FieldInfo {
  field_name: string;
  field_type: string;
  [property: string]: unknown;
}

/** A schema version as the schema routes return it. */
export interface SchemaBody {
  version: string;
  schema_definition: { properties: Record<string, unknown>; [keyword: string]: unknown };
  fields_workflow_info: FieldInfo[];
  [property: string]: unknown;
}

/** A catalog as the catalog routes return it (with its current schema when asked for one). */
export interface CatalogBody {
  id: string;
  name: string;
  created_at: string;
  updated_at: string;
  schema: SchemaBody;
  [property: string]: unknown;
}

/** An attribute of a taxonomy node (own, inherited or all). */
export interface TaxonomyAttribute {
  name: string;
  type: string;
  inherited_from?: string;
  [property: string]: unknown;
}

/** A node of an enriched taxonomy (`GET /catalogs/:id/taxonomy`). */
export interface TaxonomyNodeBody {
  name: string;
  parent: string | null;
  level: number;
  path: string[];
  children: string[];
  inherited_attributes: TaxonomyAttribute[];
  all_attributes: TaxonomyAttribute[];
}

/** An enriched taxonomy: nodes by id. */
export interface TaxonomyBody {
  nodes: Record<string, TaxonomyNodeBody>;
}

/** The post-enrichment audit of one result (`review_info.audit`). */
export interface AuditBody {
  decision: string;
  reasons: string[];
  field_issues: Array<{ field: string; message: string }>;
}

/** An enrichment result's `review_info`; the audit only when auditing was on. */
export interface ReviewInfoBody {
  audit?: AuditBody;
  field_confidence: Record<string, string>;
  field_methods: Record<string, string>;
  [property: string]: unknown;
}

/** One result of an enrichment (sync answer, job results). */
export interface EnrichResultBody {
  original_data: Record<string, unknown>;
  after_data: Record<string, unknown> & { sources: Record<string, string[]>; source_explanations: Record<string, string> };
  all_sources: string[];
  review_info: ReviewInfoBody;
  [property: string]: unknown;
}

/** `GET /activities/:id/staged-changes`: a page of staged changes. */
export interface StagedChangeListBody {
  items: Array<{ row_index: number; status: string; review_info: ReviewInfoBody; [property: string]: unknown }>;
  total: number;
}

/** An enrichment answer or job page: its results. */
export interface EnrichBody {
  job_id: string;
  status: string;
  results: EnrichResultBody[];
  [property: string]: unknown;
}
