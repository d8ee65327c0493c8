import type { AppDeps } from '../deps';
import { Type } from '@sinclair/typebox';
import { POSITION_MAX, withDefault } from '../schemas/common';
import { createTemplateBody, templateListResponse, templateResponse } from '../schemas/enrich';
import { presentTemplate, presentTemplateList } from '../presenters/templates';
import { createTemplate, listTemplates, loadTemplate } from '../services/enrichment/jobs/templates';
import { defineRoute, RouteDef } from './registry';

const templateParams = Type.Object({ template_id: Type.String() });
const listQuery = Type.Object({
  limit: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: 100 }), 50)),
  offset: Type.Optional(withDefault(Type.Integer({ minimum: 0, maximum: POSITION_MAX }), 0)),
});

/** Enrichment templates (docs/api-enrichment.md "Enrichment templates"; POST added by this service to create them). */
export function templateRoutes(deps: AppDeps): RouteDef[] {
  const tags = ['enrichment'];
  return [
    defineRoute({
      method: 'post',
      path: '/public/enrichment-templates',
      tags,
      summary: 'Create an enrichment template (defaults + safety controls)',
      body: createTemplateBody,
      response: templateResponse,
      atomic: true,
      handler: async ({ scope, body, db }) => presentTemplate(await createTemplate(db, scope, body)),
    }),
    defineRoute({
      method: 'get',
      path: '/public/enrichment-templates',
      tags,
      summary: "List the organization's enrichment templates",
      query: listQuery,
      response: templateListResponse,
      handler: async ({ scope, query }) => presentTemplateList(await listTemplates(deps.knex, scope, query)),
    }),
    defineRoute({
      method: 'get',
      path: '/public/enrichment-templates/:template_id',
      tags,
      summary: 'One enrichment template',
      params: templateParams,
      response: templateResponse,
      handler: async ({ scope, params }) => presentTemplate(await loadTemplate(deps.knex, scope, params.template_id)),
    }),
  ];
}
