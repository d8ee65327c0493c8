import { Static, Type } from '@sinclair/typebox';
import type { Validated } from '../lib/validation';
import { AnyObject, Nullable, POSITION_MAX, StringEnum, withDefault } from './common';
import { ENRICH_DEFAULTS } from './enrich-defaults';

export type { EnrichJobConfig } from '../models/enrichment-job';

/** Inline JSON enrich requests carry at most this many items (docs/api-reference.md "Limits"). */
export const INLINE_ITEMS_LIMIT = 1000;

const scalar = () => Type.Unsafe<string | number | boolean>({ type: ['string', 'number', 'boolean'] });

/** One output-schema field (docs/api-enrichment.md "Enrichment jobs"). */
export const outputFieldSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    type: Type.Optional(withDefault(StringEnum(['string', 'number', 'integer', 'boolean', 'array']), 'string')),
    description: Type.String({ maxLength: 4000 }),
    unit: Type.Optional(Type.String({ maxLength: 50 })),
    enum: Type.Optional(Type.Array(scalar(), { maxItems: 1000 })),
    sample_values: Type.Optional(Type.Array(scalar(), { maxItems: 100 })),
    array_element_type: Type.Optional(StringEnum(['string', 'number', 'image_url'])),
    items_enum: Type.Optional(Type.Array(scalar(), { maxItems: 1000 })),
    required: Type.Optional(Type.Boolean()),
    merge: Type.Optional(Type.Boolean()),
    pattern: Type.Optional(Type.String()),
    pattern_message: Type.Optional(Type.String()),
    min_length: Type.Optional(Type.Integer({ minimum: 0 })),
    max_length: Type.Optional(Type.Integer({ minimum: 0 })),
    minimum: Type.Optional(Type.Number()),
    maximum: Type.Optional(Type.Number()),
    unique: Type.Optional(Type.Boolean()),
    semantic_type: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const taxonomySchema = Type.Object({
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  hierarchy_levels: Type.Optional(Type.Array(Type.String())),
  nodes: AnyObject(),
});

const domains = () => Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { maxItems: 500 });

/**
 * An `attribute_sets` entry: the output fields themselves, or `{attributes, description?}`. Ajv
 * fills no defaults under `anyOf`, so a field's `type` may be absent here (`Static`, not `Validated`).
 */
const attributeSetEntry = Type.Unsafe<Array<Static<typeof outputFieldSchema>> | { description?: string; attributes: Array<Static<typeof outputFieldSchema>> }>({
  anyOf: [
    Type.Array(outputFieldSchema, { maxItems: 200 }),
    Type.Object({ description: Type.Optional(Type.String()), attributes: Type.Array(outputFieldSchema, { maxItems: 200 }) }, { additionalProperties: false }),
  ],
});

/** `attribute_sets`: set id → extra output fields for the rows that name it (`attribute_set_id`). */
const attributeSetsSchema = Type.Unsafe<Record<string, Static<typeof attributeSetEntry>>>({
  type: 'object',
  maxProperties: 200,
  description:
    'Registry of requested-attribute definitions: set id → {attributes: [output field], description?} (or the array of output fields itself). Items name one by `attribute_set_id`.',
  additionalProperties: attributeSetEntry,
});

const sourceHintSet = Type.Object(
  {
    domains: Type.Optional(domains()),
    urls: Type.Optional(Type.Array(Type.String({ format: 'uri', maxLength: 2000 }), { maxItems: 100 })),
    description: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/** `source_hint_sets`: set id → preferred domains/URLs for the rows that name it (`source_hint_set_id`). */
const sourceHintSetsSchema = Type.Unsafe<Record<string, Static<typeof sourceHintSet>>>({
  type: 'object',
  maxProperties: 200,
  description: 'Registry of source hints: set id → {domains?, urls?}. Items name one by `source_hint_set_id`.',
  additionalProperties: sourceHintSet,
});

const d = (key: keyof typeof ENRICH_DEFAULTS): string => `Default: ${JSON.stringify(ENRICH_DEFAULTS[key])}.`;

/** The request fields other than `items` (shared by the JSON body, multipart `request_json` and template defaults). */
const requestProperties = {
  prompt: Type.Optional(Type.String({ maxLength: 20000, description: d('prompt') })),
  output_schema: Type.Optional(Type.Array(outputFieldSchema, { maxItems: 500 })),
  template_id: Type.Optional(
    Type.String({
      format: 'uuid',
      description: 'Enrichment template of the organization: its defaults fill omitted fields; its safety controls cannot be widened.',
    }),
  ),
  attribute_sets: Type.Optional(attributeSetsSchema),
  source_hint_sets: Type.Optional(sourceHintSetsSchema),
  speed: Type.Optional(StringEnum(['cheap', 'fast', 'medium', 'deep', 'slow', 'ultra_slow'], { description: d('speed') })),
  allowed_domains: Type.Optional(domains()),
  blocked_domains: Type.Optional(domains()),
  web_search: Type.Optional(Type.Boolean({ description: d('web_search') })),
  taxonomy: Type.Optional(taxonomySchema),
  predict_taxonomy: Type.Optional(Type.Boolean({ description: d('predict_taxonomy') })),
  predict_taxonomy_attributes: Type.Optional(Type.Boolean({ description: d('predict_taxonomy_attributes') })),
  validate_semantics: Type.Optional(Type.Boolean({ description: d('validate_semantics') })),
  low_confidence: Type.Optional(
    Type.Object(
      {
        enabled: Type.Optional(withDefault(Type.Boolean(), false)),
        scopes: Type.Optional(Type.Array(StringEnum(['field', 'taxonomy_attribute', 'category']))),
        placement: Type.Optional(StringEnum(['tail'])),
        max_candidates_per_item: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
      },
      { additionalProperties: false },
    ),
  ),
  catalog_id: Type.Optional(Type.String({ format: 'uuid' })),
  source_catalog_id: Type.Optional(Type.String({ format: 'uuid' })),
  async_mode: Type.Optional(Type.Boolean({ description: d('async_mode') })),
  max_rows: Type.Optional(Type.Integer({ minimum: 1 })),
  source_activity_id: Type.Optional(Type.String({ format: 'uuid' })),
  reextract_from_activity_id: Type.Optional(Type.String({ format: 'uuid' })),
  include_source_explanations: Type.Optional(Type.Boolean({ description: d('include_source_explanations') })),
  include_service_usage: Type.Optional(Type.Boolean({ description: d('include_service_usage') })),
  pricing_estimates: Type.Optional(Type.Boolean({ description: 'Accepted for existing clients: the job response always carries pricing_estimates.' })),
  capture_source_artifacts: Type.Optional(Type.Boolean({ description: d('capture_source_artifacts') })),
  host_media: Type.Optional(Type.Boolean({ description: d('host_media') })),
  strict_hosted_media: Type.Optional(Type.Boolean({ description: d('strict_hosted_media') })),
  webhook_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2000 })),
  global_feedback: Type.Optional(Type.String({ maxLength: 20000 })),
  item_feedback: Type.Optional(
    Type.Unsafe<Record<string, string>>({
      type: 'object',
      additionalProperties: Type.String({ maxLength: 20000 }),
      description: 'Row index (as a string) → feedback text, for re-extraction.',
    }),
  ),
  source_row_indices: Type.Optional(Type.Array(Type.Integer({ minimum: 0 }), { maxItems: 100000 })),
  staged_status: Type.Optional(StringEnum(['pending', 'draft'], { description: d('staged_status') })),
  knowledge_base_enabled: Type.Optional(Type.Boolean()),
  knowledge_base_sources: Type.Optional(Type.Unsafe<Record<string, string>>({ type: 'object', additionalProperties: Type.String() })),
  knowledge_base_metadata: Type.Optional(AnyObject()),
  knowledge_base_vector_store_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 500,
      description:
        'Id of an external vector store (sent by existing clients): recorded on the job; this service searches only uploaded knowledge_base_files, so a notice says the store was not used.',
    }),
  ),
  review_mode: Type.Optional(
    Type.Unsafe<'all' | 'flagged' | boolean>({
      enum: ['all', 'flagged', true, false],
      description: `${d('review_mode')} "flagged": the post-enrichment audit runs; changes it passes are staged as draft, the others as pending. The boolean form of existing clients: true = the post-enrichment audit (as audit_decisions_enabled: true, every change staged), false = "all".`,
    }),
  ),
  audit_decisions_enabled: Type.Optional(
    Type.Boolean({
      description: `${d('audit_decisions_enabled')} Audits every result (pass | review_required | fail with reasons) into review_info.audit; the poll counts the decisions.`,
    }),
  ),
  image_processing: Type.Optional(
    Type.Object(
      {
        enabled: Type.Optional(Type.Boolean()),
        make_square: Type.Optional(Type.Boolean()),
        background_color: Type.Optional(
          Type.String({
            pattern: '^(#[0-9A-Fa-f]{3}|#[0-9A-Fa-f]{4}|#[0-9A-Fa-f]{6}|#[0-9A-Fa-f]{8}|[A-Za-z]{3,30})$',
            description: 'Hex (#fff, #ffffff, with alpha) or a CSS colour name.',
          }),
        ),
        min_side_px: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000 })),
        max_side_px: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000 })),
        output_format: Type.Optional(StringEnum(['jpeg', 'jpg', 'png', 'webp', 'avif'])),
        quality: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
        force_reprocess_hosted: Type.Optional(Type.Boolean()),
        fields: Type.Optional(Type.Array(Type.String())),
      },
      {
        additionalProperties: false,
        description:
          'With enabled: images of the media fields (or of `fields`) are resized within min_side_px..max_side_px, padded to a square on background_color (make_square), re-encoded as output_format at quality, and hosted by the service (implies host_media for them).',
      },
    ),
  ),
  include_debug_log: Type.Optional(Type.Boolean()),
  file_name: Type.Optional(Type.String({ maxLength: 500 })),
};

/**
 * `POST /public/enrich` JSON body: every parameter of docs/api-enrichment.md "Enrichment jobs" plus the fields of docs/api-enrichment.md "Enrichment jobs". Unknown keys are rejected with 422.
 */
export const enrichRequestSchema = Type.Object(
  {
    items: Type.Optional(
      Type.Array(AnyObject(), {
        maxItems: INLINE_ITEMS_LIMIT,
        description: `At most ${INLINE_ITEMS_LIMIT} items inline; larger jobs use multipart items_file.`,
      }),
    ),
    ...requestProperties,
  },
  { additionalProperties: false },
);

/** Multipart `request_json` (docs/api-enrichment.md "Enrichment jobs"): the JSON body without `items`. */
export const requestJsonSchema = Type.Object({ ...requestProperties }, { additionalProperties: false });

/** One output field of a validated request (`type` filled by Ajv's default). */
export type OutputFieldRequest = Validated<typeof outputFieldSchema>;

/** One output field as the schema accepts it, `type` possibly absent (an `attribute_sets` entry). */
export type OutputFieldInput = Static<typeof outputFieldSchema>;

/** A validated `POST /public/enrich` JSON body. The request-level defaults are NOT applied (see ENRICH_DEFAULTS). */
export type EnrichRequest = Validated<typeof enrichRequestSchema>;

/** A validated request without `items` (multipart `request_json`; template defaults minus `template_id`). */
export type EnrichRequestFields = Validated<typeof requestJsonSchema>;

/**
 * The members of the config stored on an enrichment job (`enrichment_jobs.config`; the model's
 * `EnrichJobConfig`, see the declaration below), built by
 * src/services/enrichment/jobs/request.ts: the request without `items`, with a template's defaults and
 * ENRICH_DEFAULTS filled in, plus the keys the service adds. The defaulted keys stay optional in
 * the type because resumed and re-extracted jobs copy an earlier job's config and prune it.
 */
type StoredJobConfig = Omit<EnrichRequestFields, 'taxonomy' | 'review_mode'> & {
  /** `review_mode` with the boolean form normalised (src/services/enrichment/jobs/request.ts `normalizeClientShapes`). */
  review_mode?: 'all' | 'flagged';
  /** The request's taxonomy, or else the target catalog's stored one (src/services/catalog/taxonomy.ts). */
  taxonomy?: EnrichRequestFields['taxonomy'] | Record<string, unknown>;
  /** The template whose defaults were applied, with its safety controls (src/services/enrichment/jobs/templates.ts). */
  template?: { id: string; name: string; safety: TemplateSafety };
  /** The catalog the results are staged against, when `catalog_id` is given. */
  catalog_target?: { catalog_id: string; unique_id_field: string; grouped: boolean };
  /** Distinct values the target catalog already holds, per output field name. */
  known_values?: Record<string, string[]>;
  /** Options stored without behaviour (shown as `notices` on the job). */
  recorded_noops?: string[];
  /**
   * The organization had no research source when the job was created, but the deployment fetches
   * the pages items name: rows whose item names one research that page only (no search), the
   * others read their own data (src/services/enrichment/rows/item-pages.ts; docs/research.md).
   */
  item_pages_only?: boolean;
  /** The target catalog's quality prompt, for the LLM step (src/services/enrichment/jobs/model-options.ts); only with a model. */
  quality_prompt?: string;
};

// The model names the column's shape (src/models/enrichment-job.ts); its members are the stored request's.
declare module '../models/enrichment-job' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the members come from the extended type
  interface EnrichJobConfig extends StoredJobConfig {}
}

/** Multipart form of `POST /public/enrich` (documentation; the upload middleware enforces it). */
export const enrichMultipartSchema = Type.Object({
  request_json: Type.String({ description: 'The enrich request as JSON, without items.' }),
  items_file: Type.String({
    format: 'binary',
    description:
      'Exactly one file: JSON (an array of item objects, or {"items": [...]}), or a CSV / XLSX / XLS spreadsheet whose header row names the fields (one item per row).',
  }),
  knowledge_base_files: Type.Optional(
    Type.Array(Type.String({ format: 'binary' }), { description: 'Optional documents, listed as SOURCE_1… in knowledge_base_sources.' }),
  ),
  knowledge_base_metadata_json: Type.Optional(
    Type.String({
      description:
        "Optional JSON object: the request's knowledge_base_metadata sent as its own form field (as existing clients do); not together with knowledge_base_metadata inside request_json.",
    }),
  ),
});

/** `POST /public/enrich/{job_id}/to-catalog` body (docs/api-enrichment.md "Job to catalog"). */
export const toCatalogBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
  },
  { additionalProperties: false },
);

/** Template defaults: any enrich request field except `items` and `template_id` (no nesting). */
export const templateDefaultsSchema = (() => {
  const { template_id: _t, ...props } = requestProperties;
  return Type.Object(props, { additionalProperties: false });
})();

/** A template's safety controls: a request can only narrow them (src/services/enrichment/jobs/templates.ts). */
export const templateSafetySchema = Type.Object(
  {
    allowed_domains: Type.Optional(domains()),
    blocked_domains: Type.Optional(domains()),
    web_search: Type.Optional(Type.Boolean()),
    max_rows: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

/** A validated template safety object. */
export type TemplateSafety = Validated<typeof templateSafetySchema>;

/** `POST /public/enrichment-templates` body. */
export const createTemplateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
    defaults: Type.Optional(templateDefaultsSchema),
    safety: Type.Optional(templateSafetySchema),
  },
  { additionalProperties: false },
);

/** A template as the template routes answer it (src/presenters/templates.ts); timestamps ISO-8601 UTC. */
export const templateResponse = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  defaults: AnyObject({ description: 'The enrich request fields the template fills when a request omits them' }),
  safety: templateSafetySchema,
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

/** `GET /public/enrichment-templates` answer: a page of templates, newest first, with the total. */
export const templateListResponse = Type.Object({
  templates: Type.Array(templateResponse),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
});

/** Path params `{job_id}`. */
export const jobIdParams = Type.Object({ job_id: Type.String({ description: 'Enrichment job id (UUID)' }) });

/** Poll query (docs/api-enrichment.md "Polling and listing jobs"). */
export const pollQuery = Type.Object({
  page: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: POSITION_MAX }), 1)),
  page_size: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: 1000 }), 1000)),
});

/** Job list query (docs/api-enrichment.md "Enrichment jobs", GET /public/enrich/jobs). */
export const listJobsQuery = Type.Object({
  status: Type.Optional(StringEnum(['running', 'completed', 'failed', 'cancelled'])),
  limit: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: 100 }), 20)),
  offset: Type.Optional(withDefault(Type.Integer({ minimum: 0, maximum: POSITION_MAX }), 0)),
});

/** The enrichment job response (docs/api-enrichment.md "Enrichment jobs"). */
export const jobResponseSchema = Type.Object({
  job_id: Type.String(),
  results: Type.Array(AnyObject()),
  total_items: Type.Integer(),
  total_rows: Type.Integer(),
  successful: Type.Integer(),
  credits_used: Type.Integer(),
  status: StringEnum(['running', 'completed', 'failed']),
  service_usage: Type.Optional(AnyObject()),
  pricing_estimates: AnyObject({ description: 'Always present: credits per successful item, items to process and carried, the estimate and its basis.' }),
  knowledge_base_enabled: Type.Optional(Type.Boolean()),
  knowledge_base_sources: Type.Optional(AnyObject()),
  page: Type.Optional(Type.Integer()),
  page_size: Type.Optional(Type.Integer()),
  total_pages: Type.Optional(Type.Integer()),
  completed_items: Type.Optional(Type.Integer()),
  current_step: Type.Optional(
    Type.Unsafe<'training_text_model' | 'enriching_items' | null>({
      type: ['string', 'null'],
      enum: ['training_text_model', 'enriching_items', null],
      description: 'What a running job is doing: training its text model on the catalog examples (web_search false), or enriching items; null once finished.',
    }),
  ),
  error: Type.Optional(Type.String()),
  review_url: Type.Optional(
    Type.String({
      description: 'With catalog_id: the review page of the job (an activity), absolute: {PUBLIC_URL}/dashboard/catalogs/{catalog_id}/activities/{job_id}',
    }),
  ),
  notices: Type.Optional(Type.Array(Type.String(), { description: 'Options stored without behaviour (recorded no-ops).' })),
  webhook: Type.Optional(AnyObject({ description: 'Webhook delivery state with every attempt (docs/api-enrichment.md "Webhooks").' })),
  audit: Type.Optional(
    Type.Object(
      {
        pass: Type.Optional(Type.Integer()),
        review_required: Type.Optional(Type.Integer()),
        fail: Type.Optional(Type.Integer()),
      },
      { description: 'With audit_decisions_enabled or review_mode "flagged": counts of the post-enrichment audit decisions over the processed rows.' },
    ),
  ),
});
