import type { AppDeps } from '../deps';
import type { JsonSchema } from '../lib/validation';
import { createTemplateBody } from '../schemas/enrich';
import { presentTemplate, presentTemplateList } from '../presenters/enrichment-template';
import { createTemplate, listTemplates, loadTemplate } from '../services/enrichment/templates';
import type { RouteDef } from './registry';

const templateParams: JsonSchema = { type: 'object', required: ['template_id'], properties: { template_id: { type: 'string' } } };
const listQuery: JsonSchema = {
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 }, offset: { type: 'integer', minimum: 0, default: 0 } },
};

/** Enrichment templates (decisions.md §4, G20; POST added by this service to create them). */
export function templateRoutes(deps: AppDeps): RouteDef[] {
  const tags = ['enrichment'];
  return [
    {
      method: 'post', path: '/public/enrichment-templates', tags, summary: 'Create an enrichment template (defaults + safety controls)',
      body: createTemplateBody,
      handler: async ({ scope, body }) => presentTemplate(await createTemplate(deps.knex, scope, body)),
    },
    {
      method: 'get', path: '/public/enrichment-templates', tags, summary: 'List the organization\'s enrichment templates',
      query: listQuery,
      handler: async ({ scope, query }) => presentTemplateList(await listTemplates(deps.knex, scope, query)),
    },
    {
      method: 'get', path: '/public/enrichment-templates/:template_id', tags, summary: 'One enrichment template',
      params: templateParams,
      handler: async ({ scope, params }) => presentTemplate(await loadTemplate(deps.knex, scope, params.template_id)),
    },
  ];
}
