import type { Knex } from 'knex';
import { ValidationDetail, ValidationError } from '../../../lib/errors';
import { newId } from '../../../lib/ids';
import { fillUndefined } from '../../../lib/objects';
import type { EnrichRequest } from '../../../schemas/enrich';
import { EnrichmentTemplate, TemplateSafety } from '../../../models/enrichment-template';
import { loadOwned } from '../../access/ownership';
import type { Scope } from '../../access/scope';
import { newestFirstPage } from '../../../models/newest-first';

/**
 * Organization-scoped enrichment templates (docs/api-enrichment.md "Enrichment jobs" `template_id`; docs/api-enrichment.md "Enrichment templates":
 * `GET /public/enrichment-templates` and `GET …/{id}`; this service adds `POST` to create one).
 * A template has `defaults` (any enrich request field except `items`/`template_id`) that fill
 * the fields a request omits, and `safety` controls a request can only narrow, never widen.
 */

/** `POST /public/enrichment-templates` body (validated by src/schemas/enrich.ts createTemplateBody). */
export interface CreateTemplateInput {
  name: string;
  description?: string;
  defaults?: Record<string, unknown>;
  safety?: TemplateSafety;
}

/**
 * Creates a template. Defaults that contradict the template's own safety (e.g. default
 * `web_search: true` with safety `web_search: false`) are accepted: safety is applied after the
 * defaults, so it always wins.
 * @throws ValidationError (422) when a default names `source_activity_id` or `reextract_from_activity_id`
 *   (a template is a reusable recipe, not a pointer to one job)
 */
export async function createTemplate(knex: Knex, scope: Scope, input: CreateTemplateInput): Promise<EnrichmentTemplate> {
  const defaults = input.defaults ?? {};
  const details: ValidationDetail[] = [];
  for (const key of ['source_activity_id', 'reextract_from_activity_id']) {
    if (key in defaults) details.push({ loc: ['body', 'defaults', key], msg: `${key} cannot be a template default`, type: 'value_error' });
  }
  if (details.length) throw new ValidationError(details);
  const id = newId();
  const now = new Date();
  await EnrichmentTemplate.query(knex).insert({
    id,
    organization_id: scope.organizationId,
    name: input.name,
    description: input.description ?? null,
    defaults,
    safety: input.safety ?? {},
    created_at: now,
    updated_at: now,
  });
  return loadTemplate(knex, scope, id);
}

/**
 * Loads a template of the scope's organization.
 * @throws NotFoundError `Template not found` (404); ForbiddenError (403) for another organization's
 */
export function loadTemplate(knex: Knex | Knex.Transaction, scope: Scope, id: string): Promise<EnrichmentTemplate> {
  return loadOwned<EnrichmentTemplate>(knex, EnrichmentTemplate, id, scope, 'Template not found');
}

/** One page of an organization's templates. */
export interface TemplateList {
  templates: EnrichmentTemplate[];
  total: number;
  limit: number;
  offset: number;
}

/** Lists the organization's templates, newest first: `{templates, total, limit, offset}`. */
export async function listTemplates(knex: Knex, scope: Scope, q: { limit: number; offset: number }): Promise<TemplateList> {
  const base = EnrichmentTemplate.query(knex).where({ organization_id: scope.organizationId });
  const { rows: templates, total } = await newestFirstPage(base, q);
  return { templates, total, limit: q.limit, offset: q.offset };
}

/** True when `domain` is `parent` or one of its subdomains (how the engine reads domain lists). */
function within(domain: string, parent: string): boolean {
  const d = domain.toLowerCase().replace(/^www\./, '');
  const p = parent.toLowerCase().replace(/^www\./, '');
  return d === p || d.endsWith(`.${p}`);
}

/**
 * Merges a template into a request: template defaults fill every field the request omitted
 * (keys absent from `req`), then the safety controls are enforced so the request can only narrow
 * them: `allowed_domains` = the request's domains that lie within the template's (plus the
 * template's that lie within the request's), `blocked_domains` = union, `max_rows` = minimum,
 * `web_search` = false when either says false.
 * @param req the validated request, before defaults are applied
 * @returns a new request object
 * @throws ValidationError (422) at `body.allowed_domains` when the request's allowed domains lie
 *   entirely outside the template's (an empty intersection would otherwise mean "any domain")
 */
export function applyTemplate(req: EnrichRequest, template: EnrichmentTemplate): EnrichRequest {
  const out: EnrichRequest = { ...req };
  fillUndefined(out, template.defaults);
  const s = template.safety ?? {};
  if (s.allowed_domains?.length) {
    if (out.allowed_domains?.length) {
      const reqDomains = out.allowed_domains;
      const kept = [
        ...reqDomains.filter((r) => s.allowed_domains!.some((t) => within(r, t))),
        ...s.allowed_domains.filter((t) => reqDomains.some((r) => within(t, r) && !within(r, t))),
      ];
      if (kept.length === 0)
        throw ValidationError.at(['body', 'allowed_domains'], `The template only allows ${s.allowed_domains.join(', ')}`, 'template_safety');
      out.allowed_domains = [...new Set(kept)];
    } else out.allowed_domains = [...s.allowed_domains];
  }
  if (s.blocked_domains?.length) out.blocked_domains = [...new Set([...(out.blocked_domains ?? []), ...s.blocked_domains])];
  if (s.max_rows !== undefined) out.max_rows = Math.min(out.max_rows ?? Number.POSITIVE_INFINITY, s.max_rows);
  if (s.web_search === false) out.web_search = false;
  return out;
}
