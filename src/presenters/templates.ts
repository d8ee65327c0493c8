import { iso } from '../lib/time';
import type { EnrichmentTemplate } from '../models/enrichment-template';
import type { TemplateList } from '../services/enrichment/jobs/templates';

/** Wire shape of an enrichment template (docs/api-enrichment.md "Enrichment templates"); timestamps ISO-8601 UTC. */
export function presentTemplate(t: EnrichmentTemplate): Record<string, unknown> {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    defaults: t.defaults,
    safety: t.safety,
    created_at: iso(t.created_at),
    updated_at: iso(t.updated_at),
  };
}

/** `GET /public/enrichment-templates`: `{templates, total, limit, offset}`. */
export function presentTemplateList(list: TemplateList): Record<string, unknown> {
  return { templates: list.templates.map(presentTemplate), total: list.total, limit: list.limit, offset: list.offset };
}
