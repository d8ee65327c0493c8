import type { JsonSchema } from '../lib/validation';

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

/**
 * `POST /public/enrich` JSON body: every parameter of interface-spec.md "Enrich request
 * parameters" plus the G21 fields of decisions.md §4. Unknown keys are rejected with 422.
 */
export const enrichRequestSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    prompt: { type: 'string', maxLength: 20000, default: '' },
    items: { type: 'array', items: { type: 'object' }, maxItems: INLINE_ITEMS_LIMIT, description: `At most ${INLINE_ITEMS_LIMIT} items inline; larger jobs use multipart items_file.` },
    output_schema: { type: 'array', items: outputFieldSchema, maxItems: 500 },
    template_id: { type: 'string' },
    attribute_sets: { type: 'object' },
    source_hint_sets: { type: 'object' },
    speed: { type: 'string', enum: ['cheap', 'fast', 'medium', 'deep', 'slow', 'ultra_slow'], default: 'deep' },
    allowed_domains: domains,
    blocked_domains: domains,
    web_search: { type: 'boolean', default: true },
    taxonomy: taxonomySchema,
    predict_taxonomy: { type: 'boolean', default: false },
    predict_taxonomy_attributes: { type: 'boolean', default: true },
    validate_semantics: { type: 'boolean', default: false },
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
    async_mode: { type: 'boolean', default: false },
    max_rows: { type: 'integer', minimum: 1 },
    source_activity_id: { type: 'string', format: 'uuid' },
    reextract_from_activity_id: { type: 'string', format: 'uuid' },
    include_source_explanations: { type: 'boolean', default: true },
    include_service_usage: { type: 'boolean', default: false },
    pricing_estimates: { type: 'boolean' },
    capture_source_artifacts: { type: 'boolean', default: false },
    host_media: { type: 'boolean', default: false },
    strict_hosted_media: { type: 'boolean', default: false },
    webhook_url: { type: 'string', format: 'uri', maxLength: 2000 },
    global_feedback: { type: 'string', maxLength: 20000 },
    item_feedback: { type: 'object', additionalProperties: { type: 'string' } },
    source_row_indices: { type: 'array', items: { type: 'integer', minimum: 0 } },
    staged_status: { type: 'string', enum: ['pending', 'draft'] },
    knowledge_base_enabled: { type: 'boolean' },
    knowledge_base_sources: { type: 'object', additionalProperties: { type: 'string' } },
    knowledge_base_metadata: { type: 'object' },
    review_mode: { type: 'string' },
    audit_decisions_enabled: { type: 'boolean' },
    image_processing: { type: 'object' },
    include_debug_log: { type: 'boolean' },
    file_name: { type: 'string', maxLength: 500 },
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
  },
};
