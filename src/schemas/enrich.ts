import type { JsonSchema } from '../lib/validation';
import { ENRICH_DEFAULTS } from '../services/enrichment/defaults';

/** Inline JSON enrich requests carry at most this many items (interface-spec.md, Limits). */
export const INLINE_ITEMS_LIMIT = 1000;

const scalar = { type: ['string', 'number', 'boolean'] };

/** One output-schema field (interface-spec.md, "Output-schema field"). */
export const outputFieldSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'description'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    type: { type: 'string', enum: ['string', 'number', 'integer', 'boolean', 'array'], default: 'string' },
    description: { type: 'string', maxLength: 4000 },
    unit: { type: 'string', maxLength: 50 },
    enum: { type: 'array', items: scalar, maxItems: 1000 },
    sample_values: { type: 'array', items: scalar, maxItems: 100 },
    array_element_type: { type: 'string', enum: ['string', 'number', 'image_url'] },
    items_enum: { type: 'array', items: scalar, maxItems: 1000 },
    required: { type: 'boolean' },
    merge: { type: 'boolean' },
    pattern: { type: 'string' },
    pattern_message: { type: 'string' },
    min_length: { type: 'integer', minimum: 0 },
    max_length: { type: 'integer', minimum: 0 },
    minimum: { type: 'number' },
    maximum: { type: 'number' },
    unique: { type: 'boolean' },
    semantic_type: { type: 'string' },
  },
};

const taxonomySchema: JsonSchema = {
  type: 'object',
  required: ['nodes'],
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    hierarchy_levels: { type: 'array', items: { type: 'string' } },
    nodes: { type: 'object' },
  },
};

const domains = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 253 }, maxItems: 500 };

/** `attribute_sets`: set id → extra output fields for the rows that name it (`attribute_set_id`). */
const attributeSetsSchema: JsonSchema = {
  type: 'object',
  maxProperties: 200,
  description: 'Registry of requested-attribute definitions: set id → {attributes: [output field], description?} (or the array of output fields itself). Items name one by `attribute_set_id`.',
  additionalProperties: {
    anyOf: [
      { type: 'array', items: outputFieldSchema, maxItems: 200 },
      { type: 'object', additionalProperties: false, required: ['attributes'], properties: { description: { type: 'string' }, attributes: { type: 'array', items: outputFieldSchema, maxItems: 200 } } },
    ],
  },
};

/** `source_hint_sets`: set id → preferred domains/URLs for the rows that name it (`source_hint_set_id`). */
const sourceHintSetsSchema: JsonSchema = {
  type: 'object',
  maxProperties: 200,
  description: 'Registry of source hints: set id → {domains?, urls?}. Items name one by `source_hint_set_id`.',
  additionalProperties: {
    type: 'object',
    additionalProperties: false,
    properties: { domains: domains, urls: { type: 'array', items: { type: 'string', format: 'uri', maxLength: 2000 }, maxItems: 100 }, description: { type: 'string' } },
  },
};

const d = (key: string): string => `Default: ${JSON.stringify(ENRICH_DEFAULTS[key])}.`;

/** The request fields other than `items` (shared by the JSON body, multipart `request_json` and template defaults). */
const requestProperties: Record<string, JsonSchema> = {
  prompt: { type: 'string', maxLength: 20000, description: d('prompt') },
  output_schema: { type: 'array', items: outputFieldSchema, maxItems: 500 },
  template_id: { type: 'string', format: 'uuid', description: 'Enrichment template of the organization: its defaults fill omitted fields; its safety controls cannot be widened.' },
  attribute_sets: attributeSetsSchema,
  source_hint_sets: sourceHintSetsSchema,
  speed: { type: 'string', enum: ['cheap', 'fast', 'medium', 'deep', 'slow', 'ultra_slow'], description: d('speed') },
  allowed_domains: domains,
  blocked_domains: domains,
  web_search: { type: 'boolean', description: d('web_search') },
  taxonomy: taxonomySchema,
  predict_taxonomy: { type: 'boolean', description: d('predict_taxonomy') },
  predict_taxonomy_attributes: { type: 'boolean', description: d('predict_taxonomy_attributes') },
  validate_semantics: { type: 'boolean', description: d('validate_semantics') },
  low_confidence: {
    type: 'object',
    additionalProperties: false,
    properties: {
      enabled: { type: 'boolean', default: true },
      scopes: { type: 'array', items: { type: 'string', enum: ['field', 'taxonomy_attribute', 'category'] } },
      placement: { type: 'string', enum: ['tail'] },
      max_candidates_per_item: { type: 'integer', minimum: 1, maximum: 100 },
    },
  },
  catalog_id: { type: 'string', format: 'uuid' },
  source_catalog_id: { type: 'string', format: 'uuid' },
  async_mode: { type: 'boolean', description: d('async_mode') },
  max_rows: { type: 'integer', minimum: 1 },
  source_activity_id: { type: 'string', format: 'uuid' },
  reextract_from_activity_id: { type: 'string', format: 'uuid' },
  include_source_explanations: { type: 'boolean', description: d('include_source_explanations') },
  include_service_usage: { type: 'boolean', description: d('include_service_usage') },
  pricing_estimates: { type: 'boolean' },
  capture_source_artifacts: { type: 'boolean', description: d('capture_source_artifacts') },
  host_media: { type: 'boolean', description: d('host_media') },
  strict_hosted_media: { type: 'boolean', description: d('strict_hosted_media') },
  webhook_url: { type: 'string', format: 'uri', maxLength: 2000 },
  global_feedback: { type: 'string', maxLength: 20000 },
  item_feedback: { type: 'object', additionalProperties: { type: 'string', maxLength: 20000 }, description: 'Row index (as a string) → feedback text, for re-extraction.' },
  source_row_indices: { type: 'array', items: { type: 'integer', minimum: 0 }, maxItems: 100000 },
  staged_status: { type: 'string', enum: ['pending', 'draft'], description: d('staged_status') },
  knowledge_base_enabled: { type: 'boolean' },
  knowledge_base_sources: { type: 'object', additionalProperties: { type: 'string' } },
  knowledge_base_metadata: { type: 'object' },
  review_mode: { type: 'string', enum: ['all', 'flagged'], description: `${d('review_mode')} "flagged": the post-enrichment audit runs; changes it passes are staged as draft, the others as pending.` },
  audit_decisions_enabled: { type: 'boolean', description: `${d('audit_decisions_enabled')} Audits every result (pass | review_required | fail with reasons) into review_info.audit; the poll counts the decisions.` },
  image_processing: {
    type: 'object',
    additionalProperties: false,
    description: 'With enabled: images of the media fields (or of `fields`) are resized within min_side_px..max_side_px, padded to a square on background_color (make_square), re-encoded as output_format at quality, and hosted by the service (implies host_media for them).',
    properties: {
      enabled: { type: 'boolean' }, make_square: { type: 'boolean' },
      background_color: { type: 'string', pattern: '^(#[0-9A-Fa-f]{3}|#[0-9A-Fa-f]{4}|#[0-9A-Fa-f]{6}|#[0-9A-Fa-f]{8}|[A-Za-z]{3,30})$', description: 'Hex (#fff, #ffffff, with alpha) or a CSS colour name.' },
      min_side_px: { type: 'integer', minimum: 1, maximum: 10000 }, max_side_px: { type: 'integer', minimum: 1, maximum: 10000 },
      output_format: { type: 'string', enum: ['jpeg', 'jpg', 'png', 'webp', 'avif'] },
      quality: { type: 'integer', minimum: 1, maximum: 100 }, force_reprocess_hosted: { type: 'boolean' }, fields: { type: 'array', items: { type: 'string' } },
    },
  },
  include_debug_log: { type: 'boolean' },
  file_name: { type: 'string', maxLength: 500 },
};

/**
 * `POST /public/enrich` JSON body: every parameter of interface-spec.md "Enrich request
 * parameters" plus the G21 fields of decisions.md §4. Unknown keys are rejected with 422.
 */
export const enrichRequestSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    items: { type: 'array', items: { type: 'object' }, maxItems: INLINE_ITEMS_LIMIT, description: `At most ${INLINE_ITEMS_LIMIT} items inline; larger jobs use multipart items_file.` },
    ...requestProperties,
  },
};

/** Multipart `request_json` (interface-spec.md Rules 2): the JSON body without `items`. */
export const requestJsonSchema: JsonSchema = { type: 'object', additionalProperties: false, properties: { ...requestProperties } };

/** Multipart form of `POST /public/enrich` (documentation; the upload middleware enforces it). */
export const enrichMultipartSchema: JsonSchema = {
  type: 'object',
  required: ['request_json', 'items_file'],
  properties: {
    request_json: { type: 'string', description: 'The enrich request as JSON, without items.' },
    items_file: { type: 'string', format: 'binary', description: 'Exactly one JSON file: an array of item objects, or {"items": [...]}.' },
    knowledge_base_files: { type: 'array', items: { type: 'string', format: 'binary' }, description: 'Optional documents, listed as SOURCE_1… in knowledge_base_sources.' },
  },
};

/** `POST /public/enrich/{job_id}/to-catalog` body (decisions.md §4, G19). */
export const toCatalogBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 100 }, description: { type: 'string', maxLength: 5000 } },
};

/** Template defaults: any enrich request field except `items` and `template_id` (no nesting). */
export const templateDefaultsSchema: JsonSchema = (() => {
  const { template_id: _t, ...props } = requestProperties;
  return { type: 'object', additionalProperties: false, properties: props };
})();

/** `POST /public/enrichment-templates` body. */
export const createTemplateBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: 'string', maxLength: 5000 },
    defaults: templateDefaultsSchema,
    safety: {
      type: 'object',
      additionalProperties: false,
      properties: { allowed_domains: domains, blocked_domains: domains, web_search: { type: 'boolean' }, max_rows: { type: 'integer', minimum: 1 } },
    },
  },
};

/** Path params `{job_id}`. */
export const jobIdParams: JsonSchema = {
  type: 'object',
  required: ['job_id'],
  properties: { job_id: { type: 'string', description: 'Enrichment job id (UUID)' } },
};

/** Poll query (decisions.md §4, G17). */
export const pollQuery: JsonSchema = {
  type: 'object',
  properties: {
    page: { type: 'integer', minimum: 1, default: 1 },
    page_size: { type: 'integer', minimum: 1, maximum: 1000, default: 1000 },
  },
};

/** Job list query (interface-spec.md, GET /public/enrich/jobs). */
export const listJobsQuery: JsonSchema = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['running', 'completed', 'failed', 'cancelled'] },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    offset: { type: 'integer', minimum: 0, default: 0 },
  },
};

/** The enrichment job response (interface-spec.md, "Enrichment job response"). */
export const jobResponseSchema: JsonSchema = {
  type: 'object',
  required: ['job_id', 'results', 'total_items', 'total_rows', 'successful', 'credits_used', 'status'],
  properties: {
    job_id: { type: 'string' },
    results: { type: 'array', items: { type: 'object' } },
    total_items: { type: 'integer' },
    total_rows: { type: 'integer' },
    successful: { type: 'integer' },
    credits_used: { type: 'integer' },
    status: { type: 'string', enum: ['running', 'completed', 'failed'] },
    service_usage: { type: 'object' },
    pricing_estimates: { type: 'object' },
    knowledge_base_enabled: { type: 'boolean' },
    knowledge_base_sources: { type: 'object' },
    page: { type: 'integer' },
    page_size: { type: 'integer' },
    total_pages: { type: 'integer' },
    completed_items: { type: 'integer' },
    error: { type: 'string' },
    notices: { type: 'array', items: { type: 'string' }, description: 'Options stored without behaviour (recorded no-ops).' },
    webhook: { type: 'object', description: 'Webhook delivery state with every attempt (decisions.md §4).' },
    audit: {
      type: 'object',
      description: 'With audit_decisions_enabled or review_mode "flagged": counts of the post-enrichment audit decisions over the processed rows.',
      properties: { pass: { type: 'integer' }, review_required: { type: 'integer' }, fail: { type: 'integer' } },
    },
  },
};
