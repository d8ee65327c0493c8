/**
 * Defaults of the enrich request (docs/api-enrichment.md "Enrichment jobs"). They are
 * applied by the service AFTER a template's defaults (a template fills what the request omits,
 * so Ajv must not fill them first); the request schema (./enrich.ts) only documents them, and the
 * service (src/services/enrichment/jobs/request.ts) applies them.
 */
export const ENRICH_DEFAULTS = {
  prompt: '',
  speed: 'deep',
  web_search: true,
  predict_taxonomy: false,
  predict_taxonomy_attributes: true,
  validate_semantics: false,
  async_mode: false,
  include_source_explanations: true,
  include_service_usage: false,
  capture_source_artifacts: false,
  host_media: false,
  strict_hosted_media: false,
  staged_status: 'pending',
  review_mode: 'all',
  audit_decisions_enabled: false,
} as const;
